"""Bounds on what one arc-dsl primitive may build: a line asking for a huge value is an error of that sample,
raised at once, where arc-dsl would spend minutes and all memory; values within the bounds build as before."""
from __future__ import annotations

import time

import pytest

from gpubatch.arc.arcdsl.interp import SampleError, run_solver
from gpubatch.arc.arcdsl.limits import MAX_CELLS, MAX_ITEMS, MAX_POWER, TooLarge
from gpubatch.arc.arcdsl.registry import primitives
from gpubatch.arc.arcdsl.solvers import parse_solvers

P = primitives()
GRID = tuple(tuple((i + j) % 10 for j in range(30)) for i in range(30))
SIDE = 2237  # SIDE * SIDE just past MAX_ITEMS
SET = frozenset(range(SIDE))

PAST = {
    "canvas": (0, (7072, 7072)),  # just past MAX_CELLS
    "interval": (0, MAX_ITEMS + 1, 1),
    "repeat": (0, MAX_CELLS + 1),
    "product": (SET, SET),
    "prapply": (lambda a, b: a, SET, SET),
    "hsplit": (GRID, MAX_ITEMS + 1),
    "vsplit": (GRID, MAX_ITEMS + 1),
    "hupscale": (GRID, MAX_CELLS // 900 + 1),
    "vupscale": (GRID, MAX_CELLS // 900 + 1),
    "upscale": (frozenset({(1, (0, 0))}), SIDE),
    "connect": ((0, 0), (0, MAX_ITEMS + 1)),
    "backdrop": (frozenset({(0, 0), (SIDE - 1, SIDE - 1)}),),
}


@pytest.mark.parametrize("name", sorted(PAST))
def test_past_the_bound_raises_at_once(name):
    assert (MAX_CELLS, MAX_ITEMS) == (50_000_000, 5_000_000)
    t0 = time.perf_counter()
    with pytest.raises(TooLarge, match=name):
        P[name](*PAST[name])
    assert time.perf_counter() - t0 < 1.0  # checked before anything is built


def test_power_and_concatenation_doubling():
    with pytest.raises(TooLarge, match="power"):
        P["power"](P["rot90"], MAX_POWER + 1)
    assert P["power"](P["rot90"], 4)(GRID) == GRID
    grid = ((0,),)
    with pytest.raises(TooLarge, match="hconcat"):
        for _ in range(40):  # one cell doubled: past the bound at the 26th (2 ** 26 > 50M)
            grid = P["hconcat"](grid, grid)
    assert len(grid[0]) == 2 ** 25


def test_within_the_bounds_values_are_unchanged():
    assert P["canvas"](7, (1000, 1000)) == tuple(tuple(7 for _ in range(1000)) for _ in range(1000))
    big = P["canvas"](0, (2930, 2930))  # what solve_feca6190 builds on a training task of the cross battery
    assert len(big) == len(big[0]) == 2930
    assert len(P["interval"](0, 100_000, 1)) == 100_000
    assert P["vconcat"]((1, 2), (3,)) == (1, 2, 3)  # any two tuples, as in arc-dsl
    rows = frozenset({(1, 2)})  # a set of tuples iterates as rows, as in arc-dsl
    assert P["hupscale"](rows, 2) == ((1, 1, 2, 2),) and P["vupscale"](rows, 2) == ((1, 2), (1, 2))
    assert P["hconcat"](rows, rows) == ((1, 2, 1, 2),)
    # what takes no time in arc-dsl passes: nothing to repeat, or a factor below 1
    assert P["hupscale"](((),), 10 ** 9) == ((),)
    assert P["upscale"](frozenset({(1, (0, 0))}), -10 ** 4) == frozenset()
    assert P["canvas"](0, (-1, 10 ** 9)) == ()
    for call in (lambda: P["canvas"](0, (10 ** 9, -1)), lambda: P["vupscale"](((),), 10 ** 9)):
        with pytest.raises(TooLarge):  # a billion empty rows: minutes in arc-dsl
            call()
    # points on no common line or diagonal connect to nothing, however far apart
    assert P["connect"]((0, 0), (10 ** 9, 5)) == frozenset()
    assert P["connect"]((0, 0), (3, 3)) == frozenset({(0, 0), (1, 1), (2, 2), (3, 3)})
    assert P["connect"]((0, 3), (3, 0)) == frozenset({(0, 3), (1, 2), (2, 1), (3, 0)})


def test_a_solver_asking_for_a_huge_grid_is_an_error_of_its_samples():
    solver = parse_solvers("def solve_x(I):\n    x1 = canvas(ZERO, (100000, 100000))\n    return x1\n")[0]
    t0 = time.perf_counter()
    out = run_solver(solver, [GRID, GRID])
    assert time.perf_counter() - t0 < 1.0
    assert all(isinstance(o, SampleError) and o.line == 2 and "TooLarge" in o.error and "canvas" in o.error
               for o in out)
