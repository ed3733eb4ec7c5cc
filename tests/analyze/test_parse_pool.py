"""The parser pool: files come back in order and equal to parsing them in this process, whatever the pool does
underneath; parsers are replaced after `ROTATE` chunks each, and a replacement pool never runs beside the one it
replaces (their memory would add up)."""
import threading
import time

import numpy as np
import pytest

import gpubatch.analyze.parse as parse
import gpubatch.analyze.parsers as parsers

SOURCES = ["def f(x):\n    return x + 1\n", "class A:\n    def m(self):\n        pass\n", "x = [1, 2]\n",
           "def g(:\n", "import os\nprint(os.sep)\n"]


def _tree(tmp_path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        p = tmp_path / f"m{i:03}.py"
        p.write_text(f"# {i}\n" + SOURCES[i % len(SOURCES)])
        paths.append(str(p))
    return paths


def _same(a, b) -> bool:
    if (a.path, a.sha, a.error, a.blocks, a.raw, a.node_count) != (b.path, b.sha, b.error, b.blocks, b.raw,
                                                                    b.node_count):
        return False
    return not a.node_count or np.array_equal(a.wide(), b.wide())


@pytest.mark.parametrize("jobs", [2, 4])  # one group of parsers; two, replaced in turn
def test_rotated_parsers_give_every_file_in_order(tmp_path, monkeypatch, jobs):
    paths = _tree(tmp_path, 40)
    here = list(parse.parsed(paths, 1, 1_000_000, None))
    ended = []

    class Checked(parsers._Successor):
        def __init__(self, old, size, preload):
            self.procs = list(old._processes.values())
            super().__init__(old, size, preload)

        def _run(self, old, size, preload):
            old.shutdown(wait=True)
            ended.append(not any(p.is_alive() for p in self.procs))  # the old workers exited first
            super()._run(old, size, preload)

    monkeypatch.setattr(parse, "ROTATE", 2)
    monkeypatch.setattr(parsers, "_Successor", Checked)
    pooled = list(parse.parsed(paths, jobs, 1_000_000, None, chunk=3))
    assert [f.path for f in pooled] == paths
    assert all(_same(a, b) for a, b in zip(pooled, here))
    assert sum(f.error is not None for f in pooled) == 8  # the broken source, every fifth file
    assert len(ended) >= 2 and all(ended)
    if jobs == 2:
        assert len(ended) == 3  # 14 chunks, 4 a pool (2 parsers x 2)


def _tracked(monkeypatch) -> list[list[int]]:
    """Every pool made from now on counts the shutdowns of it running at once (one list per pool)."""
    made, real = [], parsers._pool

    def tracked(size, preload, first):
        pool, lock, inside, seen = real(size, preload, first), threading.Lock(), [0], []
        shutdown = pool.shutdown

        def counted(*args, **kwargs):
            with lock:
                inside[0] += 1
                seen.append(inside[0])
            try:
                time.sleep(0.05)  # widen the window two callers would share
                return shutdown(*args, **kwargs)
            finally:
                with lock:
                    inside[0] -= 1

        pool.shutdown = counted
        made.append(seen)
        return pool

    monkeypatch.setattr(parsers, "_pool", tracked)
    return made


def _replacing(seconds: float) -> parsers.Parsers:
    """Parsers with a group being replaced while its old workers still sleep `seconds`."""
    pools = parsers.Parsers(4, 1, parse.__name__)
    while all(n is None for n in pools.next):
        pools.submit(time.sleep, seconds)
    return pools


@pytest.mark.parametrize("failed", [False, True])
def test_closing_never_shuts_a_pool_down_twice_at_once(monkeypatch, failed):
    made = _tracked(monkeypatch)
    pools = _replacing(30.0 if failed else 0.3)
    procs = [p for pool in pools.made for p in (pool._processes or {}).values()]
    start = time.monotonic()
    pools.close(failed)
    assert all(max(seen, default=1) == 1 for seen in made)  # the successor's shutdown, then (after it) close's
    assert not any(p.is_alive() for p in procs)
    if failed:
        assert time.monotonic() - start < 20  # the old workers were ended, not waited for
