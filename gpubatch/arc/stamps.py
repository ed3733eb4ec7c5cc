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

Whole batches at once, on NumPy or CuPy: one sort of the demo cells' (key, colour) pairs and one sorted
lookup per direction (24). `d364b489` (a colour on each side of every blue pixel), `a9f96cdd` and `913fb3ed` are
training tasks of this kind.
"""
from __future__ import annotations

from .grids import GridBatch
from .rules import _DIAG, _ORTH, _shifted, cells_of

# the 8 neighbours, then the ring of 16 two cells away (a pixel that marks a cell two steps off, as in 93b581b8)
_DIRS = _ORTH + _DIAG + tuple((dy, dx) for dy in range(-2, 3) for dx in range(-2, 3)
                              if max(abs(dy), abs(dx)) == 2)
_NEAR = 8  # directions before this one are next to the cell
_NONE = 15  # no stamp in this direction (above every colour and PAD)


def _keys(xp, d, state, sel):
    """int64 [24, m]: each selected cell's key per direction: (state, direction, own colour, neighbour's)."""
    own = d[sel]
    st = xp.broadcast_to(state[:, None, None], d.shape)[sel]
    return xp.stack([((st * 32 + j) * 16 + own) * 16 + _shifted(xp, d, dy, dx)[sel]
                     for j, (dy, dx) in enumerate(_DIRS)])


def _span(xp, got):
    """(lowest, highest) colour stamped on each cell over the directions of `got`; highest -1 where none."""
    return got.min(axis=0), xp.where(got == _NONE, -1, got).max(axis=0)


def stamp_fits(C: GridBatch, task, targets: GridBatch, demo):
    """(ok[n], unseen[n], predicted), as `rules.rule_fits`: whether each state of `C` ([n * K] grids,
    state-major; `task[n]` indexes `targets` rows task*K.. and `demo[T, K]`) fits its demo targets up to
    stamps, how many of its test cells were stamped two colours (kept as they are), and `C` with every test
    row replaced by the stamps' prediction. A fit with such cells must change some test cell."""
    xp = C.xp
    n = len(C) // demo.shape[1]
    trows, is_demo, ok, state, use = cells_of(C, task, targets, demo)
    d = C.data.astype(xp.int64)
    sel_d = use & is_demo[:, None, None]
    want = targets.data[trows][sel_d].astype(xp.int64)
    # sorted (key, output colour), and how many demo cells show each
    pairs, seen = xp.unique((_keys(xp, d, state, sel_d) << 4 | want).ravel(), return_counts=True)
    key = pairs >> 4
    single = xp.ones(len(key), bool)  # a key seen with one output colour only
    single[1:] &= key[1:] != key[:-1]
    single[:-1] &= key[:-1] != key[1:]
    far = ((key >> 8) & 31) >= _NEAR  # two steps off: a coincidence is likelier, so one demo cell is not enough
    stamp = single & ((pairs & 15) != ((key >> 4) & 15)) & (~far | (seen >= 2))
    skeys, scolour = key[stamp], pairs[stamp] & 15
    keys = _keys(xp, d, state, use)
    if len(skeys):
        pos = xp.minimum(xp.searchsorted(skeys, keys), len(skeys) - 1)
        got = xp.where(skeys[pos] == keys, scolour[pos], _NONE)
    else:
        got = xp.full(keys.shape, _NONE, xp.int64)
    # the nearest stamps decide: the ring two steps off only where no neighbour stamps
    (lo, hi), (far_lo, far_hi) = _span(xp, got[:_NEAR]), _span(xp, got[_NEAR:])
    lo, hi = xp.where(hi >= 0, lo, far_lo), xp.where(hi >= 0, hi, far_hi)
    own = d[use]
    two = (hi >= 0) & (lo != hi)
    pred = xp.where((hi < 0) | two, own, lo)
    # per state, by cell masks summed over its K grids (no scatter, no host round trip)
    wrong, clash, diff = (xp.zeros(C.data.shape, bool) for _ in range(3))
    demo_cells = is_demo[:, None, None] & use
    target = targets.data[trows].astype(xp.int64)
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
