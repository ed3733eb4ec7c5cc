"""`maps.mapply` through `shifts.py` (a patch shifted to every location and merged, in arrays) against the reference and the
oracle: the same set in the same iteration order, on objects and on indices with negative coordinates (where
-1 and -2 hash alike), and the reference's behaviour (errors included) wherever the input is outside it."""
from __future__ import annotations

from contextlib import contextmanager

import pytest
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import maps, prims_func, prims_patch, shifts
from gpubatch.arc.arcdsl.registry import solver_table
from tests.arc.layout import same_layout
from tests.arc.oracle import MISSING, oracle, run_oracle

loc = st.tuples(st.integers(-4, 25), st.integers(-4, 25))


@st.composite
def patch_and_locations(draw):
    """An object (colours 0-3) or indices, and locations, many enough that copies overlap."""
    cells = st.tuples(st.integers(0, draw(st.integers(0, 3))), loc) if draw(st.booleans()) else loc
    patch = draw(st.frozensets(cells, min_size=1, max_size=40))
    places = draw(st.frozensets(st.tuples(st.integers(-6, 20), st.integers(-6, 20)), min_size=1, max_size=120))
    return patch, places


@contextmanager
def _every_size():
    """The array path however small the input (it is taken only above MIN_CELLS otherwise)."""
    saved, shifts.MIN_CELLS = shifts.MIN_CELLS, 1
    try:
        yield
    finally:
        shifts.MIN_CELLS = saved


@settings(max_examples=200, deadline=None, derandomize=True)
@given(patch_and_locations())
def test_shifted_union_equals_the_reference(case):
    patch, places = case
    with _every_size():
        got = shifts.shifted_union(patch, places)
    assert got is not None
    assert same_layout(got, prims_func.mapply(prims_func.lbind(prims_patch.shift, patch), places))


@settings(max_examples=150, deadline=None, derandomize=True)
@given(patch_and_locations())
def test_shifted_copies_equal_the_reference(case):
    """Every copy and the set of copies laid out alike (the cells built once, inserted in the same order)."""
    patch, places = case
    with _every_size():
        got = shifts.shifted_copies(patch, places)
    ref = prims_func.apply(prims_func.lbind(prims_patch.shift, patch), places)
    if got is None:  # only where the cells in reach outnumber twice the copies' cells
        return
    assert same_layout(got, ref)


def test_the_solver_table_takes_the_array_forms():
    table = solver_table()
    assert table["mapply"] is maps.mapply and table["apply"] is maps.apply


def test_only_lbind_of_shift_is_recognised():
    patch = frozenset({(1, (0, 0))})
    assert shifts.bound_shift(prims_func.lbind(prims_patch.shift, patch)) is patch
    assert shifts.bound_shift(prims_func.lbind(prims_patch.recolor, 1)) is None
    assert shifts.bound_shift(prims_func.rbind(prims_patch.shift, (0, 1))) is None
    assert shifts.bound_shift(prims_patch.shift) is None


@pytest.mark.parametrize("patch,places", [
    (frozenset(), frozenset({(0, 1)})),  # nothing to shift
    (frozenset({(1, (0, 0))}), ((0, 1), (1, 0))),  # a tuple of locations: tuples concatenate
    (frozenset({(1, (0, 0)), (0, 1)}), frozenset({(0, 1)})),  # an object and an index in one patch
    (frozenset({(True, (0, 0))}), frozenset({(0, 1)})),  # a colour that is a bool
    (frozenset({(2 ** 70, (0, 0))}), frozenset({(0, 1)})),  # a colour past 64 bits
    (frozenset({(1, (0, 0))}), frozenset({(0, 1, 2)})),  # a location of three values: the reference raises
    (frozenset({(1, (0, 0))}), frozenset({"ab"})),  # a string unpacks in two: the reference raises on adding
])
def test_declines_what_it_does_not_handle(patch, places):
    fn = prims_func.lbind(prims_patch.shift, patch)
    with _every_size():
        assert shifts.shifted_union(patch, places) is None and shifts.shifted_copies(patch, places) is None
        for form, reference in ((maps.mapply, prims_func.mapply), (maps.apply, prims_func.apply)):
            ref, got = run_oracle(reference, fn, places), run_oracle(form, fn, places)
            assert type(got) is type(ref) and (isinstance(ref, Exception) or same_layout(got, ref))


def test_a_large_case_takes_the_array_path():
    patch = frozenset((i * j % 3, (i, j)) for i in range(8) for j in range(8))
    places = frozenset((i, j) for i in range(-2, 28) for j in range(-2, 28))
    got = shifts.shifted_union(patch, places)
    assert got is not None
    assert same_layout(got, prims_func.mapply(prims_func.lbind(prims_patch.shift, patch), places))


@pytest.mark.skipif(oracle() is None, reason=MISSING)
@settings(max_examples=100, deadline=None, derandomize=True)
@given(patch_and_locations())
def test_mapply_of_shift_equals_the_oracle(case):
    dsl, _ = oracle()
    patch, places = case
    with _every_size():
        ours = maps.mapply(prims_func.lbind(prims_patch.shift, patch), places)
    assert same_layout(ours, dsl.mapply(dsl.lbind(dsl.shift, patch), places))
