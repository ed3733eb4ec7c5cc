"""Shape features of the local-rule tables (`rules`): per cell, how many holes its region has (`nholes`) and
which shape it is (`shape`), its region being 4-connected and one colour (every colour but the grid's
background). "Count the holes" and "same shape, same colour" are read off ARC-AGI-2 training tasks (0a2355a6,
37d3e8b2: each shape takes the colour of its number of holes; ad38a9d0: of its shape).

Both are whole-batch array code on NumPy or CuPy: the holes from each region's Euler number, summed over its
2 x 2 windows with one `bincount`; the shape as a sum, over the region's cells, of a fixed random code of each
cell's place relative to the region's first cell, so that a shape has the same code wherever it lies.
"""
from __future__ import annotations

import numpy as np

from .dsl.objects import labels, per_label
from .grids import CELLS, MAX, PAD, GridBatch
from .kernels import background

NONE = 15  # the hole count of background cells and cells outside the grid (counts are capped below it)
_SPAN = 2 * MAX  # columns of the place table: a cell lies 0..29 rows below its region's first cell, -29..29 across
_SEED = 0x5EED


def _owned(xp, g: GridBatch):
    """bool [B, 900]: the cells that belong to a shape (inside the grid, not the grid's background colour)."""
    d = g.data.reshape(len(g), CELLS)
    return (d < PAD) & (d != background(g).reshape(-1, 1))


def hole_counts(g: GridBatch):
    """int64 [B, 30, 30]: per cell, the holes of its region (the 8-connected parts of the other cells that it
    encloses), capped at 14; `NONE` for the background and outside the grid. A 4-connected region's Euler number
    is (Q1 - Q3 + 2 QD) / 4 over the 2 x 2 windows that hold 1, 3 or a diagonal pair of its cells (Gray's
    bit-quads), and its holes are 1 minus that."""
    xp = g.xp
    n = len(g)
    lab = labels(g, 4, False, True).astype(xp.int64).reshape(n, MAX, MAX)
    p = xp.pad(lab, ((0, 0), (1, 1), (1, 1)), constant_values=-1)
    w = [p[:, :-1, :-1], p[:, :-1, 1:], p[:, 1:, :-1], p[:, 1:, 1:]]  # a window's cells: tl, tr, bl, br
    base = xp.arange(n, dtype=xp.int64).reshape(n, 1, 1) * (CELLS + 1)
    glob, quad = [], []
    for k in range(4):  # each window counts once for each region in it, at the first of its cells there
        first = w[k] >= 0
        for o in range(k):
            first &= w[o] != w[k]
        same = [w[o] == w[k] for o in range(4)]
        count = sum(s.astype(xp.int64) for s in same)
        diag = (count == 2) & ((same[0] & same[3]) | (same[1] & same[2]))
        q = (count == 1).astype(xp.int64) - (count == 3).astype(xp.int64) + 2 * diag.astype(xp.int64)
        glob.append((base + w[k])[first])
        quad.append(q[first])
    euler4 = xp.bincount(xp.concatenate(glob), weights=xp.concatenate(quad).astype(xp.float64),
                         minlength=n * (CELLS + 1))
    at = (base.reshape(n, 1) + xp.where(lab.reshape(n, CELLS) >= 0, lab.reshape(n, CELLS), CELLS))
    holes = xp.clip(1 - xp.rint(euler4[at] / 4).astype(xp.int64), 0, NONE - 1)
    return xp.where(_owned(xp, g), holes, NONE).reshape(n, MAX, MAX)


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
    return xp.where(_owned(xp, g), total, 0).reshape(n, MAX, MAX)
