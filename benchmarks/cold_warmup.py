"""run-batt's GPU warm-up with CuPy's kernel cache empty, as on a box just lent. Each variant runs in a fresh
process with a fresh cache folder, times the warm-up (`batt._warm_search`), counts the modules it compiled,
then searches the first TASKS tasks of a dataset and names the kernels that the search still had to compile
(CuPy saves each module's source beside it under CUPY_CACHE_SAVE_CUDA_SOURCE).

Variants: `N` compiles the primitives in N worker processes first (what run-batt does, N = `warmup.WORKERS`),
`1` in none; `0` applies the primitives first, one after another, then runs the warm-up, to show how the time
splits between the primitives and the rest. `wN` runs variant N, then the warm-up again in a new process with
the cache it left (a warm box).

usage: python benchmarks/cold_warmup.py [--variants 0,16,1,w16] [--dataset arc1-eval] [--tasks 40]
                                        [--depth 3] [--out F.json]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

KERNEL = re.compile(r"__global__\s+void\s+(\w+)")


def _modules(cache: Path) -> int:
    return sum(1 for _ in cache.rglob("*.cu"))


def _kernels(cache: Path) -> Counter:
    """Kernel names of every compiled module in the cache folder (one source file per module)."""
    names: Counter = Counter()
    for src in cache.rglob("*.cu"):
        names.update(KERNEL.findall(src.read_text(errors="replace")) or ["?"])
    return names


def child(variant: str, dataset: str, tasks: int, depth: int) -> dict:
    t0 = time.perf_counter()
    from gpubatch.arc import batt, warmup
    from gpubatch.arc.search import SearchConfig
    from gpubatch.arc.tasks import load_tasks
    from gpubatch.engine.backend import cupy_backend

    backend = cupy_backend(0)
    backend.xp.zeros(1).sum()
    backend.synchronize()
    out = {"variant": variant, "start_s": round(time.perf_counter() - t0, 2)}
    cache = Path(os.environ["CUPY_CACHE_DIR"])
    warmup.WORKERS = int(variant) or 1
    cfg = SearchConfig(depth=depth)
    mark = warmup.marker(backend, batt.builtin_primitives())
    out["marked_warm"] = bool(mark and mark.exists())
    t1 = time.perf_counter()
    if variant == "0":
        warmup.apply_all(backend, batt.builtin_primitives())
        out["prims_s"] = round(time.perf_counter() - t1, 2)
        out["prims_modules"] = _modules(cache)
    batt._warm_search(backend, cfg)
    backend.synchronize()
    out["warm_s"] = round(time.perf_counter() - t1, 2)
    warmed = _kernels(cache)
    out["warm_modules"] = _modules(cache)
    if tasks:
        loaded, _ = load_tasks(dataset, tasks)
        t2 = time.perf_counter()
        batt.search_shard(loaded, backend, cfg)
        out["search_s"] = round(time.perf_counter() - t2, 2)
        out["search_modules"] = _modules(cache) - out["warm_modules"]
        out["search_kernels"] = sorted((_kernels(cache) - warmed).elements())
    return out


def _variant(v: str, cache: str, a: argparse.Namespace) -> dict:
    env = dict(os.environ, CUPY_CACHE_DIR=cache, CUPY_CACHE_SAVE_CUDA_SOURCE="1")
    cmd = [sys.executable, __file__, "--child", v, "--dataset", a.dataset, "--tasks", str(a.tasks),
           "--depth", str(a.depth)]
    t0 = time.perf_counter()
    res = subprocess.run(cmd, check=False, env=env, capture_output=True, text=True)
    if res.returncode:
        sys.exit(f"variant {v} failed:\n{res.stderr}")
    run = json.loads(res.stdout.strip().splitlines()[-1])
    run["process_s"] = round(time.perf_counter() - t0, 2)
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="0,16,1,w16")
    ap.add_argument("--dataset", default="arc1-eval")
    ap.add_argument("--tasks", type=int, default=0)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        print(json.dumps(child(a.child, a.dataset, a.tasks, a.depth)))
        return
    runs = []
    for v in a.variants.split(","):
        with tempfile.TemporaryDirectory(prefix="cupy-cache-") as cache:
            for again in ([False, True] if v.startswith("w") else [False]):
                run = _variant(v.lstrip("w"), cache, a)
                run["cache"] = "warm" if again else "empty"
                runs.append(run)
                print(json.dumps({k: x for k, x in run.items() if k != "search_kernels"}), flush=True)
                if run.get("search_kernels"):
                    print("  compiled during the search:", ", ".join(f"{k} x{n}" for k, n in
                                                                Counter(run["search_kernels"]).most_common()))
    if a.out:
        Path(a.out).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "args": vars(a), "runs": runs},
                                          indent=1))


if __name__ == "__main__":
    main()
