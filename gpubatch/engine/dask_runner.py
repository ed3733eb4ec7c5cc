"""The `dask` runner: batches as Dask tasks on a cluster (`engine/cluster.py` makes or reaches it), one worker
per GPU (or CPU process), a bounded window in flight, results in input order and stats merged, as the
`processes` runner does on one host.

A worker that dies mid-batch: Dask reschedules its tasks on the others; a batch whose task still fails is
submitted again up to `cluster.retries` times, then run on NumPy in this process (counted as a worker
re-run). A scheduler that goes away ends the run with `ClusterLost`. The first Ctrl-C stops the waiting:
batches done keep their results, the others are cancelled and run in this process.
"""
from __future__ import annotations

import logging
from collections import deque
from concurrent.futures import Future
from itertools import islice
from typing import Any, Callable, Iterable

from .backend import Selection, numpy_backend
from .batch import EngineSettings
from .cluster import (
    ClusterLost,
    _boot_worker,
    _quiet_cancelled,
    _require_dask,
    _task,
    _warm,
    connect,
    disconnect,
    in_thread,
    is_local,
    local_size,
    start_local,
    visible_gpus,
)
from .ops import BatchOp
from .procs import stop_requested
from .sizer import BatchSizer
from .stats import StatsCollector

STOP_CHECK_S = 0.25  # how often a wait for a batch looks whether the first Ctrl-C asked the run to stop


