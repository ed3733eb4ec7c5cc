"""Geometry and size primitives: each is one gather (one kernel on the GPU), plus compress, dedupe, crop_bbox
and upscale_colours."""
from __future__ import annotations

import numpy as np

from ..grids import MAX, PAD, GridBatch
from ..kernels import background, colour_counts, gather
from . import reference as ref
from .colour import C
from .registry import Param, family

K = (Param("k", (2, 3), doc="factor"),)


def _simple(name: str, group: str, doc: str) -> None:
    def fn(g: GridBatch) -> GridBatch:
        return gather(g, name)
    fn.__doc__ = doc
    family(name, group, getattr(ref, name), padded=True)(fn)


for _name, _doc in [
    ("identity", "The grid unchanged."),
    ("rot90", "Quarter turn clockwise; h x w becomes w x h."),
    ("rot180", "Half turn."),
    ("rot270", "Quarter turn anticlockwise."),
    ("hmirror", "Flip top to bottom (reverse the row order)."),
    ("vmirror", "Flip left to right (reverse each row)."),
    ("dmirror", "Transpose across the main diagonal."),
    ("cmirror", "Transpose across the anti-diagonal."),
]:
    _simple(_name, "geometry", _doc)

for _name, _doc in [
    ("tophalf", "The first h//2 rows (invalid for h = 1)."),
    ("bottomhalf", "The last h//2 rows; an odd middle row is dropped."),
    ("lefthalf", "The first w//2 columns."),
    ("righthalf", "The last w//2 columns."),
    ("trim", "Remove the outer ring of cells (invalid below 3x3)."),
    ("hconcat_mirror", "The grid followed by its left-right mirror (width doubles)."),
    ("mirror_hconcat", "The left-right mirror followed by the grid."),
    ("vconcat_mirror", "The grid above its top-bottom mirror (height doubles)."),
    ("mirror_vconcat", "The top-bottom mirror above the grid."),
    ("mirror4", "Kaleidoscope: grid, mirrors and half turn in a 2x2 arrangement."),
    ("rot4", "A square grid and its quarter turns clockwise around the centre of a 2x2 arrangement."),
    ("rot4_ccw", "A square grid and its quarter turns anticlockwise around the centre of a 2x2 arrangement."),
]:
    _simple(_name, "size", _doc)


@family("pad_edge", "size", ref.pad_edge, padded=True)
def pad_edge(g: GridBatch) -> GridBatch:
    """The grid framed by a copy of its outer rows and columns, the four new corner cells 0 (`49d1d64f`);
    invalid past 28 x 28."""
    xp = g.xp
    out = gather(g, "pad_edge")
    r = xp.arange(MAX).reshape(1, MAX)
    n = len(g)
    edge_i = (r == 0) | (r == out.h.reshape(n, 1) - 1)
    edge_j = (r == 0) | (r == out.w.reshape(n, 1) - 1)
    corner = edge_i[:, :, None] & edge_j[:, None, :] & (out.h > 0).reshape(n, 1, 1)
    return GridBatch(xp.where(corner, xp.uint8(0), out.data).astype(xp.uint8), out.h, out.w)


@family("canvas", "size", ref.canvas, padded=True)
def canvas(g: GridBatch) -> GridBatch:
    """The grid at the top left of a canvas of 0s twice its height and width (`d13f3404`: then rays)."""
    xp = g.xp
    out = gather(g, "canvas")
    r = xp.arange(MAX)
    n = len(out)
    past = (r.reshape(1, MAX, 1) >= g.h.reshape(n, 1, 1)) | (r.reshape(1, 1, MAX) >= g.w.reshape(n, 1, 1))
    return GridBatch(xp.where(past & (out.data != PAD), xp.uint8(0), out.data).astype(xp.uint8), out.h, out.w)


def _scaled(name: str, doc: str) -> None:
    def fn(g: GridBatch, k: int) -> GridBatch:
        return gather(g, name, k)
    fn.__doc__ = doc
    family(name, "size", getattr(ref, name), K, padded=True)(fn)


for _name, _doc in [
    ("upscale", "Each cell becomes a k x k block."),
    ("hupscale", "Each cell repeated k times along its row."),
    ("vupscale", "Each row repeated k times."),
    ("downscale", "Keep rows and columns whose index is a multiple of k (the top-left cell of each block)."),
]:
    _scaled(_name, _doc)


