"""Fixed windows: the demo outputs as one window of their inputs at one offset from one corner, its fit rules
(one shape, at least 4 cells, smaller than every input, the same offset on every demo), and the search."""
import numpy as np

from gpubatch.arc.batt import search_shard
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import Task, load_tasks
from gpubatch.arc.windows import CORNERS, fit_window, window
from gpubatch.engine import numpy_backend

RNG = np.random.default_rng(7)


def _pair(h, w, rows=2, cols=2, corner=1):
    """A random h x w input and its rows x cols window at offset (0, 1) from `corner`."""
    a = RNG.integers(0, 10, (h, w))
    r = h - rows if corner & 2 else 0
    c = w - cols - 1 if corner & 1 else 1
    return a.tolist(), a[r:r + rows, c:c + cols].tolist()


def test_one_offset_from_one_corner_fits_inputs_of_different_sizes():
    train = [_pair(5, 6), _pair(4, 9), _pair(7, 5)]
    at = fit_window(train)
    assert at == (CORNERS.index("top-right"), 0, 1)  # widths differ: only the right edge keeps the offset
    test_in, test_out = _pair(6, 8)
    assert window(test_in, (2, 2), at) == test_out
    assert window([[1, 2]], (2, 2), at) is None  # too small for the window


def test_no_window_for_other_shapes_tiny_outputs_or_unequal_offsets():
    assert fit_window([_pair(5, 6), _pair(4, 9, rows=3)]) is None  # two output shapes
    assert fit_window([_pair(5, 6, 1, 1), _pair(4, 9, 1, 1)]) is None  # a cell matches by chance
    assert fit_window([_pair(5, 6)]) is None  # one demo shows no place
    a, b = _pair(5, 6, corner=1)
    c, d = _pair(5, 6, corner=0)
    assert fit_window([(a, b), (c, d), _pair(6, 7, corner=2)]) is None
    square = [[1, 2], [3, 4]]
    assert fit_window([(square, square), _pair(5, 6)]) is None  # an output as large as its input


def test_search_predicts_the_test_inputs_window():
    train = tuple(_pair(h, w, corner=3) for h, w in ((5, 6), (6, 6), (4, 7)))
    test_in, test_out = _pair(7, 8, corner=3)
    task = Task("window", train, (test_in,), (test_out,))
    res, = search_shard([task], numpy_backend(), SearchConfig(depth=0))
    assert res.correct == (True,) and res.lookups[0].program.startswith("lookup(window=")


def test_arc_training_tasks_of_fixed_windows():
    tasks, _ = load_tasks("arc1-train", ids=["5bd6f4ac", "d10ecb37"])
    for res in search_shard(tasks, numpy_backend(), SearchConfig(depth=0)):
        assert res.correct == (True,) and "window" in res.lookups[0].program, res.id
