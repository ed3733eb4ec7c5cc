"""GPU faults (`make test-gpu`): an interrupt stops a CUDA search and keeps what it found; with two GPUs,
SIGTERM ends the `--gpus 2` workers and a killed GPU worker's piece is re-run with equal results."""
import json
import os
import signal
import sys
import time

import numpy as np
import pytest

from .helpers import alive, children_of, cli, kill_tree, sigterm_ends_workers, spawn, task, wait_until, write_tasks

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


LONG = {"GPUBATCH_BATT__MAX_STATES": "50000000"}  # a state budget that lets depth 4 run for minutes


def _gpus() -> int:
    from gpubatch.engine import probe_cuda

    return len(probe_cuda().gpus)


def _tasks(tmp_path, n=24, hard=True):
    """`hard`: random 12x12 grids with unrelated outputs, so that no state repeats and a depth-4 search runs
    for minutes on a GPU (its state budget binds); else small solvable tasks."""
    if not hard:
        return write_tasks(tmp_path / "t", {f"t{i:02d}": task(i, demos=3, size=9) for i in range(n)})
    rng = np.random.default_rng(0)

    def grid():
        return rng.integers(0, 10, (12, 12)).tolist()

    return write_tasks(tmp_path / "t", {f"h{i:02d}": {"train": [{"input": grid(), "output": grid()} for _ in range(3)],
                                                      "test": [{"input": grid()}]} for i in range(n)})


def _outcomes(path):
    strip = ("seconds", "evaluations", "states")
    return [{k: v for k, v in t.items() if k not in strip} for t in json.loads(path.read_text())["tasks"]]


def test_sigint_stops_a_cuda_search_and_keeps_results(tmp_path):
    args = ["run-batt", "--dataset", str(_tasks(tmp_path)), "--depth", "4", "--no-progress",
            "--results", str(tmp_path / "r.json")]
    proc = spawn(args + (["--gpus", "2"] if _gpus() >= 2 else []), tmp_path, device="cuda", **LONG)
    try:
        time.sleep(15)  # past start-up and kernel compilation, into the depth-4 search (minutes long)
        workers = children_of(proc.pid)
        os.kill(proc.pid, signal.SIGINT)
        code = proc.wait(120)
        assert code == 130, proc.stdout.read().decode()[-3000:]
        assert len(json.loads((tmp_path / "r.json").read_text())["tasks"]) == 24
        assert wait_until(lambda: not any(alive(w) for w in workers), 15)
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


@pytest.mark.skipif("_gpus() < 2", reason="needs two GPUs")
def test_sigterm_ends_gpu_workers(tmp_path):
    args = ["run-batt", "--dataset", str(_tasks(tmp_path)), "--depth", "4", "--gpus", "2", "--no-progress"]
    proc = spawn(args, tmp_path, device="cuda", **LONG)
    try:
        sigterm_ends_workers(proc, settle=10)
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


@pytest.mark.skipif("_gpus() < 2", reason="needs two GPUs")
def test_killed_gpu_worker_is_rerun_with_equal_results(tmp_path):
    folder = _tasks(tmp_path, 8, hard=False)
    base = ["run-batt", "--dataset", folder, "--depth", "2", "--no-progress", "--device", "cuda"]
    assert cli(*base, "--results", tmp_path / "clean.json").exit_code == 0
    proc = spawn([str(a) for a in base] + ["--gpus", "2", "--results", str(tmp_path / "r.json")], tmp_path,
                 device="cuda")
    try:
        assert wait_until(lambda: len(children_of(proc.pid)) >= 2, 120)
        time.sleep(3)
        os.kill(children_of(proc.pid)[0], signal.SIGKILL)
        assert proc.wait(300) == 0, proc.stdout.read().decode()[-3000:]
        assert _outcomes(tmp_path / "r.json") == _outcomes(tmp_path / "clean.json")
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])
