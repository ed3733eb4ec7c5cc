"""`mapply(lbind(shift, patch), locations)`, a patch shifted to every location and merged, computed in arrays:
the longest evaluations of the cross battery (`benchmarks/arcdsl_tail.py`) build millions of cells into
frozensets this way, at about half a microsecond a cell.

The value is the reference's exactly, its frozenset built from the same cells in an order that gives the same
table, so that it iterates alike. `merge` inserts the cells of the shifted copies one copy after another, in
the order the set of copies iterates in, each copy in its own order; a cell already in the table changes
nothing, so the result is the set built from each distinct cell at its first occurrence. Here every cell of
every copy is an index into a table of all cells in reach (colours x rows x columns), whose hashes are
computed once (`setorder`); a copy's hash is the XOR of its cells' shuffled hashes, so the copies' order comes
from their hashes alone. Walking the copies in that order, only those that hold a cell not seen before are
laid out (as complex proxies of their cells' hashes), and only the distinct cells are built as tuples.
Anything outside plain int patches and locations returns None, and the reference runs (errors included).
"""
from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from . import prims_patch, setorder
from .values import bound, int_pairs, patch_cells

MIN_CELLS = 4096  # copies x patch cells below which the reference is as fast
MAX_TABLE = 1 << 22  # cells in reach (colours x rows x columns) past which the reference runs
CHUNK = 1 << 21  # copy cells gathered at once


def bound_shift(function: Any) -> Any:
    """The patch of `lbind(shift, patch)`, else None."""
    got = bound(function)
    return got[1] if got is not None and got[0] is prims_patch.shift else None


class _Reach:
    """Every cell the copies can hold, as one flat table (colour, row, column): its cells' hashes and proxies;
    each patch cell's index at no shift (`base`) and each location's step in the table (`shift`)."""

    def __init__(self, cells: np.ndarray, offs: np.ndarray, obj: bool) -> None:
        self.colours, vid = np.unique(cells[:, 0], return_inverse=True)
        self.lo = cells[:, 1:].min(axis=0) + offs.min(axis=0)
        span = cells[:, 1:].max(axis=0) + offs.max(axis=0) - self.lo + 1
        self.rows, self.cols = int(span[0]), int(span[1])
        self.obj = obj
        self.size = len(self.colours) * self.rows * self.cols
        self.base = vid * (self.rows * self.cols) + (cells[:, 1] - self.lo[0]) * self.cols + (cells[:, 2] - self.lo[1])
        self.shift = offs[:, 0] * self.cols + offs[:, 1]

    def hashes(self) -> np.ndarray:
        """hash() of every cell in reach, in table order."""
        ih = setorder.int_hash(np.arange(self.rows) + self.lo[0])
        jh = setorder.int_hash(np.arange(self.cols) + self.lo[1])
        at = setorder.tuple_hash(np.repeat(ih, self.cols), np.tile(jh, self.rows))
        if not self.obj:
            return at
        return setorder.tuple_hash(np.repeat(setorder.int_hash(self.colours), len(at)), np.tile(at, len(self.colours)))

    def tuples(self) -> list:
        """Every cell in reach as the tuple `shift` would build, in table order."""
        i = np.repeat(np.arange(self.rows) + self.lo[0], self.cols).tolist()
        j = np.tile(np.arange(self.cols) + self.lo[1], self.rows).tolist()
        if not self.obj:
            return list(zip(i, j))
        at = list(zip(i, j))
        return [(v, c) for v in self.colours.tolist() for c in at]

    def cells(self, keys: np.ndarray) -> frozenset:
        """The frozenset of the cells at table indexes `keys`, inserted in that order."""
        plane = self.rows * self.cols
        i = (keys // self.cols % self.rows + self.lo[0]).tolist()
        j = (keys % self.cols + self.lo[1]).tolist()
        if self.obj:
            return frozenset([(a, (b, c)) for a, b, c in zip(self.colours[keys // plane].tolist(), i, j)])
        return frozenset(zip(i, j))


def _reach(patch: Any, locations: Any, dense: bool) -> _Reach | None:
    """The table of a non-empty frozenset patch of ints shifted to a frozenset of int pairs, where there are at
    least MIN_CELLS copy cells and at most MAX_TABLE cells in reach (where `dense`, at most twice the copy
    cells too: every cell in reach is built); else None."""
    if type(patch) is not frozenset or type(locations) is not frozenset or not patch \
            or len(patch) * len(locations) < MIN_CELLS:
        return None
    parsed, offs = patch_cells(patch), int_pairs(locations)
    if parsed is None or offs is None:
        return None
    reach = _Reach(parsed[0], offs, parsed[1])
    most = min(MAX_TABLE, 2 * len(patch) * len(locations)) if dense else MAX_TABLE
    return reach if reach.size <= most else None


def shifted_union(patch: Any, locations: Any) -> frozenset | None:
    """`merge(apply(lbind(shift, patch), locations))` for a non-empty patch of ints and a frozenset of int pairs;
    None where the input is outside that, or too small to gain."""
    reach = _reach(patch, locations, dense=False)
    if reach is None or not setorder.available():  # the check runs once, at the first call large enough
        return None
    table = reach.hashes()
    z = setorder.proxies(table)
    if z is None:
        return None
    per = max(1, CHUNK // len(reach.base))
    copy_hash = np.concatenate([_copy_hashes(table, reach.shift[s:s + per], reach.base)
                                for s in range(0, len(reach.shift), per)])
    outer = setorder.order(copy_hash)  # the copies in the order the set of copies iterates
    if outer is None:
        return None
    return reach.cells(_first_cells(z, outer, reach.shift, reach.base))


def shifted_copies(patch: Any, locations: Any) -> frozenset | None:
    """`apply(lbind(shift, patch), locations)` for a non-empty patch of ints and a frozenset of int pairs: each copy
    built from cell tuples made once for all copies, inserted in the patch's order, the copies in the locations'
    order, so every set is laid out as the reference's; None where the input is outside that or small."""
    reach = _reach(patch, locations, dense=True)
    if reach is None:
        return None
    made = reach.tuples().__getitem__
    rows = (reach.shift[:, None] + reach.base).tolist()
    return frozenset([frozenset(map(made, row)) for row in rows])


def _copy_hashes(table: np.ndarray, shift: np.ndarray, base: np.ndarray) -> np.ndarray:
    return setorder.frozenset_hash(table[shift[:, None] + base])


def _first_cells(z: np.ndarray, outer: np.ndarray, shift: np.ndarray, base: np.ndarray) -> np.ndarray:
    """The distinct cells (table indexes) in the order of their first occurrence. The copies are taken in the
    order they iterate; one that holds a cell not seen before is laid out (its cells' proxies into a
    frozenset), and gives those cells in its own order."""
    seen = np.zeros(len(z), dtype=bool)
    owner = np.zeros(len(z), dtype=np.int64)
    parts: list = []
    for k in outer.tolist():
        idx = shift[k] + base
        new = idx[~seen[idx]]
        if len(new):
            seen[new] = True
            owner[new] = len(parts)
            parts.append(frozenset(z[idx].tolist()))
    cells = setorder.indexes(np.fromiter(chain.from_iterable(parts), np.complex128, len(parts) * len(base)))
    return cells[owner[cells] == np.repeat(np.arange(len(parts)), len(base))]


def shifted(form, function, container) -> frozenset | None:
    """`form(patch, container)` where `function` is `lbind(shift, patch)`, else None."""
    patch = bound_shift(function)
    return None if patch is None else form(patch, container)
