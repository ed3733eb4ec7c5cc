"""Colour primitives: each builds a per-grid colour table and maps the batch through it (one kernel)."""
from __future__ import annotations

from ..grids import MAX, NCOL, PAD, GridBatch
from ..kernels import apply_lut, background, colour_counts
from . import reference as ref
from .registry import Param, family

COLOURS = tuple(range(NCOL))
C = (Param("c", COLOURS, doc="colour"),)


def _table(g: GridBatch, expr) -> GridBatch:
    """Map colour x of grid b to expr(x[1, 11], b-shaped columns); PAD always maps to PAD.

    A table that does not depend on the grid stays one row [1, 11] and is shared by the whole batch."""
    xp = g.xp
    x = xp.arange(PAD + 1, dtype=xp.int32).reshape(1, PAD + 1)
    lut = xp.where(x == PAD, PAD, expr(xp, x))
    return apply_lut(g, lut.astype(xp.uint8))


def _bg(g: GridBatch):
    return background(g).reshape(-1, 1)


@family("replace", "colour", ref.replace, (Param("a", COLOURS), Param("b", COLOURS)), padded=True,
        skip=lambda kw: kw["a"] == kw["b"])
def replace(g: GridBatch, a: int, b: int) -> GridBatch:
    """Replace colour a by colour b."""
    return _table(g, lambda xp, x: xp.where(x == a, b, x))


@family("swap", "colour", ref.swap, (Param("a", COLOURS), Param("b", COLOURS)), padded=True,
        skip=lambda kw: kw["a"] >= kw["b"])
def swap(g: GridBatch, a: int, b: int) -> GridBatch:
    """Exchange colours a and b."""
    return _table(g, lambda xp, x: xp.where(x == a, b, xp.where(x == b, a, x)))


@family("keep", "colour", ref.keep, C, padded=True)
def keep(g: GridBatch, c: int) -> GridBatch:
    """Keep only colour c; every other cell becomes the background colour."""
    bg = _bg(g)
    return _table(g, lambda xp, x: xp.where(x == c, x, bg))


@family("remove", "colour", ref.remove, C, padded=True)
def remove(g: GridBatch, c: int) -> GridBatch:
    """Cells of colour c become the background colour."""
    bg = _bg(g)
    return _table(g, lambda xp, x: xp.where(x == c, bg, x))


@family("recolor_fg", "colour", ref.recolor_fg, C, padded=True)
def recolor_fg(g: GridBatch, c: int) -> GridBatch:
    """Every non-background cell becomes colour c."""
    bg = _bg(g)
    return _table(g, lambda xp, x: xp.where(x == bg, x, c))


@family("fill_bg", "colour", ref.fill_bg, C, padded=True)
def fill_bg(g: GridBatch, c: int) -> GridBatch:
    """Background cells become colour c."""
    bg = _bg(g)
    return _table(g, lambda xp, x: xp.where(x == bg, c, x))


@family("majority_fill", "colour", ref.majority_fill, padded=True)
def majority_fill(g: GridBatch) -> GridBatch:
    """Fill the whole grid with its most frequent colour (ties: smallest colour)."""
    bg = _bg(g)
    return _table(g, lambda xp, x: bg + 0 * x)


@family("minority_fill", "colour", ref.minority_fill, padded=True)
def minority_fill(g: GridBatch) -> GridBatch:
    """Fill the whole grid with its least frequent present colour (ties: smallest colour)."""
    xp = g.xp
    counts = colour_counts(g)
    least = xp.where(counts > 0, counts, 1 << 30).argmin(axis=1).reshape(-1, 1)
    return _table(g, lambda xp, x: least + 0 * x)


@family("recolor_fg_majority", "colour", ref.recolor_fg_majority, padded=True)
def recolor_fg_majority(g: GridBatch) -> GridBatch:
    """Every non-background cell takes the most frequent non-background colour."""
    xp = g.xp
    bg = _bg(g)
    counts = colour_counts(g)
    counts = xp.where(xp.arange(NCOL).reshape(1, NCOL) == bg, 0, counts)
    top = counts.argmax(axis=1).reshape(-1, 1)
    has_fg = (counts.max(axis=1) > 0).reshape(-1, 1)
    return _table(g, lambda xp, x: xp.where((x == bg) | ~has_fg, x, top))


@family("keep_least", "colour", ref.keep_least, padded=True)
def keep_least(g: GridBatch) -> GridBatch:
    """Keep only the least frequent colour other than the background (ties: smallest colour); every other
    cell becomes the background colour (`31aa019c`: the one pixel whose colour is unique). Invalid where only
    the background is present."""
    xp = g.xp
    bg = _bg(g)
    counts = colour_counts(g)
    counts = xp.where((xp.arange(NCOL).reshape(1, NCOL) == bg) | (counts == 0), 1 << 30, counts)
    least = counts.argmin(axis=1).reshape(-1, 1)
    out = _table(g, lambda xp, x: xp.where(x == least, x, bg))
    some = counts.min(axis=1) < (1 << 30)
    return GridBatch(out.data, xp.where(some, out.h, 0).astype(xp.int32), xp.where(some, out.w, 0).astype(xp.int32))


