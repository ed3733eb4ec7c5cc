"""Array backends (NumPy, CuPy) and device selection with an explained CPU fallback.

cupy is imported here only, lazily, and only when the GPU path is asked for: `--device cpu` never imports it.
"""
from __future__ import annotations

import importlib.util
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Iterator

import numpy as np

from .memory import DeviceCache


class DeviceUnavailable(Exception):
    """`--device cuda` was asked for and no GPU can be used; the message says why."""


@dataclass(frozen=True)
class GpuInfo:
    """What the driver reports about one GPU."""

    index: int
    name: str
    total_memory: int
    free_memory: int | None  # None where the probe made no context on the device (see `probe_cuda`)
    sm_count: int
    compute_capability: str


@dataclass(frozen=True)
class Probe:
    """Result of looking for usable GPUs: the list, or the reason there are none."""

    gpus: tuple[GpuInfo, ...] = ()
    reason: str | None = None
    cupy_version: str | None = None


def probe_cuda(limit: int | None = None, contexts: bool = True) -> Probe:
    """Import cupy, count devices and allocate on each (on the first `limit` only: each allocation makes a CUDA
    context, a second or so and some memory per device); never raises, returns the reason instead.

    `contexts=False` reads what the driver says of each device without making a context (no allocation, free
    memory unknown: None): for a process whose GPUs are used by its workers, each of which makes its own
    device's context and fails there if that device is unusable."""
    try:
        import cupy
    except ImportError:
        return Probe(reason="CuPy is not installed (pip install 'gpubatch[cuda12]' or '[cuda13]')")
    except Exception as exc:  # a broken install raises all sorts
        return Probe(reason=f"CuPy failed to import: {exc}")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return Probe(reason=f"CUDA driver error: {first_line(exc)}", cupy_version=cupy.__version__)
    if count == 0:
        return Probe(reason="no CUDA device found", cupy_version=cupy.__version__)
    gpus = []
    for i in range(count if limit is None else min(count, limit)):
        free: int | None = None
        try:
            if contexts:
                with cupy.cuda.Device(i):
                    cupy.zeros(1, dtype=cupy.uint8) + 1  # can we allocate and launch?
                    free, _ = cupy.cuda.runtime.memGetInfo()
            props = cupy.cuda.runtime.getDeviceProperties(i)
        except Exception as exc:
            return Probe(reason=f"cannot use GPU {i}: {first_line(exc)}", cupy_version=cupy.__version__)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        gpus.append(GpuInfo(i, name, int(props["totalGlobalMem"]), None if free is None else int(free),
                            int(props["multiProcessorCount"]), f"{props['major']}.{props['minor']}"))
    return Probe(gpus=tuple(gpus), cupy_version=cupy.__version__)


def first_line(exc: BaseException) -> str:
    """An exception's message in one line (its type's name where it has none)."""
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


@dataclass
class Backend:
    """One array module plus the few device services ops need: transfer, sync, timing, memory."""

    name: str
    xp: ModuleType
    device_index: int | None = None
    cache: DeviceCache | None = field(default=None, repr=False)
    label_index: int | None = None  # physical GPU index when CUDA_VISIBLE_DEVICES remaps it to 0
    stats: Any = field(default=None, repr=False)  # the run's StatsCollector, for ops that time sub-steps

    @property
    def is_gpu(self) -> bool:
        return self.name == "cupy"

    @property
    def label(self) -> str:
        if not self.is_gpu:
            return "cpu"
        return f"cuda:{self.device_index if self.label_index is None else self.label_index}"

    def asarray(self, a: Any, cached: bool = True) -> Any:
        """Host array to this backend (content-cached on the GPU when the memory manager is on). `cached=False`
        for data used once (the clone search's joined features): keying it would hash every byte for nothing."""
        if not self.is_gpu:
            return np.asarray(a)
        if cached and self.cache is not None and isinstance(a, np.ndarray):
            hits = self.cache.hits
            out = self.cache.get(a, self.xp.asarray)
            if self.stats is not None:
                self.stats.cache_event(self.cache.hits > hits, a.nbytes)
            return out
        return self.xp.asarray(a)

    def asnumpy(self, a: Any) -> np.ndarray:
        return self.xp.asnumpy(a) if self.is_gpu else np.asarray(a)

    def synchronize(self) -> None:
        if self.is_gpu:
            self.xp.cuda.get_current_stream().synchronize()

    def free_memory(self) -> int | None:
        """Free device bytes plus what the pool holds and could hand out; None on the CPU."""
        if not self.is_gpu:
            return None
        free, _ = self.xp.cuda.runtime.memGetInfo()
        pool = self.xp.get_default_memory_pool()
        return int(free + pool.total_bytes() - pool.used_bytes())

    def pool_bytes(self) -> int:
        return int(self.xp.get_default_memory_pool().total_bytes()) if self.is_gpu else 0

    def release(self) -> None:
        """Give cached blocks back after an out-of-memory error."""
        if self.is_gpu:
            if self.cache is not None:
                self.cache.clear()
            self.xp.get_default_memory_pool().free_all_blocks()
            self.xp.get_default_pinned_memory_pool().free_all_blocks()

    @contextmanager
    def timed(self, sync: bool = True) -> Iterator[list]:
        """Measure the enclosed work: CUDA events on the GPU (device time), perf_counter on the CPU.

        With sync=False on the GPU the box holds the two events instead of seconds, read later, so that
        timing does not stall the pipeline."""
        box: list = [0.0]
        if self.is_gpu:
            start, end = self.xp.cuda.Event(), self.xp.cuda.Event()
            start.record()
            yield box
            end.record()
            if sync:
                end.synchronize()
                box[0] = self.xp.cuda.get_elapsed_time(start, end) / 1e3
            else:
                box[0] = (start, end)
        else:
            t0 = time.perf_counter()
            yield box
            box[0] = time.perf_counter() - t0


