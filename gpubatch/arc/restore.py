"""Symmetry restoration: cells of a 'mask' colour take the colour the grid's mirror symmetries give them.

Many ARC tasks hide part of a symmetric picture under one colour and ask for the picture (or just the hidden
patch) back. The symmetries tried are fixed, in this order: top-bottom mirrors, left-right mirrors,
transposes across a diagonal and across an anti-diagonal, each with its axis up to OFFSET cells either side
of the grid's centre, then half turns about points up to one cell from the centre (the pictures of ARC
tasks are often cut off the grid unevenly, so the axis need not be the grid's own). A symmetry holds when
at least half of the known (non-mask) cells have a known image and none of them disagrees with it. Then, for
ROUNDS rounds, each holding symmetry in order gives every mask cell whose image is known that image's
colour (each step reads the grid as it was before the step), so images of images count too. A grid is
restored only if its mask cells are at most half of it and none is left; otherwise the result is invalid.

One implementation for NumPy and CuPy: whole-batch array code with one pass over the 37 symmetries, meant
for a task's inputs (the search applies it at depth 1 only), where batches are small. NumPy restores only
the grids a colour applies to; CuPy restores all ten colours of every grid at once (fewer launches, no host
round trip); the results are the same.
"""
from __future__ import annotations

import numpy as np

from .grids import CELLS, MAX, PAD, GridBatch
from .kernels import memo

OFFSET = 3
ROUNDS = 3


def symmetries() -> list[tuple[str, int, int]]:
    """The symmetries in the order they are tried: (kind, offset, second offset for half turns)."""
    out = [(kind, o, 0) for kind in ("h", "v", "t", "a") for o in range(-OFFSET, OFFSET + 1)]
    return out + [("r", o, p) for o in (-1, 0, 1) for p in (-1, 0, 1)]


def image(kind: str, o: int, p: int, i, j, h, w):
    """Row and column of the image of cell (i, j) of an h x w grid (works on ints and arrays alike)."""
    if kind == "h":
        return h - 1 + o - i, j
    if kind == "v":
        return i, w - 1 + o - j
    if kind == "t":  # across the line i - j = d through the centre
        d = (h - w) // 2 + o
        return j + d, i - d
    if kind == "a":  # across the line i + j = s through the centre
        s = (h + w - 2) // 2 + o
        return s - j, s - i
    return h - 1 + o - i, w - 1 + p - j


def restore(g: GridBatch, c: int) -> tuple:
    """(restored data [B, 900], ok [B]): see the module docstring; memoized on the batch per colour (on the
    GPU all ten colours are restored at once)."""
    key = ("restore", c)
    if key not in g.memo:
        g.memo[key] = _restore(g, c)
    return g.memo[key]


def _restore(g: GridBatch, c: int) -> tuple:
    xp = g.xp
    n = len(g)
    d = g.data.reshape(n, CELLS)
    if xp is not np:  # the ten colours in one pass (few launches; the batch is small: no host round trip)
        out, ok = memo(g, ("restore_all",), lambda: _fill(xp, d, g.h, g.w, xp.arange(10, dtype=xp.uint8)))
        return out[c], ok[c]
    hidden = (d == c).sum(axis=1)
    active = (g.h > 0) & (hidden > 0) & (2 * hidden <= g.h * g.w)
    out, ok = d.copy(), np.zeros(n, bool)
    sel = np.flatnonzero(active)  # only the grids it can apply to
    if len(sel):
        got, fine = _fill(np, d[sel], g.h[sel], g.w[sel], np.array([c], np.uint8))
        out[sel], ok[sel] = got[0], fine[0]
    return out, ok


def _fill(xp, d, h, w, colours) -> tuple:
    """Restore grids [m, 900] for each mask colour of `colours` [k]: (data [k, m, 900], ok [k, m]); a grid is
    left as it is, and not ok, where it has no hidden cells or more than half."""
    m, k = len(d), len(colours)
    cs = colours.reshape(k, 1, 1)
    cells = xp.arange(CELLS, dtype=xp.int32)
    i, j = cells // MAX, cells % MAX
    hh, ww = h.astype(xp.int32).reshape(m, 1), w.astype(xp.int32).reshape(m, 1)
    mask = d == cs  # [k, m, 900]
    hidden = mask.sum(axis=2)
    active = (h > 0) & (hidden > 0) & (2 * hidden <= h * w)
    known = (d < PAD) & ~mask
    n_known = known.sum(axis=2)
    maps = []
    for kind, o, p in symmetries():
        si, sj = image(kind, o, p, i, j, hh, ww)
        inside = (si >= 0) & (si < hh) & (sj >= 0) & (sj < ww) & (d < PAD)
        src = xp.where(inside, si * MAX + sj, 0)
        img = xp.take_along_axis(d, src, axis=1)
        both = inside & known & (img != cs)
        holds = active & ~(both & (img != d)).any(axis=2) & (2 * both.sum(axis=2) >= n_known)
        if xp is np and not holds.any():
            continue  # the same result without it: it fills nothing
        maps.append((xp.broadcast_to(src, (k, m, CELLS)), inside & holds.reshape(k, m, 1)))
    out = xp.broadcast_to(d, (k, m, CELLS))
    for _ in range(ROUNDS):
        for src, usable in maps:
            img = xp.take_along_axis(out, src, axis=2)
            out = xp.where((out == cs) & usable & (img != cs), img, out)
    ok = active & ~(out == cs).any(axis=2)
    return xp.where(active.reshape(k, m, 1), out, d).astype(xp.uint8), ok


def restored(g: GridBatch, c: int) -> GridBatch:
    """The restored grids; invalid (height 0) where restoration does not apply or leaves mask cells."""
    xp = g.xp
    out, ok = restore(g, c)
    return GridBatch(out.reshape(-1, MAX, MAX), xp.where(ok, g.h, 0).astype(xp.int32), g.w)


__all__ = ["OFFSET", "ROUNDS", "image", "restore", "restored", "symmetries"]
