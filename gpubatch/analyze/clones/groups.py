"""Clone groups from matched segments: every copy of one original stretch of code is one group, reported
with each member's file and line range. Host code over a few arrays (one row per segment)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .detect import Segments

KIND_NAMES = {1: "exact", 2: "renamed", 3: "near-miss"}
_BIG = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Member:
    path: str
    line: int
    end_line: int
    nodes: int


@dataclass(frozen=True)
class CloneGroup:
    """Copies of one stretch of code: the first member is the original (first in discovery order)."""

    kind: int  # 1 verbatim, 2 renamed names or constants, 3 near-miss (gaps)
    similarity: float  # lowest share of matched nodes over a member's pair with the original
    members: tuple[Member, ...]

    @property
    def kind_name(self) -> str:
        return KIND_NAMES[self.kind]


@dataclass(frozen=True)
class Lines:
    """Host line tables of the concatenated features, for node ranges -> line ranges."""

    first: np.ndarray  # per node: the first line of this node or any later one in its file
    last: np.ndarray  # per node: the last line covered by this node or any earlier one in its file
    file_of: np.ndarray


def line_tables(line: np.ndarray, last: np.ndarray, file_of: np.ndarray) -> Lines:
    """Running min from the end and running max from the start, per file, in one pass each (a file's number
    added as a high offset keeps files apart)."""
    big = np.int64(1) << 32
    off = file_of.astype(np.int64) * big
    run_max = np.maximum.accumulate(last.astype(np.int64) + off) - off
    run_min = np.minimum.accumulate((line.astype(np.int64) + off)[::-1])[::-1] - off
    return Lines(run_min, run_max, file_of)


def components(n: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Connected components of n items under the edges (left[i], right[i]): each item's smallest member, by
    label propagation and pointer jumping (a handful of array passes, no loop over items)."""
    label = np.arange(n)
    while True:
        low = np.minimum(label[left], label[right])
        new = label.copy()
        np.minimum.at(new, left, low)
        np.minimum.at(new, right, low)
        new = new[new]
        if np.array_equal(new, label):
            return label
        label = new


def build_groups(seg: Segments, lines: Lines, paths: list[str], min_lines: int) -> list[CloneGroup]:
    """Segments long enough in lines on both sides, joined into groups: a segment joins its two places, and
    places in one file that overlap by at least half of the longer are one copy (a looser rule would chain
    neighbouring copies of boilerplate into one group spanning whole files). Each group lists its copies in
    discovery order; its kind is the least exact of its segments, its similarity the lowest."""
    if not len(seg):
        return []
    bl0, bl1 = lines.first[seg.b0], lines.last[seg.b1 - 1]
    al0, al1 = lines.first[seg.a0], lines.last[seg.a1 - 1]
    idx = np.flatnonzero((bl1 - bl0 + 1 >= min_lines) & (al1 - al0 + 1 >= min_lines))
    if not len(idx):
        return []
    s = len(idx)
    n0 = np.concatenate([seg.b0[idx], seg.a0[idx]])  # places: the copies, then the originals
    n1 = np.concatenate([seg.b1[idx], seg.a1[idx]])
    l0, l1 = np.concatenate([bl0[idx], al0[idx]]), np.concatenate([bl1[idx], al1[idx]])
    order = np.argsort(n0, kind="stable")  # global node order is file order
    o0, o1 = n0[order], n1[order]
    reach = np.maximum.accumulate(o1)  # the furthest end of the places before, to find overlaps in one pass
    lead = np.maximum.accumulate(np.where(o1 == reach, np.arange(len(o1)), 0))  # the place reaching furthest
    overlap = np.minimum(reach[:-1], o1[1:]) - o0[1:]
    longer = np.maximum(o1[1:] - o0[1:], o1[lead[:-1]] - o0[lead[:-1]])
    same_file = lines.file_of[o0[1:]] == lines.file_of[o0[lead[:-1]]]
    near = same_file & (2 * overlap >= longer)
    left = np.concatenate([np.arange(s), order[1:][near]])
    right = np.concatenate([np.arange(s) + s, order[lead[:-1]][near]])
    comp = components(2 * s, left, right)
    kind = np.where(seg.gaps[idx] > 0, 3, np.where(seg.renamed[idx] > 0, 2, 1))
    sim = seg.matched[idx] / np.maximum(seg.b1[idx] - seg.b0[idx], seg.a1[idx] - seg.a0[idx])
    seg_comp = comp[:s]
    g_kind = np.zeros(2 * s, np.int64)
    np.maximum.at(g_kind, seg_comp, kind)
    g_sim = np.ones(2 * s)
    np.minimum.at(g_sim, seg_comp, sim)
    # copies: the places that the overlap rule alone joins (one stretch of one file), as their union
    copy = components(2 * s, order[1:][near], order[lead[:-1]][near])
    by = np.lexsort((n0, copy, comp))
    c, cp, p0, p1, q0, q1 = comp[by], copy[by], n0[by], n1[by], l0[by], l1[by]
    new_member = np.concatenate([[True], (c[1:] != c[:-1]) | (cp[1:] != cp[:-1])])
    mid = np.cumsum(new_member) - 1
    k = mid[-1] + 1
    m_line, m_end, m_first, m_stop = np.full(k, _BIG), np.zeros(k, np.int64), np.full(k, _BIG), np.zeros(k, np.int64)
    np.minimum.at(m_line, mid, q0)
    np.maximum.at(m_end, mid, q1)
    np.minimum.at(m_first, mid, p0)
    np.maximum.at(m_stop, mid, p1)
    m_comp, m_file = c[new_member], lines.file_of[m_first]
    groups = []
    bounds = np.flatnonzero(np.concatenate([[True], m_comp[1:] != m_comp[:-1], [True]]))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if hi - lo < 2:
            continue
        g = int(m_comp[lo])
        members: dict[tuple, Member] = {}  # discovery order; two copies on the same lines are one
        for k in sorted(range(lo, hi), key=lambda k: m_first[k]):
            m = Member(paths[int(m_file[k])], int(m_line[k]), int(m_end[k]), int(m_stop[k] - m_first[k]))
            members.setdefault((m.path, m.line, m.end_line), m)
        if len(members) > 1:
            groups.append(CloneGroup(int(g_kind[g]), round(float(g_sim[g]), 3), tuple(members.values())))
    groups.sort(key=lambda g: (g.members[0].path, g.members[0].line, g.members[0].end_line))
    return groups
