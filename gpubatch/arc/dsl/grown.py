"""Patterns grown from a few cells of a task's input: a diagonal from each cell that bounces between two walls
of the grid (`a3df8b1e`: a ball's zigzag up a narrow grid), and each row's (or column's) one run of cells tiled
along it in step (`e21d9049`: the arms of a cross continued over the grid). Both for a task's inputs (the
built-in search applies them at depth 1 only), on whole batches with array operations, NumPy or CuPy.
"""
from __future__ import annotations

from ..grids import CELLS, MAX, PAD, GridBatch
from . import reference as ref
from .reference.grown import DIAGONALS, MAX_SOURCES
from .registry import Param, family


def _sources(g: GridBatch):
    """The first MAX_SOURCES non-0 cells of each grid in reading order ([B, S] flat cell indices, -1 past the
    last) and each grid's number of non-0 cells."""
    xp = g.xp
    n = len(g)
    flat = ((g.data != 0) & (g.data < PAD)).reshape(n, CELLS)
    rank = xp.cumsum(flat, axis=1) - 1
    b, c = xp.nonzero(flat & (rank < MAX_SOURCES))
    src = xp.full((n, MAX_SOURCES), -1, xp.int64)
    src[b, rank[b, c]] = c
    return src, flat.sum(axis=1)


def _bounce_h(g: GridBatch, dy: int, dx: int) -> GridBatch:
    """The diagonal (dy, dx) from each source, reflected at the left and right edges (its column a triangle
    wave of period 2 (w - 1)), until it leaves through the top or the bottom; it colours only 0 cells, the
    first source's where two paths cross. Invalid without a source, with more than MAX_SOURCES, for a grid
    one column wide or where no cell changes."""
    xp = g.xp
    n = len(g)
    d = g.data
    src, count = _sources(g)
    i, j = (src // MAX)[:, :, None], (src % MAX)[:, :, None]
    t = xp.arange(1, MAX)
    h, w = g.h.astype(xp.int64).reshape(n, 1, 1), g.w.astype(xp.int64).reshape(n, 1, 1)
    period = xp.maximum(2 * (w - 1), 1)
    y = i + dy * t  # [B, S, T]
    m = (j + dx * t) % period
    x = xp.where(m < w, m, period - m)
    on = (src[:, :, None] >= 0) & (y >= 0) & (y < h)
    colour = xp.take_along_axis(d.reshape(n, CELLS), xp.maximum(src, 0), axis=1)  # [B, S]
    paint = xp.zeros((n, CELLS), xp.uint8)
    for s in range(MAX_SOURCES - 1, -1, -1):  # the first source written last: its colour stays
        b, k = xp.nonzero(on[:, s])
        paint[b, y[b, s, k] * MAX + x[b, s, k]] = colour[b, s]
    paint = paint.reshape(n, MAX, MAX)
    new = (d == 0) & (paint != 0)
    ok = (count >= 1) & (count <= MAX_SOURCES) & (g.w >= 2) & new.any(axis=(1, 2))
    return GridBatch(xp.where(new, paint, d).astype(xp.uint8), xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("bounce", "other", ref.bounce, (Param("dir", tuple(DIAGONALS)), Param("axis", ("h", "v"))), padded=True,
        first=True)
def bounce(g: GridBatch, dir: str, axis: str) -> GridBatch:
    """A diagonal from each of a few cells bounces between the left and right edges (h) or the top and the
    bottom (v) until it leaves the grid, colouring the 0 cells it crosses (`a3df8b1e`, `e179c5f4`)."""
    dy, dx = DIAGONALS[dir]
    if axis == "h":
        return _bounce_h(g, dy, dx)
    return _bounce_h(g.transposed(), dx, dy).transposed()


def _tile_rows(g: GridBatch):
    """Each row whose non-0 cells are one run of at least two, shorter than the row, as that run repeated
    along the row from where it lies ([B, 30, 30]), and which rows those are ([B, 30])."""
    xp = g.xp
    n = len(g)
    d = g.data
    nz = (d != 0) & (d < PAD)
    count = nz.sum(axis=2, keepdims=True)
    first = nz.argmax(axis=2)[:, :, None]
    last = MAX - 1 - nz[:, :, ::-1].argmax(axis=2)[:, :, None]
    w = g.w.reshape(n, 1, 1)
    run = (count >= 2) & (last - first + 1 == count) & (count < w)
    c = xp.arange(MAX)
    src = xp.where(c < w, first + (c - first) % xp.maximum(count, 1), c)
    tiled = xp.take_along_axis(d, xp.clip(src, 0, MAX - 1).astype(xp.int64), axis=2)
    return xp.where(run, tiled, d), run[:, :, 0]


@family("tile_runs", "other", ref.tile_runs, (Param("axis", ("h", "v", "hv")),), padded=True, first=True)
def tile_runs(g: GridBatch, axis: str) -> GridBatch:
    """Each row (h), column (v) or both (hv, columns over rows) whose non-0 cells are one run, shorter than
    the line, repeats that run along it in step (`e21d9049`); invalid where no line does."""
    xp = g.xp
    out, ok = g.data, xp.zeros(len(g), bool)
    if "h" in axis:
        out, rows = _tile_rows(g)
        ok = ok | rows.any(axis=1)
    if "v" in axis:
        cols, by_col = _tile_rows(g.transposed())
        out = xp.where(by_col[:, None, :], cols.transpose(0, 2, 1), out)
        ok = ok | by_col.any(axis=1)
    out = xp.where(g.data == PAD, PAD, out).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)
