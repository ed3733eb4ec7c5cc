"""`nearest.argmin`/`argmax` (by the Manhattan distance to a fixed patch, in arrays) against the reference and
the oracle: the same element, ties to the first in iteration order, and the reference wherever the key or the
container is anything else."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import nearest, prims_base, prims_func, prims_patch
from gpubatch.arc.arcdsl.registry import solver_table
from tests.arc.oracle import MISSING, oracle, run_oracle

loc = st.tuples(st.integers(-3, 12), st.integers(-3, 12))
cells = st.one_of(st.frozensets(st.tuples(st.integers(0, 3), loc), min_size=16, max_size=80),
                  st.frozensets(loc, min_size=16, max_size=80))
patches = st.one_of(st.frozensets(loc, min_size=1, max_size=4),
                    st.frozensets(st.tuples(st.integers(0, 3), loc), min_size=1, max_size=4))


def _key(patch, compose=prims_func.compose, lbind=prims_func.lbind, manhattan=prims_patch.manhattan,
         initset=prims_base.initset):
    return compose(lbind(manhattan, patch), initset)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(cells, patches)
def test_argmin_and_argmax_by_distance_equal_the_reference(container, patch):
    key = _key(patch)
    assert nearest.distance_key(key) is patch
    assert nearest.argmin(container, key) == prims_base.argmin(container, key)
    assert nearest.argmax(container, key) == prims_base.argmax(container, key)


def test_the_solver_table_takes_the_forms():
    table = solver_table()
    assert table["argmin"] is nearest.argmin and table["argmax"] is nearest.argmax


@pytest.mark.parametrize("container,key", [
    (frozenset(range(20)), prims_func.compose(prims_base.identity, prims_base.identity)),  # another key
    (frozenset((i, i) for i in range(20)), prims_func.compose(prims_func.lbind(prims_patch.manhattan,
                                                                               frozenset()), prims_base.initset)),
    (tuple((i, i) for i in range(20)), _key(frozenset({(0, 0)}))),  # a tuple: not handled here
    (frozenset((True, (i, i)) for i in range(20)), _key(frozenset({(0, 0)}))),  # bools for colours
    (frozenset(), _key(frozenset({(0, 0)}))),  # nothing to choose from: both raise
])
def test_other_keys_and_containers_take_the_reference(container, key):
    for form, ref in ((nearest.argmin, prims_base.argmin), (nearest.argmax, prims_base.argmax)):
        a, b = run_oracle(form, container, key), run_oracle(ref, container, key)
        assert type(a) is type(b) and (isinstance(b, Exception) or a == b)


@pytest.mark.skipif(oracle() is None, reason=MISSING)
@settings(max_examples=100, deadline=None, derandomize=True)
@given(cells, patches)
def test_argmin_by_distance_equals_the_oracle(container, patch):
    dsl, _ = oracle()
    ours = nearest.argmin(container, _key(patch))
    theirs = dsl.argmin(container, dsl.compose(dsl.lbind(dsl.manhattan, patch), dsl.initset))
    assert ours == theirs
