"""Shapes copied at markers: `mirror_around(c)` copies every other shape to its three mirror images across
the centre lines of colour c's bounding box (`4938f0c2`, `4c5c2cf0`: a shape in one quadrant of a small
symmetric marker is completed four-fold); `stamp_on(c)` copies the shape centred on each cell of colour c
(`88a10436`). Meant for a task's inputs: the built-in search applies them at depth 1 only. Whole batches on
NumPy or CuPy: boxes and their mirror tests as masks, the copies as one scatter (for `stamp_on`, every (marker,
shape cell) pair of a grid, laid out by one `searchsorted`).
"""
from __future__ import annotations

from ..grids import CELLS, MAX, PAD, GridBatch
from ..kernels import background
from . import reference as ref
from .colour import COLOURS
from .moves import extents, write_unless
from .registry import Param, family


def _scatter_clash(xp, d, bg, grid, y, x, v, h, w, n: int, also=None):
    """The flat destinations of writes of colours `v` at (y, x) in grids `grid`, and which writes clash: outside
    the grid, on a cell of another colour (other than background or `also` [B]), or beside a write of another
    colour to the same cell."""
    inside = (y >= 0) & (y < h[grid]) & (x >= 0) & (x < w[grid])
    dst = grid * CELLS + xp.clip(y, 0, MAX - 1) * MAX + xp.clip(x, 0, MAX - 1)
    there = d.reshape(-1)[dst].astype(xp.int64)
    free = (there == bg[grid]) | (there == v) | (False if also is None else there == also[grid])
    count = xp.bincount(dst, minlength=n * CELLS)[dst]
    total = xp.bincount(dst, weights=v.astype(xp.float64), minlength=n * CELLS)[dst]
    return dst, ~inside | ~free | (total != count * v)


def _expand(xp, counts):
    """For counts [K]: each of sum(counts) slots' owner (0..K-1, in order) and its rank among its owner's slots
    (`repeat` with per-item counts, which CuPy does not take as an array)."""
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if len(counts) else 0
    slot = xp.arange(total)
    owner = xp.searchsorted(ends, slot, side="right")
    return owner, slot - (ends - counts)[owner]


def _box(xp, mask):
    """Per grid of `mask` [B, 30, 30]: any cell, first + last row and first + last column (twice the centre)."""
    (top, bottom), (left, right) = extents(xp, mask)
    return mask.any(axis=(1, 2)), top + bottom, left + right


def _symmetric(xp, mask, ti, tj):
    """[B]: whether the cells of `mask` are the same under both mirrors of their bounding box."""
    n = len(mask)
    r = xp.arange(MAX)
    b = xp.arange(n).reshape(n, 1, 1)
    ri = xp.clip(ti.reshape(n, 1, 1) - r.reshape(1, MAX, 1), 0, MAX - 1)
    rj = xp.clip(tj.reshape(n, 1, 1) - r.reshape(1, 1, MAX), 0, MAX - 1)
    up = mask[b, ri, r.reshape(1, 1, MAX)]
    side = mask[b, r.reshape(1, MAX, 1), rj]
    return ~(mask & ~(up & side)).any(axis=(1, 2))


def _centre(xp, d, bg, c):
    """The marker colour [B], whether there is one, and twice its box's centre row and column."""
    n = len(d)
    valid = d < PAD
    if c != "sym":
        ok, ti, tj = _box(xp, d == c)
        return xp.full(n, c, xp.int64), ok & (bg != c), ti, tj
    best = xp.full(n, 1 << 30, xp.int64)
    colour, ti, tj = xp.zeros(n, xp.int64), xp.zeros(n, xp.int64), xp.zeros(n, xp.int64)
    for v in range(10):  # the fewest cells among the symmetric colours, then the smaller colour
        mask = valid & (d == v)
        some, vi, vj = _box(xp, mask)
        key = xp.where(some & (bg != v) & _symmetric(xp, mask, vi, vj), mask.sum(axis=(1, 2)) * 16 + v, 1 << 30)
        better = key < best
        best = xp.where(better, key, best)
        colour, ti, tj = (xp.where(better, a, b) for a, b in ((v, colour), (vi, ti), (vj, tj)))
    return colour, best < (1 << 30), ti, tj


