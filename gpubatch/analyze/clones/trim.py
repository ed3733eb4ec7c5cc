"""Copies cut to whole lines alike on both sides (`trim_partial`), and the comparison of many pairs of node
ranges key by key at once (`same_keys`): array code on NumPy or CuPy, used by the group building
(`places.py`)."""
from __future__ import annotations

import numpy as np

from .arrayops import array_module
from .detect import Segments

FILE_OFFSET = np.int64(1) << 32  # a file's number times this keeps files' lines apart in one sorted key

def _line_cuts(n0: np.ndarray, n1: np.ndarray, lines, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node range [n0, n1): how many of its first nodes lie on a first line that a node before the range
    shares, and how many of its last nodes start on a last line that a node after it shares (the lines that
    `groups.whole_lines` leaves out of the report). One sorted search each over `key` (`_line_key`)."""
    fo, first, total = lines.file_of, lines.first, len(lines.file_of)
    xp = array_module(fo)
    base = fo[n0].astype(xp.int64) * FILE_OFFSET
    l0, l1 = first[n0], lines.last[n1 - 1]
    before, after = xp.maximum(n0 - 1, 0), xp.minimum(n1, total - 1)
    head = (n0 > 0) & (fo[before] == fo[n0]) & (lines.last[before] >= l0)
    tail = (n1 < total) & (fo[after] == fo[n1 - 1]) & (first[after] <= l1)
    start, stop = n0.copy(), n1.copy()
    start[head] = _sorted_search(xp, key, (base + l0)[head], "right")  # the first node past that line
    stop[tail] = _sorted_search(xp, key, (base + l1)[tail], "left")  # the first node on that line
    return xp.clip(start, n0, n1) - n0, n1 - xp.clip(stop, n0, n1)


def _line_key(lines) -> np.ndarray:
    """Per node, its file's number times `FILE_OFFSET` plus its first line: ascending over all nodes (a file's
    first lines run upwards)."""
    return lines.file_of.astype(np.int64) * FILE_OFFSET + lines.first


def _sorted_search(xp, key, want, side: str):
    """`searchsorted(key, want, side)`; on NumPy with the queries taken in sorted order: each search starts
    near the last one's answer, several times faster over a long key than queries in random order."""
    if xp is not np:
        return xp.searchsorted(key, want, side=side)
    order = np.argsort(want, kind="stable")
    out = np.empty(len(want), np.int64)
    out[order] = np.searchsorted(key, want[order], side=side)
    return out


def trim_partial(seg: Segments, lines, exact: np.ndarray) -> Segments:
    """Aligned segments (both sides node for node) cut to whole lines alike on both sides: where a side starts
    or ends part-way into a line (the statement's rest differs), the nodes on that line leave the range, and
    where the two sides would lose different numbers of nodes so (one side's line is whole, `[]` against
    `[1, 1]`; or the lines are broken in other places), both lose the larger number. Else one side would report
    a line more than the other: a 3-line copy beside a 2-line one. Where both sides lose the same nodes, the
    report already leaves both lines out alike (`groups.whole_lines`) and the nodes stay. A segment cut to
    nothing goes; one cut is exact again when what is left of it is. One pass: a cut may leave a side part-way
    into an earlier line, which the report then leaves out on that side alone."""
    xp = array_module(seg.b0)
    aligned = (seg.gaps == 0) & (seg.b1 - seg.b0 == seg.a1 - seg.a0)
    b0, b1, a0, a1 = seg.b0.copy(), seg.b1.copy(), seg.a0.copy(), seg.a1.copy()
    idx = xp.flatnonzero(aligned)
    key = _line_key(lines)  # made once for both sides, and dropped after
    hb, tb = _line_cuts(b0[idx], b1[idx], lines, key)
    ha, ta = _line_cuts(a0[idx], a1[idx], lines, key)
    del key
    # where both lose the same nodes, the report leaves both lines out alike
    head = xp.where(hb != ha, xp.maximum(hb, ha), 0)
    tail = xp.where(tb != ta, xp.maximum(tb, ta), 0)
    head = xp.minimum(head, b1[idx] - b0[idx])
    tail = xp.minimum(tail, b1[idx] - b0[idx] - head)
    b0[idx] += head
    a0[idx] += head
    b1[idx] -= tail
    a1[idx] -= tail
    cut = (b0 != seg.b0) | (b1 != seg.b1)
    keep = b1 > b0
    matched = xp.where(cut, b1 - b0, seg.matched)
    renamed = seg.renamed.copy()
    redo = xp.flatnonzero(cut & keep & (renamed > 0))
    renamed[redo[same_keys(exact, b0[redo], a0[redo], b1[redo] - b0[redo])]] = 0
    return Segments(b0[keep], b1[keep], a0[keep], a1[keep], matched[keep], renamed[keep], seg.gaps[keep])


def same_keys(key: np.ndarray, x0: np.ndarray, y0: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Per pair of ranges [x0, x0 + length) and [y0, y0 + length): whether their keys are all equal (one gather
    over all pairs at once)."""
    xp = array_module(key)
    row, _, differ = compare_ranges(key, x0, y0, length)
    return xp.bincount(row, weights=differ.astype(xp.float64), minlength=len(x0)) == 0


def compare_ranges(key, x0, y0, length) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every node of the pairs of ranges [x0, x0 + length) / [y0, y0 + length), as (pair, offset, whether the
    two keys differ): one gather over all pairs."""
    xp = array_module(key)
    row = xp.repeat(xp.arange(len(x0)), length)
    offs = xp.arange(len(row)) - xp.repeat(xp.cumsum(length) - length, length)
    return row, offs, key[x0[row] + offs] != key[y0[row] + offs]
