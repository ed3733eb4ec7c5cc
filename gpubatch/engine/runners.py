"""Runners: how batches reach devices. One interface, chosen by name.

- `sync`: plain synchronous NumPy in the calling thread, for debugging;
- `local`: the selected backend in this process, host `prepare` work overlapped in a bounded thread pool;
- `processes`: one spawned worker per GPU (`CUDA_VISIBLE_DEVICES` set per worker) or per CPU worker;
- `dask`: batches as Dask tasks on a cluster of many hosts (`engine/dask_runner.py`).
Each yields `(items, results)` per batch, in input order. The shared test suite runs every runner.
"""
from __future__ import annotations

import itertools
import os
import pickle
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator

from .backend import (
    Backend,
    DeviceUnavailable,
    Selection,
    first_line,
    numpy_backend,
    select_device,
)
from .batch import EngineSettings, run_batch
from .dispatch import Dispatcher
from .ops import BatchOp
from .procs import close_pool, close_pools, lost_worker, wait_result, worker_pool
from .sizer import BatchSizer
from .stats import StatsCollector

Batches = Iterator[tuple[list[Any], list[Any]]]


def cut_batches(items: Iterable[Any], next_size: Callable[[], int]) -> Iterator[list[Any]]:
    """Stream `items` into lists whose sizes are asked for one batch at a time; never reads ahead more.
    A `range` is cut into sub-ranges (no per-item work), for ops that index device data by position."""
    if isinstance(items, range):
        start = 0
        while start < len(items):
            n = next_size()
            yield items[start:start + n]  # type: ignore[misc]
            start += n
        return
    it = iter(items)
    while True:
        batch = list(itertools.islice(it, next_size()))
        if not batch:
            return
        yield batch


class SyncRunner:
    """Everything in the calling thread on NumPy: the reference behaviour."""

    name = "sync"
    workers_read_local_files = False  # batches run in this process (see ProcessRunner)
    width = 1  # batches that run at once: one piece of work per unit (run-batt deals its tasks so)

    def __init__(self, settings: EngineSettings, selection: Selection, stats: StatsCollector) -> None:
        self.settings, self.stats = settings, stats
        self.backend = numpy_backend()

    def warm(self, op: BatchOp, work: float | None = None) -> None:
        if op.warm is not None:
            op.warm(self.backend)

    def run(self, op: BatchOp, items: Iterable[Any], sizer: BatchSizer) -> Batches:
        for batch in cut_batches(items, sizer.next_size):
            out = run_batch(op, batch, self.backend, self.backend, self.settings, self.stats)
            if out.oom:
                sizer.on_oom(len(batch))
            sizer.observe(len(batch), out.seconds)
            yield batch, out.results

    def close(self, failed: bool = False) -> None:
        pass


