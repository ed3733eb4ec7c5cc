"""`prapply(connect, a, b)`, the line between every pair of locations, with each distinct line built once: eight
of arc-dsl's solvers draw lines so, and on large grids it makes |a| x |b| calls of `connect`, most of them
for pairs that give a line some other pair gave already, or none.

`prapply` inserts `connect(i, j)` for j in b, for i in a, into one frozenset; a line equal to one already in it
changes nothing, so the set is what inserting each distinct line at its first pair builds. `connect` builds a
line from its two ends in an order that does not depend on which end comes first, so equal lines are equal
sets inserted alike, and a line is known by its two ends (sorted); every pair of ends in no row, column or
diagonal gives the empty set. The pairs' keys are compared in arrays, and `connect` runs once per distinct
line, in the order of first pairs, with the reference's errors (the first pair whose line is too long is the
first of its line). Anything but frozensets of int pairs takes the reference.
"""
from __future__ import annotations

import numpy as np

from . import prims_func, prims_patch
from .limits import MAX_ITEMS, bound
from .values import int_pairs

MIN_PAIRS = 256  # below this the reference is as fast


def line_ends(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For pairs of ends ([n, 2] each): whether `connect` draws a line between them (a row, a column or a
    diagonal; else the empty set), and the two ends sorted ([n, 4]), which with that decide the line."""
    d = np.abs(second - first)
    line = (d[:, 0] == 0) | (d[:, 1] == 0) | (d[:, 0] == d[:, 1])
    swap = (first[:, 0] > second[:, 0]) | ((first[:, 0] == second[:, 0]) & (first[:, 1] > second[:, 1]))
    lo, hi = np.where(swap[:, None], second, first), np.where(swap[:, None], first, second)
    return line, np.concatenate([lo, hi], axis=1)


def distinct_lines(a, b) -> frozenset | None:
    """`prapply(connect, a, b)` for frozensets of int pairs, else None."""
    if type(a) is not frozenset or type(b) is not frozenset or len(a) * len(b) < MIN_PAIRS:
        return None
    bound(len(a) * len(b), "prapply", MAX_ITEMS)
    pa, pb = int_pairs(a), int_pairs(b)
    if pa is None or pb is None:
        return None
    first = np.repeat(pa[None], len(pb), axis=0).reshape(-1, 2)  # pair k: a's k % |a|, b's k // |a|
    second = np.repeat(pb, len(pa), axis=0)
    line, ends = line_ends(first, second)
    low = min(int(pa.min()), int(pb.min()))
    span = max(int(pa.max()), int(pb.max())) - low + 1
    if span < 1 << 15:  # four coordinates in one int64: a flat sort
        packed = (((ends[:, 0] - low) * span + ends[:, 1] - low) * span + ends[:, 2] - low) * span + ends[:, 3] - low
        _, at = np.unique(np.where(line, packed, -1), return_index=True)
    else:
        _, at = np.unique(np.where(line[:, None], ends, np.int64(-(1 << 62))), axis=0, return_index=True)
    a_list, b_list = list(a), list(b)
    n = len(a_list)
    return frozenset([prims_patch.connect(a_list[k % n], b_list[k // n]) for k in np.sort(at).tolist()])


def prapply(function, a, b):
    """`prapply` of the solver table: `distinct_lines` for `connect`, else the reference."""
    if function is prims_patch.connect:
        found = distinct_lines(a, b)
        if found is not None:
            return found
    return prims_func.prapply(function, a, b)
