"""Running one batch: CPU dispatch for small work, OOM split-and-retry, CPU fallback, failure isolation.

A batch that raises is bisected until the failing items stand alone; one that still raises on the GPU for a
reason other than memory is run once more on the CPU before it becomes an `ItemFailure`.

Every runner calls `run_batch`, in the main process or in a worker, so the guarantees are the same
everywhere: each item is processed exactly once and its result does not depend on how the batch was split.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

from .backend import Backend
from .dispatch import threshold
from .ops import BatchOp, ItemFailure, is_oom
from .sizer import BatchSizer
from .stats import StatsCollector


@dataclass(frozen=True)
class EngineSettings:
    """The engine's knobs, read from the `gpu.*` config section."""

    device: str = "auto"
    enabled: bool = True
    count: int = 1
    max_fraction: float = 0.8
    cache_size: int = 64
    batching: bool = True
    initial_size: int = 1024
    min_size: int = 1
    max_size: int = 1 << 20
    dynamic_sizing: bool = True
    dynamic_dispatch: bool = True
    cpu_threshold: int = 0
    prefetch: int = 4
    cluster_address: str = ""  # "": no cluster; "local:N" or a scheduler's address: the dask runner
    cluster_workers: int = 0
    cluster_retries: int = 2

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any] | Any) -> "EngineSettings":
        """From a GPUConfigManager (or a flat mapping of dotted `gpu.*` keys)."""
        get = cfg.get
        return cls(
            device=get("gpu.device"), enabled=get("gpu.enabled"), count=get("gpu.count"),
            max_fraction=get("gpu.memory.max_fraction"), cache_size=get("gpu.memory.cache_size"),
            batching=get("gpu.batch.enabled"),
            initial_size=get("gpu.batch.initial_size"), min_size=get("gpu.batch.min_size"),
            max_size=get("gpu.batch.max_size"), dynamic_sizing=get("gpu.batch.dynamic_sizing"),
            dynamic_dispatch=get("gpu.performance.dynamic_dispatch"),
            cpu_threshold=get("gpu.performance.cpu_threshold"), prefetch=get("gpu.performance.prefetch"),
            cluster_address=get("cluster.address"), cluster_workers=get("cluster.workers"),
            cluster_retries=get("cluster.retries"))

    def sizer(self, bytes_per_item: float = 0.0) -> BatchSizer:
        if not self.batching:
            return BatchSizer(1, 1, 1, dynamic=False)
        return BatchSizer(self.initial_size, self.min_size, self.max_size, self.dynamic_sizing,
                          self.max_fraction, bytes_per_item)


@dataclass(frozen=True)
class BatchOutcome:
    """What a batch produced and what it cost, for the sizer."""

    results: list[Any]
    seconds: float
    oom: bool
    bytes_used: int | None


def run_batch(op: BatchOp, items: list[Any], backend: Backend, cpu: Backend, settings: EngineSettings,
              stats: StatsCollector, payload: Any = None, sync: bool = True,
              dispatched: str | None = None, work: float | None = None) -> BatchOutcome:
    """Run `op` on `items`; never raises for an item's own error (it becomes an ItemFailure).

    sync=False leaves the GPU running ahead (the batch's device time is read later); the sizer needs sync.
    `dispatched` is why the dispatcher sent this batch to NumPy (counted in the stats). Where no dispatcher
    chose (a GPU worker process on `auto`), the seed rule applies: work under the threshold runs on NumPy.
    `work` is the batch's work when the caller measured it already."""
    work = op.work(items) if work is None else work
    if dispatched is None and backend.is_gpu and settings.device == "auto" and settings.dynamic_dispatch:
        if work < threshold(op, settings.cpu_threshold):
            dispatched, backend = "small", cpu
    if dispatched is not None:
        stats.for_op(op.name, cpu.label).dispatched(dispatched)
    before = backend.pool_bytes()
    t0 = time.perf_counter()
    ooms: list[int] = []
    results = _run(op, items, backend, cpu, settings, stats, payload, ooms, sync, work)
    used = backend.pool_bytes() - before if backend.is_gpu else None
    return BatchOutcome(results, time.perf_counter() - t0, bool(ooms), used if used and used > 0 else None)


def _run(op: BatchOp, items: list[Any], backend: Backend, cpu: Backend, settings: EngineSettings,
         stats: StatsCollector, payload: Any, ooms: list[int], sync: bool = True,
         work: float | None = None) -> list[Any]:
    st = stats.for_op(op.name, backend.label)
    backend.stats = stats
    t0 = time.perf_counter()
    try:
        with backend.timed(sync) as gpu_t:
            payload = op.prepare(items) if payload is None and op.prepare is not None else payload
            out = op.run(items if payload is None else payload, backend)
        if len(out) != len(items):
            raise RuntimeError(f"op {op.name} returned {len(out)} results for {len(items)} items")
    except Exception as exc:  # noqa: BLE001 - every failure is handled below, none is lost
        if is_oom(exc):
            backend.release()
            ooms.append(len(items))
            if backend.is_gpu and len(items) <= settings.min_size:
                st.cpu_fallbacks += 1
                return _run(op, items, cpu, cpu, settings, stats, None, ooms)
            if len(items) > 1:
                st.oom_retries += 1
        if len(items) == 1:
            if backend.is_gpu and not is_oom(exc):  # a GPU error (a kernel, a driver): the CPU gets a turn
                st.gpu_error_retries += 1
                return _run(op, items, cpu, cpu, settings, stats, None, ooms)
            st.failures += 1
            return [ItemFailure.of(exc)]
        half = len(items) // 2
        return (_run(op, items[:half], backend, cpu, settings, stats, None, ooms)
                + _run(op, items[half:], backend, cpu, settings, stats, None, ooms))
    deferred = backend.is_gpu and not isinstance(gpu_t[0], float)
    st.add_batch(len(items), time.perf_counter() - t0, gpu_t[0] if backend.is_gpu and not deferred else 0.0,
                 op.work(items) if work is None else work)
    if deferred:
        stats.add_pending(st, gpu_t[0])
    return out if isinstance(out, list) or not hasattr(out, "__getitem__") else list(out)  # bulk results pass
