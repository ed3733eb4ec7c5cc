"""Engine on a real GPU: detection, a real out-of-memory split under a tight pool limit, several GPUs."""
import pytest

from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, probe_cuda, select_device

pytestmark = pytest.mark.gpu

MB = 1 << 20


def alloc_100mb_each(items, backend):
    buf = backend.xp.ones((len(items), 100 * MB // 4), dtype=backend.xp.float32)  # 100 MB per item
    sums = buf.sum(axis=1)
    return [int(backend.asnumpy(sums[k])) + x for k, x in enumerate(items)]


def device_of(items, backend):
    import os

    return [(x, backend.label, os.environ.get("CUDA_VISIBLE_DEVICES")) for x in items]


ALLOC = BatchOp("alloc", alloc_100mb_each)
WHERE = BatchOp("where", device_of)


def test_detects_gpu():
    probe = probe_cuda()
    assert probe.gpus and probe.gpus[0].total_memory > 1 << 30
    assert select_device("auto").kind == "cupy"


def test_real_oom_is_split_and_results_identical():
    import cupy

    settings = EngineSettings(device="cuda", initial_size=16, max_size=16, dynamic_sizing=False)
    with BatchExecutor(settings, select_device("cuda"), runner="local") as ex:
        cupy.get_default_memory_pool().set_limit(size=1 << 30)  # 1 GiB: 16 x 100 MB does not fit
        try:
            out = ex.run_all(ALLOC, range(40))
        finally:
            cupy.get_default_memory_pool().set_limit(size=0)
        stats = ex.stats.rows()
    assert out == [100 * MB // 4 + x for x in range(40)]
    assert sum(s.oom_retries for s in stats) >= 1
    assert sum(s.items for s in stats) == 40


def test_oom_at_min_size_runs_on_cpu():
    import cupy

    settings = EngineSettings(device="cuda", initial_size=4, max_size=4, min_size=4, dynamic_sizing=False)
    with BatchExecutor(settings, select_device("cuda"), runner="local") as ex:
        cupy.get_default_memory_pool().set_limit(size=300 * MB)
        try:
            out = ex.run_all(ALLOC, range(4))
        finally:
            cupy.get_default_memory_pool().set_limit(size=0)
        stats = {s.device: s for s in ex.stats.rows()}
    assert out == [100 * MB // 4 + x for x in range(4)]
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
