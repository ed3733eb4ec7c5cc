"""Regressions: processes and signals. SIGTERM ends every worker; the first SIGINT to the main process alone
stops a multi-worker run-batt promptly and keeps what it found; workers do not outlive a killed parent."""
import json
import os
import signal
import sys
import sysconfig
import time

import pytest

from .helpers import alive, children_of, kill_tree, sigterm_ends_workers, spawn, task, wait_until, write_tasks

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _tree(tmp_path, n=400):
    """A tree big enough that parsing it takes a few seconds on two workers."""
    std = sysconfig.get_paths()["stdlib"]
    return std if os.path.isdir(std) else str(tmp_path)


def _started_workers(proc, at_least: int) -> list[int]:
    assert wait_until(lambda: len(children_of(proc.pid)) >= at_least, 60), proc.stdout.read().decode()
    return children_of(proc.pid)


def test_sigterm_ends_parser_workers(tmp_path):
    proc = spawn(["analyze", _tree(tmp_path), "--no-cache", "--jobs", "2", "--format", "json", "-o",
                  str(tmp_path / "out.json")], tmp_path)
    try:
        workers = _started_workers(proc, 2)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(30)
        except Exception:
            os.kill(proc.pid, signal.SIGABRT)
            proc.wait()
            raise AssertionError(proc.stdout.read().decode()[-6000:])
        assert code == 143
        assert wait_until(lambda: not any(alive(w) for w in workers), 10), "parser workers left running"
        assert not (tmp_path / "out.json").exists() and not list(tmp_path.glob(".out.json*"))
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


def _interrupted(proc, within: float) -> str:
    """Send one SIGINT to the main process alone: it must exit 130 within `within` seconds; its output."""
    t0 = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)
    code = proc.wait(60)
    out = proc.stdout.read().decode()
    assert code == 130, out
    assert time.monotonic() - t0 < within, "an interrupt must not wait for the whole run"
    return out


def _batt_args(tmp_path) -> list[str]:
    write_tasks(tmp_path / "tasks", {f"t{i:02d}": task(i, demos=3, size=6) for i in range(6)})
    return ["run-batt", "--dataset", str(tmp_path / "tasks"), "--depth", "3", "--gpus", "2", "--no-progress",
            "--results", str(tmp_path / "r.json")]


def test_sigint_to_main_alone_stops_gpus_2_promptly_and_keeps_results(tmp_path):
    proc = spawn(_batt_args(tmp_path), tmp_path)
    try:
        workers = _started_workers(proc, 2)
        time.sleep(6)  # workers spawned and searching
        out = _interrupted(proc, within=20)
        data = json.loads((tmp_path / "r.json").read_text())
        assert len(data["tasks"]) == 6 and "interrupted" in out and "stopping early" in out
        assert wait_until(lambda: not any(alive(w) for w in workers), 10)
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


SLOW_SOLVERS = """
def solve_slow(I):
    x1 = canvas(ONE, (300, 300))
    x2 = objects(x1, T, F, F)
    x3 = objects(x1, F, F, F)
    x4 = objects(x1, T, T, F)
    x5 = objects(x1, F, T, F)
    O = hmirror(I)
    return O

def solve_quick(I):
    O = vmirror(I)
    return O
"""


@pytest.mark.parametrize("where", [["--gpus", "2"], ["--cluster", "local:2"]], ids=["gpus", "dask"])
def test_sigint_stops_an_arcdsl_battery_between_lines_and_keeps_what_ran(tmp_path, where):
    """Worker processes hear the first Ctrl-C; Dask workers do not, so their batches are cancelled and run in
    the main process, where the stop is seen at once."""
    if where[0] == "--cluster":
        pytest.importorskip("distributed")
    write_tasks(tmp_path / "tasks", {f"t{i:02d}": task(i, demos=3, size=6) for i in range(6)})
    (tmp_path / "s.py").write_text(SLOW_SOLVERS)  # four slow lines, each well under 1 s; 24 samples
    proc = spawn([*where, "run-batt", "--dataset", str(tmp_path / "tasks"), "--solvers", str(tmp_path / "s.py"),
                  "--battery", "cross", "--no-progress", "--results", str(tmp_path / "r.json")], tmp_path)
    try:
        workers = _started_workers(proc, 2)
        time.sleep(4)  # the workers inside the slow lines
        out = _interrupted(proc, within=12)
        assert "the battery stopped early" in " ".join(out.split())
        assert "stopping early: what was found so far is kept (Ctrl-C again to end at once)" in out
        pairs = {p["id"]: p["status"] for p in json.loads((tmp_path / "r.json").read_text())["pairs"]}
        assert len(pairs) == 12 and "stopped" in pairs.values()
        assert all(pairs[p] in ("stopped", "wrong" if p.startswith("solve_slow/") else "solved") for p in pairs)
        assert wait_until(lambda: not any(alive(w) for w in workers), 10)
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


def test_sigterm_ends_gpus_workers(tmp_path):
    proc = spawn(_batt_args(tmp_path), tmp_path)
    try:
        sigterm_ends_workers(proc, start=60)
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


def test_workers_die_with_a_killed_parent(tmp_path):
    proc = spawn(_batt_args(tmp_path), tmp_path)
    try:
        workers = [w for w in _started_workers(proc, 2)]
        time.sleep(3)
        workers = [w for w in children_of(proc.pid)]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert wait_until(lambda: not any(alive(w) for w in workers), 10), "workers outlived their parent"
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])
