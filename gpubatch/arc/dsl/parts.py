"""A divided grid summarised: one output cell per part, from the part's own cells.

Many tasks draw a grid of parts, split by full rows and columns of one colour (a divider colour, 0 included,
so blank lines split too, at any places), and ask a question of each part: which colour is most common in it
(`780d0b14`), how many cells are coloured (`6773b310`, where a colour map then turns two cells into 1 and one
into 0). `parts(stat)` answers it for every part at once: the output has one row per band of rows between
dividers and one column per band of columns. The divider colour is the smallest with a full line, and a grid
must split into two parts or more. Cells of colour 0 or the divider's are not counted; a part with none
gives 0; counts stop at 9 (a colour). One `bincount` over (grid, part) a colour serves the whole batch.
`fill_fullest` keeps the grid and fills the parts with the most coloured cells (`29623171`), clearing the rest.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..grids import CELLS, MAX, PAD, GridBatch
from . import reference as ref
from .registry import Param, family

STATS = ("major", "count")


def _divided(g: GridBatch):
    """(full rows [B, 30], full columns [B, 30], divider colour [B] or -1): the smallest colour with a full
    row or column inside the grid."""
    xp = g.xp
    n = len(g)
    d = g.data
    r = xp.arange(MAX).reshape(1, MAX)
    h, w = g.h.reshape(n, 1), g.w.reshape(n, 1)
    rows = xp.zeros((n, MAX), bool)
    cols = xp.zeros((n, MAX), bool)
    colour = xp.full(n, -1, xp.int64)
    for D in range(9, -1, -1):  # the smallest colour with a full line is written last
        same = (d == D) | (d == PAD)
        fr, fc = same.all(axis=2) & (r < h), same.all(axis=1) & (r < w)
        has = (fr.any(axis=1) | fc.any(axis=1)) & (g.h > 0)
        rows, cols = xp.where(has[:, None], fr, rows), xp.where(has[:, None], fc, cols)
        colour = xp.where(has, D, colour)
    return rows, cols, colour


def _band_index(xp, full, size):
    """Per line: its band's index (a band is a run of lines that are not full); the number of bands; and which
    lines are in a band."""
    n = full.shape[0]
    r = xp.arange(MAX).reshape(1, MAX)
    line = ~full & (r < size.reshape(n, 1))
    prev = xp.concatenate([xp.zeros((n, 1), bool), line[:, :-1]], axis=1)
    start = line & ~prev
    return xp.cumsum(start, axis=1) - 1, start.sum(axis=1), line


@dataclass(frozen=True)
class Split:
    """A batch divided by full lines: the divider colour [B] (-1: none), per row and per column its band
    (clipped at 0) and whether it lies in one, the numbers of bands, the cells in a part and the coloured
    ones (0 and the divider not counted), each cell's part as a flat index (grid * 900 + band row * 30 +
    band column) [B, 30, 30], and the cells' colours as int64 [B, 30, 30]."""

    colour: object
    band_r: object
    band_c: object
    line_r: object
    line_c: object
    nr: object
    nc: object
    cell: object
    counted: object
    part: object
    data: object


def split(g: GridBatch) -> Split:
    """The parts of every grid of the batch, as `parts` and `fill_fullest` (and `keyed`) read them."""
    xp = g.xp
    n = len(g)
    rows, cols, colour = _divided(g)
    band_r, nr, line_r = _band_index(xp, rows, g.h)
    band_c, nc, line_c = _band_index(xp, cols, g.w)
    d = g.data.astype(xp.int64)
    cell = line_r[:, :, None] & line_c[:, None, :]
    counted = cell & (d != 0) & (d != colour.reshape(n, 1, 1)) & (d < PAD)
    band_r, band_c = xp.maximum(band_r, 0), xp.maximum(band_c, 0)  # a line before the first band: not counted
    part = xp.arange(n).reshape(n, 1, 1) * CELLS + band_r[:, :, None] * MAX + band_c[:, None, :]
    return Split(colour, band_r, band_c, line_r, line_c, nr, nc, cell, counted, part, d)


def _part_stats(g: GridBatch):
    """Per grid: each cell's part, which cells lie in a part, each part's coloured cells (0 and the divider not
    counted) and most common colour (the smaller on a tie) as flat arrays [B * 900], and whether the grid
    splits into two parts or more, with its bands."""
    xp = g.xp
    n = len(g)
    sp = split(g)
    part, cell, counted, colour, nr, nc, d = sp.part, sp.cell, sp.counted, sp.colour, sp.nr, sp.nc, sp.data
    flat = part.ravel()
    total = xp.zeros(n * CELLS, xp.int64)
    best = xp.zeros(n * CELLS, xp.float64)
    major = xp.zeros(n * CELLS, xp.int64)
    for c in range(1, PAD):
        count = xp.bincount(flat, weights=(counted & (d == c)).ravel(), minlength=n * CELLS)
        total += count.astype(xp.int64)
        major = xp.where(count > best, c, major)
        best = xp.maximum(best, count)
    return part, cell, total, major, (colour >= 0) & (nr * nc >= 2), nr, nc


@family("parts", "compose", ref.parts, (Param("stat", STATS),), first=True)
def parts(g: GridBatch, stat: str) -> GridBatch:
    """One cell per part of the grid divided by full lines of one colour: the part's most common colour
    (`major`) or how many of its cells are coloured (`count`, at most 9), 0 and the divider not counted."""
    xp = g.xp
    n = len(g)
    _, _, total, major, ok, nr, nc = _part_stats(g)
    value = (xp.minimum(total, 9) if stat == "count" else major).reshape(n, MAX, MAX)
    return GridBatch(value.astype(xp.uint8), xp.where(ok, nr, 0).astype(xp.int32),
                     xp.where(ok, nc, 0).astype(xp.int32))


@family("fill_fullest", "compose", ref.fill_fullest, padded=True, first=True)
def fill_fullest(g: GridBatch) -> GridBatch:
    """The parts with the most coloured cells become all their most common colour; every other part becomes 0;
    the dividers stay (`29623171`); invalid without a coloured cell."""
    xp = g.xp
    n = len(g)
    part, cell, total, major, ok, _, _ = _part_stats(g)
    top = total.reshape(n, CELLS).max(axis=1)
    fill = xp.where(total[part] == top.reshape(n, 1, 1), major[part], 0)
    out = xp.where(cell, fill, g.data).astype(xp.uint8)
    ok &= (top > 0) & (g.h > 0)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)
