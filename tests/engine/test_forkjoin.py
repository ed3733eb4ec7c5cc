"""Records encoded by forked workers: the pieces join to `sep.join(map(fn, items))` whatever the workers, slices
and failures (a worker killed or raising has its slice made here), no worker outlives the job (finished,
abandoned half-way or failed), and the SARIF and GitLab reports written that way equal the ones made here."""
import multiprocessing as mp
import os
import signal
import sys

import pytest

from gpubatch.engine import forkjoin
from gpubatch.engine.forkjoin import joined, usable_workers

fork = pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs fork")
PARENT = os.getpid()


@pytest.fixture(autouse=True)
def workers_seen(monkeypatch):
    """Every worker process the jobs of a test fork (other tests' pools may still be ending beside them)."""
    seen: list = []
    real = forkjoin.worker_pool

    def pool(*args, **kwargs):
        p = real(*args, **kwargs)
        submit = p.submit

        def tracked(*a, **k):
            fut = submit(*a, **k)
            seen.extend(w for w in (p._processes or {}).values() if w not in seen)
            return fut

        p.submit = tracked
        return p

    monkeypatch.setattr(forkjoin, "worker_pool", pool)
    return seen


def _running(w) -> bool:
    """Whether the worker's process still runs. Read from /proc where there is one: `Process.is_alive` stays
    True for a process that the pool's own thread reaped at the same moment (its `waitpid` then fails)."""
    if not os.path.isdir("/proc"):
        return w.is_alive()
    try:
        with open(f"/proc/{w.pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except FileNotFoundError:
        return False
    except OSError:
        return w.is_alive()


def _alive(seen) -> list:
    return [w for w in seen if _running(w)]


def _rec(i: int) -> str:
    return '{"i": %d, "pid_free": "%s"}' % (i, "x" * (i % 7))


def _whole(pieces, sep=",\n") -> str:
    return sep.join(pieces)


@fork
@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 300])
@pytest.mark.parametrize("workers", [0, 2, 3])
def test_pieces_join_to_the_records_in_order(n, workers, workers_seen):
    items = list(range(n))
    pieces = list(joined(_rec, items, ",\n", workers=workers))
    assert _whole(pieces) == ",\n".join(map(_rec, items))
    assert all(pieces), "an empty piece would leave two separators side by side"
    assert len(workers_seen) == (workers if n else 0) and not _alive(workers_seen)


def _dies_in_a_worker(i: int) -> str:
    if os.getpid() != PARENT and i == 40:
        os.kill(os.getpid(), signal.SIGKILL)
    return _rec(i)


def _raises_in_a_worker(i: int) -> str:
    if os.getpid() != PARENT and i % 50 == 3:
        raise RuntimeError("worker only")
    return _rec(i)


@fork
@pytest.mark.parametrize("fn", [_dies_in_a_worker, _raises_in_a_worker])
def test_a_failing_worker_costs_nothing(fn, workers_seen):
    items = list(range(400))
    assert _whole(joined(fn, items, ",\n", workers=3)) == ",\n".join(map(_rec, items))
    assert workers_seen and not _alive(workers_seen)


def _raises_everywhere(i: int) -> str:
    if i == 7:
        raise ValueError("a real bug")
    return _rec(i)


@fork
def test_an_error_made_here_too_is_raised(workers_seen):
    with pytest.raises(ValueError, match="a real bug"):
        list(joined(_raises_everywhere, list(range(100)), ",\n", workers=2))
    assert workers_seen and not _alive(workers_seen)


@fork
def test_a_job_abandoned_half_way_ends_its_workers(workers_seen):
    pieces = joined(_rec, list(range(1000)), ",\n", workers=2)
    next(pieces)
    assert len(_alive(workers_seen)) == 2
    pieces.close()
    assert not _alive(workers_seen) and forkjoin._JOB is None


def test_no_workers_without_fork_after_cupy_or_for_little_work(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.setattr(mp, "get_all_start_methods", lambda: ["fork", "spawn"])
    import threading

    monkeypatch.setattr(threading, "active_count", lambda: 1)  # other tests' threads may still be ending
    monkeypatch.delitem(sys.modules, "cupy", raising=False)  # a GPU test in this process may have imported it
    assert usable_workers(10_000, 500) == 8
    assert usable_workers(10_000, 500, most=3) == 3
    assert usable_workers(999, 500) == 0  # one worker's worth: made here
    monkeypatch.setitem(sys.modules, "cupy", object())
    assert usable_workers(10_000, 500) == 0
    monkeypatch.delitem(sys.modules, "cupy")
    monkeypatch.setattr(mp, "get_all_start_methods", lambda: ["spawn"])
    assert usable_workers(10_000, 500) == 0
    monkeypatch.setattr(mp, "get_all_start_methods", lambda: ["fork", "spawn"])
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert usable_workers(10_000, 500) == 0


@fork
def test_sarif_and_gitlab_written_by_workers_equal_those_made_here(tmp_path, monkeypatch, workers_seen):
    from gpubatch.analyze.report import FORMATS
    from tests.analyze.test_analyze import analyze
    from tests.analyze.test_report_stream import BAD

    files = {f"m{i}.py": BAD.replace("x", f"x{i}") + "\u00e9 = 1\n" * (i % 2) for i in range(12)}
    res = analyze(tmp_path / "src", files)
    assert len({f.path for f in res.findings}) == 12
    here = {name: FORMATS[name](res, tmp_path) for name in ("sarif", "gitlab")}
    monkeypatch.setattr(forkjoin, "usable_workers", lambda *args: 3)
    for name, text in here.items():
        assert FORMATS[name](res, tmp_path) == text, name
    assert len(workers_seen) == 6 and not _alive(workers_seen)


@fork
def test_output_buffered_before_the_workers_start_is_written_once(tmp_path):
    """A forked worker that flushed the stdout buffer it inherited would write it a second time (a report on
    stdout, the header already written): multiprocessing flushes before it forks, and this holds it to that."""
    import subprocess

    script = ("import sys\nfrom gpubatch.engine.forkjoin import joined\n"
              "sys.stdout.write('HEAD\\n')\n"
              "print(len(','.join(joined(str, list(range(600)), ',', workers=2))))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(forkjoin.__file__))))
    env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.splitlines() == ["HEAD", str(len(",".join(map(str, range(600)))))], out.stderr
