"""Per-grid references of the primitives on a grid's layout as a whole (`dsl/layout.py`): patterns continued,
a band tiled, a grid grown to a square, rings reversed, the centre line kept, open lanes filled, a row laid on a
diagonal, lines given their most frequent colour, sorted or continued."""
from __future__ import annotations

from .base import H, W, background
from .geometry import dmirror


def continue_pattern(g, axis):
    if axis == "v":
        out = continue_pattern(dmirror(g), "h")
        return None if out is None else dmirror(out)
    cols = [j for j in range(W(g)) if any(r[j] for r in g)]
    if not cols or cols[-1] == W(g) - 1:
        return None
    first, last = cols[0], cols[-1]
    for p in range(1, last - first + 1):
        if all(r[j] == r[j + p] for r in g for j in range(first, last - p + 1)):
            return [[r[j] if j <= last else r[first + (j - first) % p] for j in range(W(g))] for r in g]
    return None



def tile_band(g, axis):
    if axis == "v":
        out = tile_band(dmirror(g), "h")
        return None if out is None else dmirror(out)
    cols = [j for j in range(W(g)) if any(r[j] for r in g)]
    if not cols or cols[-1] - cols[0] + 1 == W(g):
        return None
    first, span = cols[0], cols[-1] - cols[0] + 1
    return [[r[first + (j - first) % span] for j in range(W(g))] for r in g]



def grow_square(g, axis):
    if axis == "h":
        out = grow_square(dmirror(g), "v")
        return None if out is None else dmirror(out)
    h, w = H(g), W(g)
    if h >= w or not any(any(r) for r in g):
        return None

    def moved(row, s):
        return [row[j - s] if 0 <= j - s < w else 0 for j in range(w)]
    for p in range(1, h // 2 + 1):
        for s in (0, 1, -1, 2, -2, 3, -3):
            if all(list(g[r]) == moved(g[r - p], s) for r in range(p, h)):
                out = [list(r) for r in g]
                for r in range(h, w):
                    out.append(moved(out[r - p], s))
                return out
    return None



def reverse_rings(g):
    rings = (min(H(g), W(g)) + 1) // 2
    colour: dict = {}
    for i in range(H(g)):
        for j in range(W(g)):
            k = min(i, j, H(g) - 1 - i, W(g) - 1 - j)
            if colour.setdefault(k, g[i][j]) != g[i][j]:
                return None
    return [[colour[rings - 1 - min(i, j, H(g) - 1 - i, W(g) - 1 - j)] for j in range(W(g))] for i in range(H(g))]



def keep_centre(g, axis):
    if (H(g) if axis == "h" else W(g)) % 2 == 0:
        return None
    bg = background(g)
    if axis == "h":
        return [list(r) if i == H(g) // 2 else [bg] * W(g) for i, r in enumerate(g)]
    return [[v if j == W(g) // 2 else bg for j, v in enumerate(r)] for r in g]



def open_lines(g, c):
    """Rows whose cells inside the outer ring are all 0, and such columns: those cells become c; None below
    3x3 or without such a line."""
    if H(g) < 3 or W(g) < 3:
        return None
    rows = {i for i in range(1, H(g) - 1) if not any(g[i][1:-1])}
    cols = {j for j in range(1, W(g) - 1) if not any(g[i][j] for i in range(1, H(g) - 1))}
    if not rows and not cols:
        return None
    return [[c if 0 < i < H(g) - 1 and 0 < j < W(g) - 1 and (i in rows or j in cols) else g[i][j]
             for j in range(W(g))] for i in range(H(g))]



def line_major(g):
    """Each row takes its most frequent colour (ties: the smaller colour), or each column where that changes
    fewer cells. None where nothing changes."""
    def rows(x):
        return [[min(set(r), key=lambda v: (-r.count(v), v))] * len(r) for r in x]

    by_row, by_col = rows(g), [list(c) for c in zip(*rows([list(c) for c in zip(*g)]))]

    def changed(x):
        return sum(a != b for r, s in zip(x, g) for a, b in zip(r, s))
    out = by_row if changed(by_row) <= changed(by_col) else by_col
    return out if changed(out) else None



def diag_square(g):
    """A row (or column) of n >= 2 cells: the n x n grid with them on its main diagonal, 0 elsewhere."""
    if H(g) != 1 and W(g) != 1:
        return None
    cells = g[0] if H(g) == 1 else [r[0] for r in g]
    n = len(cells)
    return [[cells[i] if i == j else 0 for j in range(n)] for i in range(n)] if n >= 2 else None



def sort_lines(g, axis, order):
    if axis == "cols":
        return dmirror(sort_lines(dmirror(g), "rows", order))
    bg = background(g)
    return sorted([list(r) for r in g], key=lambda r: (1 if order == "asc" else -1) * sum(v != bg for v in r))



def continue_lines(g, axis):
    if axis == "cols":
        return dmirror(continue_lines(dmirror(g), "rows"))
    bg = background(g)
    full = [r for r in g if bg not in r]
    out = [list(r) for r in g]
    for i, r in enumerate(g):
        p = next((j for j, v in enumerate(r) if v == bg), W(g))  # the row's run from its start
        if not full or p in (0, W(g)) or any(v != bg for v in r[p:]):
            continue
        m: dict = {}  # the first full row's colour -> this row's, over the run
        if all(m.setdefault(t, v) == v for t, v in zip(full[0], r[:p])):
            out[i] = list(r[:p]) + [m.get(t, bg) for t in full[0][p:]]
    return out
