"""State scores: hand-checked cases on NumPy; the fused CUDA kernel equals the array-module reference."""
import numpy as np
import pytest

from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.statescore import Targets, score_states, score_states_xp

from .corpus import arc_grids, as_lists


def _targets(tgt: GridBatch, demo: np.ndarray, xp=np, sizes=None, inputs=None) -> Targets:
    T, K = demo.shape
    rng = np.random.default_rng(1)
    size_h, size_w = (None, None) if sizes is None else (xp.asarray(sizes[0]), xp.asarray(sizes[1]))
    return Targets(tgt.to(xp), xp.asarray(demo), xp.asarray(rng.integers(1, 2**62, K, dtype=np.uint64) | np.uint64(1)),
                   xp.asarray(rng.integers(0, 2**62, T, dtype=np.uint64)), size_h, size_w,
                   None if inputs is None else inputs.to(xp))


def _one_task():
    # one task, K = 2: a demo pair (target [[1, 2]]) and a test input (no target)
    tgt = GridBatch.from_lists([[[1, 2]], [[0]]])
    tgt.h[1] = tgt.w[1] = 0
    return _targets(tgt, np.array([[True, False]]))


def test_shape_score_gives_one_for_a_shape_near_the_targets():
    """Two for the target's shape, one for a side equal or both sides multiples or divisors, else none: the
    search keeps states one step from the right shape (`crop_bbox | tophalf`, then `lefthalf`) before others."""
    tg = _one_task()  # target [[1, 2]]: 1 x 2
    states = GridBatch.from_lists([[[1, 2, 1, 2]], [[0]], [[1, 2], [1, 2]], [[0]], [[3, 3, 3]], [[0]],
                                   [[1, 2, 3]] * 2, [[0]], [[4]], [[0]], [[1], [2], [3]], [[0]]])
    score = score_states(states, np.zeros(6, np.int64), tg, np.ones(1, bool))[3]
    assert score.tolist() == [1, 1, 1, 0, 1, 0]  # 1x4, 2x2, 1x3, 2x3, 1x1 (a divisor), 3x1


def test_hand_checked_states():
    tg = _one_task()
    states = GridBatch.from_lists([[[1, 2]], [[5, 5, 5]],      # fits: the demo output is right
                                   [[2, 1]], [[7]],            # the target's shape; right up to 1<->2
                                   [[1], [2]], [[7]],          # wrong shape
                                   [[1, 2]], [[0]],            # right demo output, test grid invalid below
                                   [[3, 3]], [[0]]])           # the target's shape; 3 -> 1 and 2: no map
    states.h[7] = 0
    exact, valid, key, score, mapped, partial = score_states(states, np.zeros(5, np.int64), tg, np.ones(1, bool))[:6]
    assert exact.tolist() == [True, False, False, False, False]
    assert not partial.any()  # one demo: a state matches it all or not at all
    assert valid.tolist() == [True, True, True, False, True]
    assert score.tolist() == [2, 2, 0, 2, 2]  # two for the target's shape; [1], [2] against [1, 2] is not near
    assert mapped.tolist() == [False, True, False, False, False]  # an exact fit is not also "mapped"
    assert len(set(key.tolist())) == 5
    # the key depends on every grid, test grids included
    other = GridBatch.from_lists([[[1, 2]], [[5, 5, 6]]])
    assert score_states(other, np.zeros(1, np.int64), tg, np.ones(1, bool))[2][0] != key[0]
    # a task closed to colour-map fits gets none
    assert not score_states(states, np.zeros(5, np.int64), tg, np.zeros(1, bool))[4].any()


def test_partial_fits_count_demos_matched_where_test_sizes_are_predicted():
    # one task, K = 3: two demos (targets [[1, 2]] and [[3]]) and a test input predicted 1x2
    tgt = GridBatch.from_lists([[[1, 2]], [[3]], [[0]]])
    tgt.h[2] = tgt.w[2] = 0
    sizes = (np.array([-1, -1, 1], np.int32), np.array([-1, -1, 2], np.int32))
    tg = _targets(tgt, np.array([[True, True, False]]), sizes=sizes)
    states = GridBatch.from_lists([[[1, 2]], [[4, 4]], [[5, 6]],  # first demo right, test of the predicted size
                                   [[1, 2]], [[4, 4]], [[5]],     # first demo right, test of another size
                                   [[1, 2]], [[3]], [[5]],        # both right: a fit, not a partial one
                                   [[7, 7]], [[8]], [[5, 6]],     # none right
                                   [[2, 2]], [[3]], [[5, 6]],     # second right
                                   [[1, 2]], [[4]], [[5, 6]]])    # right up to a colour map (4 -> 3): no partial
    exact, _, _, _, mapped, partial = score_states(states, np.zeros(6, np.int64), tg, np.ones(1, bool))[:6]
    assert exact.tolist() == [False, False, True, False, False, False]
    assert mapped.tolist() == [False, False, False, False, False, True]
    assert partial.tolist() == [1, 0, 0, 0, 1, 0]
    # without a prediction, any test size goes
    free = _targets(tgt, np.array([[True, True, False]]))
    assert score_states(states, np.zeros(6, np.int64), free, np.ones(1, bool))[5].tolist() == [1, 1, 0, 0, 1, 0]


