"""A part of a divided grid coloured by a key: `key_colours` (`77fdfe62`, `7c008303`: a one-colour pattern and,
beside it, a few cells of several colours; the answer is the pattern with each block in its key cell's colour).

The grid is split as `parts` splits it (full lines of the smallest colour that has one). The mask is the largest
part whose coloured cells (0 and the divider not counted) are all one colour, ties to the first in reading
order; the key is every coloured cell outside it, its rows and columns taken in order (kh x kw cells, 0 where
no key cell lies). The key is scaled up to the mask's size, which must be a multiple of it, and the mask's
coloured cells take its colours. The whole batch at once: per-part counts by `bincount`, the key's rows and
columns by one scatter each, and one gather for the output, as `reference.key_colours` defines it.
"""
from __future__ import annotations

from ..grids import CELLS, MAX, PAD, GridBatch
from . import reference as ref
from .parts import split
from .registry import family


def _nth(xp, on):
    """[B, 31]: at k, the index of the k-th True of each row of `on` [B, 30] (entries past the count are 0)."""
    n = on.shape[0]
    at = xp.where(on, xp.cumsum(on, axis=1) - 1, MAX)
    out = xp.zeros((n, MAX + 1), xp.int64)
    out[xp.arange(n).reshape(n, 1), at] = xp.where(on, xp.arange(MAX).reshape(1, MAX), 0)
    return out


@family("key_colours", "compose", ref.key_colours, first=True)
def key_colours(g: GridBatch) -> GridBatch:
    """The largest one-colour part of the divided grid, its coloured cells in the colours of the key that the
    coloured cells outside it form, scaled up to its size; invalid without such a part or key, or when its
    sides are not multiples of the key's."""
    xp = g.xp
    n = len(g)
    sp = split(g)
    d, marked, part = sp.data, sp.counted, sp.part.ravel()
    area = xp.bincount(part, weights=sp.cell.ravel(), minlength=n * CELLS)
    total = xp.bincount(part, weights=marked.ravel(), minlength=n * CELLS)
    single = total > 0
    for c in range(1, PAD):  # one colour: some colour's count is the whole count
        count = xp.bincount(part, weights=(marked & (d == c)).ravel(), minlength=n * CELLS)
        single &= (count == 0) | (count == total)
    score = xp.where(single, area * CELLS + (CELLS - 1 - xp.arange(n * CELLS) % CELLS), -1).reshape(n, CELLS)
    best = score.argmax(axis=1)
    has_mask = score.max(axis=1) >= 0
    mr, mc = best // MAX, best % MAX
    in_r = sp.line_r & (sp.band_r == mr.reshape(n, 1))  # the mask's rows and columns
    in_c = sp.line_c & (sp.band_c == mc.reshape(n, 1))
    key = marked & ~(in_r[:, :, None] & in_c[:, None, :])
    krow, kcol = key.any(axis=2), key.any(axis=1)
    kh, kw = krow.sum(axis=1), kcol.sum(axis=1)
    h, w = in_r.sum(axis=1), in_c.sum(axis=1)
    ok = has_mask & (kh > 0) & (g.h > 0) & (sp.nr * sp.nc >= 2) & (sp.colour >= 0)
    kh1, kw1, h1, w1 = xp.maximum(kh, 1), xp.maximum(kw, 1), xp.maximum(h, 1), xp.maximum(w, 1)
    ok &= (h % kh1 == 0) & (w % kw1 == 0)
    r0, c0 = xp.argmax(in_r, axis=1), xp.argmax(in_c, axis=1)
    r = xp.arange(MAX)
    src_r = xp.minimum(r0.reshape(n, 1) + r.reshape(1, MAX), MAX - 1)  # [B, 30]: the mask's i-th row
    src_c = xp.minimum(c0.reshape(n, 1) + r.reshape(1, MAX), MAX - 1)
    b = xp.arange(n).reshape(n, 1, 1)
    key_r = _nth(xp, krow)[b[:, 0], xp.minimum(r * kh1.reshape(n, 1) // h1.reshape(n, 1), MAX)]
    key_c = _nth(xp, kcol)[b[:, 0], xp.minimum(r * kw1.reshape(n, 1) // w1.reshape(n, 1), MAX)]
    on = marked[b, src_r[:, :, None], src_c[:, None, :]]
    kr, kc = key_r[:, :, None], key_c[:, None, :]
    value = xp.where(on & key[b, kr, kc], d[b, kr, kc], 0)
    return GridBatch(value.astype(xp.uint8), xp.where(ok, h, 0).astype(xp.int32), xp.where(ok, w, 0).astype(xp.int32))
