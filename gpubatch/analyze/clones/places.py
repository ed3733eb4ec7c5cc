"""The places of clone groups: each matched segment's two node ranges, joined by an edge, plus the places that
a piece of a longer copy has in that copy's copies. Array code over a few arrays, one row per place, on NumPy
or CuPy, no loop over places.

Two places of one file are one copy only when they nearly coincide (`SAME_COPY`): a looser rule chains copies
of different extents into one group (a piece of a function with the copies of the whole function, whose members
then differ). With it, a piece found only against the original of a longer copy would miss that copy's other
places, so those are carried over (`_project`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arrayops import array_module, changes, cummax, lexsort, stable_argsort, unique_first
from .detect import Segments, take
from .trim import compare_ranges, trim_partial

SAME_COPY = 0.8  # places of one file that overlap by this share of the longer are one copy
PROJECTIONS = 2  # rounds of carrying a piece of a copy over to that copy's copies


@dataclass(frozen=True)
class Places:
    """Node ranges [n0, n1) of places and the edges (left, right) that make two places copies, each edge with
    the kind (1 exact, 2 renamed, 3 near-miss) and similarity of the copy it stands for."""

    n0: np.ndarray
    n1: np.ndarray
    left: np.ndarray
    right: np.ndarray
    kind: np.ndarray
    sim: np.ndarray


def furthest(xp, ends):
    """(reach, lead) over a sequence of ends: the furthest end so far, and the position that reached it."""
    reach = cummax(xp, ends)
    return reach, cummax(xp, xp.where(ends == reach, xp.arange(len(ends)), 0))


def drop_nested(seg: Segments, file_of: np.ndarray) -> Segments:
    """The segments not inside another of the same two files on both sides and on its diagonals (the renamed
    copy that holds a verbatim one, a piece matched again within a longer copy): kept, each would be a group
    of its own part of one copy. A piece inside on another diagonal is another copy (a function copied twice
    in a file, in two copies of that file) and stays. One sort; each segment is checked against the one
    before it that reaches furthest."""
    if len(seg) < 2:
        return seg
    xp = array_module(seg.b0)
    fb, fa = file_of[seg.b0], file_of[seg.a0]
    order = lexsort(xp, (-seg.b1, seg.b0, fa, fb))
    b0, b1, a0, a1 = seg.b0[order], seg.b1[order], seg.a0[order], seg.a1[order]
    new_pair = changes(xp, fb[order], fa[order])
    gid = xp.cumsum(new_pair) - 1
    off = gid.astype(xp.int64) * (int(b1.max()) + 1)
    t = furthest(xp, off + b1)[1][:-1]  # the furthest-reaching segment before each one (from b0 order, it starts no later)
    inside = ~new_pair[1:] & (gid[t] == gid[1:]) & (b1[t] >= b1[1:]) & (a0[t] <= a0[1:]) & (a1[1:] <= a1[t])
    lo, hi = xp.minimum(b0 - a0, b1 - a1)[t], xp.maximum(b0 - a0, b1 - a1)[t]  # a chain's diagonals span a range
    for d in (b0 - a0, b1 - a1):
        inside &= (lo <= d[1:]) & (d[1:] <= hi)
    keep = xp.ones(len(seg), dtype=bool)
    keep[order[1:][inside]] = False
    return take(seg, keep)


def near(n0: np.ndarray, n1: np.ndarray, file_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edges between places of one file that overlap by at least `SAME_COPY` of the longer: one copy. One
    sort; each place is checked against the one just before it (the same place of another segment, inside
    a longer one) and the one before it that reaches furthest."""
    xp = array_module(n0)
    order = lexsort(xp, (n1, n0))  # global node order is file order
    o0, o1 = n0[order], n1[order]
    lead = furthest(xp, o1)[1][:-1]
    a, b = [], []
    for q in (xp.arange(len(o0) - 1), lead):
        overlap = xp.minimum(o1[q], o1[1:]) - o0[1:]
        longer = xp.maximum(o1[1:] - o0[1:], o1[q] - o0[q])
        near = (file_of[o0[1:]] == file_of[o0[q]]) & (overlap >= SAME_COPY * longer)
        a.append(order[1:][near])
        b.append(order[q][near])
    return xp.concatenate(a), xp.concatenate(b)


