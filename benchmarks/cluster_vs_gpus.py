"""run-batt through each way of using several GPUs (issue 18, and the 4-GPU figures of issue 19): `--gpus N`
(one process per GPU) against `--cluster local:N` (one Dask worker per GPU), whole commands timed wall-clock,
repeats interleaved so that drift hits every setup alike, and every run's outcomes compared with the first's.
The search by default; with `--solvers`, an arc-dsl battery (`--battery cross`: every solver on every task).

    python benchmarks/cluster_vs_gpus.py --dataset arc1-eval --tasks 400 --depth 3 \
        --setups "gpus:1,gpus:2,cluster:2" --repeats 2 --json out/cluster-vs-gpus.json
    python benchmarks/cluster_vs_gpus.py --solvers ../shared/arc/arc-dsl/solvers.py --battery cross \
        --dataset arc1-train --tasks 100 --setups "gpus:1,gpus:4,cluster:4" --json out/cross.json
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def command(setup: str, args, results: Path, stats: Path) -> list[str]:
    kind, _, n = setup.partition(":")
    where = ["--gpus", n] if kind == "gpus" else ["--cluster", f"local:{n}"]
    job = ["--solvers", args.solvers, "--battery", args.battery] if args.solvers else ["--depth", str(args.depth)]
    return [sys.executable, "-m", "gpubatch", "--device", args.device, *where, "run-batt", "--dataset",
            args.dataset, "--tasks", str(args.tasks), *job, "--results", str(results),
            "--stats-json", str(stats), "--no-progress", "-q"]


WORKER_MODULES = ("distributed", "dask", "tornado", "gpubatch")  # what a worker imports as it starts


def compiled(modules: tuple[str, ...] = WORKER_MODULES) -> dict[str, bool | None]:
    """Whether each module's bytecode is on disk. An install compiles it; a box whose install skips that and
    whose environment sets PYTHONDONTWRITEBYTECODE compiles it in every process that imports it (a Dask
    worker spent 1-1.4 s more starting so on a 2xH200 box). None: the module is not installed."""
    import importlib.util

    out: dict[str, bool | None] = {}
    for name in modules:
        spec = importlib.util.find_spec(name)
        out[name] = None if spec is None else bool(spec.cached and Path(spec.cached).exists())
    return out


def warn_uncompiled() -> None:
    missing = [name for name, ok in compiled().items() if ok is False]
    if missing:
        print(f"note: no bytecode on disk for {', '.join(missing)}: each worker compiles them as it starts "
              "(`python -m compileall` their folders first, as an install does)", file=sys.stderr)


def same_outcomes(a: Path, b: Path) -> bool:
    proc = subprocess.run([sys.executable, "-m", "gpubatch", "diff", str(a), str(b)], capture_output=True,
                          text=True, check=False)
    return proc.returncode == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="arc1-eval")
    ap.add_argument("--tasks", type=int, default=400)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--solvers", help="An arc-dsl solvers file: time that battery instead of the search.")
    ap.add_argument("--battery", default="cross", choices=("own", "cross"))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--setups", default="gpus:1,gpus:2,cluster:2")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", type=Path, help="Write every run's results here (default: a temporary folder).")
    args = ap.parse_args()
    warn_uncompiled()
    setups = [s.strip() for s in args.setups.split(",") if s.strip()]
    work = args.keep or Path(tempfile.mkdtemp(prefix="cluster-vs-gpus-"))
    work.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict]] = {s: [] for s in setups}
    first: Path | None = None
    for r in range(args.repeats):
        for setup in setups:
            results, stats = work / f"{setup.replace(':', '')}-{r}.json", work / "stats.json"
            t0 = time.perf_counter()
            proc = subprocess.run(command(setup, args, results, stats), capture_output=True, text=True, check=False)
            row = {"seconds": round(time.perf_counter() - t0, 3), "exit": proc.returncode}
            if proc.returncode not in (0, 1):
                row["stderr"] = proc.stderr[-2000:]
            else:
                first = first or results
                row["same_outcomes_as_first"] = same_outcomes(first, results)
                timings = json.loads(results.read_text()).get("timings", {})
                row["job_s"] = round(timings.get("seconds", 0.0), 3)  # the search, without process start/end
                row["start_s"] = round(timings.get("start_seconds", 0.0), 3)
                st = json.loads(stats.read_text())
                op, key = ("arcdsl battery", "battery_by_device") if args.solvers else ("search", "search_by_device")
                row[key] = {o["device"]: round(o["seconds"], 2) for o in st.get("ops", []) if o["op"] == op}  # balance
                # where the rest of the command went: the process's start, then each phase's end from the command's
                row["phases"] = {"process start": st.get("process_start_s"),
                                 **{p["phase"]: round(p["at_s"], 3) for p in st.get("phases", [])}}
                if args.solvers:
                    row["pairs"] = json.loads(results.read_text())["summary"].get("pairs")
            runs[setup].append(row)
            print(f"{setup} #{r}: {row['seconds']:.2f} s exit {row['exit']} "
                  f"same={row.get('same_outcomes_as_first')}", flush=True)
            save(args, runs)
    best = {s: min((x["seconds"] for x in rows if x["exit"] in (0, 1)), default=None) for s, rows in runs.items()}
    print(json.dumps(best, indent=1))
    save(args, runs, best)


def save(args, runs: dict, best: dict | None = None) -> None:
    """Write what was measured so far (a run cut short by its time limit keeps its rows)."""
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"host": os.uname().nodename, "date": time.strftime("%Y-%m-%d"),
                                         "bytecode": compiled(),
                                         "args": {k: str(v) for k, v in vars(args).items()}, "runs": runs,
                                         "best_s": best}, indent=1))


if __name__ == "__main__":
    main()
