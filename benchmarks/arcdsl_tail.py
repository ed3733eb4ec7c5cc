"""Where the arc-dsl cross battery's time goes (issue 14): every line of every solver timed on every sample of
every task, by gpubatch's per-value path, in a process pool (a task a job). Reports the pairs and the single
(line, sample) evaluations that cost the most, and how much of the whole they hold: the longest pair bounds
any run of the battery, however many cores or GPUs it has.

    python benchmarks/arcdsl_tail.py --solvers ../shared/arc/arc-dsl/solvers.py --every 1 --workers 16 \
        --json out/arcdsl_tail.json
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from gpubatch.arc.arcdsl import interp
from gpubatch.arc.arcdsl.solvers import read_solvers
from gpubatch.arc.tasks import load_tasks

_STATE: dict = {}
KEEP_S = 0.05  # evaluations at least this long are listed one by one


def _setup(solvers_file: str) -> None:
    solvers = [s for s in read_solvers(Path(solvers_file)) if not s.unsupported]
    exprs, lines, _ = interp._plan(solvers)
    where: dict[int, list[str]] = defaultdict(list)
    for s, mine in zip(solvers, lines):
        for line, e in zip(s.lines, mine):
            where[e].append(f"{s.name}:{line.lineno}")
    _STATE.update(solvers=solvers, exprs=exprs, lines=lines, where=where, prims=interp._table())


def _task(args) -> dict:
    """Every expression of the plan on every sample of one task, each evaluation timed."""
    solvers_file, task = args
    if not _STATE:
        _setup(solvers_file)
    exprs = _STATE["exprs"]
    grids = [g for g, _ in task.train] + list(task.test_inputs)
    cost = [0.0] * len(exprs)
    slow: list[tuple[int, int, float]] = []
    with interp.gc_paused():  # as the battery runs them
        _timed(grids, cost, slow)
    pairs = {s.name: sum(cost[e] for e in set(mine)) for s, mine in zip(_STATE["solvers"], _STATE["lines"])}
    lines = {_STATE["where"][e][0]: c for e, c in enumerate(cost) if c > 0}
    return {"task": task.id, "samples": len(grids), "seconds": sum(cost), "pairs": pairs, "lines": lines,
            "slow": [{"line": _STATE["where"][e][0], "shared_by": len(_STATE["where"][e]),
                      "primitive": str(exprs[e][0][1]), "sample": k, "seconds": round(dt, 4)} for e, k, dt in slow]}


def _timed(grids: list, cost: list[float], slow: list) -> None:
    exprs, prims = _STATE["exprs"], _STATE["prims"]
    values: list[dict] = [dict(enumerate(grids))] + [{} for _ in exprs[1:]]
    for e in range(1, len(exprs)):
        for k in range(len(grids)):
            t0 = time.perf_counter()
            values[e][k] = interp.evaluate_one(exprs[e], values, k, prims)
            dt = time.perf_counter() - t0
            cost[e] += dt
            if dt >= KEEP_S:
                slow.append((e, k, dt))
    values.clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solvers", required=True)
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--every", type=int, default=1, help="one task in K")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--json")
    a = ap.parse_args()
    tasks = load_tasks(a.dataset)[0][::a.every]
    t0 = time.perf_counter()
    with ProcessPoolExecutor(a.workers) as pool:
        rows = list(pool.map(_task, [(a.solvers, t) for t in tasks]))
    wall = time.perf_counter() - t0
    total = sum(r["seconds"] for r in rows)
    pairs = sorted(((s, r["task"], sec) for r in rows for s, sec in r["pairs"].items()), key=lambda p: -p[2])
    slow = sorted(({**s, "task": r["task"]} for r in rows for s in r["slow"]), key=lambda s: -s["seconds"])
    by_line: dict[str, float] = defaultdict(float)
    for r in rows:
        for line, sec in r["lines"].items():
            by_line[line] += sec
    shares = {f"top {n} pairs": round(sum(p[2] for p in pairs[:n]) / total, 4) for n in (1, 10, 100)}
    shares.update({f"top {n} lines": round(sum(sorted(by_line.values())[-n:]) / total, 4) for n in (1, 10, 30)})
    doc = {"tasks": len(tasks), "evaluation_seconds": round(total, 2), "wall_seconds": round(wall, 2),
           "workers": a.workers, "shares": shares,
           "top_pairs": [{"solver": s, "task": t, "seconds": round(sec, 3)} for s, t, sec in pairs[:a.top]],
           "top_lines": [{"line": k, "seconds": round(v, 3)} for k, v in
                         sorted(by_line.items(), key=lambda kv: -kv[1])[:a.top]],
           "top_evaluations": slow[:a.top * 3]}
    if a.json:
        Path(a.json).write_text(json.dumps(doc, indent=1))
    print(json.dumps({k: doc[k] for k in ("tasks", "evaluation_seconds", "wall_seconds", "shares")}))
    for p in doc["top_pairs"]:
        print(f"{p['seconds']:8.2f} s  {p['solver']} on {p['task']}")
    for row in doc["top_lines"]:
        print(f"{row['seconds']:8.2f} s  {row['line']} over all tasks")
    for s in slow[:a.top]:
        print(f"{s['seconds']:8.2f} s  {s['line']} ({s['primitive']}) on {s['task']} sample {s['sample']}")


if __name__ == "__main__":
    main()
