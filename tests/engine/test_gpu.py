"""Engine on a real GPU: detection, a real out-of-memory split under a tight pool limit, several GPUs."""
import functools

import pytest

from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, probe_cuda, select_device

pytestmark = pytest.mark.gpu

MB = 1 << 20


def alloc_each(items, backend, nbytes):
    """Asks the GPU for `nbytes` per item (a real cudaMalloc failure when too much); small on the CPU."""
    if backend.is_gpu:
        buf = backend.xp.empty(len(items) * nbytes, dtype=backend.xp.uint8)
        buf[:1] = 3
        return [int(buf[:1].get()[0]) * x for x in items]
    return [3 * x for x in items]


def device_of(items, backend):
    import os

    return [(x, backend.label, os.environ.get("CUDA_VISIBLE_DEVICES")) for x in items]


WHERE = BatchOp("where", device_of)


def test_detects_gpu():
    probe = probe_cuda()
    assert probe.gpus and probe.gpus[0].total_memory > 1 << 30
    assert select_device("auto").kind == "cupy"


def test_probe_without_contexts_reads_the_same_devices():
    """The probe for GPUs used by workers makes no context: the same devices, names and sizes; no free memory."""
    full, light = probe_cuda(), probe_cuda(contexts=False)
    assert [(g.index, g.name, g.total_memory, g.sm_count, g.compute_capability) for g in light.gpus] == \
        [(g.index, g.name, g.total_memory, g.sm_count, g.compute_capability) for g in full.gpus]
    assert all(g.free_memory is None for g in light.gpus) and all(g.free_memory > 0 for g in full.gpus)


def test_real_oom_is_split_and_results_identical():
    total = probe_cuda().gpus[0].total_memory
    op = BatchOp("alloc", functools.partial(alloc_each, nbytes=total // 8))  # 16 items: twice the card
    settings = EngineSettings(device="cuda", initial_size=16, max_size=16, dynamic_sizing=False, max_fraction=1.0)
    with BatchExecutor(settings, select_device("cuda"), runner="local") as ex:
        out = ex.run_all(op, range(40))
        stats = ex.stats.rows()
    assert out == [x * 3 for x in range(40)]
    assert sum(s.oom_retries for s in stats) >= 2
    assert sum(s.items for s in stats) == 40 and sum(s.cpu_fallbacks for s in stats) == 0


def test_oom_at_min_size_runs_on_cpu():
    total = probe_cuda().gpus[0].total_memory
    op = BatchOp("alloc", functools.partial(alloc_each, nbytes=total * 2))  # one item is too big for the card
    settings = EngineSettings(device="cuda", initial_size=4, max_size=4, min_size=4, dynamic_sizing=False)
    with BatchExecutor(settings, select_device("cuda"), runner="local") as ex:
        out = ex.run_all(op, range(4))
        stats = {s.device: s for s in ex.stats.rows()}
    assert out == [x * 3 for x in range(4)]
    assert stats["cuda:0"].cpu_fallbacks == 1 and stats["cpu"].items == 4


def test_several_gpus_share_the_batches():
    n = len(probe_cuda().gpus)
    if n < 2:
        pytest.skip("needs at least 2 GPUs")
    settings = EngineSettings(device="cuda", count=n, initial_size=8, max_size=8, dynamic_sizing=False)
    with BatchExecutor(settings, select_device("cuda", count=n)) as ex:
        assert ex.runner.name == "processes"
        out = ex.run_all(WHERE, range(64))
    assert [x for x, _, _ in out] == list(range(64))
    assert {label for _, label, _ in out} == {f"cuda:{i}" for i in range(n)}
    assert {vis for _, _, vis in out} == {str(i) for i in range(n)}


def test_uncached_upload_leaves_the_device_cache_alone():
    """`asarray(a, cached=False)` uploads without keying: the cache neither grows nor counts it."""
    import numpy as np

    from gpubatch.engine.backend import cupy_backend

    be = cupy_backend(cache_size=8)
    a = np.arange(1000)
    assert (be.asnumpy(be.asarray(a, cached=False)) == a).all()
    assert len(be.cache) == 0 and be.cache.hits == be.cache.misses == 0
    be.asarray(a)
    be.asarray(a.copy())
    assert len(be.cache) == 1 and be.cache.hits == 1
