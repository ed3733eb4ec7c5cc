"""GPU parity: CuPy batched (custom kernels) == CuPy array-module path == NumPy batched, on the full corpus."""
import numpy as np
import pytest

from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.kernels import GATHER, apply_lut, gather
from gpubatch.arc.labels import label

from .corpus import arc_grids, as_lists, random_grids

pytestmark = pytest.mark.gpu
PRIMS = REGISTRY.instances()


@pytest.fixture(scope="module")
def batches():
    import cupy

    host = GridBatch.from_lists(as_lists(arc_grids() + random_grids()))
    return host, host.to(cupy)


def _same(a: GridBatch, b: GridBatch) -> int:
    """Number of grids that differ (shape, validity or any cell, padding included)."""
    a, b = a.to(np), b.to(np)
    diff = (a.data != b.data).reshape(len(a), -1).any(axis=1) | (a.h != b.h) | (a.w != b.w)
    return int(diff.sum())


@pytest.mark.parametrize("prim", PRIMS, ids=lambda p: p.text)
def test_cupy_equals_numpy(prim, batches):
    host, dev = batches
    assert _same(prim(host), prim(dev)) == 0


@pytest.mark.parametrize("op", sorted(GATHER))
def test_gather_kernel_equals_formulas(op, batches):
    import cupy

    host, dev = batches
    params = None
    if op == "crop":
        rng = np.random.default_rng(0)
        params = cupy.asarray(rng.integers(0, 12, size=(len(dev), 4)).astype(np.int32))
    for k1, k2 in ((1, 1), (2, 3), (3, 2)):
        assert _same(gather(dev, op, k1, k2, params), gather(dev, op, k1, k2, params, use_kernel=False)) == 0


@pytest.mark.parametrize("conn8", [False, True])
@pytest.mark.parametrize("univalued", [False, True])
@pytest.mark.parametrize("exclude_bg", [False, True])
def test_label_kernel_equals_numpy(batches, conn8, univalued, exclude_bg):
    import cupy

    from gpubatch.arc.kernels import background

    host, dev = batches
    ex_h = background(host) if exclude_bg else np.full(len(host), -1, np.int32)
    want = label(host, ex_h, conn8, univalued)
    got = label(dev, cupy.asarray(ex_h), conn8, univalued)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)


def test_lut_kernel_equals_numpy(batches):
    import cupy

    host, dev = batches
    rng = np.random.default_rng(3)
    lut = rng.integers(0, 10, size=(len(host), 11)).astype(np.uint8)
    lut[:, 10] = 10
    assert _same(apply_lut(host, lut), apply_lut(dev, cupy.asarray(lut))) == 0


def test_hash_kernel_equals_numpy(batches):
    import cupy

    host, dev = batches
    np.testing.assert_array_equal(cupy.asnumpy(dev.hash64()), host.hash64())
    np.testing.assert_array_equal(cupy.asnumpy(dev.hash64(use_kernel=False)), host.hash64())


def _with_invalid(host: GridBatch) -> GridBatch:
    """The batch plus grids a primitive may produce as input to the next: height 0 with a width (as
    count_objects leaves), and both 0."""
    bad = host.take(np.arange(8))
    bad.h = np.zeros(8, np.int32)
    bad.w = np.array([0, 5, 30, 1, 0, 7, 2, 9], np.int32)
    return GridBatch(np.concatenate([host.data, bad.data]), np.concatenate([host.h, bad.h]),
                     np.concatenate([host.w, bad.w]))


FUSED = ("gravity", "symmetrize", "outline", "hollow", "shift", "connect", "halves_logic", "kron", "keep_largest",
         "fill_enclosed")


@pytest.mark.parametrize("prim", [p for p in PRIMS if p.name in FUSED], ids=lambda p: p.text)
def test_fused_kernels_on_invalid_inputs(prim, batches):
    import cupy

    host = _with_invalid(batches[0])
    assert _same(prim(host), prim(host.to(cupy))) == 0


def test_finish_kernel_equals_numpy(batches):
    import cupy

    from gpubatch.arc.dsl.registry import finish

    host, _ = batches
    rng = np.random.default_rng(5)
    out = GridBatch(rng.integers(0, 11, size=host.data.shape).astype(np.uint8),
                    rng.integers(-1, 33, size=len(host)).astype(np.int32),
                    rng.integers(-1, 33, size=len(host)).astype(np.int32))
    src = GridBatch(host.data, np.where(rng.random(len(host)) < 0.1, 0, host.h).astype(np.int32), host.w)
    assert _same(finish(src, out), finish(src.to(cupy), out.to(cupy))) == 0


def test_colour_map_check_cupy_equals_numpy(batches):
    import cupy

    from gpubatch.arc.colourmap import map_fits

    host, _ = batches
    rng = np.random.default_rng(11)
    K, T, n = 4, 300, 4000
    tgt = host.take(rng.integers(0, len(host), T * K))
    demo = rng.random((T, K)) < 0.8
    task = rng.integers(0, T, n)
    base = tgt.take((task.reshape(-1, 1) * K + np.arange(K)).ravel())
    lut = np.stack([np.append(rng.permutation(10) if rng.random() < 0.5 else rng.integers(0, 10, 10), 10)
                    for _ in range(n)]).astype(np.uint8)
    states = apply_lut(base, np.repeat(lut, K, axis=0))
    flip = rng.random(n * K) < 0.05  # some grids get one changed cell, some another grid's shape
    states.data[flip, 0, 0] = np.where(states.data[flip, 0, 0] < 9, states.data[flip, 0, 0] + 1, 0)
    other = rng.random(n * K) < 0.05
    states.h[other] = host.h[rng.integers(0, len(host), other.sum())]
    want = map_fits(states, tgt, task, demo, K)
    got = map_fits(states.to(cupy), tgt.to(cupy), cupy.asarray(task), cupy.asarray(demo), K)
    assert 0.1 < want.mean() < 0.9
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
