"""The inputs' own primitives run once for several K-groups (`firsts`): waves within the cap, each group given
exactly its rows, and search results equal to a search where every group runs them itself."""
import time

import numpy as np
import pytest

from gpubatch.arc import batt, firsts
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.search import GroupSearch, SearchConfig, TaskState, builtin_primitives
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend
from gpubatch.engine.stats import StatsCollector

# solved through a `first` primitive (attract, fill_boxes, gravitate, reflect, attach, flood, reverse_rings),
# in K-groups of 3 (two tasks), 4 (four) and 5 (one)
IDS = ("a48eeaf7", "60b61512", "05f2a901", "6855a6e4", "d687bc17", "9edfc990", "85c4e7cd")


def test_waves_keep_within_the_cap_and_the_order():
    assert firsts.waves([3, 4, 2, 9, 1], per_grid=10, cap_bytes=70) == [[0, 1], [2], [3], [4]]
    assert firsts.waves([3, 4, 2], per_grid=10, cap_bytes=1000) == [[0, 1, 2]]
    assert firsts.waves([], per_grid=10, cap_bytes=10) == []


@pytest.fixture(scope="module")
def tasks():
    by_id = {t.id: t for t in load_tasks("arc1-train")[0]}
    return [by_id[i] for i in IDS]


def test_each_group_is_given_its_own_rows(tasks):
    prims = builtin_primitives()
    backend = numpy_backend()
    cfg = SearchConfig(depth=1)
    groups = [GroupSearch([TaskState(t)], len(t.train) + len(t.test_inputs), prims, backend, cfg, 0.0)
              for t in tasks[:3]]
    stats = StatsCollector()
    firsts.share_first(groups, backend, stats)
    first = [pi for pi, p in enumerate(prims) if p.family.first]
    assert sorted(groups[0].given) == first
    for gs in groups:
        for pi in first[::7]:
            want, got = prims[pi](gs.inp), gs.given[pi]
            assert isinstance(got, GridBatch) and len(got) == len(gs.inp)
            np.testing.assert_array_equal(got.data, want.data)
            np.testing.assert_array_equal(got.h, want.h)
            np.testing.assert_array_equal(got.w, want.w)
    name = prims[first[0]].name
    row, runs = stats.for_op(name, backend.label), sum(prims[pi].name == name for pi in first)
    assert row.batches == runs and row.items == runs * sum(len(gs.inp) for gs in groups)  # one batch each


def _outcomes(results):
    return [(r.id, [f.program for f in r.fits], r.predictions, r.correct, r.states) for r in results]


def test_search_equals_groups_that_run_them_alone(tasks, monkeypatch):
    cfg = SearchConfig(depth=2, max_states=3_000, colour_norm=False)
    shared = _outcomes(batt.search_shard(tasks, numpy_backend(), cfg))
    assert sum(all(r[3]) for r in shared) >= 6  # the tasks the first primitives solve
    monkeypatch.setattr(firsts, "cap_for", lambda backend: 0)  # one wave per group
    assert _outcomes(batt.search_shard(tasks, numpy_backend(), cfg)) == shared
    monkeypatch.setattr(firsts, "share_first", lambda *a, **k: None)  # every group computes them itself
    assert _outcomes(batt.search_shard(tasks, numpy_backend(), cfg)) == shared


def test_depth_one_states_rebuilt_from_the_given_rows(tasks):
    """A group of several tasks keeps many depth-1 states; those of `first` primitives are rebuilt from the
    given rows, each from its own parent's."""
    prims = builtin_primitives()
    group = [t for t in tasks if len(t.train) + len(t.test_inputs) == 4]
    gs = GroupSearch([TaskState(t) for t in group], 4, prims, numpy_backend(),
                     SearchConfig(depth=2, max_states=50_000, colour_norm=False), time.perf_counter())
    firsts.share_first([gs], numpy_backend())
    gs.check_level0()
    gs.expand(0)
    lv = gs.levels[1]
    ids = np.flatnonzero(np.isin(lv.prim, sorted(gs.given)))
    assert len(np.unique(lv.task[ids])) >= 3 and len(ids) > 2 * len(group)  # several parents a primitive
    got = gs.materialize(1, ids)
    for k, i in enumerate(ids):
        want = prims[int(lv.prim[i])](gs.inp.take(gs.rows([int(lv.parent[i])])))
        rows = slice(4 * k, 4 * k + 4)
        np.testing.assert_array_equal(got.data[rows], want.data)
        np.testing.assert_array_equal(got.h[rows], want.h)
