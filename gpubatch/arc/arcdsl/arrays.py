"""Array forms (NumPy) of per-value primitives whose cost grows with a product of sizes, used where the values
are large: `occurrences` (every window of the grid against every cell of the object, 3-7x faster than the loop
on a 27x27 grid with many matches).

Each form returns exactly the reference's value, its sets built in the reference's order so that they iterate
alike, or None where its input is outside what it handles (then the reference in `prims_*` runs, errors
included); `FORMS` replaces those primitives in the solver table, with `apply`, `mapply`, `sfilter` and
`mfilter` (`maps.py`: a shifted patch, `shifts.py`, or a function called once per group of elements,
`groups.py`), `argmin`/`argmax` by a distance (`nearest.py`) and `prapply` of `connect` (`lines.py`). A rectangle of one colour (`asobject` of a `canvas`, searched for at many sizes) is found by a
summed-area table instead of comparing every window, kept per grid, with `canvas` and `asobject` shared by
identity (`rects.py`).
"""
from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from . import lines, maps, nearest, prims_objects, rects
from .values import grid_array

MIN_WORK = 1024  # object cells x grid cells below which the reference's loop is as fast
def object_cells(patch: Any) -> np.ndarray | None:
    """An object (a frozenset of (colour, (i, j)) with integer parts) as [n, 3] int64 rows; None otherwise."""
    if type(patch) is not frozenset or not patch:
        return None
    try:
        flat = [(v, i, j) for v, (i, j) in patch]
    except (TypeError, ValueError):
        return None
    if not set(map(type, chain.from_iterable(flat))) <= {int, bool}:
        return None
    try:
        return np.array(flat, dtype=np.int64)
    except OverflowError:  # a colour or coordinate past 64 bits: the reference compares it exactly
        return None


def occurrences_array(grid: Any, obj: Any) -> frozenset | None:
    """Upper-left corners where every cell of the normalised object finds its colour in the grid, as the
    reference finds them; None where the input is not a grid and a non-empty object of integers."""
    g = grid_array(grid)
    cells = object_cells(obj) if g is not None else None
    if cells is None:
        return None
    cells[:, 1:] -= cells[:, 1:].min(axis=0)
    oh, ow = int(cells[:, 1].max()) + 1, int(cells[:, 2].max()) + 1
    h2, w2 = g.shape[0] - oh + 1, g.shape[1] - ow + 1
    if h2 <= 0 or w2 <= 0:
        return frozenset()
    if len(cells) == oh * ow and (cells[:, 0] == cells[0, 0]).all():
        hit = rects.full_windows(rects.summed(g == cells[0, 0]), oh, ow)  # a rectangle of one colour (bools too)
    else:
        g = np.ascontiguousarray(g)
        windows = np.ndarray((h2, w2, oh, ow), g.dtype, g, 0, g.strides * 2)  # every window, no copy
        hit = (windows[:, :, cells[:, 1], cells[:, 2]] == cells[:, 0]).all(axis=2)
    return frozenset(set(map(tuple, np.argwhere(hit).tolist())))  # row by row into a set, as the reference


def occurrences(grid, obj):
    """`occurrences` of the solver table: a one-colour rectangle by its summed-area table (`rects.py`), other
    objects by the array form where the grid and object are large."""
    found = rects.occurrences(grid, obj)
    if found is not None:
        return found
    if type(obj) is frozenset and type(grid) is tuple and grid and type(grid[0]) is tuple \
            and len(obj) * len(grid) * len(grid[0]) >= MIN_WORK:
        found = occurrences_array(grid, obj)
        if found is not None:
            return found
    return prims_objects.occurrences(grid, obj)


FORMS = {"occurrences": occurrences, "apply": maps.apply, "mapply": maps.mapply, "argmin": nearest.argmin,
         "argmax": nearest.argmax, "prapply": lines.prapply, "canvas": rects.canvas, "asobject": rects.asobject,
         "sfilter": maps.sfilter, "mfilter": maps.mfilter}
