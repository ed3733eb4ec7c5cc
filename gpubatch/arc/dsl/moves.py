"""Moves of part of a grid: `gravitate(c)` moves every cell that is neither colour c nor background, as one
piece, straight towards the cells of colour c until the two touch (arc-dsl's `gravitate` and `move`;
`05f2a901`); `attract(c)` moves each such cell alone towards the nearest cell of colour c in line; `attach` moves
each lone cell to the nearest line or shape of its own colour; `reflect(c)` mirrors each cell across the
nearest cell of colour c; `centre_on(c)` centres the rest on colour c's box. Meant for a task's inputs (the
built-in search applies them at depth 1 only).

The piece moves along the axis on which the two boxes overlap (columns first: up or down), towards the other;
with no overlap, or with the boxes overlapping on both axes, the grid gives no result. The whole batch at once:
every distance 0-29 in every direction is tried as a shifted mask against the 4-neighbourhood of colour c, and
each grid takes the first distance at which its piece touches. `attract` finds each cell's distance to colour c
in each direction by one scan over the rows (or columns), each row from the one before it; `attach` scans the
ten colours' targets as one batch ten times as deep.
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


def extents(xp, mask):
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
    (fr0, fr1), (fc0, fc1) = extents(xp, fixed)
    (mr0, mr1), (mc0, mc1) = extents(xp, piece)
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
    out, _, fits = _move_piece(g, piece, step[:, 0] * dist, step[:, 1] * dist)
    return GridBatch(out, xp.where(ok & fits, g.h, 0).astype(xp.int32), g.w)


def _move_piece(g: GridBatch, piece, si, sj):
    """Move the cells of `piece` [B, 30, 30] by (si, sj) [B] as one, the background left behind: the grids, where
    the moved cells are, and whether every cell stays inside its grid."""
    xp = g.xp
    n = len(g)
    d = g.data
    r = xp.arange(MAX)
    src_i, src_j = r.reshape(1, MAX, 1) - si.reshape(n, 1, 1), r.reshape(1, 1, MAX) - sj.reshape(n, 1, 1)
    inside = (src_i >= 0) & (src_i < MAX) & (src_j >= 0) & (src_j < MAX)
    flat = (xp.arange(n).reshape(n, 1, 1) * CELLS + xp.clip(src_i, 0, MAX - 1) * MAX + xp.clip(src_j, 0, MAX - 1))
    moved = inside & piece.reshape(-1)[flat]
    fits = moved.sum(axis=(1, 2)) == piece.sum(axis=(1, 2))
    hh, ww = g.h.reshape(n, 1, 1), g.w.reshape(n, 1, 1)
    fits &= ~(moved & ((r.reshape(1, MAX, 1) >= hh) | (r.reshape(1, 1, MAX) >= ww))).any(axis=(1, 2))
    out = xp.where(piece, background(g).reshape(n, 1, 1).astype(d.dtype), d)
    return xp.where(moved, d.reshape(-1)[flat], out).astype(xp.uint8), moved, fits


@family("centre_on", "other", ref.centre_on, (Param("c", COLOURS[1:]),), padded=True, first=True)
def centre_on(g: GridBatch, c: int) -> GridBatch:
    """Every cell neither colour c nor background moves, as one piece, so that its bounding box is centred on
    colour c's (`a1570a43`: a shape into the frame its four corners mark); invalid where the centres differ by a
    half cell, the piece would leave the grid or land on colour c, or nothing moves."""
    xp = g.xp
    n = len(g)
    d = g.data
    fixed = d == c
    piece = ~fixed & (d < PAD) & (d != background(g).reshape(n, 1, 1))
    (fr0, fr1), (fc0, fc1) = extents(xp, fixed)
    (mr0, mr1), (mc0, mc1) = extents(xp, piece)
    twice_i, twice_j = fr0 + fr1 - mr0 - mr1, fc0 + fc1 - mc0 - mc1
    ok = fixed.any(axis=(1, 2)) & piece.any(axis=(1, 2)) & (twice_i % 2 == 0) & (twice_j % 2 == 0) & (g.h > 0)
    ok &= (twice_i != 0) | (twice_j != 0)
    out, moved, fits = _move_piece(g, piece, twice_i // 2, twice_j // 2)
    ok &= fits & ~(moved & fixed).any(axis=(1, 2))
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)


def _nearest(xp, target, di: int, dj: int):
    """[B, 30, 30] int32: steps from each cell to the first `target` cell in direction (di, dj), MAX + 1 where
    none is; one scan over the rows (the columns for a horizontal direction), each row from the one before."""
    if di == 0:
        return _nearest(xp, target.transpose(0, 2, 1), dj, 0).transpose(0, 2, 1)
    out = xp.full(target.shape, MAX + 1, xp.int32)
    lo, hi = max(0, -dj), MAX - max(0, dj)  # the columns whose neighbour (j + dj) is inside
    for i in range(MAX - 2, -1, -1) if di > 0 else range(1, MAX):
        ahead = out[:, i + di, lo + dj:hi + dj]
        out[:, i, lo:hi] = xp.where(target[:, i + di, lo + dj:hi + dj], 1, xp.minimum(ahead + 1, MAX + 1))
    return out


def _closest(xp, n: int, dists):
    """The least of the distances [B, 30, 30] that `dists` yields, one per direction, and the index of the
    first direction that reaches it; MAX + 1 where none does."""
    best = xp.full((n, MAX, MAX), MAX + 1, xp.int32)
    way = xp.zeros((n, MAX, MAX), xp.int32)
    for idx, dist in enumerate(dists):
        better = dist < best
        best, way = xp.where(better, dist, best), xp.where(better, idx, way)
    return best, way


def _land(xp, moving, best, way, steps):
    """Move each `moving` cell best - 1 steps along steps[way]: the flat source and destination indices."""
    src = xp.flatnonzero(moving)
    k = best.reshape(-1)[src] - 1
    step = xp.asarray(steps, dtype=xp.int64)[way.reshape(-1)[src]]
    return src, src + k * (step[:, 0] * MAX + step[:, 1]), k


def write_unless(xp, out, dst, values, grid, clash, n: int):
    """Write `values` at the flat indices `dst` of `out`, except in the grids where any write clashes: those
    grids [n] are returned as bad and left untouched, the same on both devices (no racing writes)."""
    bad = xp.bincount(grid[clash], minlength=n) > 0
    keep = ~bad[grid]
    out[dst[keep]] = values[keep]
    return bad


@family("attract", "other", ref.attract, (Param("c", COLOURS[1:]),), padded=True, first=True)
def attract(g: GridBatch, c: int) -> GridBatch:
    """Each cell neither colour c nor background moves, alone, towards the nearest cell of colour c in a
    straight line (8 directions) until beside it (`a48eeaf7`); one with none in line stays; invalid where two
    would land on one cell or nothing moves."""
    xp = g.xp
    n = len(g)
    d = g.data
    bg = background(g).reshape(n, 1, 1)
    target = d == c
    mover = (d < PAD) & ~target & (d != bg)
    best, way = _closest(xp, n, (_nearest(xp, target, di, dj) for di, dj in ref.ATTRACT_STEPS))
    moving = mover & (best <= MAX)
    out = xp.where(moving, bg, d).astype(xp.uint8).reshape(-1)
    src, dst, k = _land(xp, moving, best, way, ref.ATTRACT_STEPS)
    grid = src // CELLS
    clash = (out[dst] != bg.reshape(n)[grid]) | (xp.bincount(dst, minlength=n * CELLS)[dst] > 1)
    bad = write_unless(xp, out, dst, d.reshape(-1)[src], grid, clash, n)
    moved = xp.bincount(grid[k > 0], minlength=n) > 0
    ok = (g.h > 0) & moved & ~bad & (bg.reshape(n) != c)
    return GridBatch(out.reshape(n, MAX, MAX), xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("attach", "other", ref.attach, (), padded=True, first=True)
def attach(g: GridBatch) -> GridBatch:
    """Each lone cell (no 4-neighbour of its colour) moves straight to beside the nearest line or shape of its
    own colour, passing over anything (`1a07d186`, `d687bc17`); one with none in line is removed; invalid
    without a lone cell or where one would land on another colour."""
    xp = g.xp
    n = len(g)
    d = g.data
    bg = background(g).reshape(n, 1, 1)
    steps = ref.ATTRACT_STEPS[:4]
    cell = (d < PAD) & (d != bg)
    stay = cell & xp.stack([_shifted(xp, d, -di, -dj, PAD) == d for di, dj in steps]).any(axis=0)
    lone = cell & ~stay
    colours = xp.arange(10, dtype=d.dtype).reshape(1, 10, 1, 1)
    target = (stay[:, None] & (d[:, None] == colours)).reshape(n * 10, MAX, MAX)
    own = xp.minimum(d, 9).astype(xp.int64).reshape(n, 1, MAX, MAX)
    best, way = _closest(xp, n, (xp.take_along_axis(_nearest(xp, target, di, dj).reshape(n, 10, MAX, MAX), own,
                                                    axis=1)[:, 0] for di, dj in steps))
    out = xp.where(lone, bg, d).astype(xp.uint8).reshape(-1)
    src, dst, _ = _land(xp, lone & (best <= MAX), best, way, steps)
    grid = src // CELLS
    v = d.reshape(-1)[src].astype(xp.float64)
    count = xp.bincount(dst, minlength=n * CELLS)[dst]
    total = xp.bincount(dst, weights=v, minlength=n * CELLS)[dst]
    clash = (out[dst] != bg.reshape(n)[grid]) | (total != count * v)  # another colour lands on the same cell
    bad = write_unless(xp, out, dst, d.reshape(-1)[src], grid, clash, n)
    ok = (g.h > 0) & lone.any(axis=(1, 2)) & ~bad
    return GridBatch(out.reshape(n, MAX, MAX), xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("reflect", "other", ref.reflect, (Param("c", COLOURS[1:]),), padded=True, first=True)
def reflect(g: GridBatch, c: int) -> GridBatch:
    """Each cell neither colour c nor background moves to its mirror image across the nearest cell of colour c
    in line (4 directions; `6855a6e4`, `f8a8fe49`); one with none in line stays; invalid where a cell would
    leave the grid or land on another, or where nothing moves."""
    xp = g.xp
    n = len(g)
    d = g.data
    bg = background(g).reshape(n, 1, 1)
    steps = ref.ATTRACT_STEPS[:4]
    target = d == c
    best, way = _closest(xp, n, (_nearest(xp, target, di, dj) for di, dj in steps))
    moving = (d < PAD) & ~target & (d != bg) & (best <= MAX)
    out = xp.where(moving, bg, d).astype(xp.uint8).reshape(-1)
    src = xp.flatnonzero(moving)
    k = best.reshape(-1)[src].astype(xp.int64)
    step = xp.asarray(steps, dtype=xp.int64)[way.reshape(-1)[src]]
    grid = src // CELLS
    y = (src % CELLS) // MAX + 2 * k * step[:, 0]
    x = src % MAX + 2 * k * step[:, 1]
    inside = (y >= 0) & (y < g.h[grid]) & (x >= 0) & (x < g.w[grid])
    dst = grid * CELLS + xp.clip(y, 0, MAX - 1) * MAX + xp.clip(x, 0, MAX - 1)
    clash = ~inside | (out[dst] != bg.reshape(n)[grid]) | (xp.bincount(dst, minlength=n * CELLS)[dst] > 1)
    bad = write_unless(xp, out, dst, d.reshape(-1)[src], grid, clash, n)
    ok = (g.h > 0) & moving.any(axis=(1, 2)) & ~bad & (bg.reshape(n) != c)
    return GridBatch(out.reshape(n, MAX, MAX), xp.where(ok, g.h, 0).astype(xp.int32), g.w)