class LocalRunner(SyncRunner):
    """The selected device in this process; `op.prepare` runs ahead in a bounded thread pool. On `auto` the
    dispatcher picks NumPy or the GPU per batch, and the GPU is started at its first batch."""

    name = "local"

    def __init__(self, settings: EngineSettings, selection: Selection, stats: StatsCollector) -> None:
        super().__init__(settings, selection, stats)
        self.cpu = self.backend
        self.notify: Callable[[str], None] = lambda text: None
        self.dispatch = Dispatcher(settings.cpu_threshold) if selection.kind == "auto" else None
        self.gpu: Backend | None = None
        if selection.kind == "cupy":
            self.gpu = self.backend = self._make(selection)
        self.warmed: set[tuple[str, bool]] = set()
        self.used: set[str] = set()
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="gpubatch-prefetch")

    def _make(self, selection: Selection) -> Backend:
        return selection.make(0, self.settings.cache_size, self.settings.max_fraction)

    def warm(self, op: BatchOp, work: float | None = None) -> None:
        """Ready the device for `op`; on `auto`, the GPU is started now only if `work` (the job's whole work of
        this op, when known) is work the dispatcher gives it."""
        if self.dispatch is None:
            self._warm(op, self.backend)
            return
        self.dispatch.expect(op, work)
        if work is not None and self.dispatch.choose(op, work).gpu:
            self._start_gpu(op)

    def _warm(self, op: BatchOp, backend: Backend) -> None:
        if (op.name, backend.is_gpu) not in self.warmed:
            self.warmed.add((op.name, backend.is_gpu))
            if op.warm is not None:
                op.warm(backend)

    def _start_gpu(self, op: BatchOp) -> Backend | None:
        """Probe and start the GPU at its first use (CuPy import, context, the op's kernels), timed: the
        dispatcher weighs that start-up against NumPy for the work left."""
        t0 = time.perf_counter()
        gpu, reason = self._open_gpu()
        if gpu is None:
            self.dispatch.gpu_unusable()
            self.notify(f"running on the CPU (NumPy): {reason}")
            return None
        self.gpu = self.backend = gpu
        self._warm(op, self.gpu)
        seconds = time.perf_counter() - t0
        self.dispatch.gpu_started(seconds)
        self.stats.gpu_startup_s += seconds
        return self.gpu

    def _open_gpu(self) -> tuple[Backend | None, str | None]:
        """Probe CUDA and make the GPU backend; (None, why) when no GPU is usable."""
        selection = select_device("auto", self.settings.enabled, 1)
        return (self._make(selection), None) if selection.kind == "cupy" else (None, selection.reason)

    def _device(self, op: BatchOp, batch: list[Any]) -> tuple[Backend, str | None, float]:
        """The backend for this batch, the reason when dispatch sent it to NumPy, and its work."""
        if self.dispatch is None:
            return self.backend, None, 0.0
        work = float(op.work(batch))
        choice = self.dispatch.choose(op, work)
        if not choice.gpu:
            return self.cpu, choice.reason, work
        gpu = self.gpu or self._start_gpu(op)
        if gpu is None:
            return self.cpu, None, work
        self._warm(op, gpu)
        return gpu, None, work

    def run(self, op: BatchOp, items: Iterable[Any], sizer: BatchSizer) -> Batches:
        def next_size() -> int:  # free memory matters only to a sizer that can move
            return sizer.next_size(self.backend.free_memory() if sizer.dynamic else None)

        if op.prepare is None:  # nothing to overlap: no thread hand-off per batch
            for batch in cut_batches(items, next_size):
                yield self._finish(op, sizer, batch, None)
            return
        prepare = op.prepare
        ahead = min(self.settings.prefetch, op.prefetch or self.settings.prefetch)
        pending: deque[tuple[list[Any], Future]] = deque()
        for batch in cut_batches(items, next_size):
            pending.append((batch, self.pool.submit(prepare, batch)))
            if len(pending) >= ahead:
                yield self._finish(op, sizer, *pending.popleft())
        while pending:
            yield self._finish(op, sizer, *pending.popleft())

    def _finish(self, op: BatchOp, sizer: BatchSizer, batch: list[Any], fut: Future | None) -> tuple[list, list]:
        backend, reason, work = self._device(op, batch)
        learning = sizer.learning or (self.dispatch is not None and self.dispatch.learning(op))
        out = run_batch(op, batch, backend, self.cpu, self.settings, self.stats,
                        fut.result() if fut is not None else None, sync=learning, dispatched=reason,
                        work=work if self.dispatch is not None else None)
        self.used.add(backend.name)
        if self.dispatch is not None:
            self.dispatch.observe(op, backend.is_gpu, work, out.seconds)
        if out.oom:
            sizer.on_oom(len(batch))
        sizer.observe(len(batch), out.seconds, out.bytes_used)
        return batch, out.results

    def close(self, failed: bool = False) -> None:
        self.pool.shutdown(wait=not failed, cancel_futures=failed)


# -- worker processes ---------------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _worker_init(selection: Selection, settings: EngineSettings, worker: int) -> None:
    """Runs first in each spawned worker: pin it to its GPU before anything imports cupy, and make that GPU's
    context (the parent probed its GPUs without one). A GPU that cannot be used leaves this worker on NumPy,
    with the reason kept for the parent to say (results are the same on every device)."""
    started = time.time()  # the interpreter is up and gpubatch imported (benchmarks/worker_start.py reads it)
    backend, unusable = numpy_backend(), None
    if selection.kind == "cupy":
        gpu = selection.gpus[worker % len(selection.gpus)]
        os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu.index)
        try:
            from .backend import cupy_backend

            backend = cupy_backend(0, settings.cache_size, max_fraction=settings.max_fraction)
            backend.xp.zeros(1, dtype=backend.xp.uint8) + 1  # the context, an allocation and a launch
            backend.label_index = gpu.index
        except Exception as exc:  # CuPy missing or broken, the device busy, lost or out of memory
            backend, unusable = numpy_backend(), f"cuda:{gpu.index} is not usable ({first_line(exc)})"
    _WORKER.update(backend=backend, cpu=numpy_backend(), settings=settings, started_at=started,
                   ready_at=time.time(), unusable=unusable)


def _worker_boot() -> None:
    """Nothing: submitted at once, it makes the pool spawn its worker, whose initializer does the work."""


