"""The fuzz and fault suite, fixed-seed part (CI, well under a minute): every generator through its oracle,
and faults injected: damaged caches (inside the analyze checks), signals at random moments, killed workers,
unwritable outputs. `make fuzz` runs the same generators for as long as asked (`tests/reliability/fuzz.py`)."""
import json
import os
import random
import signal
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings

from . import checks, gen
from .helpers import alive, children_of, cli, kill_tree, spawn, task, wait_until, write_tasks

FIXED = settings(derandomize=True, database=None, deadline=None, max_examples=6,
                 suppress_health_check=list(HealthCheck))
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@FIXED
@given(files=gen.source_trees)
def test_python_sources(tmp_path_factory, files):
    checks.check_analyze(tmp_path_factory.mktemp("py"), files, seed=len(files))


@FIXED
@given(doc=gen.config_doc())
def test_config_files(tmp_path_factory, doc):
    checks.check_config(tmp_path_factory.mktemp("cfg"), doc)


@FIXED
@given(files=gen.arc_folder())
def test_arc_task_files(tmp_path_factory, files):
    checks.check_arc(tmp_path_factory.mktemp("arc"), files)


@FIXED
@given(pair=gen.kaggle_pair())
def test_kaggle_files(tmp_path_factory, pair):
    checks.check_kaggle(tmp_path_factory.mktemp("kaggle"), pair)


def _signal_case(tmp_path, rng: random.Random) -> None:
    """A job in a child process gets SIGINT or SIGTERM at a random moment: a known exit code, no process left,
    no half-written or temporary output."""
    if rng.random() < 0.5:
        src = tmp_path / "src"
        checks.write_tree(src, [gen.SourceFile(f"m{i}.py", p.read_bytes()) for i, p in enumerate(gen._SEEDS)])
        args = ["analyze", str(src), "--jobs", "2", "--no-cache", "--format", "sarif", "-o", str(tmp_path / "o.json")]
    else:
        write_tasks(tmp_path / "t", {f"t{i}": task(i, demos=3, size=5) for i in range(4)})
        args = ["run-batt", "--dataset", str(tmp_path / "t"), "--depth", "2", "--gpus", "2", "--no-progress",
                "--results", str(tmp_path / "o.json")]
    proc = spawn(args, tmp_path)
    try:
        time.sleep(rng.uniform(0.15, 2.5))  # from the first moment Python runs the entry point
        workers = children_of(proc.pid)
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        proc.send_signal(sig)
        code = proc.wait(60)
        assert code in (0, 1, 130, 143), proc.stdout.read().decode()[-3000:]
        assert wait_until(lambda: not any(alive(w) for w in workers), 10), "workers left running"
        out = tmp_path / "o.json"
        if out.exists():
            json.loads(out.read_text())
        assert not list(tmp_path.glob(".o.json*")), "temporary output left behind"
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


@linux
@pytest.mark.parametrize("seed", range(3))
def test_signal_at_a_random_moment(tmp_path, seed):
    _signal_case(tmp_path, random.Random(seed))


@linux
@pytest.mark.parametrize("job", ["analyze", "run-batt"])
def test_killed_worker_loses_nothing(tmp_path, job):
    """SIGKILL one worker mid-run: its work is re-run and the results equal a run without the fault."""
    if job == "analyze":
        src = tmp_path / "src"
        checks.write_tree(src, [gen.SourceFile(f"m{i}.py", p.read_bytes()) for i, p in enumerate(gen._SEEDS * 8)])
        args = ["analyze", str(src), "--no-cache", "--format", "json"]
        clean = cli(*args, "--jobs", "1", "-o", tmp_path / "clean.json")
        faulty = [*args, "--jobs", "2", "-o", str(tmp_path / "out.json")]
        key = "findings"
    else:
        # depth 2 (a few seconds of search a worker): the kill lands in the search, however fast depth 1 gets
        write_tasks(tmp_path / "t", {f"t{i}": task(i, demos=2, size=3) for i in range(2)})
        args = ["run-batt", "--dataset", str(tmp_path / "t"), "--depth", "2", "--no-progress", "--device", "cpu"]
        clean = cli(*args, "--results", tmp_path / "clean.json")
        faulty = [*args, "--gpus", "2", "--results", str(tmp_path / "out.json")]
        key = "tasks"
    proc = spawn(faulty, tmp_path)
    try:
        assert wait_until(lambda: len(children_of(proc.pid)) >= 2, 60)
        time.sleep(0.0 if job == "analyze" else 1.5)  # run-batt: past the workers' start, into the search
        workers = children_of(proc.pid)
        assert workers, "the job ended before a worker could be killed"
        os.kill(workers[0], signal.SIGKILL)
        code = proc.wait(120)
        out = proc.stdout.read().decode()
        assert code == clean.exit_code, out[-3000:]
        got, want = (json.loads((tmp_path / n).read_text())[key] for n in ("out.json", "clean.json"))
        if key == "tasks":  # timings differ between runs; outcomes must not
            strip = ("seconds", "evaluations", "states")
            got, want = ([{k: v for k, v in t.items() if k not in strip} for t in x] for x in (got, want))
        assert got == want
    finally:
        kill_tree(children_of(proc.pid) + [proc.pid])


@pytest.mark.parametrize("target", ["folder/missing/r.json", "a_file/r.json", ".", "/proc/version"])
def test_unwritable_output_is_exit_2(tmp_path, target):
    (tmp_path / "a_file").write_text("x")
    (tmp_path / "a.py").write_text("x = 1\n")
    res = cli("analyze", "a.py", "-o", target, cwd=tmp_path)
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
