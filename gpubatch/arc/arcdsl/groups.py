"""`apply`, `mapply`, `sfilter` and `mfilter` over a large container of int tuples (or of one-cell patches),
with the function called once per group of elements it cannot tell apart: arc-dsl's solvers map and filter
`product(cells, cells)` (hundreds of thousands of pairs) with functions that read a few parts of each pair,
such as "the line between the two cells, in the first one's colour" or "in one row or column".

The elements are laid out as columns (one int64 array per int inside the tuples; a frozenset of one element as
that element). A function built by the combinators is read, not run: `first`, `last`, `color` and `center` (of
one cell) pick columns, `equality`, `matcher`, `either`, `both`, `hmatching` and `vmatching` (of one cell each)
compare them, and any other call depends only on its arguments, so its result is a function of their columns,
which group the elements (`connect` by its two ends sorted, or "no line"). `apply` then runs the function on
the first element of each group, in the container's order, and every element takes its group's result: the
same values, inserted in the same order (a result equal to one already inserted changes nothing), so the sets
are laid out as the reference's, and the first error is the reference's first error. `sfilter` is used only
where its condition is read whole as a comparison through a primitive that costs the reference microseconds
(the matching of one-cell patches): a condition that compares parts costs the reference about a microsecond an
element, less than laying the elements out (measured), and takes the reference. Containers of anything else,
or whose groups are nearly as many as their elements, go to the reference.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any, Callable

import numpy as np

from . import lines, prims_base, prims_patch
from .values import CODES, closure

MIN_ITEMS = 256  # below this the reference is as fast
PROBE = 64  # elements `sfilter` reads its condition on before it lays out the whole container
MAX_SHARE = 0.5  # groups per element above which grouping gains too little to pay for itself


@dataclass(frozen=True)
class Col:
    """One value per element (n of them), all of one shape: ints as `leaf` (bools where `is_bool`), tuples as
    `parts`."""

    n: int
    leaf: np.ndarray | None = None
    parts: tuple | None = None
    is_bool: bool = False
    single: bool = False  # frozensets of one element (`parts` holds the element)
    costly: bool = False  # read through a primitive that costs the reference microseconds an element

    def take(self, index: np.ndarray) -> Col:
        """The values at `index`, in its order."""
        if self.parts is None:
            return Col(len(index), leaf=self.leaf[index], is_bool=self.is_bool)
        return Col(len(index), parts=tuple(p.take(index) for p in self.parts), single=self.single)

    def leaves(self) -> list[np.ndarray]:
        return [self.leaf] if self.parts is None else [x for p in self.parts for x in p.leaves()]


@dataclass(frozen=True)
class Key:
    """Group ids: elements with equal ids give equal results."""

    ids: np.ndarray


def columns(values: list, distinct: bool = False) -> Col | None:
    """The values as columns where all are ints, or all tuples of one length whose parts are columns. Tuples
    met many times over (the parts of `product`'s pairs) are read once each, unless `distinct` says that no
    two values are one object (a set's elements)."""
    types = set(map(type, values))  # in C: a genexpr per element costs more than the rest
    if types not in ({tuple}, {frozenset}):
        return _ints(values) if types == {int} else None
    if not distinct:
        ids = np.fromiter(map(id, values), dtype=np.int64, count=len(values))
        _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
        if len(first) < len(values) // 2:
            return _taken(columns([values[k] for k in first.tolist()], True), inverse.reshape(-1))
    lengths = set(map(len, values))
    if types == {frozenset}:
        return _singles(values) if lengths == {1} else None
    if len(lengths) != 1:
        return None
    parts = [columns(list(p)) for p in zip(*values)]
    return None if any(p is None for p in parts) else Col(len(values), parts=tuple(parts))


def _singles(values: list) -> Col | None:
    inner = columns([next(iter(v)) for v in values])
    return None if inner is None else Col(len(values), parts=(inner,), single=True)


def _taken(col: Col | None, index: np.ndarray) -> Col | None:
    return None if col is None else col.take(index)


def _ints(values: list) -> Col | None:
    try:
        return Col(len(values), leaf=np.array(values, dtype=np.int64))
    except OverflowError:
        return None


def _dense(arrays: list[np.ndarray], n: int) -> np.ndarray:
    """Ids (of n elements) equal exactly where every array is equal, packed into one int64 (ranked again
    before it would overflow)."""
    ids, span = np.zeros(n, dtype=np.int64), 1
    for a in arrays:
        lo, width = int(a.min()), int(a.max()) - int(a.min()) + 1
        if width >= 1 << 31:  # far values: their ranks instead
            a, lo, width = _rank(a), 0, n
        if span * width >= 1 << 62:
            ids, span = _rank(ids), n
        ids, span = ids * width + (a.astype(np.int64) - lo), span * width
    return ids


def _rank(a: np.ndarray) -> np.ndarray:
    return np.unique(a, return_inverse=True)[1].reshape(-1).astype(np.int64)


def key_of(v: Col | Key) -> Key:
    return v if isinstance(v, Key) else Key(_dense(v.leaves(), v.n))


def _equal(a: Col, b: Col) -> np.ndarray:
    """Where Python's == holds between the two columns' values (tuples of other shapes are never equal)."""
    if (a.parts is None) != (b.parts is None) or a.single != b.single:
        return np.zeros(a.n, dtype=bool)
    if a.parts is None:
        return a.leaf == b.leaf
    if len(a.parts) != len(b.parts) or not a.parts:
        return np.full(a.n, len(a.parts) == len(b.parts))  # other lengths, or two empty tuples
    out = _equal(a.parts[0], b.parts[0])
    for p, q in zip(a.parts[1:], b.parts[1:]):
        out &= _equal(p, q)
    return out


def _pair(v: Col | Key) -> tuple[np.ndarray, np.ndarray] | None:
    if isinstance(v, Col) and v.parts is not None and not v.single and len(v.parts) == 2 and all(
            p.parts is None and not p.is_bool for p in v.parts):
        return v.parts[0].leaf, v.parts[1].leaf
    return None


def _connect(a: Col | Key, b: Col | Key) -> Key:
    """`connect`'s line is known by its two ends, sorted (it is built alike from either end), or is empty."""
    pa, pb = _pair(a), _pair(b)
    if pa is None or pb is None:
        return _joint(a, b)
    line, ends = lines.line_ends(np.stack(pa, axis=1), np.stack(pb, axis=1))
    return Key(_dense([line.astype(np.int64)] + [np.where(line, e, 0) for e in ends.T], len(line)))


def _joint(a: Col | Key, b: Col | Key) -> Key:
    """Groups of the pair (a, b): what any function of both depends on."""
    ka, kb = key_of(a), key_of(b)
    return Key(_dense([ka.ids, kb.ids], len(ka.ids)))


def _unary(function: Any, v: Col | Key) -> Col | Key:
    """What `function(x)` is, for x read as `v`."""
    if isinstance(v, Key):
        return v  # a function of the value, which its group determines
    pick = _PICKS.get(function)
    got = pick(v) if pick is not None else None
    return _combinator(function, v) if got is None else got


def _part(k: int) -> Callable[[Col], Col | None]:
    return lambda v: v.parts[k] if v.parts else None


def _colour(v: Col) -> Col | None:
    return v.parts[0].parts[0] if v.parts and v.parts[0].parts else None


def _where(v: Col) -> Col | None:
    """The location of a one-cell patch (an object's cell or an index), else None."""
    if not v.single:
        return None
    cell = v.parts[0]
    at = cell.parts[1] if _pair(cell) is None and cell.parts and len(cell.parts) == 2 else cell
    return Col(at.n, parts=at.parts, costly=True) if _pair(at) is not None else None


def _combinator(function: Any, v: Col) -> Col | Key:
    cells = closure(function, CODES["compose"])
    if cells is not None:
        return _unary(cells["outer"], _unary(cells["inner"], v))
    cells = closure(function, CODES["chain"])
    if cells is not None:
        return _unary(cells["h"], _unary(cells["g"], _unary(cells["f"], v)))
    cells = closure(function, CODES["fork"])
    if cells is not None:
        return _binary(cells["outer"], _unary(cells["a"], v), _unary(cells["b"], v))
    cells = closure(function, CODES["matcher"])
    if cells is not None:
        got, target = _unary(cells["function"], v), cells["target"]
        if isinstance(got, Col) and got.parts is None and type(target) is int:
            return Col(got.n, leaf=got.leaf == target, is_bool=True, costly=got.costly)
        return key_of(got)
    return key_of(v)  # any other function: a function of the element


def _binary(outer: Any, a: Col | Key, b: Col | Key) -> Col | Key:
    """What `outer(a, b)` is."""
    if outer is prims_patch.connect:
        return _connect(a, b)
    compare = _COMPARE.get(outer)
    got = compare(a, b) if compare is not None and isinstance(a, Col) and isinstance(b, Col) else None
    if got is not None:
        return Col(a.n, leaf=got[0], is_bool=True, costly=got[1] or a.costly or b.costly)
    return _joint(a, b)


def _logic(keep: Callable) -> Callable:
    return lambda a, b: (keep(a.leaf, b.leaf), False) if _flag(a) and _flag(b) else None


def _matching(axis: int) -> Callable:
    """`hmatching` (axis 0) or `vmatching` (1) of one-cell patches: the same row (column)."""
    def compare(a: Col, b: Col):
        wa, wb = _where(a), _where(b)
        return None if wa is None or wb is None else (wa.parts[axis].leaf == wb.parts[axis].leaf, True)
    return compare


def _flag(v: Col) -> bool:
    return v.is_bool and v.parts is None


_PICKS = {prims_base.identity: lambda v: v, prims_base.first: _part(0), prims_base.last: _part(-1),
          prims_patch.color: _colour, prims_patch.center: _where}
_COMPARE = {prims_base.equality: lambda a, b: (_equal(a, b), False), prims_base.either: _logic(np.logical_or),
            prims_base.both: _logic(np.logical_and), prims_patch.hmatching: _matching(0),
            prims_patch.vmatching: _matching(1)}


def _read(function: Any, container: Any) -> tuple[list, Col | Key] | None:
    """The container's elements in order, and what the function is on each; None where not handled."""
    if not _large(container):
        return None
    elems = list(container)
    got = _lifted(function, elems, type(container) is frozenset)
    return None if got is None else (elems, got)


def _large(container: Any) -> bool:
    return type(container) in (frozenset, tuple) and len(container) >= MIN_ITEMS


def _lifted(function: Any, elems: list, distinct: bool) -> Col | Key | None:
    col = columns(elems, distinct)
    return None if col is None else _unary(function, col)


def _costly(v: Col | Key | None) -> bool:
    """Whether `v` is a condition read whole through a costly primitive (see `sfilter`)."""
    return isinstance(v, Col) and _flag(v) and v.costly


def _groups(elems: list, got: Key, function: Callable) -> tuple[list, np.ndarray] | None:
    """The function's result for each group, in order of first elements, and each element's group; None where
    the groups are too many to gain."""
    _, first, inverse = np.unique(got.ids, return_index=True, return_inverse=True)
    if len(first) > MAX_SHARE * len(elems):
        return None
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    results = [function(elems[k]) for k in first[order].tolist()]  # in the container's order: its first error
    return results, rank[inverse.reshape(-1)]


def apply(function: Any, container: Any) -> Any:
    """`apply(function, container)` by groups, or None where not handled."""
    read = _read(function, container)
    if read is None:
        return None
    elems, got = read
    grouped = _groups(elems, key_of(got), function)
    if grouped is None:
        return None
    results, group = grouped
    return frozenset(results) if type(container) is frozenset else tuple(results[g] for g in group.tolist())


def sfilter(container: Any, condition: Any) -> Any:
    """`sfilter(container, condition)` where the condition is read as a comparison of columns through a costly
    primitive (`hmatching` of one-cell objects...), or None: the reference's cheap predicates are faster. The
    condition is read first on a few elements, so that a cheap one costs no columns of the whole container."""
    if not _large(container) or not _costly(_lifted(condition, list(islice(container, PROBE)),
                                                   type(container) is frozenset)):
        return None
    read = _read(condition, container)
    if read is None or not _costly(read[1]):
        return None
    elems, got = read
    return type(container)(e for e, k in zip(elems, got.leaf.tolist()) if k)