def _project(n0, n1, aligned, seg_of, partner, movable):
    """Places of copies of a piece of a longer copy: each place of `movable` inside another, longer place that
    is `aligned` (its segment's places match node for node) is carried over to that place's `partner`, at the
    same offset: through every such place (a hub copy matched against many files, the pieces of many
    near-misses), each carried place once. Places of one extent are one place, and aligned places of one
    extent with partners of one extent one way through, so the pairs grow with the distinct places, not with
    the copies of a file (one sort by start, two sorted searches per way through). Returns (new n0, new n1,
    the inner places, the segments carried through, each piece's offset in the place around it)."""
    xp = array_module(n0)
    width = int(n1.max()) + 1  # (n0, n1) as one key
    p_all = _distinct(movable, n0[movable] * width + n1[movable])
    cont = xp.flatnonzero(aligned)
    cont = _distinct(cont, n0[cont] * width + n1[cont], n0[partner[cont]] * width + n1[partner[cont]])
    by = p_all[stable_argsort(xp, n0[p_all])]
    starts = n0[by]
    lo, hi = xp.searchsorted(starts, n0[cont], "left"), xp.searchsorted(starts, n1[cont], "left")
    count = hi - lo
    offs = xp.arange(int(count.sum())) - xp.repeat(xp.cumsum(count) - count, count)
    q, p = xp.repeat(cont, count), by[xp.repeat(lo, count) + offs]
    inside = (n1[p] <= n1[q]) & (n1[p] - n0[p] < SAME_COPY * (n1[q] - n0[q])) & (seg_of[p] != seg_of[q])
    p, q = p[inside], q[inside]
    shift = n0[partner[q]] - n0[q]
    c0, c1 = n0[p] + shift, n1[p] + shift
    first = _distinct(xp.arange(len(p)), n0[p] * width + n1[p], shift)  # one piece reaching one place two ways
    return c0[first], c1[first], p[first], seg_of[q][first], (n0[p] - n0[q])[first]


