"""Clone groups from matched segments: every copy of one original stretch of code is one group, reported
with each member's file and line range. Host code over a few arrays (one row per segment)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .detect import Segments

KIND_NAMES = {1: "exact", 2: "renamed", 3: "near-miss"}


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


def build_groups(seg: Segments, lines: Lines, paths: list[str], min_lines: int) -> list[CloneGroup]:
    """Segments long enough in lines on both sides, gathered by their original's exact range."""
    if not len(seg):
        return []
    bl0, bl1 = lines.first[seg.b0], lines.last[seg.b1 - 1]
    al0, al1 = lines.first[seg.a0], lines.last[seg.a1 - 1]
    ok = (bl1 - bl0 + 1 >= min_lines) & (al1 - al0 + 1 >= min_lines)
    idx = np.flatnonzero(ok)
    if not len(idx):
        return []
    keys = np.stack([seg.a0[idx], seg.a1[idx]], axis=1)
    _, gid = np.unique(keys, axis=0, return_inverse=True)
    gid = gid.reshape(-1)
    order = np.lexsort((seg.b0[idx], gid))
    groups: list[CloneGroup] = []
    bounds = np.flatnonzero(np.diff(np.concatenate([[-1], gid[order], [-2]])) != 0)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        rows = idx[order[lo:hi]]
        i = rows[0]
        fa = int(lines.file_of[seg.a0[i]])
        members = [Member(paths[fa], int(al0[i]), int(al1[i]),
                          int(seg.a1[i] - seg.a0[i]))]
        seen = {(fa, members[0].line, members[0].end_line)}
        kind, sim = 1, 1.0
        for r in rows:
            fb = int(lines.file_of[seg.b0[r]])
            key = (fb, int(bl0[r]), int(bl1[r]))
            span = max(seg.b1[r] - seg.b0[r], seg.a1[r] - seg.a0[r])
            sim = min(sim, float(seg.matched[r]) / float(span))
            kind = max(kind, 3 if seg.gaps[r] else 2 if seg.renamed[r] else 1)
            if key not in seen:
                seen.add(key)
                members.append(Member(paths[fb], key[1], key[2], int(seg.b1[r] - seg.b0[r])))
        if len(members) > 1:
            groups.append(CloneGroup(kind, round(sim, 3), tuple(members)))
    groups.sort(key=lambda g: (g.members[0].path, g.members[0].line, g.members[0].end_line))
    return groups
