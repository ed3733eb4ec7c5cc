"""Primitives on a grid's layout as a whole: continue a repeating pattern to the grid's edge, tile the band
that holds the grid's cells over all of it, or grow the grid to a square along its own period (these three for
a task's inputs), reverse the colours of concentric rings, keep only the centre row or column, fill the open
lanes of a framed grid (these two meant for a task's inputs: the built-in search applies them at depth 1 only),
lay a row along a square's diagonal, and sort the rows or columns by how full they are (at every depth); give
each row or column its most frequent colour (a task's inputs: the noise on stripes); continue the rows (or
columns) that start as the first full one does, under colours of their own, along its pattern (a task's
inputs: ten passes, one a colour). Whole batches with array operations on NumPy or CuPy.
"""
from __future__ import annotations

from ..grids import MAX, PAD, GridBatch, get_xp
from ..kernels import background
from . import reference as ref
from .colour import COLOURS
from .registry import Param, family

AXES = (Param("axis", ("h", "v")),)


def _column_band(d):
    """Of a [B, 30, 30] batch: which columns hold a non-0 cell ([B, column]), and each grid's first and last such
    column (0 and 29 where none does)."""
    nz = ((d != 0) & (d < PAD)).any(axis=1)
    return nz, nz.argmax(axis=1), MAX - 1 - nz[:, ::-1].argmax(axis=1)


def _continue_right(g: GridBatch) -> GridBatch:
    """Columns right of the last one holding a non-0 cell repeat the pattern of the columns from the first
    such one: the smallest period p, shorter than their span, with which every cell there equals the one p
    columns on; invalid without such a p or with a non-0 cell in the last column."""
    xp = g.xp
    n = len(g)
    d = g.data
    r = xp.arange(MAX)
    nz, first, last = _column_band(d)
    span = last - first + 1
    best = xp.full(n, MAX, xp.int64)
    for p in range(MAX - 1, 0, -1):  # the smallest good period is written last
        cols = (r[:-p] >= first[:, None]) & (r[:-p] + p <= last[:, None])  # [B, 30 - p]
        bad = ((d[:, :, :-p] != d[:, :, p:]) & cols[:, None, :]).any(axis=(1, 2))
        best = xp.where(~bad & (p < span), p, best)
    ok = nz.any(axis=1) & (best < MAX) & (last < g.w - 1) & (g.h > 0)
    p = xp.minimum(best, MAX).reshape(n, 1)
    src = xp.where(r > last[:, None], first[:, None] + (r - first[:, None]) % p, r)  # [B, column]
    src = xp.clip(src, 0, MAX - 1)
    out = xp.take_along_axis(d, xp.broadcast_to(src[:, None, :], d.shape), axis=2)
    out = xp.where(d == PAD, PAD, out).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("continue", "other", ref.continue_pattern, AXES, padded=True, first=True)
def continue_pattern(g: GridBatch, axis: str) -> GridBatch:
    """Continue the grid's repeating pattern rightwards (h) or downwards (v) past its last non-0 column or
    row to the edge, with the smallest period its cells agree with (`d8c310e9`)."""
    if axis == "h":
        return _continue_right(g)
    return _continue_right(g.transposed()).transposed()


def _tile_right(g: GridBatch) -> GridBatch:
    """Every column takes the column of the band (the first to the last column holding a non-0 cell) at its
    place modulo the band's width, counted from the band's start; invalid without such a column or where the
    band spans the grid."""
    xp = g.xp
    n = len(g)
    d = g.data
    r = xp.arange(MAX)
    nz, first, last = _column_band(d)
    first, span = first.reshape(n, 1), (last + 1).reshape(n, 1) - first.reshape(n, 1)
    ok = nz.any(axis=1) & (span.reshape(n) < g.w) & (g.h > 0)
    src = xp.where(r < g.w.reshape(n, 1), first + (r - first) % xp.maximum(span, 1), r)  # [B, column]
    out = xp.take_along_axis(d, xp.broadcast_to(xp.clip(src, 0, MAX - 1)[:, None, :], d.shape), axis=2)
    out = xp.where(d == PAD, PAD, out).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("tile_band", "other", ref.tile_band, AXES, padded=True, first=True)
