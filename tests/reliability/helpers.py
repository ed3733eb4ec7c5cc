"""Shared by the reliability tests and the fuzzer: run the CLI in-process, make tiny ARC tasks."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from gpubatch.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def cli(*args: str, cwd: Path | None = None):
    """Invoke the CLI in this process (optionally from `cwd`); returns click's Result."""
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        return runner.invoke(app, [str(a) for a in args])
    finally:
        os.chdir(old)


def task(seed: int = 0, demos: int = 2, size: int = 3) -> dict:
    """A small valid ARC task: the output is the input flipped left to right."""
    grids = [[[(seed + r * 3 + c * 5 + k) % 10 for c in range(size)] for r in range(size)] for k in range(demos + 1)]
    pairs = [{"input": g, "output": [row[::-1] for row in g]} for g in grids]
    return {"train": pairs[:-1], "test": pairs[-1:]}


def write_tasks(folder: Path, tasks: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for tid, t in tasks.items():
        (folder / f"{tid}.json").write_text(t if isinstance(t, str) else json.dumps(t))
    return folder


def spawn(args: list[str], cwd: Path, device: str = "cpu", **env_extra: str) -> subprocess.Popen:
    """The CLI as a child process in its own session (so the test can signal it alone)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "GPUBATCH_GPU__DEVICE": device, "PYTHONFAULTHANDLER": "1",
           **env_extra}
    return subprocess.Popen([sys.executable, "-m", "gpubatch", *args], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)


def _live_children(pid: int) -> list[tuple[int, bytes]]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append((int(entry.name), cmd))
    return out


def children_of(pid: int) -> list[int]:
    """The live worker processes of `pid` (from /proc): its children, and in place of a multiprocessing fork
    server, the workers forked from it. The server and the resource tracker are left out: both outlive pools by
    design and end with their parent."""
    workers = []
    for child, cmd in _live_children(pid):
        if b"forkserver" in cmd:
            workers += [c for c, _ in _live_children(child)]
        elif b"resource_tracker" not in cmd:
            workers.append(child)
    return workers


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] != "Z"


def wait_until(cond, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def kill_tree(pids: list[int]) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def sigterm_ends_workers(proc: subprocess.Popen, start: float = 120.0, settle: float = 3.0) -> None:
    """Wait for `proc`'s two workers, let them work `settle` seconds, SIGTERM the parent: it exits 143 and no
    worker is alive 15 s later."""
    assert wait_until(lambda: len(children_of(proc.pid)) >= 2, start)
    workers = children_of(proc.pid)
    time.sleep(settle)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 143
    assert wait_until(lambda: not any(alive(w) for w in workers), 15), "workers left running"
