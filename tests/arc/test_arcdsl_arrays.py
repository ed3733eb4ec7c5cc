"""The array forms of `arrays.py` against the reference primitives and the oracle: the same value and the same set
iteration order on random grids and objects large enough to take the array path, and the reference's behaviour
(errors included) where the input is outside what a form handles."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import arrays, prims_objects
from gpubatch.arc.arcdsl.registry import primitives, solver_table
from tests.arc.layout import same_layout
from tests.arc.oracle import MISSING, oracle, run_oracle


@st.composite
def grid_and_object(draw):
    """A grid of few colours (so that objects occur), and an object: cut from the grid (it occurs at least once),
    recoloured, or made of random cells; sometimes with bools for colours, or larger than the grid."""
    h, w = draw(st.integers(1, 16)), draw(st.integers(1, 16))
    colours = st.integers(0, draw(st.integers(0, 3)))
    grid = tuple(tuple(draw(colours) for _ in range(w)) for _ in range(h))
    how = draw(st.sampled_from(["cut", "random", "bools", "large"]))
    if how == "cut":
        i0, j0 = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
        cells = draw(st.lists(st.tuples(st.integers(i0, h - 1), st.integers(j0, w - 1)), min_size=1, max_size=30))
        obj = frozenset((grid[i][j], (i + 3, j - 2)) for i, j in cells)  # shifted: normalisation must undo it
    else:
        top = 20 if how == "large" else 6
        loc = st.tuples(st.integers(-3, top), st.integers(-3, top))
        value = st.booleans() if how == "bools" else colours
        obj = draw(st.frozensets(st.tuples(value, loc), min_size=1, max_size=30))
    return grid, obj


@settings(max_examples=300, deadline=None, derandomize=True)
@given(grid_and_object())
def test_occurrences_array_equals_the_reference(case):
    grid, obj = case
    assert same_layout(arrays.occurrences_array(grid, obj), prims_objects.occurrences(grid, obj))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(1, 14), st.integers(1, 14), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2),
       st.integers(0, 2 ** 64), st.booleans())
def test_occurrences_of_a_solid_rectangle_equal_the_reference(h, w, oh, ow, colour, seed, as_bool):
    """A rectangle of one colour (`asobject` of a `canvas`) takes the summed-area path."""
    rnd = __import__("random").Random(seed)
    grid = tuple(tuple(rnd.choice((0, 0, 0, 1, 2)) for _ in range(w)) for _ in range(h))
    value = bool(colour % 2) if as_bool else colour
    obj = frozenset((value, (i + 2, j - 1)) for i in range(oh) for j in range(ow))
    assert same_layout(arrays.occurrences_array(grid, obj), prims_objects.occurrences(grid, obj))


@pytest.mark.parametrize("grid,obj", [
    ((), frozenset({(1, (0, 0))})),  # no rows
    (((),), frozenset({(1, (0, 0))})),  # an empty row
    (((1, 2), (3,)), frozenset({(1, (0, 0))})),  # ragged
    (((1, 2),), frozenset({(0, 1)})),  # locations, not an object
    (((1, 2),), frozenset()),  # empty object
    (((1, 2),), frozenset({((1,), (0, 0))})),  # a colour that is not an integer
    (frozenset({(1, (0, 0))}), frozenset({(1, (0, 0))})),  # not a grid
    (((1, 2),), frozenset({(2 ** 70, (0, 0))})),  # a colour past 64 bits
    (((2 ** 70, 2),), frozenset({(1, (0, 0))})),  # a grid value past 64 bits
])
def test_occurrences_array_declines_what_it_does_not_handle(grid, obj):
    assert arrays.occurrences_array(grid, obj) is None


def test_solver_table_uses_the_forms_and_keeps_the_rest():
    table, refs = solver_table(), primitives()
    assert table["occurrences"] is arrays.occurrences and set(table) == set(refs)
    assert all(table[name] is refs[name] for name in refs if name not in arrays.FORMS)


@pytest.mark.skipif(oracle() is None, reason=MISSING)
@settings(max_examples=200, deadline=None, derandomize=True)
@given(grid_and_object())
def test_occurrences_in_the_solver_table_equals_the_oracle(case):
    """Through the dispatcher (array form above MIN_WORK, reference below), as arc-dsl finds them."""
    dsl, _ = oracle()
    grid, obj = case
    ours, theirs = run_oracle(arrays.occurrences, grid, obj), run_oracle(dsl.occurrences, grid, obj)
    if isinstance(theirs, Exception):
        assert isinstance(ours, Exception)
    else:
        assert same_layout(ours, theirs)
