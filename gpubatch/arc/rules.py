"""Fits up to a local rule: a state whose demo outputs follow, cell by cell, from a feature of the state's
cell (its colour and what surrounds it) through one table learned from the demo pairs.

`0ca9ddb6` puts yellow at the diagonal neighbours of every red pixel and orange beside every blue one: no
fixed composition of primitives does that for every colour, but the table (own colour, colours of the
orthogonal neighbours, colours of the diagonal neighbours) -> output colour, read off the demos, does. A rule
fits when the table is consistent (no feature maps to two colours). A test cell whose feature no demo showed
keeps its colour; a fit where that happens is *partial* and ranks after every other fit (`batt`), and it must
change some test cell, so that it never just restates its state. `rule_fits_both` also gives the guess where
each unseen cell takes its own colour's majority output in the table (`learned`'s `nbhd_major`).

A colour map (`colourmap`) is the special case "own colour"; the feature kinds here add context:

- `nbhd`: own colour, the set of colours of the 4 orthogonal and the set of the 4 diagonal neighbours;
- `ring`: own colour and the set of colours of all 8 neighbours;
- `count`: own colour, how many orthogonal and how many diagonal neighbours are not 0 (`3aa6fb7a`);
- `same`: own colour and how many orthogonal neighbours have it too (`67385a82`);
- `mask`: own colour and which of the 8 neighbours, by place, are neither 0 nor outside the grid (`95990924`:
  the cell whose only such neighbour is at its lower right turns blue, at its lower left red...);
- `lines`: own colour, the set of colours in its row and the set in its column;
- `rays`: own colour and the first non-0 colour (or the border) seen in each of the 4 directions;
- `size`: own colour and the size of its object (4-connected, one colour, background excluded; `6e82a1ae`);
- `rank`: own colour and its object's size rank in the grid (0: the largest; `08ed6ac7`);
- `half`: own colour and where it lies in its object (as for `size`): above, on or below the object's centre
  row (its mean row), and left of, on or right of its centre column (`ce9e57f2`: the lower half of each bar
  turns cyan);
- `shape`: own colour and which shape it is (4-connected, one colour, the grid's most common colour excluded;
  `regions`), wherever it lies (`ad38a9d0` of ARC-AGI-2 training: each shape of 6s takes a colour of its own);
- `phase`: own colour, its row index and its column index modulo 3 (`ba26e723`: every third column);
- `blank`: own colour, whether its row and whether its column hold only 0 (`c1d99e64`);
- `parity`: own colour, its row index and its column index modulo 2 (`e9afcf9a`: two rows of alternating
  colours);
- `back`: as `parity`, with the indices counted from the bottom row and the right column (`d406998b`: every
  other cell from the right end of rows of different lengths);
- `region`: own colour and three facts of its region (4-connected, one colour, 0 included): whether it is a
  filled rectangle, whether it touches the border, whether it is a square (`44d8ac46`: square holes turn red);
- `extreme`: own colour, whether its region (as for `region`) is the largest of its colour in the grid, and
  whether the smallest (`6455b5f5`: the largest empty region turns red, the smallest blue);
- `holes`: own colour and whether its region borders a closed region of another colour, one that does not
  reach the border (`b2862040`: the shapes of 1s that close a hole turn 8);
- `nearest`: own colour and the nearest colour in a straight line (up, down, left or right) that is neither 0
  nor its own, 10 where none is and 11 where two colours are equally near (`2204b7a8`: each green pixel takes
  the colour of the nearer of two border lines);
- `inbox`: own colour and the set of colours whose bounding box (all of that colour's cells in the grid)
  holds the cell (`32597951`: the blue cells inside the box of the cyan ones turn green);
- `touch`: own colour and the set of the other colours beside its region (4-connected, one colour, 0
  included): shapes that touch a colour change, the others stay (`d90796e8`: a green cell beside a red one
  turns cyan, and the red one goes).

Everything runs on whole batches with array operations (one sort of the batch's cells), on NumPy or CuPy.
"""
from __future__ import annotations

import numpy as np

from .dsl.geometry import bbox_params
from .dsl.objects import labels, per_label, sizes_of
from .grids import CELLS, MAX, PAD, GridBatch
from .regions import extreme, holes, region, shape_codes, touching

