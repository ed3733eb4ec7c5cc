"""Lookups: a demo output chosen by one feature of the input; the table's fit rules (consistent, shared,
seen), the search and ranking using them, and CuPy against NumPy on every ARC-AGI-1 training task."""
import numpy as np
import pytest

from gpubatch.arc.batt import search_shard
from gpubatch.arc.fits import FitRecord
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.lookup import (
    FEATURES,
    features,
    fit_paints,
    fit_tables,
    output_ids,
    patterns,
)
from gpubatch.arc.ranking import ranked_records
from gpubatch.arc.search import SearchConfig, TaskState
from gpubatch.arc.tasks import Task, load_tasks
from gpubatch.engine import numpy_backend
from tests.arc.test_rules import _groups

A = ((1, 0), (0, 1))
B = ((0, 2), (2, 0))
C = ((3, 3), (0, 0))


def _grid(colour, n=4, cells=((0, 0), (2, 1))):
    """An n x n grid of 0s with a few cells of one colour."""
    g = [[0] * n for _ in range(n)]
    for r, c in cells:
        g[r][c] = colour
    return tuple(map(tuple, g))


def _task(colours, outs, test_colours, test_outs=None):
    return Task("lookup", tuple((_grid(c), o) for c, o in zip(colours, outs)), tuple(_grid(c) for c in test_colours),
                None if test_outs is None else tuple(test_outs))


def _fit(task):
    K = len(task.train) + len(task.test_inputs)
    g = GridBatch.from_lists([a for a, _ in task.train] + list(task.test_inputs))
    demo = np.array([[True] * len(task.train) + [False] * len(task.test_inputs)])
    ok, pred = fit_tables(np, features(g), demo, output_ids([task]).ravel())
    assert pred.shape == (K, len(FEATURES))
    return ok[0], pred


def test_the_inputs_colour_chooses_the_demo_output():
    task = _task([1, 2, 1, 3], [A, B, A, C], [2, 3], [B, C])
    ok, pred = _fit(task)
    palette, major = FEATURES.index("palette"), FEATURES.index("major")
    assert ok[palette] and ok[major] and not ok[FEATURES.index("colours")]  # one colour each: no choice
    assert pred[4:, palette].tolist() == [1, 2]  # the outputs of demos 1 and 3
    res, = search_shard([task], numpy_backend(), SearchConfig(depth=0))
    assert res.correct == (True, True)
    assert [f.program for f in res.lookups] == ["lookup(f=palette)"]  # `major` predicts the same: not kept


def test_no_table_without_two_demos_sharing_a_value_or_for_a_value_no_demo_showed():
    ok, _ = _fit(_task([1, 2, 3], [A, B, C], [2]))  # every value once: any table fits, none is evidence
    assert not ok.any()
    ok, pred = _fit(_task([1, 2, 1], [A, B, A], [4]))  # yellow: no demo showed it
    assert not ok[FEATURES.index("palette")] and pred[3, FEATURES.index("palette")] == -1
    ok, _ = _fit(_task([1, 2, 1], [A, B, C], [2]))  # blue gives two outputs: no table
    assert not ok[FEATURES.index("palette")]
    res, = search_shard([_task([1, 2, 3], [A, B, C], [2], [B])], numpy_backend(), SearchConfig(depth=0))
    assert res.lookups == ()


def test_lookups_rank_after_every_fit():
    same = [_grid(1), _grid(2), _grid(1)]  # the output is the input: identity fits, and a table fits as well
    task = Task("lookup", tuple(zip(same, same)), (_grid(2),), (_grid(2),))
    res, = search_shard([task], numpy_backend(), SearchConfig(depth=0))
    assert res.fits[0].program == "identity" and res.lookups and res.correct == (True,)


