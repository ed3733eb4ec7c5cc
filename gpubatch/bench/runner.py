"""Measuring cases: per-item loop, batched CPU, batched GPU (batch-size sweep, kernel time from CUDA events,
data already on the device), end to end with transfers and through the executor (N GPUs at once: multi.py)."""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field

import numpy as np

from .cases import Case


@dataclass
class Measurement:
    case: str
    group: str
    device: str
    mode: str  # loop | batched | end_to_end | executor | multi_gpu | reference
    batch: int
    samples: list[float] = field(default_factory=list)  # seconds per call
    items: int = 0  # items per call
    bytes_per_item: float = 0.0
    flops_per_item: float = 0.0
    note: str = ""

    @property
    def median(self) -> float:
        return float(np.median(self.samples)) if self.samples else float("nan")

    @property
    def items_per_s(self) -> float:
        return self.items / self.median if self.samples and self.median > 0 else 0.0

    @property
    def gbs(self) -> float:
        return self.items_per_s * self.bytes_per_item / 1e9

    @property
    def tflops(self) -> float:
        return self.items_per_s * self.flops_per_item / 1e12

    def as_dict(self) -> dict:
        return {"case": self.case, "group": self.group, "device": self.device, "mode": self.mode,
                "batch": self.batch, "items": self.items, "median_s": self.median,
                "min_s": min(self.samples) if self.samples else None, "max_s": max(self.samples) if self.samples
                else None, "items_per_s": self.items_per_s, "gbs": self.gbs, "tflops": self.tflops,
                "samples": self.samples, "note": self.note}


def timed(fn, xp, repeats: int, warmup: int) -> list[float]:
    """Seconds per call: CUDA events on the GPU (kernel time), perf_counter on the CPU."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        if xp is np:
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        else:
            start, end = xp.cuda.Event(), xp.cuda.Event()
            start.record()
            fn()
            end.record()
            end.synchronize()
            out.append(xp.cuda.get_elapsed_time(start, end) / 1e3)
    return out


def sizes_for(case: Case, limit_bytes: float, start: int = 1, factor: int = 2) -> list[int]:
    out, b = [], start
    while b <= case.max_batch and b * case.bytes_per_item <= limit_bytes:
        out.append(b)
        b *= factor
    return out or [1]


def _slice(data, n):
    if isinstance(data, list):
        return [a[:n] for a in data]
    return data.take(slice(0, n))


def measure(case: Case, xp, device: str, sizes: list[int], repeats: int, warmup: int,
            loop_items: int = 0) -> list[Measurement]:
    """Batched timings over `sizes` (one data set of the largest size, sliced), and the per-item loop."""
    data = case.make(xp, max(sizes), 1)
    out = []
    for b in sizes:
        part = _slice(data, b)
        m = Measurement(case.name, case.group, device, "batched", b, items=b, bytes_per_item=case.bytes_per_item,
                        flops_per_item=case.flops_per_item)
        m.samples = timed(lambda: case.run(xp, part), xp, repeats, warmup)
        out.append(m)
    if loop_items:
        n = min(loop_items, max(sizes))
        parts = [case.item(data, k) for k in range(n)]

        def loop():
            for p in parts:
                case.run(xp, p)
        m = Measurement(case.name, case.group, device, "loop", 1, items=n, bytes_per_item=case.bytes_per_item,
                        flops_per_item=case.flops_per_item, note=f"{n} calls of one item")
        m.samples = timed(loop, xp, max(1, repeats // 3), 1)
        out.append(m)
    del data
    return out


def end_to_end(case: Case, batch: int, repeats: int) -> Measurement:
    """Host data in, host result out: the transfers the kernel figures leave out."""
    import cupy

    host = case.make(np, batch, 2)

    def run():
        dev = [cupy.asarray(a) for a in host] if isinstance(host, list) else host.to(cupy)
        _to_host(cupy, case.run(cupy, dev))
    m = Measurement(case.name, case.group, "cuda:0", "end_to_end", batch, items=batch,
                    bytes_per_item=case.bytes_per_item, flops_per_item=case.flops_per_item)
    m.samples = timed(run, cupy, repeats, 1)
    return m


def _to_host(cupy, res):
    """Copy every array of a result back to the host (results are arrays, GridBatches, tuples, dicts)."""
    if isinstance(res, cupy.ndarray):
        return cupy.asnumpy(res)
    if isinstance(res, dict):
        return {k: _to_host(cupy, v) for k, v in res.items()}
    if isinstance(res, (tuple, list)):
        return [_to_host(cupy, v) for v in res]
    if hasattr(res, "data") and hasattr(res, "h"):
        return _to_host(cupy, (res.data, res.h, res.w))
    return res


def executor_overhead(case: Case, batch: int, repeats: int) -> tuple[Measurement, Measurement]:
    """The same op at the same batch size through BatchExecutor and as a raw loop of CuPy calls."""
    import cupy

    from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, select_device

    nb = 8
    data = case.make(cupy, batch, 3)
    global _BENCH_DATA
    _BENCH_DATA = (case, data, batch)
    op = BatchOp(case.name, _exec_run, work=functools.partial(_bytes_of, case.bytes_per_item))
    settings = EngineSettings(device="cuda", initial_size=batch, max_size=batch, dynamic_sizing=False,
                              cache_size=0)
    raw = Measurement(case.name, case.group, "cuda:0", "raw_loop", batch, items=batch * nb)
    via = Measurement(case.name, case.group, "cuda:0", "executor", batch, items=batch * nb)
    with BatchExecutor(settings, select_device("cuda"), runner="local") as ex:
        for _ in range(2):
            for _ in ex.map_batches(op, range(batch * nb)):
                pass
        for _ in range(repeats):
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            for _ in range(nb):
                case.run(cupy, data)
            cupy.cuda.Device().synchronize()
            raw.samples.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for _ in ex.map_batches(op, range(batch * nb)):
                pass
            cupy.cuda.Device().synchronize()
            via.samples.append(time.perf_counter() - t0)
    _BENCH_DATA = None
    return raw, via


_BENCH_DATA = None


class _Count:
    """A result sequence of n items that costs nothing to build (the bench op returns no per-item data)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        return iter(range(self.n))


def _bytes_of(bytes_per_item: int, items) -> int:
    """The bench op's work: the bytes its batch moves."""
    return bytes_per_item * len(items)


def _exec_run(items, backend):
    case, data, batch = _BENCH_DATA
    case.run(backend.xp, data if len(items) == batch else _slice(data, len(items)))
    return _Count(len(items))