KINDS = ("nbhd", "ring", "count", "same", "mask", "lines", "rays", "size", "rank", "phase", "blank", "parity", "region",
         "extreme", "holes", "nearest", "back", "inbox", "touch", "half", "shape")
_FBITS = 40  # a feature code is below 2**40; the state index sits above it
MAX_STATES = 1 << 19  # states per call, so that (state, feature, colour) packs into 63 bits

_ORTH = ((-1, 0), (1, 0), (0, -1), (0, 1))
_DIAG = ((-1, -1), (-1, 1), (1, -1), (1, 1))
_ROW_COL = np.divmod(np.arange(CELLS, dtype=np.int64), MAX)  # each cell's row and column


def _shifted(xp, d, dy: int, dx: int):
    """[B, 30, 30] int64: each cell's neighbour at (dy, dx), PAD beyond the array."""
    r = max(1, abs(dy), abs(dx))
    p = xp.pad(d, ((0, 0), (r, r), (r, r)), constant_values=PAD)
    return p[:, r + dy:r + dy + MAX, r + dx:r + dx + MAX]


def _colour_set(xp, d, offsets):
    """Bit c (0-10; 10 = outside the grid) set when some neighbour at `offsets` has colour c."""
    out = xp.zeros(d.shape, xp.int64)
    for dy, dx in offsets:
        out |= xp.left_shift(1, _shifted(xp, d, dy, dx))
    return out


def _count(xp, d, offsets, test):
    """How many neighbours at `offsets` pass `test` (a function of their values)."""
    out = xp.zeros(d.shape, xp.int64)
    for dy, dx in offsets:
        out += test(_shifted(xp, d, dy, dx))
    return out


def _line_sets(xp, d):
    """Per cell: bit sets of the colours (0-9) in its row and in its column."""
    rows = xp.zeros(d.shape[:2], xp.int64)
    cols = xp.zeros((d.shape[0], d.shape[2]), xp.int64)
    for c in range(PAD):
        hit = d == c
        rows |= hit.any(axis=2).astype(xp.int64) << c
        cols |= hit.any(axis=1).astype(xp.int64) << c
    return xp.broadcast_to(rows[:, :, None], d.shape), xp.broadcast_to(cols[:, None, :], d.shape)


def _rays(xp, d, past_own: bool = False):
    """Per cell and direction (up, down, left, right): the first non-0 value beyond it (PAD: the border); with
    `past_own`, the first that is neither 0 nor the cell's own colour (`stamps`)."""
    out = []
    for axis, rev in ((1, False), (1, True), (2, False), (2, True)):
        a = xp.flip(d, axis) if rev else d
        seen = xp.full(a.shape, PAD, xp.int64)
        last = xp.full((a.shape[0], MAX), PAD, xp.int64)  # the latest non-0 colour passed
        before = last.copy()  # the latest non-0 colour passed that differs from `last` (for `past_own`)
        for i in range(MAX):
            line = a[:, i, :] if axis == 1 else a[:, :, i]
            ray = xp.where(last == line, before, last) if past_own else last
            if axis == 1:
                seen[:, i, :] = ray
            else:
                seen[:, :, i] = ray
            new = (line != 0) & (line != last)
            if past_own:
                before = xp.where(new, last, before)
            last = xp.where(new, line, last)
        out.append(xp.flip(seen, axis) if rev else seen)
    return out


