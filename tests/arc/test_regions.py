"""The shape feature of the rule tables (`gpubatch.arc.regions.shape_codes`): shapes named on a small grid, one
code per shape as a per-region SciPy reference cuts them on every ARC-AGI-1 training input, and the ARC-AGI-2
training task it was read off solved at depth 0 (CuPy parity: `test_rules.py`'s GPU test, every kind)."""
import numpy as np
from scipy import ndimage

from gpubatch.arc.batt import search_shard
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.regions import shape_codes
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend

# 0 is the background; a ring of 1s around a 3, a figure eight of 2s, a 3 x 1 bar of 4s, and an L of 5s beside a
# shifted copy of it and a mirrored one
GRID = [[1, 1, 1, 0, 2, 2, 2, 0, 4, 0],
        [1, 3, 1, 0, 2, 0, 2, 0, 4, 0],
        [1, 1, 1, 0, 2, 2, 2, 0, 4, 0],
        [0, 0, 0, 0, 2, 0, 2, 0, 0, 0],
        [5, 0, 0, 0, 2, 2, 2, 0, 0, 5],
        [5, 5, 0, 5, 0, 0, 0, 0, 5, 5],
        [0, 0, 0, 5, 5, 0, 0, 0, 0, 0]]


def test_a_shape_has_one_code_wherever_it_lies():
    s = shape_codes(GridBatch.from_lists([GRID]))[0]
    assert int(s[4, 0]) == int(s[5, 1]) == int(s[5, 3]) == int(s[6, 4])  # the L and its shifted copy
    assert int(s[4, 9]) != int(s[4, 0])  # its mirror image
    assert len({int(s[0, 0]), int(s[1, 1]), int(s[0, 4]), int(s[0, 8]), int(s[4, 0])}) == 5
    assert int(s[3, 0]) == 0 and int(s[0, 12]) == 0


def _reference(a):
    """The regions of one grid but its background, labelled by SciPy, each with its shape cut to its box."""
    a = np.asarray(a)
    bg = np.bincount(a.ravel(), minlength=10).argmax()
    shapes = []
    for c in set(range(10)) - {bg}:
        lab, k = ndimage.label(a == c)
        for i in range(1, k + 1):
            m = lab == i
            ys, xs = np.nonzero(m)
            box = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
            shapes.append(((box.shape, box.tobytes()), m))
    return shapes


def test_one_code_per_shape_on_training_inputs():
    tasks, _ = load_tasks("arc1-train")
    grids = [g for t in tasks for g in [a for a, _ in t.train] + list(t.test_inputs)]
    codes = shape_codes(GridBatch.from_lists(grids))
    for k, a in enumerate(grids):
        h, w = np.shape(a)
        assert not codes[k, :h, :w][np.asarray(a) == np.bincount(np.ravel(a), minlength=10).argmax()].any(), k
        named, coded = {}, {}
        for key, m in _reference(a):
            code = set(np.unique(codes[k, :h, :w][m]).tolist())
            assert len(code) == 1, k  # one code for every cell of a region
            code = code.pop()
            assert named.setdefault(code, key) == key, k  # one shape for every code
            assert coded.setdefault(key, code) == code, k  # and one code for every copy of a shape


def test_the_arc2_training_task_it_was_read_off():
    tasks, _ = load_tasks("arc2-train", ids=["ad38a9d0"])
    res = search_shard(tasks, numpy_backend(), SearchConfig(depth=0))[0]
    assert res.fits[0].program == "rule(f=shape)" and all(res.correct)