def _colour_map(text) -> dict[int, int] | None:
    """`3>4 1>5` -> {3: 4, 1: 5}; None if malformed."""
    m = {}
    for pair in str(text).split():
        a, sep, b = pair.partition(">")
        if not (sep and a.isdigit() and b.isdigit() and int(a) < NCOL and int(b) < NCOL) or int(a) in m:
            return None
        m[int(a)] = int(b)
    return m


@family("cmap", "colour", ref.cmap, (Param("m", (), doc="pairs a>b separated by spaces, e.g. 3>4 1>5",
                                          accepts=lambda v: _colour_map(v) is not None),), padded=True)
def cmap(g: GridBatch, m: str) -> GridBatch:
    """Map colours a to b for each pair a>b (learned from the demos by the search; never enumerated)."""
    table = _colour_map(m)
    return _table(g, lambda xp, x: sum(xp.where(x == a, b - a, 0) for a, b in table.items()) + x)


@family("palette", "colour", ref.palette, (Param("kind", ("col", "bars", "rest", "stripes")),), first=True)
def palette(g: GridBatch, kind: str) -> GridBatch:
    """The colours other than 0, most cells first (ties: smaller colour): one per row (col), the same without
    the first (rest: the most common is often a frame or a grid's lines, `f8b3ba0a`), or one column each
    holding as many cells of it from the top as the grid has, 0 below (bars); or in the order of their cells'
    mean place along the axis where those places spread most, as a row or a column (stripes, `4be741c5`)."""
    xp = g.xp
    n = len(g)
    if kind == "stripes":
        return _stripes(g)
    counts = colour_counts(g)[:, 1:].astype(xp.int64)  # colours 1..9
    order = xp.argsort(-counts * 16 + xp.arange(1, 10), axis=1)  # distinct keys: any sort gives this order
    count = xp.take_along_axis(counts, order, axis=1)  # [B, 9], descending
    colour = (order + 1).astype(xp.uint8)
    k = (count > 0).sum(axis=1).astype(xp.int32)
    r = xp.arange(MAX).reshape(1, MAX, 1)
    pad = xp.concatenate([colour, xp.zeros((n, MAX - 9), xp.uint8)], axis=1)  # [B, 30]
    if kind in ("col", "rest"):
        if kind == "rest":
            pad, k = xp.concatenate([pad[:, 1:], pad[:, :1]], axis=1), xp.maximum(k - 1, 0)
        data = xp.broadcast_to(pad.reshape(n, MAX, 1), (n, MAX, MAX))
        h, w = k, xp.ones(n, xp.int32)
    else:
        cnt = xp.concatenate([count, xp.zeros((n, MAX - 9), xp.int64)], axis=1).reshape(n, 1, MAX)
        data = xp.where(r < cnt, pad.reshape(n, 1, MAX), 0)
        h, w = count[:, 0].astype(xp.int32), k
    some = (k > 0) & (g.h > 0)
    return GridBatch(data.astype(xp.uint8), xp.where(some, h, 0).astype(xp.int32), w.astype(xp.int32))


def _stripes(g: GridBatch) -> GridBatch:
    """`palette(kind=stripes)`: each colour's mean row and mean column as exact integer keys (sum * 2**20 //
    count); a row where the mean columns spread wider than the mean rows, else a column."""
    xp = g.xp
    n = len(g)
    idx = xp.arange(MAX, dtype=xp.int64)
    sums = [[], []]  # per colour 1..9: sum of rows, sum of columns
    for c in range(1, 10):
        m = g.data == c
        sums[0].append((m.sum(axis=2, dtype=xp.int64) * idx).sum(axis=1))
        sums[1].append((m.sum(axis=1, dtype=xp.int64) * idx).sum(axis=1))
    rsum, csum = (xp.stack(s, axis=1) for s in sums)  # [B, 9] each
    count = colour_counts(g)[:, 1:].astype(xp.int64)
    present = count > 0
    mean_r, mean_c = (xp.where(present, t * (1 << 20) // xp.maximum(count, 1), -1) for t in (rsum, csum))
    big = 1 << 40

    def spread(m):
        return xp.where(present, m, -big).max(axis=1) - xp.where(present, m, big).min(axis=1)

    row = spread(mean_c) > spread(mean_r)  # a row of colours where they change along the columns
    key = xp.where(row[:, None], mean_c, mean_r)
    order = xp.argsort(xp.where(present, key * 16 + xp.arange(1, 10), big), axis=1)
    colour = xp.concatenate([(order + 1).astype(xp.uint8), xp.zeros((n, MAX - 9), xp.uint8)], axis=1)
    k = present.sum(axis=1).astype(xp.int32)
    data = xp.where(row[:, None, None], colour.reshape(n, 1, MAX), colour.reshape(n, MAX, 1))
    data = xp.broadcast_to(data, (n, MAX, MAX))
    some = (k > 0) & (g.h > 0)
    one_ = xp.ones(n, xp.int32)
    h, w = xp.where(row, one_, k), xp.where(row, k, one_)
    return GridBatch(xp.ascontiguousarray(data).astype(xp.uint8), xp.where(some, h, 0).astype(xp.int32),
                     xp.where(some, w, 0).astype(xp.int32))