def tile_band(g: GridBatch, axis: str) -> GridBatch:
    """The band of columns (h) or rows (v) from the first to the last one holding a non-0 cell repeats over the
    whole grid, in step with where it lies (`8eb1be9a`: a three-row strip becomes the grid's wallpaper)."""
    if axis == "h":
        return _tile_right(g)
    return _tile_right(g.transposed()).transposed()


SHIFTS = (0, 1, -1, 2, -2, 3, -3)  # the sideways steps a period may take, in the order they are preferred


def _shifted_cols(d, w, s: int):
    """[B, 30, 30]: each row's cells s columns on (right for s > 0), 0 where that leaves the grid's width `w`."""
    xp = get_xp(d)
    j = xp.arange(MAX).reshape(1, 1, MAX)
    src = j - s
    v = xp.take_along_axis(d, xp.broadcast_to(xp.clip(src, 0, MAX - 1), d.shape), axis=2)
    return xp.where((src >= 0) & (src < w), v, 0)


def _grow_down(g: GridBatch) -> GridBatch:
    """A grid wider than high grows to a square: each new row is the row p above it moved s columns on, for
    the smallest period p (at most half the height) and the first step s of SHIFTS with which every row of the
    grid from the p-th on already is; invalid without one or without a non-0 cell."""
    xp = g.xp
    n = len(g)
    d = g.data
    h, w = g.h.astype(xp.int64).reshape(n, 1, 1), g.w.astype(xp.int64).reshape(n, 1, 1)
    i, j = xp.arange(MAX).reshape(1, MAX, 1), xp.arange(MAX).reshape(1, 1, MAX)
    best_p, best_s = xp.zeros(n, xp.int64), xp.zeros(n, xp.int64)
    moved = {s: _shifted_cols(d, w, s) for s in SHIFTS}
    for p in range(MAX // 2, 0, -1):  # the first good (p, s) is written last
        rows, twice = (i[:, p:] < h) & (j < w), 2 * p <= h.reshape(n)  # the period seen at least twice
        for s in SHIFTS[::-1]:
            good = ~((d[:, p:] != moved[s][:, :-p]) & rows).any(axis=(1, 2)) & twice
            best_p, best_s = xp.where(good, p, best_p), xp.where(good, s, best_s)
    ok = (best_p > 0) & (g.h < g.w) & ((d != 0) & (d < PAD)).any(axis=(1, 2))
    p, s = xp.maximum(best_p, 1).reshape(n, 1, 1), best_s.reshape(n, 1, 1)
    k = xp.where(i >= h, (i - h + p) // p, 0)  # periods back to a row of the grid
    src_r, src_c = xp.clip(i - k * p, 0, MAX - 1), j - k * s
    v = xp.take_along_axis(d, xp.broadcast_to(src_r, d.shape), axis=1)
    v = xp.take_along_axis(v, xp.broadcast_to(xp.clip(src_c, 0, MAX - 1), d.shape), axis=2)
    out = xp.where((src_c >= 0) & (src_c < w), v, 0)
    out = xp.where((i < w) & (j < w), out, PAD).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.w, 0).astype(xp.int32), g.w)


@family("grow_square", "size", ref.grow_square, AXES, padded=True, first=True)
def grow_square(g: GridBatch, axis: str) -> GridBatch:
    """A grid grows to a square, downwards (v) or rightwards (h), each new row (column) the one a period back
    moved by a step along it, as the grid's own rows already are (`53b68214`: a zigzag drawn on to the bottom)."""
    if axis == "v":
        return _grow_down(g)
    return _grow_down(g.transposed()).transposed()