def _nearest(xp, d):
    """Per cell: the nearest colour along its row or column that is neither 0 nor its own (PAD: none; 11: two
    colours equally near). One pass a direction keeps the latest colour passed, the latest other one before
    it, and where each was last seen."""
    n = d.shape[0]
    best = xp.full(d.shape, 2 * MAX, xp.int64)
    colour = xp.full(d.shape, PAD, xp.int64)
    for axis, rev in ((1, False), (1, True), (2, False), (2, True)):
        a = xp.flip(d, axis) if rev else d
        dist = xp.full(a.shape, 2 * MAX, xp.int64)
        hit = xp.full(a.shape, PAD, xp.int64)
        last, before = (xp.full((n, MAX), PAD, xp.int64) for _ in range(2))
        at_last, at_before = (xp.full((n, MAX), -2 * MAX, xp.int64) for _ in range(2))
        for i in range(MAX):
            line = a[:, i, :] if axis == 1 else a[:, :, i]
            mine = last == line
            c, at = xp.where(mine, before, last), xp.where(mine, at_before, at_last)
            far = xp.where(c < PAD, i - at, 2 * MAX)
            if axis == 1:
                dist[:, i, :], hit[:, i, :] = far, c
            else:
                dist[:, :, i], hit[:, :, i] = far, c
            seen = (line != 0) & (line < PAD)
            new = seen & (line != last)
            before, at_before = xp.where(new, last, before), xp.where(new, at_last, at_before)
            last, at_last = xp.where(seen, line, last), xp.where(seen, i, at_last)
        if rev:
            dist, hit = xp.flip(dist, axis), xp.flip(hit, axis)
        tie = (dist == best) & (hit != colour) & (dist < 2 * MAX)
        colour = xp.where(dist < best, hit, xp.where(tie, PAD + 1, colour))
        best = xp.minimum(best, dist)
    return colour


def _in_boxes(xp, d):
    """Bit c set where the cell lies in the bounding box of all the cells of colour c (0-9) in its grid."""
    r = xp.arange(MAX).reshape(1, MAX)
    out = xp.zeros(d.shape, xp.int64)
    for c in range(PAD):
        top, left, h, w = (v.reshape(-1, 1) for v in bbox_params(xp, d == c, True).T)  # h = w = 0: none
        rows, cols = (r >= top) & (r < top + h), (r >= left) & (r < left + w)
        out |= (rows[:, :, None] & cols[:, None, :]).astype(xp.int64) << c
    return out


def _size_rank(xp, size):
    """Per cell of an object: how many distinct object sizes of its grid are larger (0: a largest object);
    cells of no object get CELLS."""
    B = size.shape[0]
    present = xp.zeros((B, CELLS + 2), xp.int64)
    flat = size.reshape(B, -1)
    present[xp.arange(B)[:, None], flat] = 1
    present[:, 0] = 0
    larger = xp.cumsum(present[:, ::-1], axis=1)[:, ::-1]  # larger[s] = distinct sizes >= s
    rank = xp.take_along_axis(larger, flat + 1, axis=1)
    return xp.where(flat > 0, rank, CELLS).reshape(size.shape)


def _halves(g: GridBatch):
    """Per cell of an object (4-connected, one colour, background excluded): 3 * (0, 1 or 2 as its row is
    above, on or below the object's mean row) + the same for its column; 9 for other cells. Exact: a row is
    compared times the object's size with the sum of its rows."""
    xp = g.xp
    n = len(g)
    lab = labels(g, 4, False, False)
    size = sizes_of(g, 4, False, False).reshape(n, CELLS).astype(xp.int64)
    code = 0
    for idx in (xp.asarray(a) for a in _ROW_COL):
        total = per_label(xp, lab, xp.broadcast_to(idx, (n, CELLS))).astype(xp.int64)
        code = code * 3 + xp.sign(idx * size - total) + 1
    return xp.where(lab >= 0, code, 9).reshape(n, MAX, MAX)


