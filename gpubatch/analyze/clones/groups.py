"""Clone groups from matched segments: every copy of one original stretch of code is one group, reported
with each member's file and line range. Array code over a few arrays, one row per segment, on NumPy or CuPy as
the search ran; only the members become objects on the host."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .arrayops import (array_module, changes, cummax, cummin, lexsort, scatter_max, scatter_min, to_host,
                       unique_first)
from .cover import covered, ids
from .detect import Segments
from .places import find_places, near
from .trim import FILE_OFFSET

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
    """Line tables of the concatenated features, for node ranges -> line ranges (on the search's device)."""

    first: np.ndarray  # per node: the first line of this node or any later one in its file
    last: np.ndarray  # per node: the last line covered by this node or any earlier one in its file
    file_of: np.ndarray


def line_tables(line, last, file_of) -> Lines:
    """Running min from the end and running max from the start, per file, in one pass each (a file's number
    added as a high offset keeps files apart)."""
    xp = array_module(file_of)
    off = file_of.astype(xp.int64, copy=False) * FILE_OFFSET
    run_max = cummax(xp, last.astype(xp.int64) + off) - off
    run_min = cummin(xp, (line.astype(xp.int64) + off)[::-1])[::-1] - off
    return Lines(run_min, run_max, file_of)


def whole_lines(n0: np.ndarray, n1: np.ndarray, lines: Lines) -> tuple[np.ndarray, np.ndarray]:
    """The first and last lines of node ranges [n0, n1) as reported: a first line that a node before the range
    shares, or a last line that a node after it shares, is left out (a copy grown one name into the statement
    before it, or ending one call into a statement whose rest differs), unless nothing would be left."""
    fo, total = lines.file_of, len(lines.file_of)
    xp = array_module(fo)
    l0, l1 = lines.first[n0], lines.last[n1 - 1]
    before, after = xp.maximum(n0 - 1, 0), xp.minimum(n1, total - 1)
    t0 = l0 + ((n0 > 0) & (fo[before] == fo[n0]) & (lines.last[before] >= l0))
    t1 = l1 - ((n1 < total) & (fo[after] == fo[n1 - 1]) & (lines.first[after] <= l1))
    ok = t1 >= t0
    return xp.where(ok, t0, l0), xp.where(ok, t1, l1)


def components(n: int, left, right):
    """Connected components of n items under the edges (left[i], right[i]): each item's smallest member. Each
    round hooks the larger root of every edge under the smaller one, then jumps pointers until every item
    points at its root (a few array passes a round, a few rounds: no loop over items, and a long chain of
    copies costs no more rounds than a short one)."""
    xp = array_module(left)
    label = xp.arange(n)
    while True:
        a, b = label[left], label[right]  # roots: every item points at its root between rounds
        differ = a != b
        if not bool(differ.any()):
            return label
        scatter_min(xp, label, xp.maximum(a, b)[differ], xp.minimum(a, b)[differ])
        while True:  # a root now points lower, never at itself from above: no cycle
            up = label[label]
            if bool((up == label).all()):
                break
            label = up


def build_groups(seg: Segments, lines: Lines, paths: list[str], min_lines: int, exact: np.ndarray,
                 carriers: Segments | None = None, min_renamed: int = 0) -> list[CloneGroup]:
    """Segments long enough in lines on both sides, joined into groups: their places and the edges between
    them (`places.py`), and places in one file that overlap by at least `SAME_COPY` of the longer as one copy.
    Each group lists its copies in discovery order; its kind is the least exact of its edges, its similarity
    the lowest; a group whose copies an at least as exact group holds is left out (`covering`)."""
    pl = find_places(seg, lines, min_lines, exact, carriers, min_renamed)
    if pl is None:
        return []
    xp = array_module(pl.n0)
    n0, n1 = pl.n0, pl.n1
    near_a, near_b = near(n0, n1, lines.file_of)
    n = len(n0)
    comp = components(n, xp.concatenate([pl.left, near_a]), xp.concatenate([pl.right, near_b]))
    e_comp = comp[pl.left]
    g_kind = xp.zeros(n, dtype=xp.int64)
    scatter_max(xp, g_kind, e_comp, pl.kind)
    g_sim = xp.ones(n)
    scatter_min(xp, g_sim, e_comp, pl.sim)
    l0, l1 = whole_lines(n0, n1, lines)
    # copies: the places that the overlap rule alone joins (one stretch of one file), as their union
    copy = components(n, near_a, near_b)
    by = lexsort(xp, (n0, copy, comp))
    c, cp, p0, p1, q0, q1 = comp[by], copy[by], n0[by], n1[by], l0[by], l1[by]
    new_member = changes(xp, c, cp)
    mid = xp.cumsum(new_member) - 1
    k = int(mid[-1]) + 1
    m_line, m_first = xp.full(k, _BIG, dtype=xp.int64), xp.full(k, _BIG, dtype=xp.int64)
    m_end, m_stop = xp.zeros(k, dtype=xp.int64), xp.zeros(k, dtype=xp.int64)
    scatter_min(xp, m_line, mid, q0)
    scatter_max(xp, m_end, mid, q1)
    scatter_min(xp, m_first, mid, p0)
    scatter_max(xp, m_stop, mid, p1)
    m_comp = c[new_member]
    order = lexsort(xp, (m_first, m_comp))  # each group's copies in discovery order
    path_id = xp.asarray(np.asarray(_path_ids(paths), np.int64))[lines.file_of[m_first][order]]
    m_comp, m_line, m_end, size = m_comp[order], m_line[order], m_end[order], (m_stop - m_first)[order]
    # two copies on the same lines of one path are one: the first of them stays
    keep = xp.sort(unique_first(xp, ids(m_comp, path_id, m_line, m_end))[0])
    m_comp, path_id, m_line, m_end, size = (a[keep] for a in (m_comp, path_id, m_line, m_end, size))
    group_of = ids(m_comp)
    counts = xp.bincount(group_of)
    real = counts[group_of] > 1  # a group needs two copies
    group_of, path_id, m_line, m_end, size = (a[real] for a in (ids(group_of[real]), path_id, m_line, m_end, size))
    first = xp.flatnonzero(changes(xp, group_of))
    g_comp = m_comp[real][first]
    left_out = covered(group_of, ids(path_id, m_line, m_end), g_kind[g_comp])
    return _groups(paths, *(to_host(a) for a in (group_of, path_id, m_line, m_end, size, g_kind[g_comp],
                                                 g_sim[g_comp], left_out)))


def _path_ids(paths: list[str]) -> list[int]:
    """Each path's id, one per distinct path (two files of one path are one place)."""
    seen: dict[str, int] = {}
    return [seen.setdefault(p, k) for k, p in enumerate(paths)]


def _groups(paths, group_of, path_id, line, end, size, kind, sim, left_out) -> list[CloneGroup]:
    """The groups not left out, as objects, in order of their first copy's path and lines."""
    bounds = np.flatnonzero(np.concatenate([[True], group_of[1:] != group_of[:-1], [True]])).tolist()
    p_l, a_l, b_l, n_l = path_id.tolist(), line.tolist(), end.tolist(), size.tolist()
    kind_l, sim_l, out_l = kind.tolist(), sim.tolist(), left_out.tolist()
    groups = []
    for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        if not out_l[k]:
            groups.append(CloneGroup(kind_l[k], round(sim_l[k], 3), tuple(
                Member(paths[p_l[j]], a_l[j], b_l[j], n_l[j]) for j in range(lo, hi))))
    return sorted(groups, key=_first_copy)


def _first_copy(g: CloneGroup) -> tuple:
    """Groups in order of their first copy; among groups of one first copy, larger, then more exact, first."""
    m = g.members[0]
    return m.path, m.line, m.end_line, -len(g.members), g.kind


def covering(groups: list[CloneGroup]) -> list[CloneGroup]:
    """The groups, in order of their first copy, without any whose copies are all copies of another group that
    is at least as exact (it would say nothing more; `cover.py`)."""
    rows = [(k, (m.path, m.line, m.end_line)) for k, g in enumerate(groups) for m in g.members]
    places: dict[tuple, int] = {}
    place = np.asarray([places.setdefault(p, len(places)) for _, p in rows], np.int64)
    left_out = covered(np.asarray([k for k, _ in rows], np.int64), place,
                       np.asarray([g.kind for g in groups], np.int64))
    return sorted((g for g, out in zip(groups, left_out.tolist()) if not out), key=_first_copy)