def _distinct(idx: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """The entries of `idx` whose keys are the first of their values (in `idx`'s order): one stable sort."""
    if len(idx) < 2:
        return idx
    xp = array_module(idx)
    order = lexsort(xp, keys[::-1])  # stable: each run of equal keys starts at its first entry
    return idx[xp.sort(order[changes(xp, *(k[order] for k in keys))])]


def _places_at(n0, n1, c0, c1) -> tuple[np.ndarray, np.ndarray]:
    """For places [c0, c1) to be added after the places [n0, n1): the index each one has (an existing place of
    that extent, else the new place made for the first of its extent), and which of them make new places."""
    xp = array_module(n0)
    width = max(int(n1.max()), int(c1.max())) + 1
    have = n0.astype(xp.int64) * width + n1
    want = c0.astype(xp.int64) * width + c1
    by = stable_argsort(xp, have)
    at = xp.minimum(xp.searchsorted(have[by], want), len(by) - 1)
    found = have[by][at] == want
    dest = xp.where(found, by[at], -1)
    rest = xp.flatnonzero(~found)
    first, inverse = unique_first(xp, want[rest])
    made = rest[xp.sort(first)]
    # new places in order of their first carried piece: rank each extent by its first occurrence
    rank = xp.empty(len(first), dtype=xp.int64)
    rank[stable_argsort(xp, first)] = xp.arange(len(first))
    dest[rest] = len(n0) + rank[inverse]
    return dest, made


def _renamed_nodes(exact, x0, y0, length, renamed) -> tuple[np.ndarray, np.int64]:
    """Where the `renamed` ones of the aligned segments [x0, x0 + length) / [y0, y0 + length) differ in their
    exact keys: sorted keys segment * width + offset, and that width (one gather over those segments)."""
    xp = array_module(exact)
    width = (int(length.max()) if len(length) else 0) + 1
    idx = xp.flatnonzero(renamed)
    row, offs, differ = compare_ranges(exact, x0[idx], y0[idx], length[idx])
    return idx[row[differ]].astype(xp.int64) * width + offs[differ], width


def _carrier_places(xp, carriers: Segments | None, s: int):
    """The carriers' places (n0, n1), as segments s, s + 1, ... of their own, each place's partner among them
    (to be offset by where they are put, after the real places), and each segment's kind (1 or 2)."""
    if carriers is None or not len(carriers):
        none = xp.zeros(0, dtype=xp.int64)
        return none, none, none, none, none
    m, both = len(carriers), xp.concatenate([xp.arange(len(carriers))] * 2)
    return (xp.concatenate([carriers.b0, carriers.a0]), xp.concatenate([carriers.b1, carriers.a1]), s + both,
            xp.concatenate([xp.arange(m) + m, xp.arange(m)]), xp.where(carriers.renamed > 0, 2, 1))


def find_places(seg: Segments, lines, min_lines: int, exact: np.ndarray, carriers: Segments | None = None,
                min_renamed: int = 0) -> Places | None:
    """Places of the segments at least `min_lines` long on both sides (the copies, then the originals), one
    edge a segment, then `PROJECTIONS` rounds of pieces carried over, through those segments and through
    `carriers` (the aligned pieces of near-misses: places of no group themselves); a carried piece is exact
    when its nodes' exact keys are all equal (always, through a verbatim copy), else as exact as the copy it
    went through, and kept only with `min_renamed` nodes. None when no segment is long enough."""
    xp = array_module(exact)
    seg = trim_partial(drop_nested(seg, lines.file_of), lines, exact)
    if not len(seg):
        return None
    bl0, bl1 = lines.first[seg.b0], lines.last[seg.b1 - 1]
    al0, al1 = lines.first[seg.a0], lines.last[seg.a1 - 1]
    idx = xp.flatnonzero((bl1 - bl0 + 1 >= min_lines) & (al1 - al0 + 1 >= min_lines))
    if not len(idx):
        return None
    s = len(idx)
    n0 = xp.concatenate([seg.b0[idx], seg.a0[idx]])
    n1 = xp.concatenate([seg.b1[idx], seg.a1[idx]])
    kind = xp.where(seg.gaps[idx] > 0, 3, xp.where(seg.renamed[idx] > 0, 2, 1))
    sim = seg.matched[idx] / xp.maximum(seg.b1[idx] - seg.b0[idx], seg.a1[idx] - seg.a0[idx])
    left, right, e_kind, e_sim = xp.arange(s), xp.arange(s) + s, kind, sim
    seg_of = xp.concatenate([xp.arange(s), xp.arange(s)])  # -1 for a carried place: it is no copy's side
    partner = xp.concatenate([xp.arange(s) + s, xp.arange(s)])
    plain = (seg.gaps[idx] == 0) & (seg.b1[idx] - seg.b0[idx] == seg.a1[idx] - seg.a0[idx])
    c_n0, c_n1, c_seg, c_partner, c_kind = _carrier_places(xp, carriers, s)
    m = len(c_kind)
    all_plain = xp.concatenate([plain, xp.ones(m, dtype=bool)])  # a near-miss's piece is aligned
    all_kind, all_sim = xp.concatenate([kind, c_kind]), xp.concatenate([sim, xp.ones(m)])
    renamed_at, renamed_width = _renamed_nodes(exact, xp.concatenate([n0[:s], c_n0[:m]]),
                                               xp.concatenate([n0[s:], c_n0[m:]]),
                                               xp.concatenate([n1[:s] - n0[:s], c_n1[:m] - c_n0[:m]]),
                                               all_plain & (all_kind == 2))
    new = xp.arange(2 * s)
    for _ in range(PROJECTIONS):
        r = len(n0)
        a0, a1, a_seg = xp.concatenate([n0, c_n0]), xp.concatenate([n1, c_n1]), xp.concatenate([seg_of, c_seg])
        a_partner = xp.concatenate([partner, r + c_partner])
        aligned = (a_seg >= 0) & all_plain[xp.maximum(a_seg, 0)]
        # each round carries only the places the last one made
        p0, p1, src, through, off = _project(a0, a1, aligned, a_seg, a_partner, new)
        if not len(p0):
            break
        # carried through a verbatim copy, a piece keeps its keys; through a renamed one, it does where none of
        # the copy's renamed nodes lies in it
        lo = through.astype(xp.int64) * renamed_width + off
        verbatim = xp.searchsorted(renamed_at, lo + (p1 - p0)) == xp.searchsorted(renamed_at, lo)
        # a renamed piece is a copy only as long as a renamed copy must be
        ok = verbatim | (p1 - p0 >= min_renamed)
        p0, p1, src, through, verbatim = p0[ok], p1[ok], src[ok], through[ok], verbatim[ok]
        if not len(p0):
            break
        # a place already there (or carried twice) gets the edge; only the others are new places
        dest, made = _places_at(n0, n1, p0, p1)
        new = xp.arange(r, r + len(made))
        n0, n1 = xp.concatenate([n0, p0[made]]), xp.concatenate([n1, p1[made]])
        seg_of = xp.concatenate([seg_of, xp.full(len(made), -1, dtype=xp.int64)])
        partner = xp.concatenate([partner, xp.full(len(made), -1, dtype=xp.int64)])
        e_kind = xp.concatenate([e_kind, xp.where(verbatim, 1, all_kind[through])])
        e_sim = xp.concatenate([e_sim, all_sim[through]])
        left, right = xp.concatenate([left, src]), xp.concatenate([right, dest])
        if not len(made):
            break
    return Places(n0, n1, left, right, e_kind, e_sim)
