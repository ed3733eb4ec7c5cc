"""Fits up to a colour map: the batched check, learning the map, the `cmap` step, and the search using it."""
import numpy as np
import pytest

from gpubatch.arc.batt import search_shard
from gpubatch.arc.colourmap import apply_map, learn_map, map_fits, map_text
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.learned import LAST
from gpubatch.arc.programs import ProgramError, parse_program
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import Task
from gpubatch.engine import numpy_backend


def _batch(grids):
    return GridBatch.from_lists(grids)


def test_map_fits_needs_one_function_over_all_demo_pairs():
    tgt = _batch([[[4, 5], [6, 4]], [[5, 5]], [[0]]])  # task 0: two demo targets, then a test row
    demo = np.array([[True, True, False]])
    states = _batch([[[3, 1], [2, 3]], [[1, 1]], [[7, 7, 7]],  # 3->4, 1->5, 2->6 in both pairs: fits
                     [[3, 1], [2, 3]], [[3, 3]], [[7]],  # 3->4 then 3->5: not a function
                     [[3, 1]], [[1, 1]], [[7]],  # wrong shape in the first pair
                     [[4, 4], [4, 4]], [[5, 5]], [[7]]])  # 4->4 and 4->5, 4->6: no
    assert map_fits(states, tgt, np.zeros(4, np.int64), demo, 3).tolist() == [True, False, False, False]


def test_learn_and_apply_map():
    m = learn_map([[[3, 1], [2, 3]], [[1, 1]]], [((4, 5), (6, 4)), ((5, 5),)])
    assert m == {3: 4, 1: 5, 2: 6} and map_text(m) == "1>5 2>6 3>4"
    assert learn_map([[[1, 1]]], [((1, 2),)]) is None
    assert apply_map([[1, 7]], m) == [[5, 7]]  # unseen colours keep theirs


def test_cmap_step_parses_back_and_rejects_bad_maps():
    p = parse_program("rot90 | cmap(m=1>5 2>6 3>4)")
    assert parse_program(p.text).text == p.text == "rot90 | cmap(m=1>5 2>6 3>4)"
    assert p(_batch([[[3, 1, 2]]])).to_lists() == [[[4], [5], [6]]] == [p.reference([[3, 1, 2]])]
    for bad in ("cmap(m=1>5 1>6)", "cmap(m=1-5)", "cmap(m=12>3)"):
        with pytest.raises(ProgramError):
            parse_program(bad)


def test_search_fits_up_to_a_colour_map_and_ranks_exact_fits_first():
    def recol(g):
        return tuple(tuple({3: 4, 1: 5, 2: 6, 4: 3, 5: 1, 6: 2}.get(v, v) for v in r) for r in g)

    demos = [((3, 1, 2), (3, 1, 2)), ((4, 5, 6), (2, 2, 2)), ((1, 1, 1), (2, 3, 4))]
    task = Task("cm", tuple((g, recol(g)) for g in demos), (((2, 3), (1, 6)),), (recol(((2, 3), (1, 6))),))
    res = search_shard([task], numpy_backend(), SearchConfig(depth=1, max_states=10_000))[0]
    last = [f.program.split(" | ")[-1] for f in res.fits]
    assert res.correct == (True,) and "cmap(m=1>5 2>6 3>4 4>3 5>1 6>2)" in last
    assert all(s.startswith(("cmap(", "rule(")) for s in last)  # no exact fit here: each fit learned a step
    # a local rule (`rules`; here own colour and object size) ranks before the colour maps; a learner of wide
    # context (`learned.LAST`) ranks among them, after a colour map of the same length
    def tier(s):
        return 0 if s.startswith("rule(") and s[len("rule(f="):-1] not in LAST else 1
    assert last == sorted(last, key=tier) and {tier(s) for s in last} == {0, 1}
    programs = [f.program for f in res.fits]
    assert programs.index("cmap(m=1>5 2>6 3>4 4>3 5>1 6>2)") < programs.index("rule(f=raypair)")
    exact = Task("ex", tuple((g, g[::-1]) for g in demos), (((1, 2), (3, 4)),), (((3, 4), (1, 2)),))
    res = search_shard([exact], numpy_backend(), SearchConfig(depth=1, max_states=10_000))[0]
    assert res.fits[0].program == "hmirror" and res.correct == (True,)
