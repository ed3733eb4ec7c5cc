"""Rigid moves of part of a grid: `gravitate(c)` moves every cell that is neither colour c nor background, as
one piece, straight towards the cells of colour c until the two touch (arc-dsl's `gravitate` and `move`;
`05f2a901`). Meant for a task's inputs (the built-in search applies it at depth 1 only).

The piece moves along the axis on which the two boxes overlap (columns first: up or down), towards the other;
with no overlap, or with the boxes overlapping on both axes, the grid gives no result. The whole batch at once:
every distance 0-29 in every direction is tried as a shifted mask against the 4-neighbourhood of colour c, and
each grid takes the first distance at which its piece touches.
"""
from __future__ import annotations

from ..grids import CELLS, MAX, PAD, GridBatch
from ..kernels import background
from . import reference as ref
from .colour import COLOURS
from .geometry import bbox_params
from .other import _shifted
from .registry import Param, family

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # down, up, right, left


def _extents(xp, mask):
    """First and last row, first and last column [B] that `mask` [B, 30, 30] reaches (`bbox_params`)."""
    top, left, h, w = bbox_params(xp, mask, True).T.astype(xp.int64)
    return (top, top + h - 1), (left, left + w - 1)


@family("gravitate", "other", ref.gravitate, (Param("c", COLOURS[1:]),), padded=True, first=True)
def gravitate(g: GridBatch, c: int) -> GridBatch:
    """Every cell neither colour c nor background moves, as one piece, straight towards colour c until the two
    touch; invalid without both, without one axis on which their boxes overlap, or where the piece would leave
    the grid."""
    xp = g.xp
    n = len(g)
    d = g.data
    fixed = d == c
    piece = (d != c) & (d < PAD) & (d != background(g).reshape(n, 1, 1))
    (fr0, fr1), (fc0, fc1) = _extents(xp, fixed)
    (mr0, mr1), (mc0, mc1) = _extents(xp, piece)
    both = fixed.any(axis=(1, 2)) & piece.any(axis=(1, 2))
    cols, rows = (mc0 <= fc1) & (fc0 <= mc1), (mr0 <= fr1) & (fr0 <= mr1)
    want = [cols & (mr1 < fr0), cols & (mr0 > fr1), ~cols & rows & (mc1 < fc0), ~cols & rows & (mc0 > fc1)]
    near = fixed.copy()
    for di, dj in _STEPS:
        near |= _shifted(xp, fixed, di, dj, False)
    dist = xp.full(n, MAX, xp.int64)
    step = xp.zeros((n, 2), xp.int64)
    for (di, dj), w in zip(_STEPS, want):
        first = xp.stack([(_shifted(xp, piece, k * di, k * dj, False) & near).any(axis=(1, 2))
                          for k in range(MAX)], axis=1)
        k = xp.where(first.any(axis=1), first.argmax(axis=1), MAX)
        dist = xp.where(w, k, dist)
        step = xp.where(w[:, None], xp.asarray([di, dj]), step)
    ok = both & (dist < MAX) & (g.h > 0)
    si = (step[:, 0] * dist).reshape(n, 1, 1)
    sj = (step[:, 1] * dist).reshape(n, 1, 1)
    r = xp.arange(MAX)
    src_i, src_j = r.reshape(1, MAX, 1) - si, r.reshape(1, 1, MAX) - sj
    inside = (src_i >= 0) & (src_i < MAX) & (src_j >= 0) & (src_j < MAX)
    flat = (xp.arange(n).reshape(n, 1, 1) * CELLS + xp.clip(src_i, 0, MAX - 1) * MAX + xp.clip(src_j, 0, MAX - 1))
    moved = inside & piece.reshape(-1)[flat]
    ok &= moved.sum(axis=(1, 2)) == piece.sum(axis=(1, 2))
    hh, ww = g.h.reshape(n, 1, 1), g.w.reshape(n, 1, 1)
    ok &= ~(moved & ((r.reshape(1, MAX, 1) >= hh) | (r.reshape(1, 1, MAX) >= ww))).any(axis=(1, 2))
    out = xp.where(piece, background(g).reshape(n, 1, 1).astype(d.dtype), d)
    out = xp.where(moved, d.reshape(-1)[flat], out).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)
