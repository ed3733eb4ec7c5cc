"""run-batt's search time for two versions of the code on one machine, runs interleaved (A B A B ...), so
that a change's effect is told apart from the spread between machines; every run's outcomes are compared
with the first's.

Each version is a source tree holding `gpubatch/`: the working tree, and a baseline made from a git revision
(`--rev`, by `git archive`) or given as a folder (`--base`). A run imports its tree alone: it starts in an
empty folder with only that tree on PYTHONPATH (`python -m gpubatch` in the repository would import the
working tree whatever PYTHONPATH says), and the module's path is checked.

    python benchmarks/ab_search.py --rev HEAD~1 --dataset arc1-eval --depth 3 --repeats 2 --json out/ab.json
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

from cluster_vs_gpus import same_outcomes

ROOT = Path(__file__).resolve().parent.parent


def baseline(rev: str, into: Path) -> Path:
    """The tree of `rev`'s gpubatch package, unpacked under `into`."""
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "archive", rev, "gpubatch"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def run(tree: Path, args, results: Path, stats: Path, cwd: Path) -> dict:
    """One run-batt of `tree`'s code; its search seconds, evaluations per second and exit status."""
    # the tree first; other entries (a GPU box's installed wheels) kept, the repository's own left out
    kept = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
            if p and Path(p).resolve() != ROOT and not (Path(p) / "gpubatch").is_dir()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), *kept])}
    where = subprocess.run([sys.executable, "-c", "import gpubatch; print(gpubatch.__file__)"], cwd=cwd, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    if not Path(where).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"{tree} is not what a run imports: {where}")
    # the global options after the command: older trees read them only there
    cmd = [sys.executable, "-m", "gpubatch", "run-batt", "--device", args.device, "--stats-json", str(stats),
           "--dataset", args.dataset, "--depth", str(args.depth), "--results", str(results), "--no-progress",
           "-q"] + (["--tasks", str(args.tasks)] if args.tasks else [])
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    row = {"seconds": round(time.perf_counter() - t0, 3), "exit": proc.returncode}
    if proc.returncode not in (0, 1):
        row["stderr"] = proc.stderr[-2000:]
        return row
    doc = json.loads(results.read_text())
    timings = doc.get("timings") or doc.get("summary", {})  # older trees keep them in the summary
    row["search_s"] = round(timings.get("seconds", 0.0), 3)
    row["start_s"] = round(timings.get("start_seconds", 0.0), 3)
    row["evals_per_s"] = round(timings.get("evals_per_s", 0.0))
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rev", help="baseline: this git revision's gpubatch package")
    ap.add_argument("--base", type=Path, help="baseline: a folder holding gpubatch/")
    ap.add_argument("--dataset", default="arc1-eval")
    ap.add_argument("--tasks", type=int, default=0, help="first N tasks (0: all)")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", type=Path, help="Write every run's results and stats here (default: a temporary folder).")
    args = ap.parse_args()
    if (args.rev is None) == (args.base is None):
        raise SystemExit("give one baseline: --rev REV or --base DIR")
    work = args.keep or Path(tempfile.mkdtemp(prefix="ab-search-"))
    work.mkdir(parents=True, exist_ok=True)
    cwd = work / "cwd"
    cwd.mkdir(exist_ok=True)
    trees = {"base": args.base.resolve() if args.base else baseline(args.rev, work / "base"), "new": ROOT}
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    first: Path | None = None
    own_first: dict[str, Path] = {}  # each tree's first run: do repeats of one tree agree with each other?
    for r in range(args.repeats):
        for name, tree in trees.items():
            results, stats = work / f"{name}-{r}.json", work / f"{name}-{r}-stats.json"
            row = run(tree, args, results, stats, cwd)
            if "search_s" in row:
                first = first or results
                row["same_outcomes_as_first"] = same_outcomes(first, results)
                if own_first.setdefault(name, results) != results:
                    row["same_outcomes_as_own_first"] = same_outcomes(own_first[name], results)
            runs[name].append(row)
            print(f"{name} #{r}: {json.dumps(row)}", flush=True)
    best = {name: min((x["search_s"] for x in rows if "search_s" in x), default=None) for name, rows in runs.items()}
    print(json.dumps(best))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                check=False).stdout.strip()
        args.json.write_text(json.dumps({"host": os.uname().nodename, "date": time.strftime("%Y-%m-%d"),
                                         "commit": commit, "args": {k: str(v) for k, v in vars(args).items()},
                                         "runs": runs, "best_search_s": best}, indent=1))


if __name__ == "__main__":
    main()