def numpy_backend() -> Backend:
    return Backend("numpy", np)


def cupy_backend(device_index: int = 0, cache_size: int = 0, max_cache_bytes: int | None = None,
                 max_fraction: float | None = None) -> Backend:
    """A CuPy backend bound to one device; `max_fraction` caps CuPy's memory pool at that share of the card."""
    import cupy

    cupy.cuda.Device(device_index).use()
    if max_fraction is not None:
        cupy.get_default_memory_pool().set_limit(fraction=max_fraction)
    cache = DeviceCache(cache_size, max_cache_bytes) if cache_size else None
    return Backend("cupy", cupy, device_index, cache)


@dataclass(frozen=True)
class Selection:
    """The backend chosen for a run, the GPUs it will use, and why a GPU was not used if it was not."""

    kind: str  # "numpy", "cupy", or "auto": decided per batch by the dispatcher, CuPy probed at first need
    gpus: tuple[GpuInfo, ...] = ()
    reason: str | None = None
    notes: tuple[str, ...] = ()

    def make(self, worker: int = 0, cache_size: int = 0, max_fraction: float = 0.8) -> Backend:
        if self.kind != "cupy":
            return numpy_backend()
        gpu = self.gpus[worker % len(self.gpus)]
        return cupy_backend(gpu.index, cache_size, int(gpu.total_memory * max_fraction * 0.25), max_fraction)


def select_device(requested: str = "auto", enabled: bool = True, count: int = 1,
                  probe: Callable[[], Probe] = probe_cuda, lazy: bool = False, contexts: bool | None = None
                  ) -> Selection:
    """Pick the backend for `auto|cpu|cuda`; `cuda` without a usable GPU raises DeviceUnavailable.

    `contexts`: whether the probe makes a CUDA context on each GPU (see `probe_cuda`); by default only where
    this process computes on its one GPU, not where worker processes or a cluster's workers use the GPUs.

    `lazy` (dispatch by work on one device): `auto` with CuPy installed probes nothing now and returns kind
    "auto", so that a run whose work stays small never initialises CUDA."""
    if requested == "cpu":
        return Selection("numpy", reason="CPU requested (--device cpu)")
    if not enabled:
        if requested == "cuda":
            raise DeviceUnavailable("--device cuda, but the GPU is disabled by config (gpu.enabled = false)")
        return Selection("numpy", reason="GPU disabled by config (gpu.enabled = false)")
    if lazy and requested == "auto" and count == 1 and probe is probe_cuda:
        if importlib.util.find_spec("cupy") is None:
            return Selection("numpy", reason=probe_cuda().reason)
        return Selection("auto")
    # the GPUs it will use, no more; with several, each is used by a worker of its own, which makes the context
    contexts = count == 1 if contexts is None else contexts
    found = probe_cuda(limit=count, contexts=contexts) if probe is probe_cuda else probe()
    if not found.gpus:
        if requested == "cuda":
            raise DeviceUnavailable(f"--device cuda, but no GPU is usable: {found.reason}")
        return Selection("numpy", reason=found.reason)
    notes: tuple[str, ...] = ()
    gpus = found.gpus[:count]
    if count > len(found.gpus):
        notes = (f"asked for {count} GPUs, found {len(found.gpus)}: using {len(found.gpus)}",)
    return Selection("cupy", gpus=gpus, notes=notes)