def test_overlay_counts_wrong_cells_and_layers():
    # one task, K = 3: two demos (inputs [[1, 0, 2]], [[0, 3]]; targets [[1, 5, 2]], [[5, 3]]) and a test
    tgt = GridBatch.from_lists([[[1, 5, 2]], [[5, 3]], [[0]]])
    tgt.h[2] = tgt.w[2] = 0
    inputs = GridBatch.from_lists([[[1, 0, 2]], [[0, 3]], [[4, 0]]])
    tg = _targets(tgt, np.array([[True, True, False]]), inputs=inputs)
    states = GridBatch.from_lists([[[1, 0, 2]], [[0, 3]], [[4, 0]],   # the inputs: 2 wrong, right where not 0
                                   [[0, 5, 0]], [[5, 0]], [[0, 0]],   # right where not 0: a colour layer of 2
                                   [[1, 5, 2]], [[0, 3]], [[4, 5]],   # one edit, right: an edit layer of 1
                                   [[1, 5, 2]], [[0, 3]], [[4, 0, 0]],  # the same, but a test grid of
                                   [[1, 5, 2]], [[5, 3]], [[9]],      # another shape: no edit layer; exact
                                   [[7, 5, 2]], [[5, 3]], [[4, 0]],   # an edit that is wrong: base only
                                   [[1, 5, 2]], [[5, 3, 3]], [[4, 0]]])  # wrong shape: none
    sc = score_states(states, np.zeros(7, np.int64), tg, np.ones(1, bool))
    assert sc.wrong.tolist() == [2, 3, 1, 1, -1, 1, -1]
    assert sc.cover_nz.tolist() == [3, 2, 4, 4, 0, 0, 0]  # 1, 5, 2 and 3 are right
    assert sc.cover_edit.tolist() == [0, 0, 1, 0, 0, 0, 0]
    # the demo key ignores test grids; the key does not
    assert sc.demo_key[2] == sc.demo_key[3] and sc.key[2] != sc.key[3]
    # without the inputs there are no edit layers
    assert not score_states(states, np.zeros(7, np.int64), _one_layerless(tgt), np.ones(1, bool)).cover_edit.any()


def _one_layerless(tgt):
    return _targets(tgt, np.array([[True, True, False]]))


def test_exact_is_cell_by_cell_not_by_hash():
    tg = _one_task()
    near = GridBatch.from_lists([[[1, 3]], [[0]]])
    assert not score_states(near, np.zeros(1, np.int64), tg, np.ones(1, bool))[0][0]


def test_salt_separates_tasks():
    tgt = GridBatch.from_lists([[[1]], [[1]]])
    tg = _targets(tgt, np.array([[True], [True]]))
    same = GridBatch.from_lists([[[3]], [[3]]])
    key = score_states(same, np.array([0, 1]), tg, np.ones(2, bool))[2]
    assert key[0] != key[1]


