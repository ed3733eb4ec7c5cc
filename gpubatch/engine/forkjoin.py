"""Records encoded by forked copies of this process: a large report's per-item text (the SARIF result and
GitLab issue of every finding) is pure-Python work that one core does after the analysis, while the
cores that parsed sit idle. Forked workers inherit the items (nothing is pickled on the way in), each encodes
a slice, and the slices come back in order, as text, through a bounded window, so at most a few slices wait in
this process. The text is the same as `sep.join(map(fn, items))` made here: where fork is missing or unsafe
(CuPy imported in this process: a process that touched CUDA must not fork; another thread running), the work
is small, or a worker fails, the slices are made in this process instead, and nothing is lost."""
from __future__ import annotations

import gc
import itertools
import multiprocessing as mp
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence

from .procs import close_pool, end_processes, wait_result, worker_pool

_JOB: tuple[Callable, Sequence, str] | None = None  # what a pool's workers inherit at fork
MAX_WORKERS = 16
SLICES_PER_WORKER = 8  # a worker that finishes early takes another; each small, so what waits here is small
WINDOW_PER_WORKER = 2  # slices submitted ahead of the one being written, per worker


def _worker() -> None:
    """A worker's start: no cyclic collection, whose passes would write to every inherited object's header and
    so copy the whole parent (encoding makes no cycles, and the worker ends with the job)."""
    gc.disable()


def _encode(lo: int, hi: int) -> str:
    fn, items, sep = _JOB  # type: ignore[misc]
    return sep.join(map(fn, items[lo:hi]))


def usable_workers(items: int, min_items: int, most: int = MAX_WORKERS) -> int:
    """How many forked workers `items` records are worth (0: encode here): one per `min_items` records, at most
    the cores this process may use and `most`; none without fork, once CuPy is imported, or while another
    thread runs (a lock it holds at the fork would stay held in the worker: a library caller's threads; the
    CLI renders with its main thread alone)."""
    if "fork" not in mp.get_all_start_methods() or "cupy" in sys.modules or threading.active_count() > 1:
        return 0
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    n = min(cores, most, items // max(1, min_items))
    return n if n >= 2 else 0


def _bounds(n: int, parts: int) -> list[tuple[int, int]]:
    cuts = [n * i // parts for i in range(parts + 1)]
    return [(lo, hi) for lo, hi in zip(cuts, cuts[1:]) if hi > lo]


def joined(fn: Callable[[object], str], items: Sequence, sep: str, min_items: int = 500,
           most: int = MAX_WORKERS, workers: int | None = None) -> Iterator[str]:
    """`sep.join(map(fn, items))`, in order, as pieces to be joined by `sep` (one per record here, one per
    slice of records from forked workers, at most `most`, where `usable_workers` allows). `fn` must depend only
    on the item and on state that a fork carries (module memos are rebuilt per worker). Each worker's memory
    grows by the pages of this process it writes to, its allocations' too (a freed block's page is copied
    when reused), so `most` bounds what the workers add to the peak. Empty `items` yield nothing."""
    global _JOB
    n = len(items)
    workers = usable_workers(n, min_items, most) if workers is None else workers
    if workers < 2 or _JOB is not None:  # nested use encodes here: one pool's job at a time
        yield from map(fn, items)
        return
    bounds = _bounds(n, workers * SLICES_PER_WORKER)
    _JOB = (fn, items, sep)
    try:
        pool = worker_pool(workers, _worker, method="fork")
    except (OSError, ValueError):
        _JOB = None
        yield from map(fn, items)
        return
    failed, procs = True, []
    try:
        pending: deque = deque()
        todo = iter(bounds)
        broken = False

        def submit(lo: int, hi: int) -> None:
            nonlocal broken
            fut = None
            if not broken:
                try:
                    fut = pool.submit(_encode, lo, hi)
                except Exception:  # noqa: BLE001 - a broken pool: the rest is made here
                    broken = True
            pending.append(((lo, hi), fut))

        for lo, hi in itertools.islice(todo, workers * WINDOW_PER_WORKER):
            submit(lo, hi)
        procs = list((getattr(pool, "_processes", None) or {}).values())  # forked at the first submit
        while pending:
            (lo, hi), fut = pending.popleft()
            text = None
            if fut is not None and not broken:
                try:
                    text = wait_result(fut)
                except Exception:  # noqa: BLE001 - a lost or failed worker: this slice is made here, as the rest
                    broken = True
            yield _encode(lo, hi) if text is None else text
            nxt = next(todo, None)
            if nxt is not None:
                submit(*nxt)
        failed = broken
    finally:
        _JOB = None
        close_pool(pool, failed)
        if failed:  # a broken pool forgets its workers: these are ended and reaped all the same
            end_processes(procs)
