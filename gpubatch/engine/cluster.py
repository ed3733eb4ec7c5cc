"""The `dask` runner: batches as Dask tasks on a cluster, one worker per GPU (or CPU process), results in input
order and stats merged, as the `processes` runner does on one host.

`cluster.address` picks the cluster: `tcp://host:8786` (a running scheduler: `dask scheduler`, then
`dask cuda worker tcp://host:8786` on each GPU host) or `local:N` (N one-thread worker processes made here;
on a GPU run each pinned to one GPU, by dask-cuda's `LocalCUDACluster` when it is installed). Dask is imported
only here, only when asked for (`pip install 'gpubatch[cluster]'`). A local cluster starts on a thread of
its own, and every worker makes its device's backend then: the job loads its work meanwhile, and the first
call that needs the cluster waits for it.

A worker that dies mid-batch: Dask reschedules its tasks on the others; a batch whose task still fails is
submitted again up to `cluster.retries` times, then run on NumPy in this process (counted as a worker
re-run). A scheduler that goes away ends the run with `ClusterLost` (exit 1, one line, no output files).
"""
from __future__ import annotations

import logging
import pickle
import threading
import time
from collections import deque
from concurrent.futures import Future
from itertools import islice
from typing import Any, Callable, Iterable

from .backend import Backend, Selection, numpy_backend
from .batch import EngineSettings
from .ops import BatchOp
from .procs import stop_requested
from .sizer import BatchSizer
from .stats import StatsCollector


class ClusterLost(Exception):
    """The Dask scheduler went away mid-run: the run cannot go on (exit 1)."""


class ClusterUnavailable(Exception):
    """No cluster to start with: Dask not installed, or no scheduler at the address (exit 2)."""


CONNECT_TIMEOUT = "5s"  # to reach a scheduler at start
LOCAL_CONFIG = {
    # a task whose worker dies comes back to us at once (KilledWorker): cluster.retries decides
    "distributed.scheduler.allowed-failures": 0,
    # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which turns off glibc's adaptive mmap
    # threshold: every NumPy temporary over 128 KiB is then mapped and unmapped, and run-batt's search ran at
    # half speed on CPU workers. Workers made here keep glibc's default, as `--gpus N` workers do.
    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
    # Dask's GPU diagnostics (NVML, for its dashboard): each scheduler, nanny and worker initialises NVML at
    # its start and then polls every GPU twice a second; gpubatch reads none of it (a local:1 cluster on one
    # H200 closed in 0.32-0.37 s without it, 0.49-0.51 s with it)
    "distributed.diagnostics.nvml": False,
    # Dask's own monitoring, which gpubatch reads none of: the statistical profiler (stacks sampled every
    # 10 ms), the event loop's tick (every 20 ms) and the system monitor (psutil every 0.5 s) share the worker's
    # interpreter with the batch. On CPU2 (120 evaluation tasks at depth 1, local:2, two sets of 5 runs in
    # turn) the search took 5.6-6.5 s and 5.6-6.9 s without them, against 5.7-8.1 s and 5.7-7.5 s with them
    # (`--gpus 2`: 5.2-6.8 s and 5.3-6.3 s).
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "10s",
}
# the scheduler's HTTP server on a free port, without the dashboard: with no address it takes 8787, and a
# second run on the host (or a user's own Dask dashboard there) printed "Port 8787 is already in use"
SCHEDULER_NO_DASHBOARD = {"dashboard_address": "127.0.0.1:0", "dashboard": False}
NO_DASHBOARD = {"dashboard_address": SCHEDULER_NO_DASHBOARD["dashboard_address"],  # a LocalCluster's arguments
                "scheduler_kwargs": {"dashboard": False}}
STOP_CHECK_S = 0.25  # how often a wait for a batch looks whether the first Ctrl-C asked the run to stop
_MAKING = threading.Lock()
_WORKER: dict[str, Any] = {}  # in each Dask worker process: its backends (made at its first batch), its last job


def _worker_backends(settings: EngineSettings) -> tuple[Backend, Backend]:
    """This worker's backend: each worker picks its own device (a remote host's GPU is not the client's)."""
    with _MAKING:  # the boot (Dask's event loop thread) and a first batch (a task thread) may both ask
        if "backend" not in _WORKER:
            _WORKER["started_at"] = time.time()  # benchmarks/worker_start.py reads it, and `ready_at`
            from .backend import select_device

            selection = select_device(settings.device, settings.enabled, 1)
            _WORKER["backend"] = selection.make(0, settings.cache_size, settings.max_fraction)
            _WORKER["cpu"] = numpy_backend()
            _WORKER["ready_at"] = time.time()
    return _WORKER["backend"], _WORKER["cpu"]


def _boot_worker(settings: EngineSettings) -> None:
    """`_worker_backends` at the cluster's start; returns nothing, so that no backend travels to the client."""
    _worker_backends(settings)


def _task(job: bytes, items: list[Any]) -> tuple:
    """One batch on this worker: results, stats, seconds, OOM, free memory (as `processes` workers report).
    `job` is the run's (op, settings), pickled once by the client and unpickled once per worker."""
    from .runners import _run_here

    op, settings = _job(job)
    backend, cpu = _worker_backends(settings)
    results, stats, seconds, oom, free = _run_here(op, items, backend, cpu, settings)
    return results, _per_worker(stats), seconds, oom, free


