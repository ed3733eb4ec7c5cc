"""Dask clusters for the `dask` runner (`engine/dask_runner.py`): making a local one, reaching one at an address,
and what runs on their workers (each worker's backend, a batch, the op's warm-up).

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
from concurrent.futures import Future
from typing import Any, Callable

from .backend import Backend, Selection, numpy_backend
from .batch import EngineSettings
from .ops import BatchOp
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