def features(g: GridBatch, kind: str):
    """int64 [B, 30, 30]: each cell's feature code of `kind` (below 2**40); cells outside grids included."""
    xp = g.xp
    d = g.data.astype(xp.int64)
    if kind == "nbhd":
        return d | _colour_set(xp, d, _ORTH) << 4 | _colour_set(xp, d, _DIAG) << 15
    if kind == "ring":
        return d | _colour_set(xp, d, _ORTH + _DIAG) << 4
    if kind == "count":
        return d | _count(xp, d, _ORTH, lambda v: (v != 0) & (v < PAD)) << 4 | \
            _count(xp, d, _DIAG, lambda v: (v != 0) & (v < PAD)) << 8
    if kind == "same":
        return d | _count(xp, d, _ORTH, lambda v: v == d) << 4
    if kind == "mask":
        code = d
        for j, (dy, dx) in enumerate(_ORTH + _DIAG):
            v = _shifted(xp, d, dy, dx)
            code = code | ((v != 0) & (v < PAD)).astype(xp.int64) << (4 + j)
        return code
    if kind == "lines":
        rows, cols = _line_sets(xp, d)
        return d | rows << 4 | cols << 14
    if kind in ("size", "rank"):
        size = sizes_of(g, 4, False, False).reshape(d.shape).astype(xp.int64)
        if kind == "rank":
            size = _size_rank(xp, size)
        return d | size << 4
    if kind == "half":
        return d | _halves(g) << 4
    if kind in ("phase", "parity"):  # row and column index mod 3 (2 bits each) or mod 2 (1 bit each)
        m, bits = (3, 2) if kind == "phase" else (2, 1)
        r = xp.arange(MAX, dtype=xp.int64) % m
        return d | r.reshape(1, MAX, 1) << 4 | r.reshape(1, 1, MAX) << (4 + bits)
    if kind == "back":  # row and column index mod 2, counted from the bottom and the right
        r = xp.arange(MAX, dtype=xp.int64).reshape(1, MAX, 1)
        c = xp.arange(MAX, dtype=xp.int64).reshape(1, 1, MAX)
        h, w = g.h.astype(xp.int64).reshape(-1, 1, 1), g.w.astype(xp.int64).reshape(-1, 1, 1)
        return d | ((h - 1 - r) % 2) << 4 | ((w - 1 - c) % 2) << 5
    if kind == "blank":
        filled = (d != 0) & (d < PAD)
        rows, cols = (filled.any(axis=a, keepdims=True).astype(xp.int64) for a in (2, 1))
        return d | rows << 4 | cols << 5
    if kind == "region":
        return d | region(g) << 4
    if kind == "extreme":
        return d | extreme(g) << 4
    if kind == "holes":
        return d | holes(g) << 4
    if kind == "nearest":
        return d | _nearest(xp, d) << 4
    if kind == "shape":
        return d | shape_codes(g) << 4
    if kind == "inbox":
        return d | _in_boxes(xp, d) << 4
    if kind == "touch":
        return d | touching(g) << 4
    if kind == "rays":
        code = d
        for j, r in enumerate(_rays(xp, d)):
            code = code | r << (4 + 4 * j)
        return code
    raise ValueError(f"unknown rule feature {kind!r}; expected one of {', '.join(KINDS)}")


def shaped(C: GridBatch, task, targets: GridBatch, demo):
    """bool [n * K]: rows of `C` that are valid and, on demo rows, have their target's shape (a state can fit
    up to a rule only if all its K rows do)."""
    xp = C.xp
    K = demo.shape[1]
    n = len(C) // K
    trows = (xp.asarray(task).astype(xp.int64).reshape(n, 1) * K + xp.arange(K)).reshape(-1)
    same = (C.h == targets.h[trows]) & (C.w == targets.w[trows])
    return (C.h > 0) & (~demo[task].reshape(-1) | same)


def cells_of(C: GridBatch, task, targets: GridBatch, demo):
    """What a learner reads of `C` ([n * K] grids, state-major): each row's target row, whether it is a demo
    row, whether each state has every demo target's shape (`shaped`), each row's state, and the cells it
    learns from or predicts ([n * K, 30, 30]: inside the grid, of a state so shaped)."""
    xp = C.xp
    K = demo.shape[1]
    n = len(C) // K
    task = xp.asarray(task).astype(xp.int64)
    trows = (task.reshape(n, 1) * K + xp.arange(K)).reshape(-1)
    is_demo = demo[task].reshape(-1)
    ok = shaped(C, task, targets, demo).reshape(n, K).all(axis=1)
    r = xp.arange(MAX)
    inside = (r[None, :, None] < C.h[:, None, None]) & (r[None, None, :] < C.w[:, None, None])
    state = xp.repeat(xp.arange(n, dtype=xp.int64), K)
    return trows, is_demo, ok, state, inside & ok[state][:, None, None]


def rule_fits(C: GridBatch, task, targets: GridBatch, demo, kind: str):
    """(ok[n], unseen[n], predicted): whether each state of `C` ([n * K] grids, state-major; `task[n]`
    indexes `targets` rows task*K.. and `demo[T, K]`) fits its demo targets up to a rule of `kind`, how many
    of its test cells have a feature no demo showed, and `C` with every test row of a fitting state replaced
    by the rule's prediction (other rows unchanged). Unseen cells keep their colour; a fit with unseen cells
    (partial) must change some test cell, else it only restates its state."""
    return rule_fits_both(C, task, targets, demo, kind)[:3]


