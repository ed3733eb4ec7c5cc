"""The dask runner on a real LocalCluster (loopback, CPU workers): a worker killed mid-run loses nothing, a
batch whose worker always dies runs here after `cluster.retries`, a lost scheduler ends the run (exit 1), and
run-batt and analyze give the results of the local runner."""
import json
import os
import signal

import pytest
from typer.testing import CliRunner

from gpubatch.cli import app
from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, Selection
from gpubatch.engine.cluster import ClusterLost

distributed = pytest.importorskip("distributed")
runner = CliRunner()


def _slow_square(items, backend):
    import time

    time.sleep(0.05)
    return [x * x for x in items]


def _dies_on_7(items, backend):
    try:
        distributed.get_worker()
    except ValueError:  # not in a Dask worker: this process, after the retries
        return [x + 1 for x in items]
    if 7 in items:
        os._exit(1)
    return [x + 1 for x in items]


def _monitoring() -> tuple:
    import dask

    return (dask.config.get("distributed.worker.profile.enabled"), dask.config.get("distributed.admin.tick.interval"),
            dask.config.get("distributed.admin.system-monitor.interval"))


def _settings(address: str, **kw) -> EngineSettings:
    kw.setdefault("initial_size", 2)
    return EngineSettings(device="cpu", cluster_address=address, dynamic_sizing=False, **kw)


def test_worker_killed_mid_run_loses_nothing():
    with BatchExecutor(_settings("local:2"), Selection("numpy")) as ex:
        pids = list(ex.runner.client.run(os.getpid).values())
        # and the workers keep glibc's malloc defaults (Dask's trim threshold halved NumPy's speed there)
        assert set(ex.runner.client.run(os.environ.get, "MALLOC_TRIM_THRESHOLD_").values()) == {None}
        # and without Dask's profiler and its frequent monitors, which slowed the search in the workers
        assert set(ex.runner.client.run(_monitoring).values()) == {(False, "1s", "10s")}
        out = []
        for i, (_, value) in enumerate(ex.map(BatchOp("slow", _slow_square), range(60))):
            out.append(value)
            if i == 6:
                os.kill(pids[0], signal.SIGKILL)
    assert out == [x * x for x in range(60)]


def test_local_cluster_leaves_port_8787_alone():
    """A local cluster's scheduler serves HTTP on a free port without the dashboard: Dask's default port 8787
    taken (another run, a user's own dashboard) used to print "Port 8787 is already in use"."""
    import socket
    import warnings

    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:  # already taken: the case itself
        pass
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with BatchExecutor(_settings("local:1"), Selection("numpy")) as ex:
                assert ex.run_all(BatchOp("slow", _slow_square), range(3)) == [0, 1, 4]
                assert ex.runner.cluster.scheduler.http_server.port != 8787
        assert not [w for w in caught if "8787" in str(w.message)]
    finally:
        holder.close()


@pytest.mark.parametrize("retries", [0, 1])
def test_batch_whose_worker_always_dies_runs_here(dask_cluster, retries):
    settings = _settings(dask_cluster, cluster_retries=retries, initial_size=12, max_size=12)
    with BatchExecutor(settings, Selection("numpy")) as ex:
        out = ex.run_all(BatchOp("dies", _dies_on_7), range(12))  # one batch: its worker dies at every try
        restarts = ex.stats.for_op("dies", "cpu").worker_restarts
    assert out == [x + 1 for x in range(12)]
    assert restarts == retries + 1  # every try on the cluster, then NumPy here


def test_lost_scheduler_ends_the_run():
    ex = BatchExecutor(_settings("local:1"), Selection("numpy"))
    ex.runner.cluster.close()
    with pytest.raises(ClusterLost):
        ex.run_all(BatchOp("slow", _slow_square), range(8))
    ex.close(failed=True)


def test_unreachable_scheduler_is_a_usage_error(tmp_path, monkeypatch):
    import gpubatch.engine.cluster as cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    result = runner.invoke(app, ["analyze", str(tmp_path), "--cluster", "tcp://127.0.0.1:9", "--no-cache"])
    assert result.exit_code == 2 and "cannot reach the Dask scheduler" in result.output


def test_cluster_results_equal_local(tmp_path, dask_cluster):
    outs = {}
    for name, extra in (("local", []), ("dask", ["--cluster", dask_cluster])):
        r = tmp_path / f"{name}.json"
        result = runner.invoke(app, ["run-batt", "--device", "cpu", "--tasks", "4", "--depth", "1", "-q",
                                     "--no-progress", "--results", str(r), *extra])
        assert result.exit_code in (0, 1), result.output
        a = tmp_path / f"{name}-analyze.json"
        src = os.path.join(os.path.dirname(json.__file__))
        result = runner.invoke(app, ["analyze", src, "--device", "cpu", "--no-cache", "--format", "json", "-o",
                                     str(a), "-q", *extra])
        assert result.exit_code in (0, 1), result.output
        outs[name] = (r, a)
    for i in (0, 1):
        result = runner.invoke(app, ["diff", str(outs["local"][i]), str(outs["dask"][i])])
        assert result.exit_code == 0, result.output


def test_local_gpu_cluster_pins_each_worker_to_its_gpu(monkeypatch):
    """Without dask-cuda, `local:N` on GPUs still gives each worker its own GPU first (no GPU needed to check
    the pinning: it is the workers' environment)."""
    import sys

    from gpubatch.engine.cluster import local_gpu_cluster

    monkeypatch.setitem(sys.modules, "dask_cuda", None)  # the fallback, whether dask-cuda is installed or not
    with local_gpu_cluster(3, ["0", "1"]) as cluster, distributed.Client(cluster) as client:
        seen = client.run(lambda: os.environ["CUDA_VISIBLE_DEVICES"])
    assert sorted(seen.values()) == ["0,1", "0,1", "1,0"]


@pytest.mark.parametrize("where", [["--cluster", "local:2"], ["--gpus", "2"]])
def test_analyze_parses_on_workers_that_see_the_files(tmp_path, where):
    """A local cluster (or worker processes) with as many workers as parsers parses on its workers: the
    reports, broken files included, equal those of the parser pool here."""
    tree = tmp_path / "src"
    tree.mkdir()
    for i in range(40):
        (tree / f"m{i}.py").write_text(f"def f{i}(x=[]):\n    if x:\n        return eval('1')\n    return {i}\n")
    (tree / "broken.py").write_text("def f(:\n")
    (tree / "binary.py").write_bytes(b"\x00\x01\x02")
    cfg = tmp_path / "gpubatch.toml"
    cfg.write_text(f'[analyze]\ncache_dir = "{tmp_path / "cache"}"\ncache_content = true\n')  # read on workers
    outs = []
    for extra in ([], where):
        out = tmp_path / f"{len(outs)}.json"
        result = runner.invoke(app, ["--device", "cpu", "--config", str(cfg), *extra, "analyze", str(tree),
                                     "--jobs", "2", "--format", "json", "-o", str(out), "-q"])
        assert result.exit_code == 1, result.output
        outs.append(out)
    assert json.loads(outs[1].read_text())["timings"]["cached_files"] == 40  # the good files, from the cache
    result = runner.invoke(app, ["diff", str(outs[0]), str(outs[1])])
    assert result.exit_code == 0, result.output
