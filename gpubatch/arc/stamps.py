"""Fits up to stamps: every cell's output colour follows from its neighbours one at a time.

A local rule (`rules`) reads a cell's whole neighbourhood as one feature, so a test cell whose neighbourhood
no demo showed keeps its colour. In `0ca9ddb6` every red pixel puts yellow at its diagonal neighbours and
every blue one orange beside it; a test cell between a red and a magenta pixel is a neighbourhood the demos
never had, yet each neighbour alone says what it needs. Stamps learn, per (own colour, neighbour direction,
neighbour colour), the output colour of every demo cell that has it; where that is one colour and not the
cell's own, the neighbour *stamps* that colour. The sources are the 8 neighbours and the ring of 16 cells two
steps off (`93b581b8` puts colours two cells out from a square's corners); a stamp from that ring needs two
demo cells that show it, and counts only where no neighbour stamps. A cell takes the one colour stamped on
it, or keeps its own where none is. The stamps fit when they reproduce every demo output; a test cell
stamped two colours keeps its own and counts as unseen (a partial fit, ranked after every other fit, as for
the rules).

A source may also *copy*: where every demo cell of an (own colour, source) takes the source's colour, and
that is another colour than its own, a test cell of that kind takes its source's colour even where the demos
never showed that colour there. A second set of sources, `rays`, reads the first colour in each of the four
directions that is neither 0 nor the cell's own (`rule(f=raystamp)`): in `c9f8e694` every grey cell copies
the colour that starts its row. A third, `raypairs` (`rule(f=raypair)`), reads the rays up and down as one
source and left and right as another; its wider context fits demos by chance more often, so its fits rank
with the colour maps, after every exact fit and every other rule fit (`learned.LAST`).

Whole batches at once, on NumPy or CuPy: one sort of the demo cells' (key, colour) pairs and one sorted
lookup per source (24 cells, 4 rays or 2 ray pairs). `d364b489` (a colour on each side of every blue pixel),
`a9f96cdd` and `913fb3ed` are training tasks of this kind.
"""
from __future__ import annotations

from .grids import PAD, GridBatch
from .rules import _DIAG, _ORTH, _rays, _shifted, cells_of

# the 8 neighbours, then the ring of 16 two cells away (a pixel that marks a cell two steps off, as in 93b581b8)
_DIRS = _ORTH + _DIAG + tuple((dy, dx) for dy in range(-2, 3) for dx in range(-2, 3)
                              if max(abs(dy), abs(dx)) == 2)
_NONE = 15  # no stamp in this direction (above every colour and PAD)


def _cells(xp, d):
    """The colour at each of `_DIRS` from every cell (PAD beyond the grid)."""
    return [_shifted(xp, d, dy, dx) for dy, dx in _DIRS]


def _rays_past_own(xp, d):
    """Per cell and direction (up, down, left, right): the first colour beyond it that is neither 0 nor the
    cell's own (PAD: none before the border). `c9f8e694` colours a grey row by the colour that starts it."""
    return _rays(xp, d, past_own=True)


def _ray_pairs(xp, d):
    """Two sources: the rays past the cell's own colour up and down as one value, and left and right (a
    cell between a red pixel and a grey line, `8d510a79`, is told apart from one beyond the line)."""
    up, down, left, right = _rays_past_own(xp, d)
    return [up << 4 | down, left << 4 | right]


# sources by name: (the values that may stamp each cell, how many of them are near: the rest count only
# where no near one stamps, and need two demo cells)
SOURCES = {"cells": (_cells, 8), "rays": (_rays_past_own, 4), "raypairs": (_ray_pairs, 2)}
_V = 8  # bits of a source's value in a key (a colour, PAD, or two of them)


def _keys(xp, src, d, state, sel):
    """int64 [len(src), m]: each selected cell's key per source: (state, source, own colour, source value)."""
    own = d[sel]
    st = xp.broadcast_to(state[:, None, None], d.shape)[sel]
    return xp.stack([((st * 32 + j) * 16 + own) << _V | v[sel] for j, v in enumerate(src)])


