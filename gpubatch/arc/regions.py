"""Region features of the local-rule tables (`rules`): per cell, facts of its region (4-connected, one colour,
every colour, 0 included), for the `region`, `extreme`, `holes`, `touch` and `shape` kinds. Each labels every colour's
regions of every grid (`labels`, memoized on the batch) and sums per region with one `bincount`, on NumPy or CuPy.

`shape` names a region's shape wherever it lies: a sum, over its cells, of a fixed random code of each cell's place
relative to the region's first cell. "Same shape, same colour" is read off an ARC-AGI-2 training task that is in
neither ARC-AGI-1 set (ad38a9d0: each shape of 6s takes a colour of its own)."""
from __future__ import annotations

import numpy as np

from .dsl.objects import labels, per_label, per_region, sizes_of
from .grids import CELLS, MAX, PAD, GridBatch
from .kernels import background, memo


def region(g: GridBatch):
    """Per cell, bits of its region (4-connected, one colour, every colour): 1 a filled rectangle, 2 touches the
    border, 4 a square. A connected set of cells is a rectangle when no 2 x 2 window holds exactly three of
    them (a concave corner, outside or at a hole); a rectangle is a square when its first row holds as many of
    its cells as it has rows. Memoized on the batch (`holes` reads it too)."""
    return memo(g, ("region",), lambda: _region_codes(g))


def _region_codes(g: GridBatch):
    """`region` computed."""
    xp = g.xp
    n = len(g)
    d = g.data.astype(xp.int64)
    p = xp.pad(d, ((0, 0), (1, 1), (1, 1)), constant_values=PAD)
    corner = xp.zeros((n, MAX + 1, MAX + 1, 4), bool)  # per window (top-left at i-1, j-1): its 4 cells
    w = [p[:, :-1, :-1], p[:, :-1, 1:], p[:, 1:, :-1], p[:, 1:, 1:]]
    for k in range(4):  # the cell is one of exactly three of its colour in the window
        same = sum((w[k] == w[o]).astype(xp.int64) for o in range(4) if o != k)
        corner[..., k] = (same == 2) & (w[k] < PAD)
    bad = corner[:, 1:, 1:, 0] | corner[:, 1:, :-1, 1] | corner[:, :-1, 1:, 2] | corner[:, :-1, :-1, 3]
    lab = labels(g, 4, False, True).astype(xp.int64)
    r = xp.arange(MAX).reshape(1, MAX, 1)
    c = xp.arange(MAX).reshape(1, 1, MAX)
    edge = (r == 0) | (c == 0) | (r == g.h.reshape(-1, 1, 1) - 1) | (c == g.w.reshape(-1, 1, 1) - 1)
    first_row = (r == (lab // MAX).reshape(n, MAX, MAX)) & (lab.reshape(n, MAX, MAX) >= 0)
    size = per_region(g, xp.ones((n, CELLS), bool))
    width = per_region(g, first_row)
    rect = per_region(g, bad) == 0
    square = rect & (size == width * width)
    code = rect.astype(xp.int64) | (per_region(g, edge) > 0).astype(xp.int64) << 1 | square.astype(xp.int64) << 2
    return xp.where(lab >= 0, code, 0).reshape(n, MAX, MAX)


def _around(xp, a):
    """The four orthogonal neighbours of every cell of `a` ([B, 30, 30]: up, down, left, right), PAD beyond it."""
    p = xp.pad(a, ((0, 0), (1, 1), (1, 1)), constant_values=PAD)
    return p[:, :-2, 1:-1], p[:, 2:, 1:-1], p[:, 1:-1, :-2], p[:, 1:-1, 2:]


def holes(g: GridBatch):
    """Per cell, 1 where its region (4-connected, one colour, every colour) borders a *closed* region of another
    colour, one that does not reach the grid's border: a ring (beside its hole), its hole (beside the ring, if
    that is closed too) and the background around a closed ring; not an open shape beside open regions only."""
    xp = g.xp
    n = len(g)
    d = g.data.astype(xp.int64)
    closed = ((region(g) >> 1) & 1) == 0
    inside = xp.where(closed & (d < PAD), d, PAD)  # a cell's colour where its region is closed
    beside = xp.zeros(d.shape, bool)
    for nb in _around(xp, inside):
        beside |= (nb < PAD) & (nb != d)
    lab = labels(g, 4, False, True)
    return ((lab >= 0) & (per_region(g, beside) > 0)).astype(xp.int64).reshape(n, MAX, MAX)


def extreme(g: GridBatch):
    """Per cell, bits of its region (4-connected, one colour, every colour): 1 the largest of its colour in its
    grid, 2 the smallest (both where it is the only one)."""
    xp = g.xp
    n = len(g)
    d = g.data.reshape(n, CELLS)
    size = sizes_of(g, 4, False, True).reshape(n, CELLS)
    code = xp.zeros((n, CELLS), xp.int64)
    for c in range(PAD):
        mine = d == c
        big = xp.where(mine, size, 0).max(axis=1, keepdims=True)
        small = xp.where(mine, size, CELLS + 1).min(axis=1, keepdims=True)
        code += mine * ((size == big) | (size == small) << 1)
    return code.reshape(n, MAX, MAX)


def touching(g: GridBatch):
    """Per cell, bit c (0-9) set where its region (4-connected, one colour, every colour) has a cell of colour c
    beside it (up, down, left or right), c not its own; nothing for the outside of the grid. One `bincount` a
    colour."""
    xp = g.xp
    n = len(g)
    d = g.data.astype(xp.int64)
    around = _around(xp, d)
    code = xp.zeros((n, CELLS), xp.int64)
    for c in range(PAD):
        beside = xp.zeros(d.shape, bool)
        for nb in around:
            beside |= nb == c
        code |= (per_region(g, beside & (d != c)) > 0).astype(xp.int64) << c
    lab = labels(g, 4, False, True)
    return xp.where((lab >= 0) & (d.reshape(n, CELLS) < PAD), code, 0).reshape(n, MAX, MAX)


_SPAN = 2 * MAX  # columns of the place table: a cell lies 0..29 rows below its region's first cell, -29..29 across
_SEED = 0x5EED


def _owned(g: GridBatch):
    """bool [B, 900]: the cells that belong to a shape (inside the grid, not the grid's background colour)."""
    d = g.data.reshape(len(g), CELLS)
    return (d < PAD) & (d != background(g).reshape(-1, 1))


def _place_codes(xp):
    """int64 [30 * 60]: a fixed random code below 2**20 for each place relative to a region's first cell."""
    return xp.asarray(np.random.default_rng(_SEED).integers(1, 1 << 20, size=MAX * _SPAN, dtype=np.int64))


def shape_codes(g: GridBatch):
    """int64 [B, 30, 30]: per cell, a code of its region's shape (below 2**30: at most 900 places of codes below
    2**20, summed exactly in float64), equal for regions of one shape wherever they lie; 0 for the background
    and outside the grid. Places are taken from the region's first cell in reading order, which every copy of
    a shape has at the same place of it."""
    xp = g.xp
    n = len(g)
    lab = labels(g, 4, False, True).astype(xp.int64)
    cell = xp.arange(CELLS, dtype=xp.int64).reshape(1, CELLS)
    start = xp.where(lab >= 0, lab, cell)
    place = (cell // MAX - start // MAX) * _SPAN + (cell % MAX - start % MAX) + MAX
    code = _place_codes(xp)[place]
    total = xp.rint(per_label(xp, lab, code)).astype(xp.int64)
    return xp.where(_owned(g), total, 0).reshape(n, MAX, MAX)
