"""`gpubatch bench --cluster`: every worker of a Dask cluster runs a case at once on its own device, set against
one worker alone, so each case gets the cluster's efficiency as `--gpus N` gets it on one host.

The case's data is made on each worker (a GPU's batch does not travel), kept there between the untimed and
the timed call, and dropped after. Each worker times itself (CUDA synchronised on a GPU); the aggregate is
the items of all workers over the slowest worker's wall time.
"""
from __future__ import annotations

import time
from typing import Any

from .runner import Measurement

_HELD: dict[str, Any] = {}  # in each worker: the case, its array module and its data between calls


def _xp(device: str):
    if device == "cpu":
        import numpy

        return numpy
    import cupy

    return cupy


def _sync(xp) -> None:
    if xp.__name__ == "cupy":
        xp.cuda.Device().synchronize()


def _prepare(case_name: str, batch: int, device: str, corpus: list | None, warmup: int) -> None:
    """Make the case's batch on this worker's device and run it `warmup` times (kernels compiled, pools grown)."""
    from .cases import all_cases

    xp = _xp(device)
    case = next(c for c in all_cases(corpus) if c.name == case_name)
    data = case.make(xp, batch, 6)
    for _ in range(max(1, warmup)):
        case.run(xp, data)
    _sync(xp)
    _HELD.update(case=case, xp=xp, data=data)


def _timed(repeats: int) -> float:
    case, xp, data = _HELD["case"], _HELD["xp"], _HELD["data"]
    _sync(xp)
    t0 = time.perf_counter()
    for _ in range(repeats):
        case.run(xp, data)
    _sync(xp)
    return time.perf_counter() - t0


def _drop() -> None:
    _HELD.clear()


def device_label(device: str, workers: int) -> str:
    """How cluster measurements name their device: `cpu@cluster:2`, `cuda@cluster:4`."""
    return f"{device}@cluster:{workers}"


def on_cluster(client: Any, case, batch: int, device: str, repeats: int, warmup: int = 2,
               corpus: list | None = None) -> list[Measurement]:
    """One worker alone, then every worker at once, each on its own `device` ("cpu" or "cuda")."""
    workers = sorted(client.scheduler_info()["workers"])
    client.run(_prepare, case.name, batch, device, corpus, warmup)
    try:
        alone = client.run(_timed, repeats, workers=workers[:1])
        together = client.run(_timed, repeats)
    finally:
        client.run(_drop)
    out = []
    for times in (alone, together):
        k = len(times)
        m = Measurement(case.name, case.group, device_label(device, k), "cluster", batch,
                        items=batch * k, bytes_per_item=case.bytes_per_item,
                        flops_per_item=case.flops_per_item, note=f"{k} Dask workers at once, wall of slowest")
        m.samples = [max(times.values()) / repeats]  # seconds per call of every worker
        out.append(m)
    return out