@family("upscale_colours", "size", ref.upscale_colours)
def upscale_colours(g: GridBatch) -> GridBatch:
    """Each cell becomes a k x k block, k the number of colours other than 0 in the grid (invalid for none)."""
    xp = g.xp
    n = len(g)
    k = (colour_counts(g)[:, 1:] > 0).sum(axis=1).astype(xp.int32)
    kk = xp.maximum(k, 1).reshape(n, 1, 1)
    r = xp.arange(MAX, dtype=xp.int32)
    rows = xp.broadcast_to((r.reshape(1, MAX, 1) // kk), (n, MAX, MAX))
    cols = xp.broadcast_to((r.reshape(1, 1, MAX) // kk), (n, MAX, MAX))
    out = xp.take_along_axis(g.data.reshape(n, -1), (rows * MAX + cols).reshape(n, -1), axis=1)
    return GridBatch(out.reshape(n, MAX, MAX), xp.where(k > 0, g.h * k, 0).astype(xp.int32),
                     (g.w * k).astype(xp.int32))


_TILES = ((1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (3, 3))


@family("tile", "size", ref.tile, (Param("rows", (1, 2, 3)), Param("cols", (1, 2, 3))), padded=True,
        skip=lambda kw: (kw["rows"], kw["cols"]) not in _TILES)
def tile(g: GridBatch, rows: int, cols: int) -> GridBatch:
    """Repeat the grid rows x cols times."""
    return gather(g, "tile", rows, cols)


def bbox_params(xp, mask, fallback_ok):
    """Per-grid crop parameters [B, 4] (top, left, height, width) of a boolean [B, 30, 30] mask's bbox."""
    n = mask.shape[0]
    rows, cols = mask.any(axis=2), mask.any(axis=1)
    top = rows.argmax(axis=1)
    bottom = MAX - 1 - rows[:, ::-1].argmax(axis=1)
    left = cols.argmax(axis=1)
    right = MAX - 1 - cols[:, ::-1].argmax(axis=1)
    some = rows.any(axis=1) & fallback_ok
    p = xp.stack([top, left, xp.where(some, bottom - top + 1, 0), xp.where(some, right - left + 1, 0)], axis=1)
    return p.astype(xp.int32).reshape(n, 4)


@family("crop_bbox", "size", ref.crop_bbox, padded=True)
def crop_bbox(g: GridBatch) -> GridBatch:
    """Crop to the bounding box of the cells that are not the background (most frequent) colour."""
    xp = g.xp
    bg = background(g).reshape(-1, 1, 1)
    mask = (g.data != bg) & (g.data < 10)
    return gather(g, "crop", params=bbox_params(xp, mask, g.h > 0))


@family("crop_colour", "size", ref.crop_colour, C, padded=True)
def crop_colour(g: GridBatch, c: int) -> GridBatch:
    """Crop to the bounding box of the cells of colour c (invalid without any)."""
    return gather(g, "crop", params=bbox_params(g.xp, g.data == c, g.h > 0))


@family("untile", "size", ref.untile, padded=True)
def untile(g: GridBatch) -> GridBatch:
    """The tile the grid repeats: its top-left py x px block, for the smallest row and column periods that
    divide its size (invalid when it repeats in neither direction)."""
    xp = g.xp
    py, px = _exact_period(xp, g.data, g.h), _exact_period(xp, g.data.transpose(0, 2, 1), g.w)
    some = ((py < g.h) | (px < g.w)) & (g.h > 0)
    zero = xp.zeros(len(g), xp.int32)
    params = xp.stack([zero, zero, xp.where(some, py, 0), xp.where(some, px, 0)], axis=1).astype(xp.int32)
    return gather(g, "crop", params=params)


def _exact_period(xp, d, size):
    """Per grid: the smallest p dividing `size` such that line i equals line i + p along axis 1. Lines are
    compared as two 64-bit words each (15 cells of 4 bits: exact); whole-batch comparisons on the GPU; on the
    CPU each p only looks at the grids it divides and that have none yet."""
    n = len(d)
    shifts = (4 * (xp.arange(MAX, dtype=xp.uint64) % 15)).astype(xp.uint64)
    words = (d.astype(xp.uint64) << shifts).reshape(n, MAX, 2, 15).sum(axis=3, dtype=xp.uint64)
    first = xp.full(n, MAX, xp.int32)
    size = size.astype(xp.int32)
    for p in range(1, MAX):
        cand = (size % p == 0) & (p < size) & (first == MAX)
        idx = np.flatnonzero(cand) if xp is np else slice(None)
        if xp is np and not len(idx):
            continue
        a, m = words[idx], size[idx]
        pair = (xp.arange(MAX - p, dtype=xp.int32).reshape(1, -1, 1) + p) < m.reshape(-1, 1, 1)
        same = ((a[:, :-p] == a[:, p:]) | ~pair).all(axis=(1, 2))
        if xp is np:
            first[idx[same]] = p
        else:
            first = xp.where(cand & same, p, first)
    return xp.minimum(first, size)


@family("compress", "size", ref.compress)
def compress(g: GridBatch) -> GridBatch:
    """Delete every row and every column that is a single colour."""
    d = g.data
    first_col, first_row = d[:, :, :1], d[:, :1, :]
    row_mixed = ((d != first_col) & (d < 10)).any(axis=2)
    col_mixed = ((d != first_row) & (d < 10)).any(axis=1)
    return _keep_lines(g, row_mixed, col_mixed)


@family("dedupe", "size", ref.dedupe)
def dedupe(g: GridBatch) -> GridBatch:
    """Delete every row equal to the row above it and every column equal to the column left of it."""
    xp = g.xp
    d = g.data
    n = len(g)
    first = xp.zeros((n, 1), bool)
    row_new = xp.concatenate([~first, (d[:, 1:] != d[:, :-1]).any(axis=2)], axis=1)
    col_new = xp.concatenate([~first, (d[:, :, 1:] != d[:, :, :-1]).any(axis=1)], axis=1)
    return _keep_lines(g, row_new, col_new)


def _keep_lines(g: GridBatch, rows_kept, cols_kept) -> GridBatch:
    """The grids with only the rows and columns marked [B, 30] kept (within each grid), in their order."""
    xp = g.xp
    n = len(g)
    d = g.data
    r = xp.arange(MAX)
    rows_kept = rows_kept & (r.reshape(1, MAX) < g.h.reshape(n, 1))
    cols_kept = cols_kept & (r.reshape(1, MAX) < g.w.reshape(n, 1))
    # stable order: kept rows first, in their original order
    row_src = xp.argsort(xp.where(rows_kept, r, MAX + r), axis=1)
    col_src = xp.argsort(xp.where(cols_kept, r, MAX + r), axis=1)
    rows = xp.take_along_axis(d, row_src.reshape(n, MAX, 1).repeat(MAX, axis=2), axis=1)
    out = xp.take_along_axis(rows, col_src.reshape(n, 1, MAX).repeat(MAX, axis=1), axis=2)
    return GridBatch(out, rows_kept.sum(axis=1).astype(xp.int32), cols_kept.sum(axis=1).astype(xp.int32))
