"""The arc-dsl cross battery with the primitives as Python and compiled by Cython (`batt.compiled`), in turn.

First the compiled primitives are built into a fresh cache folder (the cold cost a new machine pays once),
then the bare command (`gpubatch --device cpu --gpus N run-batt --solvers S --battery cross --task-ids ...`,
from a temporary folder so that it imports the tree on PYTHONPATH) runs `--repeats` times with each setting,
alternating; every run's pairs (each sample's record) must equal the first's.

    python benchmarks/arcdsl_compiled.py --solvers ../shared/arc/arc-dsl/solvers.py --gpus 16 --json OUT.json
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


def _build(cache: Path) -> dict:
    code = ("import json, dataclasses\nfrom gpubatch.arc.arcdsl.native import prepare\n"
            f"print(json.dumps(dataclasses.asdict(prepare('on', {str(cache)!r}))))")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout) | {"wall_s": round(time.perf_counter() - t0, 2)}


def _run(args, mode: str, cache: Path, ids: list[str]) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        res, stats = Path(tmp) / "r.json", Path(tmp) / "s.json"
        cmd = [sys.executable, "-m", "gpubatch", "--device", "cpu", "--gpus", str(args.gpus), "--stats-json",
               str(stats), "run-batt", "--solvers", str(Path(args.solvers).resolve()), "--battery", "cross",
               "--task-ids", ",".join(ids), "--results", str(res), "--no-progress", "-q"]
        env = os.environ | {"GPUBATCH_BATT__COMPILED": mode, "GPUBATCH_BATT__COMPILED_DIR": str(cache)}
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env=env)
        wall = time.perf_counter() - t0
        if proc.returncode not in (0, 1):
            raise SystemExit(proc.stderr[-2000:])
        return wall, {"doc": json.loads(res.read_text()), "stats": json.loads(stats.read_text())}


def _lines_cpu(stats: dict) -> float | None:
    """Seconds of the solvers' lines summed over the workers (the host op's time)."""
    return next((round(op["seconds"], 2) for op in stats.get("ops", []) if op.get("op") == "arcdsl lines (host)"),
                None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solvers", required=True)
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--every", type=int, default=1, help="every k-th task of the dataset")
    ap.add_argument("--gpus", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--cache", type=Path, help="cache folder (default: a fresh one, so the build is cold)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    from gpubatch.arc.tasks import load_tasks

    tasks, _ = load_tasks(args.dataset)
    ids = sorted(t.id for t in tasks)[::args.every]
    cache = args.cache or Path(tempfile.mkdtemp(prefix="arcdsl-compiled-"))
    doc = {"date": time.strftime("%Y-%m-%d"), "host": os.uname().nodename, "python": sys.version.split()[0],
           "cpus": os.cpu_count(), "args": {k: str(v) for k, v in vars(args).items()}, "tasks": len(ids),
           "build": _build(cache), "runs": []}
    print("build", json.dumps(doc["build"]), flush=True)
    first = None
    for r in range(args.repeats):
        for mode in ("off", "on"):
            wall, got = _run(args, mode, cache, ids)
            pairs = got["doc"]["pairs"]
            first = first or pairs
            row = {"mode": mode, "repeat": r, "wall_s": round(wall, 2), "primitives": got["doc"]["run"].get("primitives"),
                   "pairs": len(pairs), "same_as_first": pairs == first, "statuses": got["doc"]["summary"].get("pairs"),
                   "lines_cpu_s": _lines_cpu(got["stats"])}
            doc["runs"].append(row)
            print(json.dumps(row), flush=True)
            if args.json:
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
