"""Fixed windows: a task whose output is the part of the input at one place, counted from one of its corners.

In `5bd6f4ac` the output is the input's top-right 3 x 3 block, whatever the grid holds; in `d10ecb37` its
top-left 2 x 2. No primitive crops at a place learned from the demos, but the demos show it: every demo output
has one shape, and some offset from one corner (the same for every demo) puts a window of that shape on the
demo input's cells that equal its output. The test output is the test input's window there. Outputs of fewer
than 4 cells are left out (a 1 x 1 output matches some cell of every input by chance), and so are tasks
whose outputs are not smaller than their inputs (the identity's case).

The windows of a task are compared on the host with NumPy, a task at a time: this runs once per task, on
its demo grids, before the search (`LookupBook.fit_lookups`), and only for tasks of one smaller output shape.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

CORNERS = ("top-left", "top-right", "bottom-left", "bottom-right")
MIN_CELLS = 4


def _offsets(grid: np.ndarray, out: np.ndarray, corner: int) -> set[tuple[int, int]]:
    """The offsets (rows, columns from `corner`) where `grid`'s window of `out`'s shape equals `out`."""
    h, w = out.shape
    H, W = grid.shape
    if h > H or w > W:
        return set()
    hits = np.argwhere((sliding_window_view(grid, (h, w)) == out).all(axis=(2, 3)))
    return {(int(H - h - r if corner & 2 else r), int(W - w - c if corner & 1 else c)) for r, c in hits}


def fit_window(train) -> tuple[int, int, int] | None:
    """(corner, rows, columns) of the first corner (in `CORNERS` order, then the smallest offset) whose offset
    gives every demo output from its input; None when no corner does or the task is not of that form."""
    pairs = [(np.asarray(a), np.asarray(b)) for a, b in train]
    shapes = {b.shape for _, b in pairs}
    if len(pairs) < 2 or len(shapes) != 1:
        return None
    h, w = shapes.pop()
    if h * w < MIN_CELLS or any(a.shape == (h, w) for a, _ in pairs):
        return None
    for corner in range(len(CORNERS)):
        common: set | None = None
        for a, b in pairs:
            found = _offsets(a, b, corner)
            common = found if common is None else common & found
            if not common:
                break
        if common:
            return (corner, *min(common))
    return None


def window(grid, shape: tuple[int, int], at: tuple[int, int, int]) -> list[list[int]] | None:
    """`grid`'s window of `shape` at `at` (corner, rows, columns from it); None where it does not fit."""
    g = np.asarray(grid)
    (h, w), (corner, dr, dc) = shape, at
    r = g.shape[0] - h - dr if corner & 2 else dr
    c = g.shape[1] - w - dc if corner & 1 else dc
    if r < 0 or c < 0 or r + h > g.shape[0] or c + w > g.shape[1]:
        return None
    return g[r:r + h, c:c + w].tolist()
