"""`lines.prapply` (`connect` between every pair, each distinct line built once) against the reference and the
oracle: the same set of lines in the same iteration order, each line laid out alike, and the reference's
behaviour (errors included) wherever the input is anything else."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import lines, prims_func, prims_patch
from gpubatch.arc.arcdsl.limits import TooLarge
from gpubatch.arc.arcdsl.registry import solver_table
from tests.arc.layout import same_layout
from tests.arc.oracle import MISSING, oracle, run_oracle

locs = st.frozensets(st.tuples(st.integers(-3, 14), st.integers(-3, 14)), min_size=16, max_size=70)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(locs, locs)
def test_distinct_lines_equal_the_reference(a, b):
    got = lines.distinct_lines(a, b)
    assert got is not None and same_layout(got, prims_func.prapply(prims_patch.connect, a, b))


def test_the_solver_table_takes_the_form():
    assert solver_table()["prapply"] is lines.prapply


def test_far_coordinates_take_the_general_sort():
    a = frozenset((i * 2000 + 1, 100 + i) for i in range(20)) | frozenset((0, j) for j in range(20))
    assert same_layout(lines.distinct_lines(a, a), prims_func.prapply(prims_patch.connect, a, a))


@pytest.mark.parametrize("a,b", [
    (tuple((i, i) for i in range(20)), frozenset((i, 0) for i in range(20))),  # a tuple
    (frozenset((i, i, i) for i in range(20)), frozenset((i, 0) for i in range(20))),  # not pairs: both raise
])
def test_other_inputs_take_the_reference(a, b):
    assert lines.distinct_lines(a, b) is None
    ref, got = run_oracle(prims_func.prapply, prims_patch.connect, a, b), run_oracle(lines.prapply,
                                                                                   prims_patch.connect, a, b)
    assert type(got) is type(ref) and (isinstance(ref, Exception) or same_layout(got, ref))


def test_bools_act_as_ints():
    a, b = frozenset((i, True) for i in range(20)), frozenset((i, 0) for i in range(20))
    assert same_layout(lines.distinct_lines(a, b), prims_func.prapply(prims_patch.connect, a, b))


def test_a_line_too_long_raises_as_the_reference():
    a = frozenset((0, j) for j in range(16)) | {(0, 10 ** 7)}
    with pytest.raises(TooLarge) as ours:
        lines.prapply(prims_patch.connect, a, a)
    with pytest.raises(TooLarge) as ref:
        prims_func.prapply(prims_patch.connect, a, a)
    assert str(ours.value) == str(ref.value)


@pytest.mark.skipif(oracle() is None, reason=MISSING)
@settings(max_examples=60, deadline=None, derandomize=True)
@given(locs, locs)
def test_prapply_of_connect_equals_the_oracle(a, b):
    dsl, _ = oracle()
    assert same_layout(lines.prapply(prims_patch.connect, a, b), dsl.prapply(dsl.connect, a, b))
