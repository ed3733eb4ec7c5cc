"""`groups.apply` (a function called once per group of elements it reads alike) against the reference and the
oracle: the same value in the same iteration order, inner sets laid out alike, the same first error, and the
reference wherever the container or the function is outside what it follows."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import groups, maps, prims_base as b, prims_func as f, prims_patch as p
from gpubatch.arc.arcdsl.registry import solver_table
from tests.arc.layout import same_layout
from tests.arc.oracle import MISSING, oracle, run_oracle


def _same(x, y) -> bool:
    """Laid out alike, or the same error."""
    if isinstance(x, Exception) or isinstance(y, Exception):
        return type(x) is type(y)
    return same_layout(x, y)


def _cells(n: int, seed: int, colours: int = 3, side: int = 12) -> frozenset:
    rnd = random.Random(seed)
    return frozenset((rnd.randrange(colours), (rnd.randrange(side), rnd.randrange(side))) for _ in range(n))


def _line_in_first_colour():
    """The line between a pair of cells in the first cell's colour, as solvers draw it."""
    ends = f.fork(p.connect, f.compose(b.last, b.first), f.power(b.last, 2))
    return f.fork(p.recolor, p.color, ends)


def test_the_solver_table_takes_the_dispatchers():
    table = solver_table()
    assert (table["apply"], table["mapply"], table["sfilter"], table["mfilter"]) == (
        maps.apply, maps.mapply, maps.sfilter, maps.mfilter)


def _singletons(n: int, seed: int, objects: bool = True) -> frozenset:
    """One-cell patches (objects, or indices), as `sizefilter(objects(...), 1)` gives them."""
    return frozenset(frozenset({c if objects else c[1]}) for c in _cells(n, seed, side=14))


def _in_line():
    """Pairs of one-cell patches in one row or column."""
    return f.fork(b.either, f.fork(p.vmatching, b.first, b.last), f.fork(p.hmatching, b.first, b.last))


@pytest.mark.parametrize("seed,objects", [(0, True), (1, True), (2, False), (3, False)])
def test_pairs_of_one_cell_patches_in_line_equal_the_reference(seed, objects):
    items = _singletons(70, seed, objects)
    pairs = b.product(items, items)
    got = groups.sfilter(pairs, _in_line())
    assert got is not None and _same(got, b.sfilter(pairs, _in_line()))
    assert _same(maps.mfilter(pairs, _in_line()), b.mfilter(pairs, _in_line()))
    ends = f.fork(p.connect, f.compose(p.center, b.first), f.compose(p.center, b.last))
    fn = f.fork(p.recolor, f.compose(p.color, b.first), f.chain(b.initset, p.center, ends))
    assert _same(maps.mapply(fn, got), f.mapply(fn, got))


def test_cheap_predicates_take_the_reference():
    """Comparing parts costs the reference about a microsecond an element: less than columns."""
    cells = _cells(60, 0)
    assert groups.sfilter(b.product(cells, cells), f.fork(b.equality, f.power(b.first, 2),
                                                          f.compose(b.first, b.last))) is None


@pytest.mark.parametrize("seed", range(6))
def test_lines_between_pairs_of_cells_equal_the_reference(seed):
    cells = _cells(60, seed)
    pairs = b.product(cells, cells)
    fn = _line_in_first_colour()
    got = groups.apply(fn, pairs)
    assert got is not None and _same(got, f.apply(fn, pairs))
    assert _same(maps.mapply(fn, pairs), f.mapply(fn, pairs))


@pytest.mark.parametrize("seed", range(4))
def test_lines_between_locations_equal_the_reference(seed):
    locs = frozenset(loc for _, loc in _cells(50, seed, side=9))
    pairs = b.product(locs, locs)
    fn = f.fork(p.connect, b.first, b.last)
    got = groups.apply(fn, pairs)
    assert got is not None and _same(got, f.apply(fn, pairs))


def test_a_tuple_keeps_every_result_in_place():
    values = tuple((i % 3, (i % 5, i % 7)) for i in range(400))
    fn = f.fork(b.astuple, b.first, f.compose(b.first, b.last))
    got = groups.apply(fn, values)
    assert got is not None and got == f.apply(fn, values) and type(got) is tuple


