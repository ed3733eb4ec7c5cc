"""The `dask` runner: batches as Dask tasks on a cluster, one worker per GPU (or CPU process), results in input
order and stats merged, as the `processes` runner does on one host.

`cluster.address` picks the cluster: `tcp://host:8786` (a running scheduler: `dask scheduler`, then
`dask cuda worker tcp://host:8786` on each GPU host) or `local:N` (a `LocalCluster` of N one-thread worker
processes made here; `dask_cuda.LocalCUDACluster`, one worker per visible GPU, when the run is on GPUs and
dask-cuda is installed). Dask is imported only here, only when asked for (`pip install 'gpubatch[cluster]'`).

A worker that dies mid-batch: Dask reschedules its tasks on the others; a batch whose task still fails is
submitted again up to `cluster.retries` times, then run on NumPy in this process (counted as a worker
re-run). A scheduler that goes away ends the run with `ClusterLost` (exit 1, one line, no output files).
"""
from __future__ import annotations

from collections import deque
from concurrent.futures import Future
from typing import Any, Callable, Iterable

from .backend import Backend, Selection, numpy_backend
from .batch import EngineSettings
from .ops import BatchOp
from .sizer import BatchSizer
from .stats import StatsCollector


class ClusterLost(Exception):
    """The Dask scheduler went away mid-run: the run cannot go on (exit 1)."""


class ClusterUnavailable(Exception):
    """No cluster to start with: Dask not installed, or no scheduler at the address (exit 2)."""


CONNECT_TIMEOUT = "5s"  # to reach a scheduler at start
_WORKER: dict[str, Backend] = {}  # in each Dask worker process: its backend, made at its first batch


def _worker_backends(settings: EngineSettings) -> tuple[Backend, Backend]:
    """This worker's backend: each worker picks its own device (a remote host's GPU is not the client's)."""
    if "backend" not in _WORKER:
        from .backend import select_device

        selection = select_device(settings.device, settings.enabled, 1)
        _WORKER["backend"] = selection.make(0, settings.cache_size, settings.max_fraction)
    return _WORKER["backend"], numpy_backend()


def _task(op: BatchOp, items: list[Any], settings: EngineSettings) -> tuple:
    """One batch on this worker: results, stats, seconds, OOM, free memory (as `processes` workers report)."""
    from .runners import _run_here

    backend, cpu = _worker_backends(settings)
    results, stats, seconds, oom, free = _run_here(op, items, backend, cpu, settings)
    return results, _per_worker(stats), seconds, oom, free


def _per_worker(stats: StatsCollector) -> StatsCollector:
    """The batch's stats with each device named after its worker (`cuda:0@hostB-1`): merged per worker."""
    from distributed import get_worker

    me = get_worker()
    host = me.address.split("://")[-1].rsplit(":", 1)[0]
    tag = f"{host}-{me.name}" if host not in ("127.0.0.1", "localhost") else f"worker-{me.name}"
    for key, st in list(stats.ops.items()):
        del stats.ops[key]
        st.device = f"{st.device}@{tag}"
        stats.ops[(key[0], st.device)] = st
    return stats


def _warm(op: BatchOp, settings: EngineSettings) -> None:
    if op.warm is not None:
        op.warm(_worker_backends(settings)[0])


def connect(address: str, selection: Selection, workers: int = 0) -> tuple[Any, Any]:
    """A Dask client for `address` ("local:N" makes a local cluster, closed with the client), and the cluster."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterUnavailable("--cluster needs Dask: pip install 'gpubatch[cluster]'") from None
    if address.startswith("local"):
        n = int(address.partition(":")[2] or workers or (len(selection.gpus) if selection.gpus else 2))
        cluster = None
        if selection.kind == "cupy":
            try:
                from dask_cuda import LocalCUDACluster

                cluster = LocalCUDACluster(n_workers=n, threads_per_worker=1, dashboard_address=None)
            except ImportError:
                pass
        if cluster is None:
            import dask

            # a task whose worker dies comes back to us at once (KilledWorker): cluster.retries decides
            with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None)
        return Client(cluster), cluster
    try:
        return Client(address, timeout=CONNECT_TIMEOUT), None
    except (OSError, TimeoutError) as exc:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from None


class DaskRunner:
    """Batches as Dask tasks, a bounded window in flight, yielded in input order."""

    name = "dask"

    def __init__(self, settings: EngineSettings, selection: Selection, stats: StatsCollector) -> None:
        self.settings, self.selection, self.stats = settings, selection, stats
        self.client, self.cluster = connect(settings.cluster_address or "local", selection, settings.cluster_workers)
        self.workers = max(1, len(self.client.scheduler_info()["workers"]))
        self.notify: Callable[[str], None] = lambda text: None

    @property
    def width(self) -> int:
        return self.workers

    def warm(self, op: BatchOp, work: float | None = None) -> None:
        self._guard(lambda: self.client.run(_warm, op, self.settings))

    def run(self, op: BatchOp, items: Iterable[Any], sizer: BatchSizer) -> Any:
        from .runners import cut_batches

        window = max(2 * self.workers, self.settings.prefetch)
        pending: deque[tuple[list[Any], Future]] = deque()
        for batch in cut_batches(items, sizer.next_size):
            pending.append((batch, self._submit(op, batch)))
            if len(pending) >= window:
                yield self._finish(op, sizer, *pending.popleft())
        while pending:
            yield self._finish(op, sizer, *pending.popleft())

    def _submit(self, op: BatchOp, batch: list[Any]):
        return self._guard(lambda: self.client.submit(_task, op, batch, self.settings, pure=False))

    def _finish(self, op: BatchOp, sizer: BatchSizer, batch: list[Any], fut) -> tuple[list, list]:
        out = None
        for attempt in range(self.settings.cluster_retries + 1):
            try:
                out = self._guard(fut.result)
                break
            except ClusterLost:
                raise
            except Exception:  # noqa: BLE001 - a worker died under this batch (KilledWorker) or its task broke
                self.stats.for_op(op.name, "cpu").worker_restarts += 1
                if attempt < self.settings.cluster_retries:
                    fut = self._submit(op, batch)
        if out is None:  # every try failed: NumPy here, as the processes runner does
            from .runners import _run_here

            cpu = numpy_backend()
            out = _run_here(op, batch, cpu, cpu, self.settings)
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
        for thing in (self.client, self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing a cluster that is already gone
                    pass
