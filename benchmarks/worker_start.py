"""The cost of readying workers (issue 18): for `--gpus N` (the processes runner) and `--cluster local:N` (the
dask runner), the seconds to make the executor, to warm it for run-batt's search (worker start, device
context, kernels) and to close it. The first setup on a fresh machine also pays CuPy's kernel compilation.
Each worker's own times, in wall-clock seconds from when the executor was made: when it began to make its
backend (`started_s`: process spawned, interpreter and gpubatch imported; on a Dask worker, once the cluster
booted it), when that backend was ready (`ready_s`: CuPy imported, device context), and its warm-up's length
(`warm_s`).

    python benchmarks/worker_start.py --device cuda --workers 2 --setups processes,cluster,processes,cluster
"""
from __future__ import annotations

import argparse
import functools
import json
import time
from pathlib import Path

from cluster_vs_gpus import compiled, warn_uncompiled


def _identity(items, backend):
    return list(items)


def _probe_processes() -> dict:
    from gpubatch.engine.runners import _WORKER

    return _probe(_WORKER)


def _probe_cluster() -> dict:
    from gpubatch.engine.cluster import _WORKER

    return _probe(_WORKER)


def _probe(worker: dict) -> dict:
    return {k: worker.get(k) for k in ("started_at", "ready_at", "warm_s")}


def worker_times(ex, setup: str, made: float) -> list[dict]:
    """Each worker's start and backend readiness (seconds after `made`, wall clock) and warm-up's length."""
    from gpubatch.engine.procs import wait_result

    if setup == "cluster":
        probes = list(ex.runner.client.run(_probe_cluster).values())
    elif not hasattr(ex.runner, "workers"):
        return []  # `--gpus 1` runs in this process (the local runner): no worker to start
    else:
        probes = [wait_result(w.submit(_probe_processes)) for w in ex.runner.workers]

    def since(t):
        return None if t is None else round(t - made, 3)
    return [{"started_s": since(p["started_at"]), "ready_s": since(p["ready_at"]),
             "warm_s": None if p["warm_s"] is None else round(p["warm_s"], 3)} for p in probes]


def measure(device: str, workers: int, setup: str) -> dict:
    from gpubatch.arc.batt import _warm_search
    from gpubatch.arc.search import SearchConfig
    from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings
    from gpubatch.engine.backend import select_device

    t0 = time.perf_counter()
    settings = EngineSettings(device=device, count=workers,
                              cluster_address=f"local:{workers}" if setup == "cluster" else "")
    selection = select_device(device, True, workers)
    t1 = time.perf_counter()
    made = time.time()
    ex = BatchExecutor(settings, selection)
    t2 = time.perf_counter()
    ex.warm(BatchOp("search", _identity, warm=functools.partial(_warm_search, cfg=SearchConfig(depth=3))))
    t3 = time.perf_counter()
    times = worker_times(ex, setup, made)
    t4 = time.perf_counter()
    ex.close()
    t5 = time.perf_counter()
    return {"setup": setup, "runner": ex.runner.name, "select_s": round(t1 - t0, 3), "make_s": round(t2 - t1, 3),
            "warm_s": round(t3 - t2, 3), "close_s": round(t5 - t4, 3), "workers": times}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--setups", default="processes,cluster,processes,cluster")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    warn_uncompiled()
    rows = [measure(args.device, args.workers, s.strip()) for s in args.setups.split(",") if s.strip()]
    for row in rows:
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"args": vars(args) | {"json": str(args.json)}, "rows": rows,
                                         "bytecode": compiled()},
                                        indent=1))


if __name__ == "__main__":
    main()
