"""`rects.py` against the reference and the oracle: shared canvases and objects equal new ones in every way, and
`occurrences` of a filled one-colour rectangle (the summed-area table kept per grid) finds the reference's
corners in its iteration order; anything else keeps the reference's behaviour, errors included."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import arrays, prims_grid, prims_objects, rects
from gpubatch.arc.arcdsl.registry import solver_table
from tests.arc.layout import same_layout
from tests.arc.oracle import MISSING, oracle, run_oracle


def _grid(h: int, w: int, seed: int) -> tuple:
    rnd = random.Random(seed)
    return tuple(tuple(rnd.choice((0, 0, 0, 1, 2)) for _ in range(w)) for _ in range(h))


def test_the_solver_table_takes_the_forms():
    table = solver_table()
    assert table["canvas"] is rects.canvas and table["asobject"] is rects.asobject


@pytest.mark.parametrize("value,dims", [(0, (3, 4)), (True, (2, 2)), (1, (2, 2)), (5, (0, 3)), (2, (3, 0)),
                                        (7, (-2, 3)), (0, (True, 3)), ((1, 2), (2, 2)), (0, (40, 40)),
                                        (0, (2, 2, 2))])
def test_a_shared_canvas_equals_a_new_one(value, dims):
    got, again = rects.canvas(value, dims), rects.canvas(value, dims)
    want = prims_grid.canvas(value, dims)
    assert got == want and again == want and repr(got) == repr(want)  # True stays True, 1 stays 1


def test_canvases_of_one_and_true_are_kept_apart():
    assert repr(rects.canvas(1, (2, 2))) != repr(rects.canvas(True, (2, 2)))
    assert rects.canvas(0, (3, 3)) is rects.canvas(0, (3, 3))


@pytest.mark.parametrize("value,dims", [(0, (2,)), (0, None), (0, ("2", 2))])
def test_canvas_raises_as_the_reference(value, dims):
    with pytest.raises(Exception) as want:
        prims_grid.canvas(value, dims)
    with pytest.raises(want.type):
        rects.canvas(value, dims)


def test_asobject_is_read_back_in_thesame_layout():
    grid = _grid(6, 7, 1)
    first, second = rects.asobject(grid), rects.asobject(grid)
    assert second is first and same_layout(first, prims_grid.asobject(grid))
    assert same_layout(rects.asobject(((1, 2), (3,))), prims_grid.asobject(((1, 2), (3,))))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.integers(1, 16), st.integers(1, 16), st.integers(1, 6), st.integers(1, 6), st.integers(0, 2),
       st.integers(0, 2 ** 32), st.integers(-3, 3), st.integers(-3, 3))
def test_solid_rectangles_equal_the_reference(h, w, oh, ow, colour, seed, di, dj):
    grid = _grid(h, w, seed)
    obj = frozenset((colour, (i + di, j + dj)) for i in range(oh) for j in range(ow))
    assert rects.solid(obj) == (colour, oh, ow)
    for _ in range(2):  # the second time from the kept table
        assert same_layout(arrays.occurrences(grid, obj), prims_objects.occurrences(grid, obj))


def test_the_table_is_kept_per_grid_and_colour():
    grid = _grid(9, 9, 3)
    for colour in (0, 1, 2, 0):
        for oh, ow in ((1, 1), (2, 3), (3, 2)):
            obj = rects.asobject(rects.canvas(colour, (oh, ow)))
            assert same_layout(arrays.occurrences(grid, obj), prims_objects.occurrences(grid, obj))


@pytest.mark.parametrize("obj", [
    frozenset({(1, (0, 0)), (1, (0, 2))}),  # a gap: not filled
    frozenset({(1, (0, 0)), (2, (0, 1))}),  # two colours
    frozenset({(True, (0, 0)), (True, (0, 1))}),  # bools
    frozenset({(1, (0, 0)), (1, (0, True))}),  # a bool coordinate
    frozenset({(0, 0), (0, 1)}),  # indices, not an object
    frozenset({(2 ** 70, (0, 0))}),  # a colour past 64 bits
    frozenset(),
    ((1, (0, 0)),),  # a tuple
])
def test_what_is_not_a_solid_rectangle_is_declined(obj):
    assert rects.solid(obj) is None


@pytest.mark.parametrize("grid", [(), ((1, 2), (3,)), (((1,), 2),), frozenset({(1, (0, 0))})])
def test_other_grids_keep_the_reference_behaviour(grid):
    obj = frozenset({(1, (0, 0))})
    try:
        want = prims_objects.occurrences(grid, obj)
    except Exception as exc:  # noqa: BLE001 - the form must raise the same
        with pytest.raises(type(exc)):
            arrays.occurrences(grid, obj)
    else:
        assert same_layout(arrays.occurrences(grid, obj), want)


@pytest.mark.skipif(oracle() is None, reason=MISSING)
@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(1, 16), st.integers(1, 16), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2),
       st.integers(0, 2 ** 32))
def test_solid_rectangles_equal_the_oracle(h, w, oh, ow, colour, seed):
    dsl, _ = oracle()
    grid = _grid(h, w, seed)
    obj = rects.asobject(rects.canvas(colour, (oh, ow)))
    theirs = run_oracle(dsl.occurrences, grid, dsl.asobject(dsl.canvas(colour, (oh, ow))))
    assert same_layout(arrays.occurrences(grid, obj), theirs)
