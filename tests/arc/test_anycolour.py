"""Colour-free local rules: the code of a cell's place in its object, a table that learns "keeps its colour",
a test object of a colour no demo shows answered, the search ranking such a fit first (CuPy against NumPy: in
`test_rules`)."""
import numpy as np
import pytest

from gpubatch.arc.anycolour import anycolour_fits, features
from gpubatch.arc.batt import search_shard
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.rules import rule_fits
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend

from .test_rules import _task_batch


def _bar(colour: int, width: int, at: int = 1):
    """A 6 x 10 grid with a 3-row bar of `colour` from column `at`, and the same with every other cell of the
    bar's middle row, counted from its first cell, gone (0)."""
    a = np.zeros((6, 10), int)
    a[1:4, at:at + width] = colour
    b = a.copy()
    b[2, at + 1:at + width:2] = 0
    return a.tolist(), b.tolist()


def test_anyparity_counts_rows_and_columns_from_the_objects_first_cell():
    # an L of 2s whose first cell is (0, 1); a lone 3 at (2, 0); the rest is background
    g = GridBatch.from_lists([[[0, 2, 0], [0, 2, 2], [3, 0, 0]]])
    code = features(g, "anyparity")[0]
    assert [int(code[0, 1]), int(code[1, 1]), int(code[1, 2])] == [1, 3, 4]  # 1 + 2 * row parity + column parity
    assert int(code[2, 0]) == 1  # a lone cell is its own first cell
    assert int(code[0, 0]) == 0 and int(code[2, 2]) == 0  # background
    with pytest.raises(ValueError, match="anyparity"):
        features(g, "nbhd")


def test_a_bar_of_a_colour_no_demo_shows_is_answered():
    demos = [_bar(4, 7), _bar(8, 5, at=2)]
    test_in, test_out = _bar(5, 6)
    C, tg, demo = _task_batch(demos, [test_in])
    ok, unseen, pred = anycolour_fits(C, np.array([0]), tg, demo, "anyparity")
    assert (ok.tolist(), unseen.tolist()) == ([True], [0])
    assert pred.to_lists()[2] == test_out and pred.to_lists()[:2] == C.to_lists()[:2]
    # the table keyed on the cell's own colour never saw 5: its bar's cells keep their colour (a partial fit)
    ok, unseen, pred = rule_fits(C, np.array([0]), tg, demo, "parity")
    assert ok.tolist() == [False] or unseen.tolist() != [0]
    # one code, two outputs across the demos (the same place kept in one demo, cleared in another): no fit
    a, b = _bar(4, 7)
    C2, tg2, demo2 = _task_batch([(a, b), (a, a)], [a])
    assert anycolour_fits(C2, np.array([0]), tg2, demo2, "anyparity")[0].tolist() == [False]


def test_search_ranks_the_colour_free_fit_first():
    tasks, _ = load_tasks("arc1-train", ids=["3bdb4ada"])
    res = search_shard(tasks, numpy_backend(), SearchConfig(depth=0))[0]
    assert all(res.correct) and res.fits[0].program == "rule(f=anyparity)"
