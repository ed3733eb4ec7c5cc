"""The shared executor suite: every runner must pass every test here (dask's GetFunctionTestMixin idea)."""
import pytest

from gpubatch.engine import BatchExecutor, EngineSettings, ItemFailure, Selection

from .helpers import FAILS, LENGTH, OOM, SIZED, SLOW_FIRST, SQUARE, WARMED

CPU = Selection("numpy", reason="tests")
RUNNERS = ["sync", "local", "processes", "dask"]
CLUSTER: dict[str, str] = {}  # the dask runner's scheduler (the session's LocalCluster)


def executor(runner, **kw):
    kw.setdefault("initial_size", 4)
    kw.setdefault("count", 2)
    if runner == "dask":
        kw["cluster_address"] = CLUSTER["address"]
    return BatchExecutor(EngineSettings(device="cpu", **kw), CPU, runner=runner)


@pytest.fixture(params=RUNNERS)
def runner(request):
    if request.param == "dask":
        CLUSTER["address"] = request.getfixturevalue("dask_cluster")
    return request.param


def test_order_and_exactly_once(runner):
    with executor(runner, max_size=16) as ex:
        out = list(ex.map(SQUARE, iter(range(203))))
    assert [k for k, _ in out] == list(range(203))
    assert [v for _, v in out] == [i * i for i in range(203)]


def test_identity_from_key(runner):
    words = [f"w{i}" for i in range(30)]
    with executor(runner) as ex:
        out = list(ex.map(LENGTH, words, key=lambda w: w))
    assert out == [(w, len(w)) for w in words]


def test_batch_sizes_respect_limits(runner):
    with executor(runner, initial_size=3, min_size=2, max_size=7) as ex:
        sizes = [size for _, (_, size) in ex.map(SIZED, range(500))]
    assert max(sizes) <= 7
    assert all(s >= 2 for s in sizes[:-1])  # only the tail batch may be smaller
    assert sum(1 for _ in sizes) == 500


def test_fixed_batch_size(runner):
    with executor(runner, initial_size=5, max_size=5, dynamic_sizing=False) as ex:
        sizes = [size for _, (_, size) in ex.map(SIZED, range(23))]
    assert set(sizes[:20]) == {5} and sizes[20:] == [3, 3, 3]


def test_planned_batch_sizes(runner):
    with executor(runner, initial_size=5, max_size=50, dynamic_sizing=False) as ex:
        sizes = [size for _, (_, size) in ex.map(SIZED, range(40), sizes=[12, 3, 20])]
    assert sizes == [12] * 12 + [3] * 3 + [20] * 20 + [5] * 5  # the plan, then the sizer's own size


def test_warm_readies_every_device_before_the_batches(runner):
    with executor(runner, initial_size=3, max_size=3, dynamic_sizing=False) as ex:
        assert ex.warm(WARMED) >= 0
        out = ex.run_all(WARMED, range(30))  # processes: ten batches over both workers
    assert out == [True] * 30


def test_oom_injection_gives_identical_results(runner):
    with executor(runner, initial_size=16, max_size=16, dynamic_sizing=False) as ex:
        out = ex.run_all(OOM, range(100))
        rows = [s for s in ex.stats.rows() if s.op == "oom"]  # one row per device (per worker on a cluster)
    assert out == [x * 3 for x in range(100)]
    # the first batch of 16 splits into 8 + 8, each again into 4 + 4; the sizer then stays below 8
    assert sum(r.oom_retries for r in rows) >= 3
    assert sum(r.items for r in rows) == 100 and max(r.max_batch for r in rows) <= 4


def test_failed_item_is_isolated_and_reported(runner):
    with executor(runner, initial_size=8) as ex:
        out = ex.run_all(FAILS, range(40))
        rows = ex.stats.rows()
    assert isinstance(out[13], ItemFailure) and "broken" in out[13].error
    assert out[:13] + out[14:] == [x + 1 for x in range(40) if x != 13]
    assert sum(r.failures for r in rows) == 1


def test_cluster_stats_name_the_worker(dask_cluster):
    CLUSTER["address"] = dask_cluster
    with executor("dask", initial_size=2) as ex:
        ex.run_all(SQUARE, range(40))
    assert {r.device.split("@")[0] for r in ex.stats.rows()} == {"cpu"}
    assert all(r.device.startswith("cpu@worker-") for r in ex.stats.rows())


def test_stats_count_items_and_calls(runner):
    with executor(runner) as ex:
        ex.run_all(SQUARE, range(10))
        ex.run_all(SQUARE, range(5))
        rows = ex.stats.rows()
    assert sum(r.items for r in rows) == 15
    assert rows[0].calls == 2


def test_multi_worker_equals_single_worker():
    with executor("processes", count=3, initial_size=7) as ex:
        many = ex.run_all(SQUARE, range(300))
    with executor("sync") as ex:
        one = ex.run_all(SQUARE, range(300))
    assert many == one


def test_a_long_batch_does_not_hold_the_other_workers():
    """Worker processes take their next batch when they have room, not in turn: while one runs a long batch,
    the other runs the short ones (results still in order)."""
    with executor("processes", initial_size=1, max_size=1, dynamic_sizing=False) as ex:
        out = ex.run_all(SLOW_FIRST, range(14))  # fewer than the batches a worker may finish ahead
    assert [x for x, _ in out] == list(range(14))
    slow = out[0][1]
    assert sum(pid == slow for _, pid in out) <= 3  # the long one, and what was queued behind it


def test_unknown_runner():
    with pytest.raises(ValueError, match="unknown runner"):
        executor("threads")


def test_streams_without_reading_everything():
    seen = []

    def gen():
        for i in range(10_000):
            seen.append(i)
            yield i

    with executor("local", initial_size=4, max_size=4, dynamic_sizing=False, prefetch=2) as ex:
        it = ex.map(SQUARE, gen())
        next(it)
        assert len(seen) < 100
