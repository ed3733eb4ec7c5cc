"""The arc-dsl battery (issue 14) against its reference, measured in the same run on the same machine:
arc-dsl's own solvers run per sample in a process pool on every core (the oracle, read from ../shared), and
`gpubatch run-batt --solvers` (whole command, wall-clock). Both batteries: `own` (each solver on its task)
and `cross` (every solver on every task of a 1-in-K sample of the tasks). Outcomes compared pair by pair.

    python benchmarks/arcdsl_battery.py --solvers ../shared/arc/arc-dsl/solvers.py --cross-every 10 \
        --gpus 2 --device cpu --json out/arcdsl.json

gpubatch runs from a temporary folder, so `PYTHONPATH=OTHER_TREE python benchmarks/arcdsl_battery.py ...`
measures that tree's code (the command's own folder would come first on `sys.path` otherwise).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

_ORACLE: dict = {}


def _load(solvers_file: str):
    if "mod" not in _ORACLE:
        sys.path.insert(0, str(Path(solvers_file).parent))
        spec = importlib.util.spec_from_file_location("oracle_solvers", solvers_file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _ORACLE["mod"] = mod
    return _ORACLE["mod"]


def _oracle_pair(args) -> tuple[str, str, str]:
    """One (solver, task) by the oracle, per sample: its status as run-batt names them."""
    solvers_file, name, task = args
    fn = getattr(_load(solvers_file), name)
    outs = []
    for grid in [g for g, _ in task.train] + list(task.test_inputs):
        try:
            outs.append(fn(grid))
        except Exception as exc:  # noqa: BLE001 - an error is an outcome
            outs.append(exc)
    demos = outs[:len(task.train)]
    if any(isinstance(o, Exception) for o in demos):
        status = "error"
    elif any(o != want for o, (_, want) in zip(demos, task.train)):
        status = "wrong"
    elif task.test_outputs is not None and list(outs[len(task.train):]) == list(task.test_outputs):
        status = "solved"
    else:
        status = "fits"
    return name, task.id, status


def oracle(solvers_file: str, pairs: list, workers: int) -> tuple[dict, float]:
    t0 = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        out = list(pool.map(_oracle_pair, [(solvers_file, n, t) for n, t in pairs], chunksize=4))
    return {f"{n}/{t}": s for n, t, s in out}, time.perf_counter() - t0


def ours(args, battery: str, ids: list[str]) -> tuple[dict, float, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        res = Path(tmp) / "r.json"
        cmd = [sys.executable, "-m", "gpubatch", "--device", args.device, "--gpus", str(args.gpus), "run-batt",
               "--solvers", str(Path(args.solvers).resolve()), "--battery", battery, "--task-ids", ",".join(ids), "--results", str(res),
               "--no-progress", "-q"]
        t0 = time.perf_counter()
        # from the temporary folder: `-m gpubatch` imports the tree on PYTHONPATH, not the one in the current folder
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
        wall = time.perf_counter() - t0
        if proc.returncode not in (0, 1):
            raise SystemExit(proc.stderr[-2000:])
        doc = json.loads(res.read_text())
    return {p["id"]: p["status"] for p in doc["pairs"]}, wall, doc["summary"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solvers", required=True)
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--cross-every", type=int, default=10)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--gpus", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="the oracle's pool")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    from gpubatch.arc.arcdsl.solvers import read_solvers
    from gpubatch.arc.tasks import load_tasks

    tasks, _ = load_tasks(args.dataset)
    by_id = {t.id: t for t in tasks}
    names = [s.name for s in read_solvers(Path(args.solvers)) if not s.unsupported]
    runs = {}
    for battery in ("own", "cross"):
        if battery == "own":
            pairs = [(n, by_id[n[len("solve_"):]]) for n in names if n[len("solve_"):] in by_id]
            ids = sorted({t.id for _, t in pairs})
        else:
            chosen = sorted(by_id)[::args.cross_every]
            pairs = [(n, by_id[i]) for n in names for i in chosen]
            ids = chosen
        samples = sum(len(t.train) + len(t.test_inputs) for _, t in pairs)
        want, oracle_s = oracle(args.solvers, pairs, args.workers)
        got, ours_s, summary = ours(args, battery, ids)
        differ = sorted(k for k in want if got.get(k) != want[k])
        runs[battery] = {"pairs": len(pairs), "samples": samples, "oracle_pool_s": round(oracle_s, 2),
                         "oracle_workers": args.workers, "gpubatch_s": round(ours_s, 2),
                         "gpubatch_ms_per_sample": round(1e3 * ours_s / samples, 3),
                         "oracle_ms_per_sample_per_worker": round(1e3 * oracle_s * args.workers / samples, 3),
                         "speedup": round(oracle_s / ours_s, 3), "agree": len(pairs) - len(differ),
                         "differ": differ[:50], "solved": summary.get("pairs", {}).get("solved")}
        print(battery, json.dumps(runs[battery]), flush=True)
        doc = {"date": time.strftime("%Y-%m-%d"), "host": os.uname().nodename,
               "args": vars(args) | {"json": str(args.json)}, "runs": runs}
        if args.json:  # after each battery: a run cut short keeps what it measured
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