def _worker_op(token: int, pickled: bytes | None) -> BatchOp:
    """The op a batch names: the op itself, pickled, the first time this worker is sent it (kept here, under
    `token`), then only its token, so that an op holding much (a battery's solvers) is not unpickled again with
    every batch. The parent pickles it once for all its workers."""
    ops = _WORKER.setdefault("ops", {})
    if pickled is not None:
        ops[token] = pickle.loads(pickled)  # noqa: S301 - from the parent process, as every call of the pool is
    return ops[token]


def _worker_warm(token: int, pickled: bytes | None) -> str | None:
    """Warm the op on this worker's device (and keep it for the batches); returns why its GPU is not used, if
    it is not."""
    op = _worker_op(token, pickled)
    t0 = time.perf_counter()
    if op.warm is not None:
        op.warm(_WORKER["backend"])
    _WORKER["warm_s"] = time.perf_counter() - t0  # with `ready_at`, read by benchmarks/worker_start.py
    return _WORKER.get("unusable")


def _run_here(op: BatchOp, items: list[Any], backend: Backend, cpu: Backend, settings: EngineSettings
              ) -> tuple[list[Any], StatsCollector, float, bool, int | None]:
    """One batch with its own stats, as a worker reports it: results, stats, seconds, OOM, free memory."""
    stats = StatsCollector()
    out = run_batch(op, items, backend, cpu, settings, stats)
    stats.resolve()
    return out.results, stats, out.seconds, out.oom, backend.free_memory()


def _worker_run(token: int, pickled: bytes | None, items: list[Any]
                ) -> tuple[list[Any], StatsCollector, float, bool, int | None]:
    return _run_here(_worker_op(token, pickled), items, _WORKER["backend"], _WORKER["cpu"], _WORKER["settings"])


QUEUED = 2  # batches a worker process holds at once: one running, one ready to start
RUN_AHEAD = 8  # batches a worker may finish ahead of the oldest one still running (results held here),
# counted in items at the size of the largest batch so far: smaller batches done behind a long one fill it later


