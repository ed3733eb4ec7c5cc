"""The cost of readying workers (issue 18): for `--gpus N` (the processes runner) and `--cluster local:N` (the
dask runner), the seconds to make the executor, to warm it for run-batt's search (worker start, device
context, kernels) and to close it. The first setup on a fresh machine also pays CuPy's kernel compilation.

    python benchmarks/worker_start.py --device cuda --workers 2 --setups processes,cluster,processes,cluster
"""
from __future__ import annotations

import argparse
import functools
import json
import time
from pathlib import Path


def _identity(items, backend):
    return list(items)


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
    ex = BatchExecutor(settings, selection)
    t2 = time.perf_counter()
    ex.warm(BatchOp("search", _identity, warm=functools.partial(_warm_search, cfg=SearchConfig(depth=3))))
    t3 = time.perf_counter()
    ex.close()
    t4 = time.perf_counter()
    return {"setup": setup, "select_s": round(t1 - t0, 3), "make_s": round(t2 - t1, 3),
            "warm_s": round(t3 - t2, 3), "close_s": round(t4 - t3, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--setups", default="processes,cluster,processes,cluster")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = [measure(args.device, args.workers, s.strip()) for s in args.setups.split(",") if s.strip()]
    for row in rows:
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"args": vars(args) | {"json": str(args.json)}, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