@pytest.mark.parametrize("fn,want", [
    (f.fork(b.equality, b.first, b.last), {False}),  # a pair of two lengths is never equal
    (f.matcher(f.compose(b.first, b.first), 1), {True, False}),
    (f.fork(b.either, f.matcher(f.compose(b.first, b.first), 1), f.matcher(f.compose(b.last, b.last), 2)),
     {True, False}),
])
def test_compared_columns_give_the_reference_values(fn, want):
    values = frozenset(((i % 4, i % 9), (i % 4, i % 9, i % 11)) for i in range(600))
    got = groups.apply(fn, values)
    assert got is not None and _same(got, f.apply(fn, values)) and set(got) == want


def test_the_first_error_is_the_reference_error():
    pairs = frozenset((i % 7, i) for i in range(500))
    fn = f.compose(p.connect, f.compose(b.first, b.first))  # first of an int raises
    assert _same(run_oracle(groups.apply, fn, pairs), run_oracle(f.apply, fn, pairs))


@pytest.mark.parametrize("container", [
    frozenset(range(100)),  # too small
    frozenset((i, True) for i in range(600)),  # bools
    frozenset((i, (i, i + 1)) if i % 2 else (i, i) for i in range(600)),  # two shapes
    frozenset(frozenset({i}) for i in range(600)),  # sets
    frozenset((i, 2 ** 70) for i in range(600)),  # past 64 bits
])
def test_declines_other_containers(container):
    assert groups.apply(f.fork(b.astuple, b.first, b.last), container) is None


def test_declines_where_every_element_is_its_own_group():
    pairs = frozenset((i, i + 1) for i in range(600))
    assert groups.apply(f.fork(b.add, b.first, b.last), pairs) is None


_UNARY = [b.first, b.last, b.identity, p.color, p.center]


@st.composite
def functions(draw, depth: int = 2):
    """A function of the combinators over first/last/color, compared, paired or joined by `connect`."""
    kind = draw(st.sampled_from(["prim", "compose", "fork", "matcher"] if depth else ["prim"]))
    if kind == "prim":
        return draw(st.sampled_from(_UNARY))
    if kind == "compose":
        return f.compose(draw(functions(depth - 1)), draw(functions(depth - 1)))
    if kind == "matcher":
        return f.matcher(draw(functions(depth - 1)), draw(st.integers(0, 3)))
    outer = draw(st.sampled_from([b.equality, b.astuple, p.connect, b.either, b.both, p.hmatching,
                                  p.vmatching]))
    return f.fork(outer, draw(functions(depth - 1)), draw(functions(depth - 1)))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(functions(), st.integers(0, 2 ** 32), st.sampled_from(["cells", "locations", "one-cell objects",
                                                              "one-cell indices"]), st.integers(16, 40))
def test_random_functions_over_pairs_equal_the_reference(fn, seed, kind, n):
    cells = _cells(n, seed, side=6)
    items = {"cells": cells, "locations": frozenset(loc for _, loc in cells),
             "one-cell objects": frozenset(frozenset({c}) for c in cells),
             "one-cell indices": frozenset(frozenset({c[1]}) for c in cells)}[kind]
    pairs = b.product(items, items)
    for form, reference in ((maps.apply, f.apply), (maps.sfilter, b.sfilter)):
        args = (fn, pairs) if form is maps.apply else (pairs, fn)
        assert _same(run_oracle(form, *args), run_oracle(reference, *args))


@pytest.mark.skipif(oracle() is None, reason=MISSING)
@pytest.mark.parametrize("seed", range(3))
def test_one_cell_patches_in_line_equal_the_oracle(seed):
    dsl, _ = oracle()
    items = _singletons(70, seed)
    ours = maps.sfilter(b.product(items, items), _in_line())
    theirs = dsl.sfilter(dsl.product(items, items), dsl.fork(dsl.either, dsl.fork(dsl.vmatching, dsl.first, dsl.last),
                                                              dsl.fork(dsl.hmatching, dsl.first, dsl.last)))
    assert _same(ours, theirs)


@pytest.mark.skipif(oracle() is None, reason=MISSING)
@pytest.mark.parametrize("seed", range(4))
def test_lines_between_pairs_equal_the_oracle(seed):
    dsl, _ = oracle()
    cells = _cells(60, seed)
    ours = maps.apply(_line_in_first_colour(), b.product(cells, cells))
    line = dsl.fork(dsl.recolor, dsl.color, dsl.fork(dsl.connect, dsl.compose(dsl.last, dsl.first),
                                                     dsl.power(dsl.last, 2)))
    assert _same(ours, dsl.apply(line, dsl.product(cells, cells)))
