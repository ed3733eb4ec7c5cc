"""Overlays: pools keep the best distinct candidates; layers over a base reproduce every demo exactly when they
cover its wrong cells; the search finds such overlays and predicts the test outputs from them."""
import time
from dataclasses import replace

import numpy as np

from gpubatch.arc.batt import search_shard
from gpubatch.arc.overlays import BASE, COLOUR, EDIT, Piece, compose_task
from gpubatch.arc.pools import Pool, first_distinct
from gpubatch.arc.search import GroupSearch, SearchConfig, TaskState, builtin_primitives
from gpubatch.arc.tasks import Task
from gpubatch.engine import numpy_backend


def test_pool_keeps_the_best_distinct_and_replaces_a_worse_of_the_same_key():
    pool = Pool(2)
    assert pool.offer((5,), "a", lambda: "A5") == "A5"
    assert pool.offer((3,), "b", lambda: "B3") == "B3"
    assert pool.worst() == (5,)
    assert pool.offer((7,), "c", lambda: "C7") is None  # full, and ranks last
    assert pool.offer((6,), "b", lambda: "B6") is None  # its key is held at a better rank
    assert pool.offer((1,), "a", lambda: "A1") == "A1"  # the same key, better: replaces A5
    assert [r for _, r in pool] == ["A1", "B3"] and not pool.holds((5,))
    assert pool.offer((2,), "c", lambda: "C2") == "C2"  # pushes B3 out
    assert [r for _, r in pool] == ["A1", "C2"] and pool.offer((4,), "b", lambda: "B4") is None
    assert Pool(0).offer((0,), "a", lambda: "A") is None


def test_first_distinct_per_task():
    order = np.array([10, 11, 12, 13, 20, 21, 22])  # task-major
    key = np.array([1, 1, 2, 3, 7, 4, 5])  # keys are salted by task: never shared between tasks
    task = np.array([0, 0, 0, 0, 1, 1, 1])
    key[5] = 7  # ties keep the first in order
    assert sorted(first_distinct(np, order, key, task, 2).tolist()) == [0, 2, 4, 6]


def _piece(grids, level=1):
    data = np.full((len(grids), 30, 30), 10, np.uint8)
    h, w = np.zeros(len(grids), np.int32), np.zeros(len(grids), np.int32)
    for k, g in enumerate(grids):
        a = np.array(g, np.uint8)
        data[k, :a.shape[0], :a.shape[1]] = a
        h[k], w[k] = a.shape
    return Piece(level, (level, 0, 0), data, h, w)


def _state(bases=(), colour=(), edit=(), sizes=None):
    st = TaskState(None, sizes=sizes)
    st.overlay_pools = [Pool(16) for _ in range(3)]
    for kind, pieces in ((BASE, bases), (COLOUR, colour), (EDIT, edit)):
        for i, p in enumerate(pieces):
            st.overlay_pools[kind].offer((i,), i, lambda p=p: p)
    return st


def test_colour_layers_over_zeros_and_edit_layers_over_the_input():
    inp = _piece([[[1, 0], [0, 0]], [[0, 0], [0, 2]]], level=0)
    inp.path = None
    targets = [np.array([[1, 3], [4, 0]])]
    a = _piece([[[0, 3], [0, 0]], [[5, 0], [0, 0]]])  # right where not 0: a colour layer
    b = _piece([[[1, 0], [4, 0]], [[0, 0], [6, 2]]])  # differs from the input where it is right: an edit
    c = _piece([[[1, 3], [4, 4]], [[7, 7], [7, 7]]])  # a base wrong on one cell
    found = compose_task(_state(colour=[a], edit=[b]), inp, targets)
    # over the input (length 0): a covers (0, 1), b covers (1, 0); the first chosen on top
    assert found[0][0] == 4 and found[0][1] is inp
    assert found[0][3] == [[[5, 0], [6, 2]]]
    # a base wrong on (1, 1) where the target is 0: no layer is active there, so no overlay over it
    assert all(f[1] is not c for f in compose_task(_state(bases=[c], colour=[a], edit=[b]), inp, targets))
    # a layer whose test grid has another shape than the base's is not used
    odd = _piece([[[0, 3], [0, 0]], [[5]]])
    assert compose_task(_state(colour=[odd], edit=[b]), inp, targets) == []


def _task():
    # outputs: the largest object recoloured 4 and its enclosed cells filled 5 (two edits of two programs);
    # a small object of the same colour keeps it, so no colour map does the first
    ins = [[[1, 1, 1, 0, 0, 0], [1, 0, 1, 0, 1, 0], [1, 1, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0]],
           [[0, 0, 0, 0, 0], [0, 3, 3, 3, 3], [0, 3, 0, 0, 3], [0, 3, 3, 3, 3], [3, 0, 0, 0, 0]],
           [[6, 0, 0, 0], [0, 0, 0, 0], [0, 6, 6, 6], [0, 6, 0, 6], [0, 6, 6, 6]]]

    test = [[0, 0, 0, 0, 7], [7, 7, 7, 0, 0], [7, 0, 7, 0, 0], [7, 0, 7, 0, 0], [7, 7, 7, 0, 0]]
    demos = tuple((tuple(map(tuple, g)), tuple(map(tuple, _recolour(g, c)))) for g, c in zip(ins, (1, 3, 6)))
    return Task("overlay", demos, (tuple(map(tuple, test)),), (tuple(map(tuple, _recolour(test, 7))),))


def _recolour(g, colour):
    """The largest object of `colour` (its ring: all but one lone cell) made 4, the cells it encloses 5."""
    g = [list(r) for r in g]
    cells = [(r, c) for r in range(len(g)) for c in range(len(g[0])) if g[r][c] == colour]
    ring = [(r, c) for r, c in cells if sum((r + dr, c + dc) in cells for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))) >= 2]
    rows, cols = [r for r, _ in ring], [c for _, c in ring]
    for r in range(min(rows), max(rows) + 1):
        for c in range(min(cols), max(cols) + 1):
            g[r][c] = 4 if (r, c) in ring else 5 if g[r][c] == 0 else g[r][c]
    return g


def test_search_finds_overlays_and_predicts_from_them():
    task = _task()
    st = TaskState(task)
    gs = GroupSearch([st], 4, builtin_primitives(), numpy_backend(), SearchConfig(depth=1), time.perf_counter())
    gs.check_level0()
    gs.expand(0)
    gs.compose()
    assert st.overlays and st.overlays[0].text.startswith("overlay(")
    assert st.overlays[0].outputs == [[list(r) for r in task.test_outputs[0]]]


def test_overlays_switched_off_and_independent_of_chunk_size():
    tasks = [_task(), replace(_task(), id="other")]
    cfg = SearchConfig(depth=2, max_states=3_000)
    assert not search_shard(tasks, numpy_backend(), replace(cfg, depth=1, overlays=0))[0].overlays
    runs = [search_shard(tasks, numpy_backend(), replace(cfg, chunk_grids=c)) for c in (8, 64, 4096)]
    assert runs[0][0].overlays
    same = [[replace(r, seconds=0.0) for r in run] for run in runs]
    assert same[0] == same[1] == same[2]
