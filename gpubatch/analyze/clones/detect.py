"""Clone search over every file at once, written against `xp` (NumPy or CuPy): no loop over files or pairs.

1. Every window of `min_nodes` consecutive nodes of a file gets a position-free polynomial hash of its shape
   keys (prefix sums in wrapping uint64 arithmetic: a few array passes for all windows of all files).
2. A sort joins equal hashes (the windows that share one, in position order); each window is paired with the
   first window of its hash and with the one just before it (a piece copied n times costs at most 2n pairs,
   not n^2).
3. Pairs on one diagonal (same offset between the two positions) with consecutive positions are one
   segment: a maximal copy. Its nodes are compared key by key: shapes must be equal (a hash collision is
   dropped), exact keys tell a verbatim copy (type 1) from a renamed one (type 2).
4. Segments of the same two places separated by small gaps in both (an inserted, deleted or changed
   statement) are chained into one near-miss clone (type 3) when the matched share of the longer side stays
   at least `min_similarity`.
Groups (`groups.py`) join segments that share a place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

_P = 0x9E3779B97F4A7C15  # odd: invertible modulo 2**64
_P_INV = pow(_P, -1, 1 << 64)


@dataclass(frozen=True)
class Segments:
    """Matched stretches, host arrays of one row per segment: copy `b` (later) of original `a` (first seen);
    node ranges are global [start, end) indices into the concatenated features."""

    b0: np.ndarray
    b1: np.ndarray
    a0: np.ndarray
    a1: np.ndarray
    matched: np.ndarray  # nodes matched (b1 - b0 for a plain segment; less for a chained one)
    renamed: np.ndarray  # nodes whose names or constants differ
    gaps: np.ndarray  # segments chained into this one, minus one (0: no gap)

    def __len__(self) -> int:
        return len(self.b0)


def prefix_hashes(xp, key):
    """(prefix, ipw): the hash of nodes [i, i + w) is (prefix[i + w] - prefix[i]) * ipw[i], whatever i."""
    n = len(key)
    pw = xp.cumprod(xp.full(n, _P, dtype=xp.uint64))  # P^(i+1), wrapping
    ipw = xp.cumprod(xp.full(n + 1, _P_INV, dtype=xp.uint64))  # one more: an empty range at the end
    prefix = xp.zeros(n + 1, dtype=xp.uint64)
    prefix[1:] = xp.cumsum(key * pw, dtype=xp.uint64)
    return prefix, ipw


def window_hashes(xp, prefix, ipw, starts, ends, width: int):
    """(positions, hashes) of every window of `width` nodes that lies inside one file."""
    lengths = ends - starts
    ok = lengths >= width
    counts = xp.where(ok, lengths - width + 1, 0)
    total = int(counts.sum())
    if total == 0:
        return xp.zeros(0, xp.int64), xp.zeros(0, xp.uint64)
    owner = xp.repeat(xp.arange(len(starts)), counts)
    first = xp.cumsum(counts) - counts
    pos = starts[owner] + (xp.arange(total) - first[owner])
    h = (prefix[pos + width] - prefix[pos]) * ipw[pos]
    return pos, h


def window_pairs(xp, pos, h, file_of, width: int, periodic: bool = False):
    """(copy, original) window positions: each window with the first window of equal hash and with the one
    just before it, so a stretch copied several times stays in one piece against at least one earlier copy
    (pairs per window: at most two, never n^2). Overlapping windows of one file are not paired (a run of alike
    statements is not a copy of itself). With `periodic`, a window equal to one less than `width` nodes
    before or after it in its file is left out altogether: by shape alone, every stretch of alike statements
    (a table, a list of asserts) would match every other."""
    order = xp.argsort(h)
    hs = h[order]
    same = hs[1:] == hs[:-1]
    shared = xp.zeros(len(hs), dtype=bool)  # windows whose hash another window has: the only ones that pair
    shared[1:] |= same
    shared[:-1] |= same
    order, hs = order[shared], hs[shared]
    group = xp.cumsum(xp.concatenate([xp.ones(min(len(hs), 1), dtype=bool), hs[1:] != hs[:-1]]))
    order = order[order_by(xp, group, pos[order])]  # equal hashes in position order (first seen first)
    hs, ps = h[order], pos[order]
    head = xp.ones(len(hs), dtype=bool)
    head[1:] = hs[1:] != hs[:-1]
    if periodic and len(hs) > 1:
        near = ~head[1:] & (file_of[ps[1:]] == file_of[ps[:-1]]) & (ps[1:] - ps[:-1] < width)
        drop = xp.zeros(len(hs), dtype=bool)
        drop[1:] |= near
        drop[:-1] |= near
        hs, ps = hs[~drop], ps[~drop]
        head = xp.ones(len(hs), dtype=bool)
        head[1:] = hs[1:] != hs[:-1]
    first = ps[xp.flatnonzero(head)][xp.cumsum(head) - 1]
    prev = xp.concatenate([ps[:1], ps[:-1]])
    b = xp.concatenate([ps, ps])
    a = xp.concatenate([first, prev])
    keep = xp.concatenate([~head, ~head]) & ((file_of[b] != file_of[a]) | (b - a >= width))
    keep[len(ps):] &= prev != first  # the first window twice: once is enough
    return b[keep], a[keep]


def order_by(xp, *keys, stable: bool = False):
    """Indices that sort by `keys` (non-negative integer arrays, the major one first): one argsort of one
    combined key where it fits in 63 bits (on NumPy several times faster than a lexsort), else a lexsort.
    With `stable`, equal rows keep their order (CuPy's argsort always does)."""
    if len(keys[0]) == 0:
        return xp.zeros(0, xp.int64)
    spans = [int(k.max()) + 1 for k in keys]
    if math.prod(spans) < 1 << 63 and all(int(k.min()) >= 0 for k in keys):
        combined = xp.zeros(len(keys[0]), xp.int64)
        for k, span in zip(keys, spans):
            combined = combined * span + k
        return xp.argsort(combined, kind="stable") if stable and xp is np else xp.argsort(combined)
    return xp.lexsort(xp.stack(keys[::-1]))  # a lexsort is stable


def runs(xp, b, a, width: int):
    """Maximal segments from window pairs: consecutive copies on one diagonal. Returns node ranges
    (b0, b1, a0, a1), end exclusive."""
    if len(b) == 0:
        z = xp.zeros(0, xp.int64)
        return z, z, z, z
    d = b - a
    order = order_by(xp, d, b)
    b, d = b[order], d[order]
    start = xp.ones(len(b), dtype=bool)
    start[1:] = (d[1:] != d[:-1]) | (b[1:] != b[:-1] + 1)
    first = xp.flatnonzero(start)
    last = xp.concatenate([first[1:] - 1, xp.asarray([len(b) - 1])])
    b0, b1 = b[first], b[last] + width
    return b0, b1, b0 - d[first], b1 - d[first]


def _equal_run(xp, prefix, ipw, x, y, limit, sign: int):
    """Per pair: the longest length e <= limit with nodes [x, x + e) equal to [y, y + e) (sign 1), or
    [x - e, x) to [y - e, y) (sign -1), by hashes: a binary search over all pairs at once."""
    lo, hi = xp.zeros_like(limit), limit
    for _ in range(int(limit.max()).bit_length() + 1 if len(limit) else 0):  # one read of the device, not one a step
        mid = (lo + hi + 1) // 2
        if sign > 0:
            hx = (prefix[x + mid] - prefix[x]) * ipw[x]
            hy = (prefix[y + mid] - prefix[y]) * ipw[y]
        else:
            hx = (prefix[x] - prefix[x - mid]) * ipw[x - mid]
            hy = (prefix[y] - prefix[y - mid]) * ipw[y - mid]
        same = hx == hy
        lo, hi = xp.where(same, mid, lo), xp.where(same, hi, mid - 1)
    return lo


def extend(xp, prefix, ipw, b_start, b_end, a_start, a_end, b0, b1, a0, a1):
    """Each segment grown along its diagonal both ways for as long as the keys stay equal, inside both files
    (`*_start`, `*_end`: each segment's files' node ranges), then one row per distinct result. A window pairs
    with only two others of its hash, so where a piece of a long copy also occurs elsewhere its windows pair
    there, and the copy falls apart in pieces: grown, the pieces of one diagonal are the whole copy again."""
    if len(b0) == 0:
        return b0, b1, a0, a1
    back = _equal_run(xp, prefix, ipw, b0, a0, xp.minimum(b0 - b_start, a0 - a_start), -1)
    fwd = _equal_run(xp, prefix, ipw, b1, a1, xp.minimum(b_end - b1, a_end - a1), 1)
    b0, a0, b1, a1 = b0 - back, a0 - back, b1 + fwd, a1 + fwd
    keep = xp.ones(len(b0), dtype=bool)
    order = order_by(xp, b0, a0)
    b0, b1, a0, a1 = b0[order], b1[order], a0[order], a1[order]
    keep[1:] = (b0[1:] != b0[:-1]) | (a0[1:] != a0[:-1])
    return b0[keep], b1[keep], a0[keep], a1[keep]


SHIFTS = 8  # a family of more segments than this, each a shift of the one before, is one repeated run
WORK = 16  # nodes compared per node of the trees before families of shifted segments are thinned
CHUNK = 1 << 23  # nodes compared per pass of `verify`: its memory stays bounded whatever the segments


def shifted_runs(xp, file_of, b0, b1, a0, a1, limit: int = SHIFTS):
    """bool per segment: dropped as a shift of another. A long run of one repeated statement (a generated
    table), in one file or in two, pairs every window with the first of its hash: each pair grows to a segment
    almost as long as the run, one per offset, and comparing them node by node is quadratic (200,000 lines of
    `a = 1`: 3e10 nodes). In (files, original start, copy start) order such segments follow each other, each
    holding more than half of the one before on both sides. A family of more than `limit` of them in one file
    goes (a run of alike statements is not a copy of itself); across two files it keeps its first, the run's
    copy, and what lies inside that copy on both sides goes too (the run's end against the other's start).
    Shorter families (a stretch copied three times in a row) stay as they are. `find_segments` applies it only
    where the comparisons would exceed `WORK` times the trees' nodes, so real trees' groups do not depend on it."""
    n = len(b0)
    out = xp.zeros(n, dtype=bool)
    if n <= limit:
        return out
    length = b1 - b0
    order = order_by(xp, file_of[b0], file_of[a0], a0, b0, int(length.max()) - length)
    b0, b1, a0, a1, length = b0[order], b1[order], a0[order], a1[order], length[order]
    over_b = xp.minimum(b1[1:], b1[:-1]) - xp.maximum(b0[1:], b0[:-1])
    over_a = xp.minimum(a1[1:], a1[:-1]) - xp.maximum(a0[1:], a0[:-1])
    short = xp.minimum(length[1:], length[:-1])
    fb, fa = file_of[b0], file_of[a0]
    alike = (fb[1:] == fb[:-1]) & (fa[1:] == fa[:-1]) & (2 * over_b > short) & (2 * over_a > short)
    family = xp.cumsum(xp.concatenate([xp.ones(1, dtype=xp.int64), (~alike).astype(xp.int64)])) - 1
    size = xp.bincount(family)
    head = xp.concatenate([xp.ones(1, dtype=bool), ~alike])
    large = size[family] > limit
    drop = large & (~head | (fb == fa))
    # what is left of such a run beside its copy (the run's end copied to the start of the other): inside the
    # longest segment kept of the same two files, on both sides, where those files hold such a family
    pair = xp.cumsum(xp.concatenate([xp.zeros(1, dtype=xp.int64), ((fb[1:] != fb[:-1]) | (fa[1:] != fa[:-1]))
                                     .astype(xp.int64)]))
    by_len = order_by(xp, pair, int(length.max()) - xp.where(drop, 0, length))
    first = xp.concatenate([xp.ones(1, dtype=bool), pair[by_len][1:] != pair[by_len][:-1]])
    big = by_len[first][pair]  # per segment: the longest kept segment of its two files
    inside = (big != xp.arange(n)) & (b0 >= b0[big]) & (b1 <= b1[big]) & (a0 >= a0[big]) & (a1 <= a1[big])
    out[order] = drop | (inside & (xp.bincount(pair, weights=large.astype(xp.float64)) > 0)[pair])
    return out


def verify(xp, shape, exact, b0, b1, a0):
    """Per segment: (all shapes equal, nodes whose exact keys differ), compared node by node for all segments
    at once."""
    lengths = b1 - b0
    total = int(lengths.sum()) if len(lengths) else 0
    if total == 0:
        return xp.ones(len(b0), dtype=bool), xp.zeros(len(b0), xp.int64)
    if total <= CHUNK:
        return _compare(xp, shape, exact, b0, a0, lengths, total)
    # in slices of whole segments of about CHUNK nodes (a longer segment alone), so memory stays bounded
    cut = [0, *xp.unique(xp.searchsorted(xp.cumsum(lengths), xp.arange(CHUNK, total, CHUNK), side="right")).tolist(),
           len(b0)]
    parts = [_compare(xp, shape, exact, b0[i:j], a0[i:j], lengths[i:j], int(lengths[i:j].sum()))
             for i, j in zip(cut, cut[1:]) if j > i]
    return xp.concatenate([p[0] for p in parts]), xp.concatenate([p[1] for p in parts])


def _compare(xp, shape, exact, b0, a0, lengths, total: int):
    """`verify` of segments holding `total` nodes in all, in one pass."""
    seg = xp.repeat(xp.arange(len(b0)), lengths)
    off = xp.arange(total) - (xp.cumsum(lengths) - lengths)[seg]
    ib, ia = b0[seg] + off, a0[seg] + off
    bad = xp.bincount(seg, weights=(shape[ib] != shape[ia]).astype(xp.float64), minlength=len(b0))
    renamed = xp.bincount(seg, weights=(exact[ib] != exact[ia]).astype(xp.float64), minlength=len(b0))
    return bad == 0, renamed.astype(xp.int64)


def chain(b0, b1, a0, a1, renamed, fb, fa, max_gap: int, min_similarity: float,
          width: int) -> tuple[Segments, Segments]:
    """Chain segments of the same two places that follow each other with gaps of at most `max_gap` nodes in
    both (host arrays, one sort; pieces may overlap by up to a window where the alignment is ambiguous).
    Pieces of one diagonal (a window in the middle also matched elsewhere first) join back into one copy; a
    chain across diagonals (an insertion, deletion or change on at least one side) is a near-miss, kept only
    when it matches at least `min_similarity` of its longer side (else it stays in pieces). Returns the
    copies, and the aligned pieces of the near-misses kept (through which a piece of one place is carried to
    the other, `places._project`)."""
    plain = Segments(b0, b1, a0, a1, b1 - b0, renamed, np.zeros(len(b0), np.int64))
    if len(b0) < 2:
        return plain, take(plain, np.zeros(len(b0), bool))
    order = np.lexsort((b0, fa, fb))
    b0, b1, a0, a1, renamed, fb, fa = (x[order] for x in (b0, b1, a0, a1, renamed, fb, fa))
    gap_b, gap_a = b0[1:] - b1[:-1], a0[1:] - a1[:-1]
    same_diag = gap_b == gap_a
    joins = (fb[1:] == fb[:-1]) & (fa[1:] == fa[:-1]) & (gap_b >= -width) & (gap_a >= -width) \
        & (gap_b <= max_gap) & (gap_a <= max_gap) & (same_diag | (np.maximum(gap_a, gap_b) > 0)) \
        & ((fb[1:] != fa[1:]) | (a1[1:] <= b0[:-1]))  # a chain never makes a copy overlap its original
    cid = np.concatenate([[0], np.cumsum(~joins)])
    first = np.flatnonzero(np.concatenate([[True], ~joins]))
    last = np.concatenate([first[1:] - 1, [len(b0) - 1]])
    span = np.maximum(b1[last] - b0[first], a1[last] - a0[first])
    # nodes matched: the union of each side's pieces (pieces of one diagonal may overlap)
    covered = np.clip(np.concatenate([[0], b1[1:] - np.maximum(b0[1:], b1[:-1])]), 0, b1 - b0)
    covered[first] = (b1 - b0)[first]
    matched = np.minimum(np.bincount(cid, weights=covered).astype(np.int64), span)
    # a join over unmatched nodes (another diagonal, or a gap on the same one: a changed node) makes a near-miss;
    # pieces of one diagonal that touch or overlap are one verbatim copy
    edits = joins & ~(same_diag & (gap_b <= 0))
    bends = np.bincount(cid, weights=np.concatenate([[0], edits.astype(np.int64)])).astype(np.int64)
    good = (matched >= min_similarity * span) | (bends == 0)
    pieces = ~good[cid]  # segments of chains that stay apart
    inner = take(plain, order[good[cid] & (bends[cid] > 0)])  # the aligned pieces of the near-misses kept
    return Segments(np.concatenate([b0[first][good], b0[pieces]]), np.concatenate([b1[last][good], b1[pieces]]),
                    np.concatenate([a0[first][good], a0[pieces]]), np.concatenate([a1[last][good], a1[pieces]]),
                    np.concatenate([matched[good], (b1 - b0)[pieces]]),
                    np.concatenate([np.bincount(cid, weights=renamed).astype(np.int64)[good], renamed[pieces]]),
                    np.concatenate([bends[good], np.zeros(int(pieces.sum()), np.int64)])), inner


def take(seg: Segments, keep: np.ndarray) -> Segments:
    """The rows of `seg` that `keep` picks (a mask or indices)."""
    return Segments(*(getattr(seg, f.name)[keep] for f in fields(Segments)))


def find_segments(xp, key, shape, exact, file_of, starts, ends, width: int, host, periodic: bool = False,
                  overlaps: bool = False):
    """Steps 1-3 over device arrays on one key (exact or shape); the segments come back to the host as
    (b0, b1, a0, a1, renamed)."""
    prefix, ipw = prefix_hashes(xp, key)
    pos, h = window_hashes(xp, prefix, ipw, starts, ends, width)
    b, a = window_pairs(xp, pos, h, file_of, width, periodic)
    b0, b1, a0, a1 = runs(xp, b, a, width)
    b0, b1, a0, a1 = extend(xp, prefix, ipw, starts[file_of[b0]], ends[file_of[b0]], starts[file_of[a0]],
                            ends[file_of[a0]], b0, b1, a0, a1)
    # a stretch repeated right after itself (a0 < b0 < a1): the original up to where the copy starts, and as
    # long a copy, so the two are two places (else they would merge into one); with `overlaps` (the verbatim
    # node pass: by shape alone, a table's rows would all overlap), where the two share at most a third (a
    # block and the next one's first statement), they stay whole, as a token match has them
    cut = xp.minimum(a1, b0)
    a1 = xp.where(3 * (a1 - b0) > a1 - a0, cut, a1) if overlaps else cut
    b1 = b0 + (a1 - a0)
    if len(b0) and int((b1 - b0).sum()) > WORK * len(key) + (1 << 20):  # never on real trees (stdlib: 0.3x)
        keep = ~shifted_runs(xp, file_of, b0, b1, a0, a1)
        b0, b1, a0, a1 = b0[keep], b1[keep], a0[keep], a1[keep]
    same, renamed = verify(xp, shape, exact, b0, b1, a0)
    return tuple(host(x[same]) for x in (b0, b1, a0, a1, renamed))