def _job(job: bytes) -> tuple[BatchOp, EngineSettings]:
    """The (op, settings) a pickled job names, unpickled at its first batch on this worker."""
    if _WORKER.get("job_bytes") != job:
        _WORKER.update(job_bytes=job, job=pickle.loads(job))
    return _WORKER["job"]


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
    backend = _worker_backends(settings)[0]
    t0 = time.perf_counter()
    if op.warm is not None:
        op.warm(backend)
    _WORKER["warm_s"] = time.perf_counter() - t0  # with `ready_at`, read by benchmarks/worker_start.py


def is_local(address: str) -> bool:
    """Whether `address` asks for a cluster made here ("local:N"), not a scheduler ("localhost:8786")."""
    return address.partition(":")[0] == "local"


def _require_dask() -> None:
    """Dask must be installed: looked up, not imported (a local cluster imports it on its own start thread,
    while the job loads its work)."""
    import importlib.util

    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        raise ClusterUnavailable("--cluster needs Dask: pip install 'gpubatch[cluster]'")


def local_size(address: str, gpus: list[str], workers: int = 0) -> int:
    """The workers of a local cluster: N of "local:N", else `cluster.workers`, else one per GPU, else 2."""
    return int(address.partition(":")[2] or workers or len(gpus) or 2)  # N checked by the config schema


def start_local(n: int, gpus: list[str]) -> tuple[Any, Any]:
    """A client of a new local cluster of `n` one-thread workers (on `gpus` when there are any)."""
    import dask
    from distributed import Client, LocalCluster

    # workers are spawned (Dask's default): forking them from this process saved about 1 s of CPU a worker
    # on 2 cores, but a fork while another thread (Dask's event loop, a test runner's) holds a lock can hang
    # the child, and a process that has touched CUDA must not fork at all. Forked from multiprocessing's fork
    # server instead, a local:1 cluster on one H200 closed in 0.08-0.11 s against 0.32-0.50 s, but its worker
    # began 3.3-4.8 s after the executor's making against 3.2-3.8 s (the server imports Dask, NumPy and pandas
    # first): no gain
    with dask.config.set(LOCAL_CONFIG):
        cluster = local_gpu_cluster(n, gpus) if gpus else LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, **NO_DASHBOARD)
    return Client(cluster), cluster


def connect(address: str, selection: Selection, workers: int = 0) -> tuple[Any, Any]:
    """A Dask client for `address` ("local:N" makes a local cluster, closed with the client), and the cluster."""
    _require_dask()
    if is_local(address):
        gpus = visible_gpus() if selection.kind == "cupy" else []
        return start_local(local_size(address, gpus, workers), gpus)
    from distributed import Client

    try:
        return Client(address, timeout=CONNECT_TIMEOUT), None
    except (OSError, TimeoutError) as exc:
        raise ClusterUnavailable(f"cannot reach the Dask scheduler at {address}: {exc}") from None
    except ValueError as exc:  # not an address at all ("x": no port)
        raise ClusterUnavailable(f"cluster address {address!r} is not a scheduler address "
                                 f"(tcp://host:8786 or local:N): {exc}") from None


def in_thread(fn: Callable[..., Any], *args: Any) -> Future:
    """`fn(*args)` on a thread of its own; its result (or exception) in the returned future."""
    fut: Future = Future()

    def body() -> None:
        try:
            fut.set_result(fn(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the result
            fut.set_exception(exc)
    threading.Thread(target=body, name="gpubatch-cluster-start", daemon=True).start()
    return fut


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as CUDA_VISIBLE_DEVICES names them for its children."""
    import os

    import cupy

    names = [g.strip() for g in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if g.strip()]
    count = cupy.cuda.runtime.getDeviceCount()
    return names[:count] if names else [str(i) for i in range(count)]


def local_gpu_cluster(n: int, gpus: list[str]) -> Any:
    """N one-thread workers on this host's GPUs, worker i pinned to GPU i mod len(gpus) by its own
    CUDA_VISIBLE_DEVICES (that GPU first, the others after, as dask-cuda orders them): dask-cuda's
    LocalCUDACluster when it is installed, else the same pinning on a plain `SpecCluster` of nannies."""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        pass
    else:
        return LocalCUDACluster(n_workers=n, threads_per_worker=1, **NO_DASHBOARD,
                                CUDA_VISIBLE_DEVICES=",".join(gpus))
    from distributed import Nanny, Scheduler, SpecCluster
    from distributed.system import MEMORY_LIMIT

    def pinned(i: int) -> str:
        k = i % len(gpus)
        return ",".join(gpus[k:] + gpus[:k])
    host = "127.0.0.1"  # a cluster for this run alone, as LocalCluster's
    specs = {i: {"cls": Nanny, "options": {"nthreads": 1, "silence_logs": logging.WARN, "host": host,
                                           "memory_limit": MEMORY_LIMIT // n,  # the host's memory shared
                                           "env": {"CUDA_VISIBLE_DEVICES": pinned(i)}}}
             for i in range(n)}
    return SpecCluster(workers=specs, scheduler={"cls": Scheduler, "options": {**SCHEDULER_NO_DASHBOARD,
                                                                              "host": host}},
                       name="gpubatch-local-gpus", silence_logs=logging.WARN)


def disconnect(client: Any, cluster: Any) -> None:
    """Close a client and the local cluster `connect` made (None: none); one already gone is no error."""
    for thing in (client, cluster):
        if thing is not None:
            try:
                thing.close()
            except Exception:  # noqa: BLE001 - closing a cluster that is already gone
                pass


def _quiet_cancelled() -> None:
    """In a worker: a batch cancelled after the first Ctrl-C ends in a CancelledError that Dask would log as a
    warning; expected here."""
    logging.getLogger("distributed.worker.state_machine").setLevel(logging.ERROR)


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
        from .runners import cut_batches

        import cloudpickle

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
