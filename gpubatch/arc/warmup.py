"""Readying a GPU for the search: on a cold kernel cache, the primitives' kernels are compiled by a pool of
worker processes first.

CuPy compiles a kernel the first time it runs (NVRTC, about 0.2 s each) and keeps it in its on-disk cache, so a
box with an empty cache pays for some 430 compilations before its first search, 316 of them the primitives'.
Those do not depend on one another: each worker applies its share of the primitives once to a small batch,
which compiles their kernels into the shared cache; the warm-up search that follows compiles the rest
(scoring, fits, rules) and loads the primitives' kernels from the cache. Threads do not help: CuPy's
compilation holds the interpreter, and 16 threads took longer than none.

A marker file in CuPy's cache folder, named after what the kernels depend on, says the cache is warm: then no
worker is started (they cost a CUDA context each).
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..engine import Backend
from ..engine.procs import close_pool, wait_result, worker_pool
from .dsl.registry import Primitive
from .grids import GridBatch

WORKERS = 16  # at most; never more than the machine's cores


def sample_grids(seed: int = 1, count: int = 3, shape: tuple[int, int] = (5, 6)) -> list[tuple]:
    """Small made-up grids of every colour, the same on every run."""
    rng = np.random.default_rng(seed)
    return [tuple(map(tuple, rng.integers(0, 10, shape).tolist())) for _ in range(count)]


def apply_all(backend: Backend, prims: Sequence[Primitive]) -> None:
    """Apply each primitive once to a batch of sample grids on `backend`, which compiles its kernels."""
    grids = sample_grids()
    batch = GridBatch.from_lists(grids + [g[::-1] for g in grids]).to(backend.xp)
    for p in prims:
        p(batch)
    backend.synchronize()


def _part(device: int, steps: Sequence[str]) -> None:
    from ..engine.backend import cupy_backend
    from .programs import parse_step

    apply_all(cupy_backend(device), [parse_step(s) for s in steps])


def marker(backend: Backend, prims: Sequence[Primitive]) -> Path | None:
    """The marker file of a warm cache for these primitives on this device; None where CuPy keeps no cache
    on disk."""
    cupy = backend.xp
    if os.environ.get("CUPY_CACHE_IN_MEMORY", "0") != "0":
        return None
    folder = os.environ.get("CUPY_CACHE_DIR") or os.path.expanduser("~/.cupy/kernel_cache")
    from .. import __version__

    arch = cupy.cuda.Device(backend.device_index or 0).compute_capability
    what = "\n".join([__version__, cupy.__version__, arch] + [p.text for p in prims])
    return Path(folder) / f"gpubatch-warm-{hashlib.sha1(what.encode()).hexdigest()[:16]}"


def _daemonic() -> bool:
    """Whether this process may not start children (a Dask worker's, for one)."""
    import multiprocessing

    return multiprocessing.current_process().daemon


def precompile(backend: Backend, prims: Sequence[Primitive], workers: int | None = None) -> int:
    """Compile every primitive's kernels into CuPy's cache from a pool of worker processes, unless the cache
    is marked warm; returns the workers that compiled (0 on the CPU, with a warm cache, one worker, in a
    daemonic process, or when a worker failed: the warm-up search then compiles what is missing itself)."""
    n = min(WORKERS if workers is None else workers, os.cpu_count() or 1, len(prims))
    if not backend.is_gpu or n <= 1 or _daemonic():
        return 0
    mark = marker(backend, prims)
    if mark is None or mark.exists():
        return 0
    pool = worker_pool(n)
    failed = True
    try:
        texts = [p.text for p in prims]  # a primitive travels as its text (its family holds lambdas)
        for job in [pool.submit(_part, backend.device_index or 0, texts[i::n]) for i in range(n)]:
            wait_result(job)
        failed = False
    except Exception:  # noqa: BLE001 - compiling ahead only saves time: the warm-up search compiles what is missing
        return 0
    finally:
        close_pool(pool, failed)
    return n


def mark_warm(backend: Backend, prims: Sequence[Primitive]) -> None:
    """After a warm-up: mark the cache warm for these primitives (nothing on the CPU or without a disk cache)."""
    mark = marker(backend, prims) if backend.is_gpu else None
    if mark is not None:
        try:
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.touch()
        except OSError:  # a read-only cache: the next run compiles in workers again, nothing worse
            pass
