"""The dask runner's cost (issue 18): scheduling overhead per task, from many tiny batches on a LocalCluster,
and analyze on a tree with `--cluster local:2` against the same run without a cluster.

    python benchmarks/cluster_overhead.py --tasks 2000 --tree $STDLIB --json out/cluster.json
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, Selection


def _noop(items, backend):
    return list(items)


def _one(x):
    return x


def per_task(tasks: int, workers: int) -> dict:
    """Seconds per batch of one item: the local runner in this process, and the dask runner (cluster started
    and workers warmed before the clock); a local cluster's start and close with no work; and Dask's own floor on the same cluster: the same number of bare
    tasks submitted at once with `client.map` and gathered."""
    op = BatchOp("noop", _noop)
    out = {}
    for name, address in (("local", ""), ("dask", f"local:{workers}")):
        settings = EngineSettings(device="cpu", cluster_address=address, initial_size=1, max_size=1,
                                  dynamic_sizing=False)
        with BatchExecutor(settings, Selection("numpy")) as ex:
            ex.run_all(op, range(50))  # warm: imports and pickling paths on every worker
            t0 = time.perf_counter()
            ex.run_all(op, range(tasks))
            out[name] = (time.perf_counter() - t0) / tasks
            if name == "dask":
                client = ex.runner.client
                t0 = time.perf_counter()
                client.gather(client.map(_one, range(tasks), pure=False))
                out["dask_map_floor"] = (time.perf_counter() - t0) / tasks
    settings = EngineSettings(device="cpu", cluster_address=f"local:{workers}")
    t0 = time.perf_counter()
    ex = BatchExecutor(settings, Selection("numpy"))
    ex.runner.client  # the cluster starts on a thread of its own: ready once its client is
    t1 = time.perf_counter()
    ex.close()
    out["cluster_start_s"], out["cluster_close_s"] = t1 - t0, time.perf_counter() - t1  # a run's fixed cost
    out["overhead_ms_per_task"] = 1e3 * (out["dask"] - out["local"])
    out["dask_floor_ms_per_task"] = 1e3 * out["dask_map_floor"]
    return out


def analyze(tree: str, workers: int, repeats: int) -> dict:
    """Whole `gpubatch analyze` commands, cold (no cache), best of `repeats` taken in turn (so that the
    machine's drift hits every setup alike): the parser pool here, N worker processes (`--gpus N` on the CPU)
    and a local cluster of N workers."""
    setups = {"no cluster": [], f"--gpus {workers}": ["--gpus", str(workers)],
              f"--cluster local:{workers}": ["--cluster", f"local:{workers}"]}
    times: dict[str, list[float]] = {name: [] for name in setups}
    for _ in range(repeats):
        for name, extra in setups.items():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "gpubatch", "analyze", tree, "--no-cache", "--device", "cpu", "-q",
                            "--no-progress", "--format", "json", "-o", "/dev/null", *extra], check=False)
            times[name].append(round(time.perf_counter() - t0, 3))
    return {"best": {name: min(t) for name, t in times.items()}, "all": times}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tree")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    res = {"per_task": per_task(args.tasks, args.workers)}
    if args.tree:
        res["analyze"] = analyze(args.tree, args.workers, args.repeats)
    text = json.dumps(res, indent=1)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