def _corpus_states(K: int, T: int, seed: int):
    """States from several primitives over real grids (invalid grids and every shape occur), a fifth of
    them made their task's targets, a tenth the targets under a colour permutation and a tenth the targets
    but for one cell of one demo output."""
    rng = np.random.default_rng(seed)
    host = GridBatch.from_lists(as_lists(arc_grids()[:6000]))
    names = ("identity", "tophalf", "trim", "upscale(k=3)", "crop_largest(conn=8)")
    prims = [p for p in REGISTRY.instances() if p.text in names]
    assert len(prims) == len(names)
    parts = [p(host) for p in prims]
    C = GridBatch(np.concatenate([p.data for p in parts]), np.concatenate([p.h for p in parts]),
                  np.concatenate([p.w for p in parts]))
    n = len(C) // K
    C = C.take(np.arange(n * K))
    tgt = host.take(rng.integers(0, len(host), T * K))
    demo = rng.random((T, K)) < 0.6
    tgt.h[~demo.ravel()] = 0
    task = rng.integers(0, T, n)
    kind = rng.random(n)
    perm = np.append(rng.permutation(10), 10).astype(np.uint8)
    for s in np.flatnonzero(kind < 0.4):
        rows, src = s * K + np.arange(K), task[s] * K + np.arange(K)
        keep = demo[task[s]]
        data = tgt.data[src[keep]]
        C.data[rows[keep]] = data if kind[s] < 0.2 or kind[s] >= 0.3 else perm[data]
        C.h[rows[keep]], C.w[rows[keep]] = tgt.h[src[keep]], tgt.w[src[keep]]
        if kind[s] >= 0.3 and keep.any():  # a partial fit: one demo output off by a cell
            C.data[rows[np.flatnonzero(keep)[-1]], 0, 0] += 1
    # inputs: the targets off by a cell or two on demo rows, other grids on test rows; some states are the inputs
    # with that cell made right on every demo (edit layers), some the targets with cells set to 0 (colour layers)
    inputs = host.take(rng.integers(0, len(host), T * K))
    d = np.flatnonzero(demo.ravel())
    inputs.data[d], inputs.h[d], inputs.w[d] = tgt.data[d], tgt.h[d], tgt.w[d]
    inputs.data[d, 0, 0] = (inputs.data[d, 0, 0] + 1) % 10
    inputs.data[d, inputs.h[d] - 1, inputs.w[d] - 1] = (tgt.data[d, tgt.h[d] - 1, tgt.w[d] - 1] + 2) % 10
    for s in np.flatnonzero((kind >= 0.4) & (kind < 0.6)):
        rows, src = s * K + np.arange(K), task[s] * K + np.arange(K)
        keep = demo[task[s]]
        base = inputs if kind[s] < 0.5 else tgt
        C.data[rows[keep]], C.h[rows[keep]], C.w[rows[keep]] = (base.data[src[keep]], base.h[src[keep]],
                                                               base.w[src[keep]])
        if kind[s] < 0.5:
            C.data[rows[~keep]], C.h[rows[~keep]], C.w[rows[~keep]] = (inputs.data[src[~keep]], inputs.h[src[~keep]],
                                                                       inputs.w[src[~keep]])
            C.data[rows[keep], 0, 0] = tgt.data[src[keep], 0, 0]
        else:
            C.data[rows[keep], 1:3] = np.where(C.data[rows[keep], 1:3] == 10, 10, 0)
    return C, task, tgt, demo, rng.random(T) < 0.8, inputs


@pytest.mark.gpu
@pytest.mark.parametrize("K", [1, 3, 6])
def test_kernel_equals_reference_on_corpus(K):
    import cupy

    C, task, tgt, demo, open_, inputs = _corpus_states(K, 40, K)
    rng = np.random.default_rng(K)
    # sizes: right (the inputs' test shapes) or not
    guess = np.where(rng.random(len(tgt)) < 0.5, inputs.h, rng.integers(1, 31, len(tgt)))
    sizes = (np.where(demo.ravel(), -1, guess).astype(np.int32), np.where(demo.ravel(), -1, inputs.w).astype(np.int32))
    ref = score_states_xp(C, task, _targets(tgt, demo, sizes=sizes, inputs=inputs), open_)
    tg_dev = _targets(tgt, demo, cupy, sizes, inputs)
    got = score_states(C.to(cupy), cupy.asarray(task), tg_dev, cupy.asarray(open_))
    via_xp = score_states_xp(C.to(cupy), cupy.asarray(task), tg_dev, cupy.asarray(open_))
    assert int(ref[0].sum()) > len(task) // 10 and int(ref[4].sum()) > len(task) // 50  # fits of both kinds
    assert int((ref[5] > 0).sum()) > 0 or K == 1  # partial fits (none with one grid)
    assert int((ref.wrong > 0).sum()) > 0 and int((ref.cover_nz > 0).sum()) > 0  # overlay candidates
    assert int((ref.cover_edit > 0).sum()) > 0
    for r, g, x in zip(ref, got, via_xp):
        assert np.array_equal(r, cupy.asnumpy(g))
        assert np.array_equal(r, cupy.asnumpy(x))


def test_row_counts_equal_count_nonzero():
    """The word-at-a-time count of True cells per row, at its extremes (no cell, every cell) and at random."""
    from gpubatch.arc.grids import CELLS, row_counts

    rng = np.random.default_rng(3)
    mask = rng.random((500, CELLS)) < rng.random((500, 1))
    mask[0], mask[1] = False, True
    assert row_counts(np, mask).tolist() == np.count_nonzero(mask, axis=1).tolist()
    assert row_counts(np, mask[:0]).shape == (0,)
