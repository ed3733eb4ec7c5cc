"""Dispatch by work on `auto`: the rules, and the local runner starting the GPU only when the work asks for it."""
from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, Selection
from gpubatch.engine.dispatch import Dispatcher

from .helpers import FakeGpu, gpu_oom_above_2


def _label_run(items, backend):
    return [(x, backend.label) for x in items]


OP = BatchOp("op", _label_run, work=sum, cpu_threshold=100)


def test_rules_in_order():
    d = Dispatcher()
    assert d.choose(OP, 50).reason == "small"
    assert d.choose(OP, 500).gpu  # one batch of unknown company: the GPU at once
    d.expect(OP, 10_000)
    assert d.choose(OP, 500).reason == "calibrating"  # more batches follow: NumPy's cost first
    d.observe(OP, False, 500, 0.001)  # NumPy: 2 µs a unit; 9,500 left = 19 ms, less than starting the GPU
    assert d.choose(OP, 500).reason == "start-up"
    d.expect(OP, 10_000_000)  # now 10 s of NumPy work is left: worth the start-up
    assert d.choose(OP, 500).gpu
    d.gpu_started(1.0)
    d.observe(OP, True, 500, 0.01)  # the GPU measured slower for this op
    assert d.choose(OP, 500).reason == "measured"
    d.observe(OP, True, 500_000, 0.0)
    assert d.choose(OP, 500).gpu


def test_config_threshold_overrides_the_seed():
    assert Dispatcher(threshold=10).choose(OP, 50).gpu
    assert Dispatcher(threshold=1000).choose(OP, 500).reason == "small"


def _executor(monkeypatch, opened):
    ex = BatchExecutor(EngineSettings(device="auto", initial_size=4, max_size=4, dynamic_sizing=False),
                       Selection("auto"), runner="local")

    def open_gpu():
        opened.append(1)
        return FakeGpu(), None

    monkeypatch.setattr(ex.runner, "_open_gpu", open_gpu)
    return ex


def test_small_job_never_starts_the_gpu(monkeypatch):
    opened: list = []
    with _executor(monkeypatch, opened) as ex:
        out = ex.run_all(OP, [1, 2, 3, 4, 5, 6, 7, 8])  # batches of 4 with work 10 and 26: all small
    assert opened == [] and {d for _, d in out} == {"cpu"}
    assert ex.stats.for_op("op", "cpu").reasons == {"small": 2} and ex.device == "numpy"


def test_large_work_starts_the_gpu_once_and_says_so(monkeypatch):
    opened: list = []
    with _executor(monkeypatch, opened) as ex:
        ex.warm(OP, work=10**6)  # the job's whole work: the GPU is started before the timed batches
        out = ex.run_all(OP, list(range(200, 240)))
    assert opened == [1] and {d for _, d in out} == {"cuda:0"}
    assert ex.stats.gpu_startup_s > 0 and ex.device == "cupy"


def test_unusable_gpu_is_said_once_and_the_run_goes_on(monkeypatch):
    said: list = []
    ex = BatchExecutor(EngineSettings(device="auto", initial_size=4, max_size=4, dynamic_sizing=False),
                       Selection("auto"), runner="local", notify=said.append)
    monkeypatch.setattr(ex.runner, "_open_gpu", lambda: (None, "no CUDA device found"))
    with ex:
        out = ex.run_all(OP, list(range(200, 240)))
    assert [x for x, _ in out] == list(range(200, 240))
    assert said == ["running on the CPU (NumPy): no CUDA device found"]


def test_gpu_error_is_retried_on_the_cpu():
    from gpubatch.engine import StatsCollector, numpy_backend, run_batch

    stats = StatsCollector()
    op = BatchOp("gpu_oom", lambda items, b: [1 / 0] if b.is_gpu and 3 in items else gpu_oom_above_2(items, b))
    out = run_batch(op, [1, 3], FakeGpu(), numpy_backend(), EngineSettings(device="cuda"), stats)
    assert out.results == [(1, "cuda:0"), (3, "cpu")]
    assert stats.for_op("gpu_oom", "cuda:0").gpu_error_retries == 1 and stats.for_op("gpu_oom", "cuda:0").failures == 0