def test_lookups_rank_before_fits_of_three_steps():
    """A lookup is one learned step: after the fits of one and two steps, before those of three (which fit
    tiny demo outputs by chance)."""
    task = load_tasks("arc1-train", ids=["445eab21"])[0][0]
    fits = [FitRecord(level, level, (level, 0, 0), [[[level]]]) for level in (3, 1, 2)]
    st = TaskState(task, fits=fits, lookups=[FitRecord(0, 0, None, [[[9]]], text="lookup(f=major, paint)")])
    assert [r.outputs for r in ranked_records(st)] == [[[[1]]], [[[2]]], [[[9]]], [[[3]]]]


def test_arc_training_tasks_whose_output_a_feature_chooses():
    tasks, _ = load_tasks("arc1-train", ids=["d4469b4b", "ff28f65a", "794b24be", "6e02f1e3"])
    want = {"d4469b4b": "palette", "ff28f65a": "filled", "794b24be": "filled", "6e02f1e3": "colours"}
    for res in search_shard(tasks, numpy_backend(), SearchConfig(depth=0)):
        assert all(res.correct), res.id
        assert res.lookups[0].program == f"lookup(f={want[res.id]})", res.id


def test_a_pattern_painted_in_the_inputs_most_common_colour():
    def grid(major, minor):
        return ((major, major, minor), (0, major, 0), (0, 0, 0))
    block = np.array([[1, 1], [1, 0]])
    train = tuple((grid(a, b), tuple(map(tuple, block * a))) for a, b in [(1, 2), (3, 1), (4, 2)])
    task = Task("paint", train, (grid(6, 1),), (tuple(map(tuple, block * 6)),))
    res, = search_shard([task], numpy_backend(), SearchConfig(depth=0))
    assert res.correct == (True,) and res.lookups[0].program == "lookup(f=major, paint)"
    ink, masks = patterns([task])
    assert ink[0].tolist() == [1, 3, 4, -1] and masks[0].tolist() == (block == 1).tolist()
    same = Task("paint", train[:1] + ((grid(1, 2), train[0][1]),), (grid(6, 1),))  # one colour: no paint
    assert patterns([same])[1] == [None]
    g = GridBatch.from_lists([a for a, _ in train] + [grid(0, 0)])  # a test input of 0s only: no colour
    assert not fit_paints(np, features(g), np.array([[True] * 3 + [False]]), ink).any()


def test_arc_training_task_whose_output_the_inputs_colour_paints():
    tasks, _ = load_tasks("arc1-train", ids=["445eab21"])
    res, = search_shard(tasks, numpy_backend(), SearchConfig(depth=0))
    assert res.correct == (True,) and res.lookups[0].program == "lookup(f=major, paint)"


@pytest.mark.gpu
def test_cupy_equals_numpy_on_arc_training_tasks():
    cupy = pytest.importorskip("cupy")
    tasks, _ = load_tasks("arc1-train")
    fits = paints = 0
    for grids, _, demo in _groups(tasks):
        members = [t for t in tasks if len(t.train) + len(t.test_inputs) == demo.shape[1]]
        ids = output_ids(members).ravel()
        feat = features(grids)
        feat_d = features(grids.to(cupy))
        assert np.array_equal(feat, cupy.asnumpy(feat_d))
        ok, pred = fit_tables(np, feat, demo, ids)
        ok_d, pred_d = fit_tables(cupy, feat_d, cupy.asarray(demo), cupy.asarray(ids))
        assert np.array_equal(ok, cupy.asnumpy(ok_d)) and np.array_equal(pred, cupy.asnumpy(pred_d))
        ink = patterns(members)[0]
        paint = fit_paints(np, feat, demo, ink)
        assert np.array_equal(paint, cupy.asnumpy(fit_paints(cupy, feat_d, cupy.asarray(demo), cupy.asarray(ink))))
        fits += int(ok.any(axis=1).sum())
        paints += int(paint.any(axis=1).sum())
    assert fits >= 7  # d4469b4b, ff28f65a, 794b24be, 6e02f1e3 and the tasks solved otherwise
    assert paints >= 2  # 445eab21, 5582e5ca
