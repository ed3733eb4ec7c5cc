"""Which clone groups another group covers: all of a group's copies are copies of one group that comes before it
(more copies, or as many and at least as exact) and is at least as exact, so it would say nothing more. Array
code over the groups' members (one row per copy), no loop over groups or copies.

Covering is transitive, so whether the group that covers another is itself covered does not matter: a group
is left out exactly when some group before it covers it. Each group is checked only against the groups that
hold its least shared copy, and each such pair by one sorted search per copy.
"""
from __future__ import annotations

import numpy as np

CHUNK = 1 << 22  # copies looked up at once: memory stays bounded however many candidate pairs there are


def ids(*cols: np.ndarray) -> np.ndarray:
    """A dense id per distinct row of the columns (ids in sorted order of the rows)."""
    if not len(cols[0]):
        return np.zeros(0, np.int64)
    order = np.lexsort(cols[::-1])
    new = np.zeros(len(order), bool)
    new[0] = True
    for c in cols:
        s = c[order]
        new[1:] |= s[1:] != s[:-1]
    out = np.empty(len(order), np.int64)
    out[order] = np.cumsum(new) - 1
    return out


def covered(group_of: np.ndarray, place: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """Per group (`kind` has one entry each): whether a group before it covers it. Groups come in order of
    more copies first, then more exact (lower kind), then their index; `group_of` lists each copy's group
    (non-decreasing) and `place` its place's id (distinct within a group)."""
    g_count = len(kind)
    out = np.zeros(g_count, bool)
    if g_count < 2:
        return out
    size = np.bincount(group_of, minlength=g_count)
    rank = np.empty(g_count, np.int64)
    rank[np.lexsort((np.arange(g_count), kind, -size))] = np.arange(g_count)
    holders = np.bincount(place)
    # each group's probe: the copy of it that the fewest groups hold (a group that covers it holds it too)
    by_probe = np.lexsort((holders[place], group_of))
    first = np.flatnonzero(np.concatenate([[True], group_of[by_probe][1:] != group_of[by_probe][:-1]]))
    probe = place[by_probe[first]]
    g_of_probe = group_of[by_probe[first]]
    inc = np.lexsort((group_of, place))  # copies by place: the groups holding each place, side by side
    inc_place, inc_group = place[inc], group_of[inc]
    lo = np.searchsorted(inc_place, probe, "left")
    count = np.searchsorted(inc_place, probe, "right") - lo
    offs = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    g = np.repeat(g_of_probe, count)
    h = inc_group[np.repeat(lo, count) + offs]
    ok = (rank[h] < rank[g]) & (kind[h] <= kind[g])  # before it in rank: at least as many copies
    g, h = g[ok], h[ok]
    width = int(place.max()) + 1
    sorted_keys = np.sort(group_of.astype(np.int64) * width + place)  # (group, place) of every copy
    start = np.concatenate([[0], np.cumsum(size)[:-1]])  # each group's first copy (copies lie by group)
    cost = np.cumsum(size[g])
    lo_pair = 0
    while lo_pair < len(g):  # pairs in chunks of about CHUNK copies looked up
        hi_pair = max(lo_pair + 1, int(np.searchsorted(cost, (cost[lo_pair - 1] if lo_pair else 0) + CHUNK)))
        pg, ph = g[lo_pair:hi_pair], h[lo_pair:hi_pair]
        n = size[pg]
        row = np.repeat(np.arange(len(pg)), n)
        member = np.repeat(start[pg] - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
        want = ph[row].astype(np.int64) * width + place[member]
        at = np.minimum(np.searchsorted(sorted_keys, want), len(sorted_keys) - 1)
        hits = np.bincount(row, weights=sorted_keys[at] == want, minlength=len(pg))
        out[pg[hits == n]] = True
        lo_pair = hi_pair
    return out
