"""Fits up to stamps: each neighbour alone stamps a colour; the fit check, the unseen count, the search using
it, and CuPy against NumPy on every ARC-AGI-1 training task's inputs."""
import numpy as np
import pytest

from gpubatch.arc.batt import search_shard
from gpubatch.arc.grids import PAD, GridBatch
from gpubatch.arc.learned import KINDS, LAST, NAMES, STATE_KINDS
from gpubatch.arc.programs import parse_program
from gpubatch.arc.rules import rule_fits
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.stamps import SOURCES, _rays_past_own, stamp_fits
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend
from tests.arc.test_rules import _groups, _task_batch


def _stamped(n, pixels):
    """An n x n grid of pixels (r, c, colour), and the same with yellow at each red pixel's diagonal
    neighbours and orange beside each blue one (magenta stamps nothing)."""
    a = np.zeros((n, n), int)
    for r, c, colour in pixels:
        a[r, c] = colour
    b = a.copy()
    for r, c, colour in pixels:
        around = {2: ((-1, -1), (-1, 1), (1, -1), (1, 1)), 1: ((-1, 0), (1, 0), (0, -1), (0, 1))}.get(colour, ())
        for dr, dc in around:
            if 0 <= r + dr < n and 0 <= c + dc < n:
                b[r + dr, c + dc] = 4 if colour == 2 else 7
    return a.tolist(), b.tolist()


DEMOS = [_stamped(7, [(1, 1, 2), (4, 4, 1), (5, 1, 8)]), _stamped(7, [(2, 4, 2), (5, 1, 1), (1, 1, 8)]),
         _stamped(7, [(4, 2, 2), (1, 5, 1), (5, 5, 8), (3, 6, 8)])]


def test_stamps_predict_a_neighbourhood_no_demo_showed():
    test, want = _stamped(7, [(2, 2, 2), (4, 4, 8), (5, 1, 1)])  # (3, 3): red at one corner, magenta at the other
    C, tg, demo = _task_batch(DEMOS, [test])
    ok, unseen, pred = stamp_fits(C, np.array([0]), tg, demo)
    assert ok.tolist() == [True] and unseen.tolist() == [0]
    assert pred.to_lists()[-1] == want
    assert pred.to_lists()[:3] == [a for a, _ in DEMOS]  # demo rows are left as they were
    ok, unseen, _ = rule_fits(C, np.array([0]), tg, demo, "nbhd")  # the whole neighbourhood: never seen
    assert ok.tolist() == [True] and unseen[0] > 0


def test_a_cell_stamped_two_colours_keeps_its_own_and_counts_unseen():
    test, _ = _stamped(7, [(2, 2, 2), (3, 4, 1)])  # (3, 3): yellow from the red, orange from the blue
    C, tg, demo = _task_batch(DEMOS, [test])
    ok, unseen, pred = stamp_fits(C, np.array([0]), tg, demo)
    assert ok.tolist() == [True] and unseen.tolist() == [1]
    assert pred.to_lists()[-1][3][3] == 0 and pred.to_lists()[-1][1][1] == 4


def test_a_pixel_stamps_cells_two_steps_away():
    def far(n, pixels):  # green two cells right of and below each blue pixel, nothing next to it
        a = np.zeros((n, n), int)
        for r, c in pixels:
            a[r, c] = 1
        b = a.copy()
        for r, c in pixels:
            for rr, cc in ((r, c + 2), (r + 2, c)):
                if rr < n and cc < n:
                    b[rr, cc] = 3
        return a.tolist(), b.tolist()

    demos = [far(6, [(0, 0), (3, 2)]), far(6, [(1, 3), (4, 0)])]
    test, want = far(6, [(2, 2), (0, 3)])
    C, tg, demo = _task_batch(demos, [test])
    ok, unseen, pred = stamp_fits(C, np.array([0]), tg, demo)
    assert ok.tolist() == [True] and unseen.tolist() == [0]
    assert pred.to_lists()[-1] == want


def test_stamps_that_miss_a_demo_do_not_fit():
    a, b = _stamped(7, [(1, 1, 2)])
    b[6][6] = 3  # a change no neighbour explains
    C, tg, demo = _task_batch(DEMOS[:2] + [(a, b)], [DEMOS[2][0]])
    assert stamp_fits(C, np.array([0]), tg, demo)[0].tolist() == [False]
    C, tg, demo = _task_batch([([[0, 1]], [[0], [1]])], [[[0, 1]]])  # another shape: no fit
    assert stamp_fits(C, np.array([0]), tg, demo)[0].tolist() == [False]


