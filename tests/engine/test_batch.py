"""run_batch on a stand-in GPU backend: dynamic dispatch, OOM split and CPU fallback at min_size."""
from gpubatch.engine import EngineSettings, StatsCollector, numpy_backend, run_batch

from .helpers import GPU_OOM, FakeGpu


def test_small_work_is_dispatched_to_cpu():
    stats = StatsCollector()
    s = EngineSettings(cpu_threshold=10)
    out = run_batch(GPU_OOM, [1, 2], FakeGpu(), numpy_backend(), s, stats)
    assert out.results == [(1, "cpu"), (2, "cpu")]
    assert stats.for_op("gpu_oom", "cpu").cpu_dispatched == 1


def test_dispatch_off_keeps_gpu():
    stats = StatsCollector()
    s = EngineSettings(cpu_threshold=10, dynamic_dispatch=False)
    out = run_batch(GPU_OOM, [1, 2], FakeGpu(), numpy_backend(), s, stats)
    assert out.results == [(1, "cuda:0"), (2, "cuda:0")]


def test_oom_splits_down_to_min_size_then_cpu():
    stats = StatsCollector()
    gpu = FakeGpu()
    s = EngineSettings(min_size=2)
    out = run_batch(GPU_OOM, list(range(10)), gpu, numpy_backend(), s, stats)
    assert [x for x, _ in out.results] == list(range(10))
    devices = [d for _, d in out.results]
    assert set(devices) == {"cuda:0"}  # halves of 10 -> 5 -> 2/3; 2 fits
    assert out.oom and gpu.released
    out = run_batch(GPU_OOM, list(range(3)), gpu, numpy_backend(), EngineSettings(min_size=3), stats)
    assert [d for _, d in out.results] == ["cpu"] * 3
    assert stats.for_op("gpu_oom", "cuda:0").cpu_fallbacks == 1
