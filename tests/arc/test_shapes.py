"""The shape features of the rule tables (`gpubatch.arc.shapes`): holes counted and shapes named on small grids,
both equal to a per-region SciPy reference on every ARC-AGI-1 training input, and the two training tasks of
ARC-AGI-2 they were read off solved by them at depth 0 (CuPy parity: `test_rules.py`'s GPU test, every kind)."""
import numpy as np
from scipy import ndimage

from gpubatch.arc.batt import search_shard
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.shapes import NONE, hole_counts, shape_codes
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend

# 0 is the background; a ring of 1s (one hole holding a 3), a figure eight of 2s (two holes), a solid 3 x 1 bar of
# 4s, and an L of 5s beside a shifted copy of it and a mirrored one
GRID = [[1, 1, 1, 0, 2, 2, 2, 0, 4, 0],
        [1, 3, 1, 0, 2, 0, 2, 0, 4, 0],
        [1, 1, 1, 0, 2, 2, 2, 0, 4, 0],
        [0, 0, 0, 0, 2, 0, 2, 0, 0, 0],
        [5, 0, 0, 0, 2, 2, 2, 0, 0, 5],
        [5, 5, 0, 5, 0, 0, 0, 0, 5, 5],
        [0, 0, 0, 5, 5, 0, 0, 0, 0, 0]]


def test_holes_are_counted_per_shape():
    h = hole_counts(GridBatch.from_lists([GRID]))[0]
    assert (int(h[0, 0]), int(h[1, 1]), int(h[0, 4]), int(h[0, 8]), int(h[4, 0])) == (1, 0, 2, 0, 0)
    assert int(h[3, 0]) == NONE and int(h[0, 12]) == NONE  # the background, and outside the grid


def test_a_shape_has_one_code_wherever_it_lies():
    s = shape_codes(GridBatch.from_lists([GRID]))[0]
    assert int(s[4, 0]) == int(s[5, 1]) == int(s[5, 3]) == int(s[6, 4])  # the L and its shifted copy
    assert int(s[4, 9]) != int(s[4, 0])  # its mirror image
    assert len({int(s[0, 0]), int(s[1, 1]), int(s[0, 4]), int(s[0, 8]), int(s[4, 0])}) == 5
    assert int(s[3, 0]) == 0 and int(s[0, 12]) == 0


def _reference(a):
    """Holes and shapes per region of one grid, each shape cut to its box and labelled by SciPy."""
    a = np.asarray(a)
    bg = np.bincount(a.ravel(), minlength=10).argmax()
    holes, shapes = np.full(a.shape, NONE), []
    for c in set(range(10)) - {bg}:
        lab, k = ndimage.label(a == c)
        for i in range(1, k + 1):
            m = lab == i
            ys, xs = np.nonzero(m)
            box = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
            parts = ndimage.label(np.pad(~box, 1, constant_values=True), structure=np.ones((3, 3)))[1]
            holes[m] = min(parts - 1, NONE - 1)  # the parts of the rest that do not reach the box's edge
            shapes.append(((box.shape, box.tobytes()), m))
    return holes, shapes


def test_features_equal_the_per_region_reference_on_training_inputs():
    tasks, _ = load_tasks("arc1-train")
    grids = [g for t in tasks for g in [a for a, _ in t.train] + list(t.test_inputs)]
    g = GridBatch.from_lists(grids)
    holes, codes = hole_counts(g), shape_codes(g)
    for k, a in enumerate(grids):
        h, w = np.shape(a)
        want, shapes = _reference(a)
        assert np.array_equal(holes[k, :h, :w], want), k
        named = {}
        for key, m in shapes:
            code = set(np.unique(codes[k, :h, :w][m]).tolist())
            assert len(code) == 1, k  # one code for every cell of a region
            assert named.setdefault(code.pop(), key) == key, k  # and one shape for every code


def test_the_arc2_training_tasks_they_were_read_off():
    tasks, _ = load_tasks("arc2-train", ids=["37d3e8b2", "ad38a9d0"])
    res = search_shard(tasks, numpy_backend(), SearchConfig(depth=0))
    assert [(r.fits[0].program, all(r.correct)) for r in res] == [("rule(f=nholes)", True), ("rule(f=shape)", True)]