def test_rays_past_own_colour_equal_a_walk_cell_by_cell():
    rng = np.random.default_rng(0)
    grids = [rng.choice(4, size=(h, w), p=[0.4, 0.2, 0.2, 0.2]) for h, w in ((5, 7), (30, 30), (1, 9), (12, 3))]
    C = GridBatch.from_lists([g.tolist() for g in grids])
    rays = _rays_past_own(np, C.data.astype(np.int64))
    for b, g in enumerate(grids):
        for r in range(g.shape[0]):
            for c in range(g.shape[1]):
                for j, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
                    rr, cc, want = r + dr, c + dc, PAD
                    while 0 <= rr < g.shape[0] and 0 <= cc < g.shape[1]:
                        if g[rr, cc] not in (0, g[r, c]):
                            want = g[rr, cc]
                            break
                        rr, cc = rr + dr, cc + dc
                    assert rays[j][b, r, c] == want, (b, r, c, j)


def test_a_source_whose_colour_the_cell_always_takes_copies_colours_no_demo_showed():
    def rows(starts, width=6):  # each row's grey cells take the colour that starts the row
        a = [[s] + [0] + [5 if k % 2 else 0 for k in range(width - 2)] for s in starts]
        return a, [[s] + [0] + [s if v == 5 else 0 for v in row[2:]] for s, row in zip(starts, a)]

    demos = [rows([1, 2, 1]), rows([2, 2, 1, 1])]
    test, want = rows([7, 1, 8])  # 7 and 8 start no demo row
    C, tg, demo = _task_batch(demos, [test])
    ok, unseen, pred = stamp_fits(C, np.array([0]), tg, demo, "rays")
    assert ok.tolist() == [True] and unseen.tolist() == [0]
    assert pred.to_lists()[-1] == want


def test_the_search_finds_stamps_and_programs_name_them():
    assert "stamp" in KINDS and NAMES["stamp"] == "stamp" and "stamp" not in STATE_KINDS
    assert NAMES["raystamp"] == "raystamp" and "raystamp" not in STATE_KINDS
    assert parse_program("rule(f=stamp)").rule == "stamp"
    assert NAMES["raypair"] == "raypair" and LAST == {"raypair"}  # the widest context ranks last of the fits
    tasks, _ = load_tasks("arc1-train", ids=["0ca9ddb6", "a9f96cdd", "c9f8e694", "8d510a79"])
    want = {"0ca9ddb6": "rule(f=stamp)", "a9f96cdd": "rule(f=stamp)", "c9f8e694": "rule(f=raystamp)",
            "8d510a79": "rule(f=raypair)"}  # red pixels reach the grey line, blue ones the border
    # a9f96cdd's lone pixel is also a `mask` table (its neighbours by place), and one state's fits with the same
    # outputs are named by the first of its rules (the tables): the stamps fit it too, with the same test output
    first = {**want, "a9f96cdd": "rule(f=mask)"}
    for res, task in zip(search_shard(tasks, numpy_backend(), SearchConfig(depth=0)), tasks):
        assert res.correct == (True,) and res.fits[0].program == first[res.id], res.id
        if res.id == "a9f96cdd":
            C, tg, demo = _task_batch(task.train, task.test_inputs)
            ok, unseen, pred = stamp_fits(C, np.array([0]), tg, demo)
            assert ok.tolist() == [True] and unseen.tolist() == [0]
            assert pred.to_lists()[-1] == [list(r) for r in task.test_outputs[0]]


@pytest.mark.gpu
def test_cupy_equals_numpy_on_arc_inputs():
    import cupy

    tasks, _ = load_tasks("arc1-train")
    fits = 0
    for C, tg, demo in _groups(tasks):
        task = np.arange(len(demo))
        for sources in SOURCES:
            ok, unseen, pred = stamp_fits(C, task, tg, demo, sources)
            ok_d, unseen_d, pred_d = stamp_fits(C.to(cupy), cupy.asarray(task), tg.to(cupy), cupy.asarray(demo),
                                                sources)
            assert np.array_equal(ok, cupy.asnumpy(ok_d)) and np.array_equal(unseen, cupy.asnumpy(unseen_d))
            assert np.array_equal(pred.data, cupy.asnumpy(pred_d.data))
            fits += int(ok.sum())
    assert fits >= 5  # 0ca9ddb6, a9f96cdd, d364b489, 913fb3ed, c9f8e694 at least