class DaskRunner:
    """Batches as Dask tasks, a bounded window in flight, yielded in input order."""

    name = "dask"

    def __init__(self, settings: EngineSettings, selection: Selection, stats: StatsCollector) -> None:
        self.settings, self.stats = settings, stats
        address = settings.cluster_address or "local"
        # a cluster made here reads this host's files; one at an address may be on other hosts
        self.workers_read_local_files = is_local(address)
        if self.workers_read_local_files:  # its workers start (spawn, imports, device) while the job loads
            _require_dask()
            gpus = visible_gpus() if selection.kind == "cupy" else []
            self._n: int | None = local_size(address, gpus, settings.cluster_workers)
            self._ready = in_thread(self._start_local, self._n, gpus)
        else:  # reached now: an address with no scheduler is a usage error before any work
            self._n = None
            self._ready = in_thread(self._boot, *connect(address, selection))
        self.notify: Callable[[str], None] = lambda text: None
        self.stopped_busy = False

    def _start_local(self, n: int, gpus: list[str]) -> tuple[Any, Any]:
        return self._boot(*start_local(n, gpus))

    def _boot(self, client: Any, cluster: Any) -> tuple[Any, Any]:
        """Each worker's backend made now (its device context), not at the run's first batch."""
        try:
            client.run(_boot_worker, self.settings)
        except Exception:  # noqa: BLE001 - a worker that cannot boot fails at its first batch, as before
            pass
        return client, cluster

    @property
    def client(self) -> Any:
        return self._ready.result()[0]

    @property
    def cluster(self) -> Any:
        return self._ready.result()[1]

    @property
    def width(self) -> int:
        if self._n is not None:  # a local cluster has the workers it was asked for
            return self._n
        return max(1, len(self.client.scheduler_info()["workers"]))

    def warm(self, op: BatchOp, work: float | None = None) -> None:
        self._guard(lambda: self.client.run(_warm, op, self.settings))

    def run(self, op: BatchOp, items: Iterable[Any], sizer: BatchSizer) -> Any:
        import cloudpickle

        from .runners import cut_batches

        job = cloudpickle.dumps((op, self.settings))  # once a run, not once a batch
        window = max(16 * self.width, self.settings.prefetch)  # batches in flight: small ones need many
        batches = cut_batches(items, sizer.next_size)
        pending: deque[tuple[list[Any], Future]] = deque()
        more = True
        while more or pending:
            if stop_requested():
                break
            if more and len(pending) <= window // 2:  # top up in one message: the scheduler takes a graph of many
                new = list(islice(batches, window - len(pending)))
                more = bool(new)
                if new:
                    pending.extend(zip(new, self._guard(
                        lambda: self.client.map(_task, [job] * len(new), new, pure=False))))
            if pending:
                if not self._wait_oldest(pending):
                    break
                yield from self._collect(op, job, sizer, pending)
        else:
            return
        yield from self._stopped(op, job, sizer, pending, batches)  # the first Ctrl-C came

    def _wait_oldest(self, pending: deque) -> bool:
        """Wait for the oldest batch in slices; False as soon as the first Ctrl-C asks the run to stop (Dask's
        workers do not hear it: the batches they hold would otherwise run to their end)."""
        from distributed import wait

        oldest = pending[0][1]
        while True:
            try:
                self._guard(lambda: wait([oldest], timeout=STOP_CHECK_S))
                return True
            except ClusterLost:
                raise
            except TimeoutError:
                if stop_requested():
                    return False

    def _stopped(self, op: BatchOp, job: bytes, sizer: BatchSizer, pending: deque,
                 batches: Iterable[list[Any]]) -> Iterable[tuple[list, list]]:
        """After the first Ctrl-C, in input order: batches already done keep their results; the others are
        cancelled on the cluster and run here, where the job sees the stop at once (a search ends as at a
        budget, a battery runs no further line)."""
        open_ = [fut for _, fut in pending if fut.status != "finished"]
        if open_:
            self.stopped_busy = True  # its workers may still be inside a cancelled batch
            try:
                self.client.run(_quiet_cancelled)
                self.client.cancel(open_)
            except Exception:  # noqa: BLE001, S110 - a cluster going away: the batches run here regardless
                pass
        for batch, fut in pending:
            if fut.status == "finished":
                yield self._finish(op, job, sizer, batch, fut, None)
            else:
                yield self._take(sizer, batch, self._here(op, batch))
        pending.clear()
        for batch in batches:
            yield self._take(sizer, batch, self._here(op, batch))

    def _here(self, op: BatchOp, batch: list[Any]) -> tuple:
        """A batch run in this process on NumPy, as a worker reports it."""
        from .runners import _run_here

        cpu = numpy_backend()
        return _run_here(op, batch, cpu, cpu, self.settings)

    def _submit(self, job: bytes, batch: list[Any]):
        return self._guard(lambda: self.client.submit(_task, job, batch, pure=False))

    def _collect(self, op: BatchOp, job: bytes, sizer: BatchSizer, pending: deque) -> Iterable[tuple[list, list]]:
        """Wait for the oldest batch, then take it and every later one already done, in order; the finished
        ones' results come back in one gather (a round trip per batch is what made small tasks slow)."""
        from distributed import wait

        self._guard(lambda: wait([pending[0][1]]))
        done = [pending.popleft()]
        while pending and pending[0][1].done():
            done.append(pending.popleft())
        finished = [fut for _, fut in done if fut.status == "finished"]
        got = self._guard(lambda: self.client.gather(finished, errors="skip"))
        outs = dict(zip(finished, got)) if len(got) == len(finished) else {}  # one lost meanwhile: one by one
        for batch, fut in done:
            yield self._finish(op, job, sizer, batch, fut, outs.get(fut))

    def _finish(self, op: BatchOp, job: bytes, sizer: BatchSizer, batch: list[Any], fut, out) -> tuple[list, list]:
        for attempt in range(self.settings.cluster_retries + 1 if out is None else 0):
            try:
                out = self._guard(fut.result)
                break
            except ClusterLost:
                raise
            except Exception:  # noqa: BLE001 - a worker died under this batch (KilledWorker) or its task broke
                self.stats.for_op(op.name, "cpu").worker_restarts += 1
                if attempt < self.settings.cluster_retries:
                    fut = self._submit(job, batch)
        if out is None:  # every try failed: NumPy here, as the processes runner does
            out = self._here(op, batch)
        return self._take(sizer, batch, out)

    def _take(self, sizer: BatchSizer, batch: list[Any], out: tuple) -> tuple[list, list]:
        """A batch's results, its stats merged and its time told to the sizer."""
        results, stats, seconds, oom, _ = out
        self.stats.merge(stats)
        if oom:
            sizer.on_oom(len(batch))
        sizer.observe(len(batch), seconds)
        return batch, results

    def _guard(self, call: Callable[[], Any]) -> Any:
        """Run a client call; a scheduler that is gone becomes ClusterLost."""
        if self.client.status in ("closed", "closing", "failed"):
            raise ClusterLost("the Dask scheduler went away")
        try:
            return call()
        except (OSError, TimeoutError) as exc:
            if self.client.status != "running" or "scheduler" in str(exc).lower():
                raise ClusterLost(f"lost the Dask scheduler: {exc}") from None
            raise

    def close(self, failed: bool = False) -> None:
        """Close the client and a cluster made here, once its start (perhaps still in flight) has ended."""
        try:
            client, cluster = self._ready.result()
        except Exception:  # noqa: BLE001 - a start that failed left nothing to close
            return
        nanny = logging.getLogger("distributed.nanny")
        level = nanny.level
        if self.stopped_busy:  # a worker inside a cancelled batch cannot stop: its nanny kills it after 4 s,
            nanny.setLevel(logging.ERROR)  # which is expected here, not worth a warning
        try:
            disconnect(client, cluster)
        finally:
            nanny.setLevel(level)