def _copies(xp, dkeys, want, keys):
    """Per key of `keys`, the source's colour where every demo cell (`dkeys`, `want`) of its (state,
    source, own colour) took its source's colour, another than its own; `_NONE` elsewhere."""
    value, rest = dkeys & (1 << _V) - 1, dkeys >> _V
    same = (value == want) & (want != (rest & 15))
    both = xp.unique((rest << 1 | same).ravel())
    copy = both[(both & 1) == 1] >> 1
    copy = copy[~xp.isin(copy, both[(both & 1) == 0] >> 1)]
    value = keys & (1 << _V) - 1
    copied = (_lookup(xp, copy, xp.zeros(len(copy), xp.int64), keys >> _V) == 0) & (value < PAD)
    return xp.where(copied, value, _NONE)


def _lookup(xp, skeys, values, keys):
    """`values` of the sorted `skeys` at each of `keys`, `_NONE` where a key is not among them."""
    if not len(skeys):
        return xp.full(keys.shape, _NONE, xp.int64)
    pos = xp.minimum(xp.searchsorted(skeys, keys), len(skeys) - 1)
    return xp.where(skeys[pos] == keys, values[pos], _NONE)


def _span(xp, got):
    """(lowest, highest) colour stamped on each cell over the directions of `got`; highest -1 where none."""
    return got.min(axis=0), xp.where(got == _NONE, -1, got).max(axis=0)


def stamp_fits(C: GridBatch, task, targets: GridBatch, demo, sources: str = "cells"):
    """(ok[n], unseen[n], predicted), as `rules.rule_fits`: whether each state of `C` ([n * K] grids,
    state-major; `task[n]` indexes `targets` rows task*K.. and `demo[T, K]`) fits its demo targets up to
    stamps, how many of its test cells were stamped two colours (kept as they are), and `C` with every test
    row replaced by the stamps' prediction. A fit with such cells must change some test cell."""
    xp = C.xp
    n = len(C) // demo.shape[1]
    trows, is_demo, ok, state, use = cells_of(C, task, targets, demo)
    d = C.data.astype(xp.int64)
    make, near = SOURCES[sources]
    src = make(xp, d)
    demo_cells = is_demo[:, None, None] & use
    target = targets.data[trows].astype(xp.int64)
    keys = _keys(xp, src, d, state, use)
    learn = demo_cells[use]
    dkeys, want = keys[:, learn], target[use][learn]
    # sorted (key, output colour), and how many demo cells show each
    pairs, seen = xp.unique((dkeys << 4 | want).ravel(), return_counts=True)
    key = pairs >> 4
    single = xp.ones(len(key), bool)  # a key seen with one output colour only
    single[1:] &= key[1:] != key[:-1]
    single[:-1] &= key[:-1] != key[1:]
    far = ((key >> _V + 4) & 31) >= near  # far off: a coincidence is likelier, so one demo cell is not enough
    stamp = single & ((pairs & 15) != ((key >> _V) & 15)) & (~far | (seen >= 2))
    skeys, scolour = key[stamp], pairs[stamp] & 15
    got = _lookup(xp, skeys, scolour, keys)
    got = xp.where(got == _NONE, _copies(xp, dkeys, want, keys), got)
    # the nearest stamps decide: the ring two steps off only where no neighbour stamps
    lo, hi = _span(xp, got[:near])
    if len(src) > near:
        far_lo, far_hi = _span(xp, got[near:])
        lo, hi = xp.where(hi >= 0, lo, far_lo), xp.where(hi >= 0, hi, far_hi)
    own = d[use]
    two = (hi >= 0) & (lo != hi)
    pred = xp.where((hi < 0) | two, own, lo)
    # per state, by cell masks summed over its K grids (no scatter, no host round trip)
    wrong, clash, diff = (xp.zeros(C.data.shape, bool) for _ in range(3))
    wrong[use] = demo_cells[use] & ((pred != target[use]) | two)
    test_cells = ~demo_cells[use]
    clash[use] = test_cells & two
    diff[use] = test_cells & (pred != own)
    ok &= ~wrong.reshape(n, -1).any(axis=1)
    unseen = clash.reshape(n, -1).sum(axis=1)
    ok &= (unseen == 0) | diff.reshape(n, -1).any(axis=1)
    data = C.data.copy()
    data[use] = xp.where(test_cells, pred, own).astype(data.dtype)
    return ok, unseen, GridBatch(data, C.h, C.w)
