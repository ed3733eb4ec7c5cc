"""Rectangles in a grid: `keep_rect` keeps only the largest solid one-colour rectangle (`91714a58`: a block
hidden in noise). Meant for a task's inputs: the built-in search applies it at depth 1 only.

The whole batch at once: each cell's same-colour run rightwards and downwards by one scan each, then for every
height (1-30) the narrowest run over that many rows below each cell, as arrays [B, 30, 30]; each grid keeps
the largest area, ties to the first corner in reading order and then the shorter rectangle, as
`reference.keep_rect` does.
"""
from __future__ import annotations

from ..grids import MAX, PAD, GridBatch
from ..kernels import background
from . import reference as ref
from .registry import family

_ROW = MAX * MAX  # a corner's place in a key: row * 900 + column * 30, then the height - 1 (all < 27,000)
_SPAN = 32768  # what one cell of area weighs in a key, above any corner and height


def _runs(xp, d, axis: int):
    """[B, 30, 30]: how many cells from each cell onwards (rightwards for axis 2, down for 1) share its colour."""
    a = d if axis == 2 else d.transpose(0, 2, 1)
    run = xp.ones(a.shape, xp.int64)
    for j in range(MAX - 2, -1, -1):
        run[:, :, j] += xp.where(a[:, :, j + 1] == a[:, :, j], run[:, :, j + 1], 0)
    return run if axis == 2 else run.transpose(0, 2, 1)


@family("keep_rect", "objects", ref.keep_rect, padded=True, first=True)
def keep_rect(g: GridBatch) -> GridBatch:
    """Keep only the largest solid one-colour rectangle of non-background cells (ties: the first top-left corner
    in reading order, then the shorter); every other cell becomes the background colour; invalid where nothing
    changes."""
    xp = g.xp
    n = len(g)
    d = g.data
    bg = background(g).reshape(n, 1, 1)
    valid = d < PAD
    right, down = _runs(xp, d, 2), _runs(xp, d, 1)
    corner = valid & (d != bg)
    r = xp.arange(MAX)
    place = (r.reshape(1, MAX, 1) * _ROW + r.reshape(1, 1, MAX) * MAX)
    width = right.copy()
    best = xp.full(n, -1, xp.int64)
    for hh in range(1, MAX + 1):
        rows = MAX - hh + 1
        if hh > 1:
            width = xp.minimum(width[:, :rows], right[:, hh - 1:])
        fits = corner[:, :rows] & (down[:, :rows] >= hh)
        key = xp.where(fits, hh * width * _SPAN - place[:, :rows] - (hh - 1), -1)
        best = xp.maximum(best, key.reshape(n, -1).max(axis=1))
    area = (best + _SPAN - 1) // _SPAN
    idx = area * _SPAN - best
    t, left, hh = idx // _ROW, (idx % _ROW) // MAX, idx % MAX + 1
    wide = area // hh
    i, j = r.reshape(1, MAX, 1), r.reshape(1, 1, MAX)
    inside = ((i >= t.reshape(n, 1, 1)) & (i < (t + hh).reshape(n, 1, 1)) & (j >= left.reshape(n, 1, 1))
              & (j < (left + wide).reshape(n, 1, 1)))
    out = xp.where(valid & ~inside, bg, d).astype(xp.uint8)
    ok = (g.h > 0) & (best >= 0) & (out != d).any(axis=(1, 2))
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)
