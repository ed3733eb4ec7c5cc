"""The parser processes of a cold analyze run, replaced as they go, a group at a time.

A parser's memory grows with every large file it has parsed: CPython's object allocator keeps each 1 MB arena
that a few surviving objects pin (+18 MB after 300 files of the stdlib; 16 parsers held 0.62 GB at the end of a
25k-file run against 0.38 GB at its start). So each parser takes `rotate` chunks, then its group's pool is
shut down (its workers finish what they were given and exit) and a fresh pool takes its place, forked from a
small server process (multiprocessing's `forkserver`, started half-way to the first replacement, which imports
the parse module once). A replacement never runs beside the pool it replaces, or their memory would add up;
the parsers are in two groups replaced in turn, so half of them always work. The replacements still cost time:
a 25k-file cold run on 16 cores took 25.5-29.7 s against 22.4-27.2 s without them (H100 box, 2026-11-27), for
0.77-0.80 GB of peak memory against 0.93 GB. The first pools are forked from this process: a small run waits for
no server.
"""
from __future__ import annotations

import gc
import threading
from concurrent.futures import Future
from typing import Any, Callable

from ..engine.procs import close_pool, end_processes, start_forkserver, worker_pool


def _pool(size: int, preload: str, first: bool):
    """A pool forked from this process (`first`) or from the fork server; each worker freezes what it inherited,
    so its collector never touches (and copies) those pages."""
    return worker_pool(size, initializer=gc.freeze, method=None if first else "forkserver", preload=(preload,))


class _Successor:
    """A group's next pool, made in the background: once the old pool's workers have exited, the new one starts
    its workers (a fork server's fork each, off the thread that takes in results). `ready` is set after."""

    def __init__(self, old, size: int, preload: str) -> None:
        self.old = old
        self.pool = None
        self.ready = threading.Event()
        threading.Thread(target=self._run, args=(old, size, preload), daemon=True,
                         name="gpubatch-next-parsers").start()

    def _run(self, old, size: int, preload: str) -> None:
        try:
            old.shutdown(wait=True)
            self.pool = _pool(size, preload, first=False)
            for _ in range(size):  # each submission to a pool without an idle worker starts one
                self.pool.submit(int)
        finally:
            self.ready.set()


GROUPS = 2  # groups of parsers, replaced in turn (each of at least 2 parsers)


class Parsers:
    """`jobs` parser processes in `GROUPS` groups, each replaced after `rotate` chunks a worker."""

    def __init__(self, jobs: int, rotate: int, preload: str) -> None:
        groups = max(1, min(GROUPS, jobs // 2))
        self.sizes = [jobs // groups + (i < jobs % groups) for i in range(groups)]
        self.quota = [rotate * s for s in self.sizes]
        self.taken = [i * q // groups for i, q in enumerate(self.quota)]  # staggered: one group at a time
        self.preload = preload
        self.pools = [_pool(s, preload, first=True) for s in self.sizes]
        self.made = list(self.pools)  # every pool, closed at the end
        self.next: list[_Successor | None] = [None] * groups
        self.turn = 0
        self.submitted = 0
        self.server = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future | None:
        """Submit to the next group not being replaced; None while every group is (take results meanwhile)."""
        self._swap(wait=False)
        for k in range(len(self.pools)):
            i = (self.turn + k) % len(self.pools)
            if self.next[i] is not None:
                continue
            if self.taken[i] >= self.quota[i]:
                self.next[i] = _Successor(self.pools[i], self.sizes[i], self.preload)
                continue
            self.turn, self.taken[i] = i + 1, self.taken[i] + 1
            self.submitted += 1
            if not self.server and self.submitted >= min(self.quota) // 2:
                self.server = True
                start_forkserver((self.preload,))
            return self.pools[i].submit(fn, *args)
        return None

    def wait(self) -> None:
        """Block until a group's next pool is ready (every group was being replaced, with nothing to take)."""
        self._swap(wait=True)

    def _swap(self, wait: bool) -> None:
        for i, nxt in enumerate(self.next):
            if nxt is not None and (wait or nxt.ready.is_set()):
                nxt.ready.wait()
                self.pools[i] = nxt.pool or _pool(self.sizes[i], self.preload, first=False)
                self.made.append(self.pools[i])
                self.next[i], self.taken[i] = None, 0
                wait = False

    def close(self, failed: bool) -> None:
        """End every pool: after a clean run, once their work is done; after a failure, at once. A pool being
        replaced is shut down by its successor's thread, so that thread is waited for first (after a failure, the
        old workers are ended so it need not wait for their work): two shutdowns of one pool at once both close
        its result pipe, and the second fails (EBADF)."""
        for nxt in self.next:
            if nxt is None:
                continue
            if failed:
                end_processes(list((getattr(nxt.old, "_processes", None) or {}).values()))
            nxt.ready.wait()
            if nxt.pool is not None:
                self.made.append(nxt.pool)
        self.next = [None] * len(self.next)
        for pool in self.made:
            close_pool(pool, failed)