class ProcessRunner:
    """One spawned process per worker; a batch goes to a worker with room for it, results come back in order."""

    name = "processes"
    # its workers are other processes that read this host's files: a job may hand them paths, not contents
    workers_read_local_files = True

    def __init__(self, settings: EngineSettings, selection: Selection, stats: StatsCollector) -> None:
        self.settings, self.stats = settings, stats
        n = len(selection.gpus) if selection.kind == "cupy" else settings.count
        self._initargs = [(selection, settings, i) for i in range(n)]
        self.workers = [worker_pool(1, _worker_init, args) for args in self._initargs]
        for pool in self.workers:  # spawned now: imports and device context while the job loads its work
            pool.submit(_worker_boot)
        self._replaced: dict[int, Any] = {}  # worker index -> its replacement pool (one replacement each)
        self._ops: list[tuple[BatchOp, bytes]] = []  # the ops run so far, pickled once: a token is an index here
        self._sent: list[set[int]] = [set() for _ in self.workers]  # per worker, the tokens of the ops it holds
        self.free: int | None = None
        self.notify: Callable[[str], None] = lambda text: None
        self._said: set[str] = set()  # what notify said already (warm runs once per op)

    @property
    def width(self) -> int:
        return len(self.workers)

    def warm(self, op: BatchOp, work: float | None = None) -> None:
        """Start every worker (spawn, imports, device context) and warm the op there, all at once. A worker that
        dies meanwhile is replaced once; if that one dies too, its batches will run on NumPy here. A worker whose
        GPU is unusable runs on NumPy and the run is told why; under `--device cuda` that is DeviceUnavailable."""
        for w, fut in enumerate([self._submit(w, _worker_warm, op) for w in range(len(self.workers))]):
            try:
                unusable = wait_result(fut)
            except BrokenProcessPool:
                self._replace(w)
                try:
                    unusable = wait_result(self._submit(w, _worker_warm, op))
                except BrokenProcessPool:
                    unusable = None
            if unusable and self.settings.device == "cuda":  # the GPUs were asked for: no quiet CPU run
                raise DeviceUnavailable(f"--device cuda, but {unusable}")
            if unusable and unusable not in self._said:
                self._said.add(unusable)
                self.notify(f"{unusable}: its worker runs on the CPU (NumPy)")

    def _replace(self, w: int) -> bool:
        """A fresh process for dead worker `w`, once per worker; False when it was replaced already."""
        if self._replaced.get(w) is self.workers[w]:
            return False
        close_pool(self.workers[w], failed=True)
        self.workers[w] = worker_pool(1, _worker_init, self._initargs[w])
        self._replaced[w] = self.workers[w]
        self._sent[w] = set()  # the fresh process holds no op yet
        return True

    def _submit(self, w: int, fn: Callable, op: BatchOp, *args: Any) -> Future:
        """`fn(token, op, *args)` on worker `w`, with the op (pickled once for all the workers) only if that
        worker was not sent it yet: a worker's calls run in the order they were submitted, so the first one has
        kept it for the next."""
        token = next((i for i, (o, _) in enumerate(self._ops) if o is op), len(self._ops))
        if token == len(self._ops):
            self._ops.append((op, pickle.dumps(op, pickle.HIGHEST_PROTOCOL)))
        first = token not in self._sent[w]
        self._sent[w].add(token)
        return self.workers[w].submit(fn, token, self._ops[token][1] if first else None, *args)

    def run(self, op: BatchOp, items: Iterable[Any], sizer: BatchSizer) -> Batches:
        """Each worker holds at most QUEUED batches not yet finished, and gets its next one as soon as it has
        room, whatever batch is oldest: a long batch on one worker does not leave the others idle behind it
        (results still come back in input order, held here up to `RUN_AHEAD` batches a worker). The window holds
        items, as many as that many batches of the largest size so far: where the batches are cut by cost (a
        battery's), the many small ones done behind one long batch do not stop the others' work."""
        window = max(RUN_AHEAD * len(self.workers), self.settings.prefetch)
        pending: deque[tuple[list[Any], int, Future]] = deque()
        batches = cut_batches(items, lambda: sizer.next_size(self.free))
        more, held, largest = True, 0, 1  # held: the items of the batches in `pending`

        def room() -> bool:
            return held < window * largest

        while more or pending:
            while more and room():
                w = self._roomiest(pending)
                if w is None:
                    break
                batch = next(batches, None)
                if batch is None:
                    more = False
                    break
                held, largest = held + len(batch), max(largest, len(batch))
                pending.append((batch, w, self._submit(w, _worker_run, op, batch)))
            if not pending:
                continue
            if pending[0][2].done():
                held -= len(pending[0][0])
                yield self._finish(sizer, *pending.popleft(), op)
                continue
            # wait for the oldest, or for any batch that frees a worker (short slices: signals still run)
            waiting = [f for _, _, f in pending if not f.done()] if more and room() else [pending[0][2]]
            futures_wait(waiting, timeout=0.2, return_when=FIRST_COMPLETED)
            if lost_worker(pending[0][2]):  # its worker died: taken now (re-run), even where its result is torn
                held -= len(pending[0][0])
                yield self._finish(sizer, *pending.popleft(), op)

    def _roomiest(self, pending: deque) -> int | None:
        """The worker with the fewest unfinished batches, if it has room for one more (else None)."""
        busy = [0] * len(self.workers)
        for _, w, fut in pending:
            if not fut.done():
                busy[w] += 1
        w = min(range(len(busy)), key=busy.__getitem__)
        return w if busy[w] < QUEUED else None

    def _finish(self, sizer: BatchSizer, batch: list[Any], w: int, fut: Future, op: BatchOp) -> tuple[list, list]:
        try:
            results, stats, seconds, oom, free = wait_result(fut)
        except BrokenProcessPool:  # the worker died (killed, OOM): a fresh one re-runs the batch, else NumPy here
            results, stats, seconds, oom, free = self._rerun(op, batch, w)
        self.stats.merge(stats)
        self.free = free
        if oom:
            sizer.on_oom(len(batch))
        sizer.observe(len(batch), seconds)
        return batch, results

    def _rerun(self, op: BatchOp, batch: list[Any], w: int) -> tuple:
        """Replace dead worker `w` and run `batch` there again; if that worker dies too, run it on NumPy in this
        process (the engine's results are the same on every device). Stats count the re-run."""
        self.stats.for_op(op.name, "cpu").worker_restarts += 1
        for _ in range(2):  # the worker may have been replaced by another batch's re-run already
            try:
                return wait_result(self._submit(w, _worker_run, op, batch))
            except BrokenProcessPool:
                if not self._replace(w):
                    break
        cpu = numpy_backend()
        return _run_here(op, batch, cpu, cpu, self.settings)

    def close(self, failed: bool = False) -> None:
        """Wait for the workers after a clean run; end them at once after an error, an interrupt or SIGTERM
        (a running piece is not waited for). The workers exit side by side."""
        close_pools(self.workers, failed)


from .dask_runner import DaskRunner  # noqa: E402 - after the runners it reuses the helpers of

RUNNERS: dict[str, type] = {r.name: r for r in (SyncRunner, LocalRunner, ProcessRunner, DaskRunner)}
