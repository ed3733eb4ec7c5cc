"""Hand-checked meanings of primitives whose reference is not obvious from the name (the parity tests then
hold the batched code to the reference)."""
import pytest

from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.dsl import reference as ref
from gpubatch.arc.grids import GridBatch

G = [[0, 0, 0, 0],
     [0, 3, 0, 0],
     [0, 0, 0, 0],
     [0, 5, 0, 0],
     [0, 0, 0, 0]]


@pytest.mark.parametrize("direction, want", [
    ("down", [[0, 0, 0, 0], [0, 3, 0, 0], [0, 3, 0, 0], [0, 5, 0, 0], [0, 5, 0, 0]]),   # 3 stops at 5
    ("up", [[0, 3, 0, 0], [0, 3, 0, 0], [0, 5, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0]]),
    ("right", [[0, 0, 0, 0], [0, 3, 3, 3], [0, 0, 0, 0], [0, 5, 5, 5], [0, 0, 0, 0]]),
    ("downright", [[0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 3, 0], [0, 5, 0, 3], [0, 0, 5, 0]]),
    ("upleft", [[3, 0, 0, 0], [0, 3, 0, 0], [5, 0, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0]]),
])
def test_ray(direction, want):
    assert ref.ray(G, direction) == want
    prim = next(p for p in REGISTRY.instances() if p.text == f"ray(dir={direction})")
    assert prim(GridBatch.from_lists([G])).to_lists()[0] == want


def test_crop_colour():
    g = [[0, 2, 2, 2], [0, 2, 4, 2], [0, 2, 2, 2], [1, 0, 0, 0]]
    assert ref.crop_colour(g, 2) == [[2, 2, 2], [2, 4, 2], [2, 2, 2]]
    assert ref.crop_colour(g, 7) == []  # invalid: no such colour
    prim = next(p for p in REGISTRY.instances() if p.text == "crop_colour(c=2)")
    assert prim(GridBatch.from_lists([g])).to_lists()[0] == [[2, 2, 2], [2, 4, 2], [2, 2, 2]]


def test_connect_diagonals():
    g = [[2, 0, 0, 0, 6],
         [0, 0, 0, 0, 0],
         [0, 0, 0, 0, 0],
         [0, 0, 0, 2, 0],
         [6, 0, 0, 0, 0]]
    want = [[2, 0, 0, 0, 6],
            [0, 2, 0, 6, 0],
            [0, 0, 2, 0, 0],  # the diagonal wins where both pass
            [0, 6, 0, 2, 0],
            [6, 0, 0, 0, 0]]
    assert ref.connect(g, "d", "same") == want
    prim = next(p for p in REGISTRY.instances() if p.text == "connect(dir=d,c=same)")
    assert prim(GridBatch.from_lists([g])).to_lists()[0] == want


def test_periodic_completion():
    tile = [[1, 2, 3], [4, 5, 6]]
    full = [[tile[i % 2][j % 3] for j in range(7)] for i in range(6)]
    holed = [list(r) for r in full]
    for i, j in ((0, 0), (2, 4), (3, 5), (5, 6)):
        holed[i][j] = 0
    assert ref.periodic(holed, 0) == full
    prim = next(p for p in REGISTRY.instances() if p.text == "periodic")
    assert prim(GridBatch.from_lists([holed])).to_lists()[0] == full
    # known cells that contradict every period, or too many unknown cells: left alone
    assert ref.periodic([[1, 2, 0], [3, 4, 5]], 0) == [[1, 2, 0], [3, 4, 5]]
    assert ref.periodic([[1, 0, 0], [0, 0, 0]], 0) == [[1, 0, 0], [0, 0, 0]]


def test_untile():
    assert ref.untile([[4, 5, 1, 4, 5, 1], [1, 1, 1, 1, 1, 1]]) == [[4, 5, 1], [1, 1, 1]]
    assert ref.untile([[1, 1, 1], [2, 2, 2], [1, 1, 1]]) == [[1], [2], [1]]  # 2 rows do not divide 3
    assert ref.untile([[1, 2], [3, 4]]) == []  # no repetition: invalid
    prim = next(p for p in REGISTRY.instances() if p.text == "untile")
    got = prim(GridBatch.from_lists([[[4, 5, 1, 4, 5, 1], [1, 1, 1, 1, 1, 1]]])).to_lists()[0]
    assert got == [[4, 5, 1], [1, 1, 1]]


def test_crop_fast_path_equals_formulas():
    """The NumPy `crop` fast path gives the gather formulas' result, out-of-range windows and sizes too."""
    import numpy as np

    from gpubatch.arc.kernels import gather, gather_xp

    from .corpus import random_grids, as_lists

    g = GridBatch.from_lists(as_lists(random_grids()[:600]))
    g.h[::37] = 0
    rng = np.random.default_rng(3)
    p = np.stack([rng.integers(-2, 31, len(g)), rng.integers(-2, 31, len(g)), rng.integers(-1, 32, len(g)),
                  rng.integers(-1, 32, len(g))], axis=1).astype(np.int32)
    fast, ref_ = gather(g, "crop", params=p), gather_xp(g, "crop", params=p)
    assert (fast.data == ref_.data).all() and (fast.h == ref_.h).all() and (fast.w == ref_.w).all()