@family("mirror_around", "other", ref.mirror_around, (Param("c", COLOURS[1:] + ("sym",)),), padded=True,
        first=True)
def mirror_around(g: GridBatch, c) -> GridBatch:
    """Every cell neither colour c nor background is copied to its three mirror images across the centre lines
    of colour c's bounding box (c=sym: the symmetric colour with the fewest cells); invalid where a copy would
    leave the grid or land on another colour."""
    xp = g.xp
    n = len(g)
    d = g.data
    bg = background(g).astype(xp.int64)
    colour, ok, si, sj = _centre(xp, d, bg, c)
    movers = (d < PAD) & (d != bg.reshape(n, 1, 1)) & (d != colour.reshape(n, 1, 1))
    src = xp.flatnonzero(movers)
    grid = src // CELLS
    i, j = (src % CELLS) // MAX, src % MAX
    mi, mj = si[grid] - i, sj[grid] - j
    y, x = xp.concatenate([mi, i, mi]), xp.concatenate([j, mj, mj])
    grid, v = xp.concatenate([grid] * 3), xp.concatenate([d.reshape(-1)[src].astype(xp.int64)] * 3)
    dst, clash = _scatter_clash(xp, d, bg, grid, y, x, v, g.h, g.w, n)
    out = d.reshape(-1).copy()
    bad = write_unless(xp, out, dst, v.astype(xp.uint8), grid, clash, n)
    ok = ok & (g.h > 0) & movers.any(axis=(1, 2)) & ~bad
    return GridBatch(out.reshape(n, MAX, MAX), xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("stamp_on", "other", ref.stamp_on, (Param("c", COLOURS[1:]),), padded=True, first=True)
def stamp_on(g: GridBatch, c: int) -> GridBatch:
    """The cells neither colour c nor background, as one shape, copied centred on each cell of colour c (the
    original stays); invalid where the shape has an even height or width, or a copy would leave the grid or land
    on another colour."""
    xp = g.xp
    n = len(g)
    d = g.data
    bg = background(g).astype(xp.int64)
    valid = d < PAD
    piece = valid & (d != bg.reshape(n, 1, 1)) & (d != c)
    mark = valid & (d == c)
    has, si, sj = _box(xp, piece)
    ok = has & mark.any(axis=(1, 2)) & (si % 2 == 0) & (sj % 2 == 0) & (bg != c) & (g.h > 0)
    cells, marks = xp.flatnonzero(piece), xp.flatnonzero(mark & ok.reshape(n, 1, 1))
    per_grid = xp.bincount(cells // CELLS, minlength=n)
    starts = xp.cumsum(per_grid) - per_grid
    m_grid = marks // CELLS
    owner, rank = _expand(xp, per_grid[m_grid])  # every marker with every cell of its grid's shape
    pair_mark = marks[owner]
    cell = cells[starts[m_grid][owner] + rank]
    grid = pair_mark // CELLS
    y = (pair_mark % CELLS) // MAX + (cell % CELLS) // MAX - si[grid] // 2
    x = pair_mark % MAX + cell % MAX - sj[grid] // 2
    v = d.reshape(-1)[cell].astype(xp.int64)
    dst, clash = _scatter_clash(xp, d, bg, grid, y, x, v, g.h, g.w, n, also=xp.full(n, c, xp.int64))
    out = d.reshape(-1).copy()
    bad = write_unless(xp, out, dst, v.astype(xp.uint8), grid, clash, n)
    ok &= ~bad
    return GridBatch(out.reshape(n, MAX, MAX), xp.where(ok, g.h, 0).astype(xp.int32), g.w)