def rule_fits_both(C: GridBatch, task, targets: GridBatch, demo, kind: str):
    """`rule_fits`, and a second prediction where each unseen cell takes its state's *majority* colour for
    its own colour instead (the output that most of the table's features of that own colour give; its own
    colour where that ties). A rule that recolours every object of a size no demo showed (`d2abd087`) is
    right the second way, one that leaves a pixel no demo showed alone (`d90796e8`) the first."""
    return table_fits(C, task, targets, demo, features(C, kind))


def table_fits(C: GridBatch, task, targets: GridBatch, demo, feature, keep: int | None = None):
    """`rule_fits_both` from each cell's `feature` code ([n * K, 30, 30], below 2**40). With `keep`, an output
    equal to the cell's own colour is learned as the value `keep` and read back as the cell's own colour, so
    that a table whose code omits the colour serves every colour (`anycolour`); its second prediction is then
    its first."""
    xp = C.xp
    n = len(C) // demo.shape[1]
    if n > MAX_STATES:
        raise ValueError(f"rule_fits takes at most {MAX_STATES} states a call, got {n}")
    trows, is_demo, ok, state, use = cells_of(C, task, targets, demo)
    code = feature | (state << _FBITS)[:, None, None]
    sel_d = use & is_demo[:, None, None]
    out = targets.data[trows][sel_d].astype(xp.int64)
    if keep is not None:
        out = xp.where(out == C.data[sel_d], keep, out)
    kv = xp.unique((code[sel_d] << 4) | out)
    keys = kv >> 4
    clash = keys[1:] == keys[:-1]  # one feature, two colours: that state's table is not a function
    ok[(keys[1:][clash] >> _FBITS)] = False
    sel_t = use & ~is_demo[:, None, None]
    want = code[sel_t]
    own = C.data[sel_t]
    if len(keys):
        pos = xp.minimum(xp.searchsorted(keys, want), len(keys) - 1)
        seen = keys[pos] == want
        colour = xp.where(seen, (kv[pos] & 15).astype(xp.uint8), own)
        if keep is None:
            major = xp.where(seen, colour, _majority(xp, kv, want, own))
        else:
            colour = major = xp.where(colour == keep, own, colour)
    else:
        seen, colour, major = xp.zeros(len(want), bool), own, own
    # per state, by cell masks summed over its K grids (no scatter, no host round trip, fine when empty)
    miss, diff = xp.zeros(C.data.shape, bool), xp.zeros(C.data.shape, bool)
    miss[sel_t], diff[sel_t] = ~seen, colour != own
    unseen = miss.reshape(n, -1).sum(axis=1)
    ok &= (unseen == 0) | diff.reshape(n, -1).any(axis=1)
    data, alt = C.data.copy(), C.data.copy()
    data[sel_t], alt[sel_t] = colour, major
    return ok, unseen, GridBatch(data, C.h, C.w), GridBatch(alt, C.h, C.w)


def _majority(xp, kv, want, own):
    """For each cell of feature `want`: the output colour that most of its state's distinct table entries
    (`kv`: sorted (state, feature, colour) codes) with the cell's own colour give; `own` on a tie with it or
    where the table has none of that own colour. Ties between other colours go to the lowest."""
    group = (kv >> 4 >> _FBITS) << 4 | ((kv >> 4) & 15)  # (state, own colour)
    u, count = xp.unique(group << 4 | (kv & 15), return_counts=True)
    g, out = u >> 4, u & 15
    kept = (out == (g & 15)).astype(xp.int64)
    order = xp.lexsort(xp.stack([out, -kept, -count, g]))
    g, out = g[order], out[order]
    head = xp.ones(len(g), bool)
    head[1:] = g[1:] != g[:-1]
    gk, best = g[head], out[head]
    wk = (want >> _FBITS) << 4 | (want & 15)
    pos = xp.minimum(xp.searchsorted(gk, wk), len(gk) - 1)
    return xp.where(gk[pos] == wk, best[pos].astype(xp.uint8), own)