@family("reverse_rings", "other", ref.reverse_rings, padded=True, first=True)
def reverse_rings(g: GridBatch) -> GridBatch:
    """A grid of concentric one-colour rings gets their colours in reverse order, outermost to innermost
    (`85c4e7cd`); invalid where a ring holds two colours."""
    xp = g.xp
    n = len(g)
    d = g.data.astype(xp.int32)
    r = xp.arange(MAX)
    h, w = g.h.reshape(n, 1, 1).astype(xp.int64), g.w.reshape(n, 1, 1).astype(xp.int64)
    i, j = r.reshape(1, MAX, 1), r.reshape(1, 1, MAX)
    ring = xp.minimum(xp.minimum(i, j), xp.minimum(h - 1 - i, w - 1 - j))  # negative outside the grid
    inside = (i < h) & (j < w)
    lo = xp.stack([xp.where(inside & (ring == k), d, PAD).min(axis=(1, 2)) for k in range(MAX // 2)], axis=1)
    hi = xp.stack([xp.where(inside & (ring == k), d, -1).max(axis=(1, 2)) for k in range(MAX // 2)], axis=1)
    rings = (xp.minimum(h, w).reshape(n) + 1) // 2
    used = r[: MAX // 2].reshape(1, -1) < rings.reshape(n, 1)
    ok = ((lo == hi) | ~used).all(axis=1) & (g.h > 0)
    src = xp.clip(rings.reshape(n, 1, 1) - 1 - ring, 0, MAX // 2 - 1)
    out = xp.take_along_axis(lo, src.reshape(n, -1), axis=1).reshape(n, MAX, MAX)
    out = xp.where(inside, out, PAD).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("keep_centre", "other", ref.keep_centre, AXES, padded=True, first=True)
def keep_centre(g: GridBatch, axis: str) -> GridBatch:
    """Every cell off the grid's centre row (h) or centre column (v) becomes the background colour (`d23f8c26`);
    invalid where the grid has an even number of rows (h) or columns (v)."""
    xp = g.xp
    n = len(g)
    r = xp.arange(MAX)
    size = (g.h if axis == "h" else g.w).reshape(n, 1)
    line = (r.reshape(1, MAX) == size // 2)
    keep = line[:, :, None] if axis == "h" else line[:, None, :]
    d = g.data
    out = xp.where(keep | (d == PAD), d, background(g).reshape(n, 1, 1)).astype(xp.uint8)
    return GridBatch(out, xp.where(size.reshape(n) % 2 == 1, g.h, 0).astype(xp.int32), g.w)


@family("open_lines", "other", ref.open_lines, (Param("c", COLOURS[1:]),), padded=True, first=True)
def open_lines(g: GridBatch, c: int) -> GridBatch:
    """Rows whose cells inside the outer ring are all 0, and such columns, get those cells in colour c
    (`2bee17df`: the open lanes across a framed grid); invalid below 3x3 or without such a line."""
    xp = g.xp
    n = len(g)
    d = g.data
    r = xp.arange(MAX)
    i, j = r.reshape(1, MAX, 1), r.reshape(1, 1, MAX)
    inner = (i >= 1) & (i < g.h.reshape(n, 1, 1) - 1) & (j >= 1) & (j < g.w.reshape(n, 1, 1) - 1)
    blank = (d == 0) | ~inner
    paint = inner & (blank.all(axis=2, keepdims=True) | blank.all(axis=1, keepdims=True))
    ok = (g.h >= 3) & (g.w >= 3) & paint.any(axis=(1, 2))
    out = xp.where(paint, c, d).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("diag_square", "size", ref.diag_square)
def diag_square(g: GridBatch) -> GridBatch:
    """A row (or column) of n >= 2 cells becomes the n x n grid with them on its main diagonal, 0 elsewhere
    (`d0f5fe59`: `count_objects | diag_square`); invalid for any other grid."""
    xp = g.xp
    n = len(g)
    row, col = g.h == 1, g.w == 1
    size = xp.where(row, g.w, g.h)
    ok = (row | col) & (size >= 2)
    line = xp.where(row.reshape(n, 1), g.data[:, 0, :], g.data[:, :, 0])
    r = xp.arange(MAX)
    out = xp.where((r.reshape(MAX, 1) == r.reshape(1, MAX)).reshape(1, MAX, MAX), line.reshape(n, MAX, 1), 0)
    side = xp.where(ok, size, 0).astype(xp.int32)
    return GridBatch(out.astype(xp.uint8), side, side)


@family("line_major", "other", ref.line_major, padded=True, first=True)
def line_major(g: GridBatch) -> GridBatch:
    """Each row takes its most frequent colour (ties: the smaller colour), or each column where that changes
    fewer cells; invalid where nothing changes (`e26a3af2`: noise on stripes)."""
    xp = g.xp
    n = len(g)
    d = g.data
    valid = d < PAD
    onehot = (d[..., None] == xp.arange(10, dtype=d.dtype)) & valid[..., None]  # [B, 30, 30, 10]
    by_row = xp.where(valid, onehot.sum(axis=2).argmax(axis=2)[:, :, None], d)
    by_col = xp.where(valid, onehot.sum(axis=1).argmax(axis=2)[:, None, :], d)
    rows, cols = ((x != d).sum(axis=(1, 2)) for x in (by_row, by_col))
    pick = rows <= cols
    out = xp.where(pick.reshape(n, 1, 1), by_row, by_col).astype(xp.uint8)
    ok = (g.h > 0) & (xp.where(pick, rows, cols) > 0)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("sort_lines", "other", ref.sort_lines, (Param("axis", ("rows", "cols")), Param("order", ("asc", "desc"))),
        padded=True)
def sort_lines(g: GridBatch, axis: str, order: str) -> GridBatch:
    """The grid's rows (or columns) reordered by how many cells each holds that are not the background colour,
    fewest first (asc) or most first (desc), ties in place (`beb8660c`: bars stacked by length)."""
    if axis == "cols":
        return sort_lines(g.transposed(), "rows", order).transposed()
    xp = g.xp
    n = len(g)
    r = xp.arange(MAX)
    count = ((g.data != background(g).reshape(n, 1, 1)) & (g.data < PAD)).sum(axis=2).astype(xp.int64)
    count = count if order == "asc" else MAX - count
    key = xp.where(r < g.h.reshape(n, 1), count, 2 * MAX) * MAX + r  # rows past the grid stay last, in place
    rows = xp.argsort(key, axis=1)
    out = xp.take_along_axis(g.data, xp.broadcast_to(rows[:, :, None], g.data.shape), axis=1)
    return GridBatch(out.astype(xp.uint8), g.h, g.w)


@family("continue_lines", "other", ref.continue_lines, (Param("axis", ("rows", "cols")),), padded=True, first=True)
def continue_lines(g: GridBatch, axis: str) -> GridBatch:
    """A row whose cells that are not the background colour are a run from its start, shorter than the grid,
    continues as the grid's first row without the background colour (the template) does, through the colour
    map that the run's cells give the template's (one colour each), if one does (`82819916`); colours the run
    does not show become background. Rows (or columns)."""
    if axis == "cols":
        return continue_lines(g.transposed(), "rows").transposed()
    xp = g.xp
    n = len(g)
    d = g.data
    w = g.w.astype(xp.int64).reshape(n, 1, 1)
    j = xp.arange(MAX).reshape(1, 1, MAX)
    bg = background(g).reshape(n, 1, 1)
    fg = (d != bg) & (d < PAD)
    count = fg.sum(axis=2)
    full = (count == g.w.reshape(n, 1)) & (xp.arange(MAX) < g.h.reshape(n, 1))  # [B, row]
    t = xp.take_along_axis(d, xp.broadcast_to(full.argmax(axis=1).reshape(n, 1, 1), (n, 1, MAX)), axis=1)  # template
    run = xp.cumprod(fg, axis=2).sum(axis=2)  # [B, row]: the run's length
    ok = full.any(axis=1).reshape(n, 1) & (run > 0) & (run < g.w.reshape(n, 1)) & (count == run)
    inrun = j < run[:, :, None]
    out = xp.where(fg | (j >= w), d, bg)
    for c in range(10):  # each template colour: the run's colour at its first place there, one colour or no map
        at = inrun & (t == c)
        v = xp.take_along_axis(d, at.argmax(axis=2)[:, :, None], axis=2)  # [B, row, 1]
        ok &= ~(at & (d != v)).any(axis=2)
        out = xp.where(~inrun & (j < w) & (t == c) & at.any(axis=2, keepdims=True), v, out)
    return GridBatch(xp.where(ok[:, :, None], out, d).astype(xp.uint8), g.h, g.w)
