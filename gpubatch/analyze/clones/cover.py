"""Which clone groups another group covers: all of a group's copies are copies of one group that comes before it
(more copies, or as many and at least as exact) and is at least as exact, so it would say nothing more. Array
code over the groups' members (one row per copy), no loop over groups or copies.

Covering is transitive, so whether the group that covers another is itself covered does not matter: a group
is left out exactly when some group before it covers it. Each group is checked only against the groups that
hold its least shared copy, and each such pair by one sorted search per copy.
"""
from __future__ import annotations

import numpy as np

from .arrayops import array_module, changes, lexsort, to_host

CHUNK = 1 << 22  # copies looked up at once: memory stays bounded however many candidate pairs there are


def ids(*cols):
    """A dense id per distinct row of the columns (ids in sorted order of the rows)."""
    xp = array_module(cols[0])
    if not len(cols[0]):
        return xp.zeros(0, dtype=xp.int64)
    order = lexsort(xp, cols[::-1])
    out = xp.empty(len(order), dtype=xp.int64)
    out[order] = xp.cumsum(changes(xp, *(c[order] for c in cols))) - 1
    return out


def covered(group_of, place, kind):
    """Per group (`kind` has one entry each): whether a group before it covers it. Groups come in order of
    more copies first, then more exact (lower kind), then their index; `group_of` lists each copy's group
    (non-decreasing) and `place` its place's id (distinct within a group)."""
    xp = array_module(group_of)
    g_count = len(kind)
    out = xp.zeros(g_count, dtype=bool)
    if g_count < 2:
        return out
    size = xp.bincount(group_of, minlength=g_count)
    rank = xp.empty(g_count, dtype=xp.int64)
    rank[lexsort(xp, (xp.arange(g_count), kind, -size))] = xp.arange(g_count)
    holders = xp.bincount(place)
    # each group's probe: the copy of it that the fewest groups hold (a group that covers it holds it too)
    by_probe = lexsort(xp, (holders[place], group_of))
    first = xp.flatnonzero(changes(xp, group_of[by_probe]))
    probe = place[by_probe[first]]
    g_of_probe = group_of[by_probe[first]]
    inc = lexsort(xp, (group_of, place))  # copies by place: the groups holding each place, side by side
    inc_place, inc_group = place[inc], group_of[inc]
    lo = xp.searchsorted(inc_place, probe, "left")
    count = xp.searchsorted(inc_place, probe, "right") - lo
    offs = xp.arange(int(count.sum())) - xp.repeat(xp.cumsum(count) - count, count)
    g = xp.repeat(g_of_probe, count)
    h = inc_group[xp.repeat(lo, count) + offs]
    ok = (rank[h] < rank[g]) & (kind[h] <= kind[g])  # before it in rank: at least as many copies
    g, h = g[ok], h[ok]
    width = int(place.max()) + 1
    sorted_keys = xp.sort(group_of.astype(xp.int64) * width + place)  # (group, place) of every copy
    start = xp.cumsum(size) - size  # each group's first copy (copies lie by group)
    cost = to_host(xp.cumsum(size[g]))  # the chunks' bounds, on the host
    lo_pair = 0
    while lo_pair < len(g):  # pairs in chunks of about CHUNK copies looked up
        hi_pair = max(lo_pair + 1, int(np.searchsorted(cost, (cost[lo_pair - 1] if lo_pair else 0) + CHUNK)))
        pg, ph = g[lo_pair:hi_pair], h[lo_pair:hi_pair]
        n = size[pg]
        row = xp.repeat(xp.arange(len(pg)), n)
        member = xp.repeat(start[pg] - xp.cumsum(n) + n, n) + xp.arange(int(n.sum()))
        want = ph[row].astype(xp.int64) * width + place[member]
        at = xp.minimum(xp.searchsorted(sorted_keys, want), len(sorted_keys) - 1)
        hits = xp.bincount(row, weights=(sorted_keys[at] == want).astype(xp.float64), minlength=len(pg))
        out[pg[hits == n]] = True
        lo_pair = hi_pair
    return out
