"""Make a results file small enough to keep in `benchmarks/results/`: a summary and per-task outcomes.

    python benchmarks/slim_results.py FULL.json SLIM.json [--commit abc1234 --card H100 --command "..."]

- run-batt `--results`: the summary (outcomes and timings) and, per task, whether each test output was
  right, the best program, how many programs fit, states, why the search stopped; no predicted grids;
- `--stats-json`: one op per line;
- `gpubatch bench --json`: the plan, the machine and the summary rows; no raw samples;
- `benchmarks/auto_vs_devices.py --json`: each run's time with only its job's op from the stats.
The full file is what the command beside a figure regenerates; the slim one is what the figure rests on.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

_TIMINGS = ("seconds", "start_seconds", "evals_per_s")


def slim_batt(doc: dict) -> dict:
    summary = dict(doc["summary"])
    timings = dict(doc.get("timings", {}))
    timings.pop("tasks", None)
    for name in _TIMINGS:  # files written before outcomes and timings were apart
        if name in summary:
            timings[name] = summary.pop(name)
    tasks = [{"id": t["id"], "correct": t["correct"], "best": t["fits"][0]["program"] if t["fits"] else None,
              "fits": len(t["fits"]), "states": t.get("states"), "stopped": t.get("stopped"),
              **({"error": t["error"]} if t.get("error") else {})} for t in doc["tasks"]]
    return {"summary": summary, "timings": timings, "run": doc.get("run", {}), "tasks": tasks}


def slim_bench(doc: dict) -> dict:
    return {k: doc[k] for k in ("plan", "machine", "seconds", "summary", "suite") if k in doc}


def slim_auto(doc: dict) -> dict:
    """benchmarks/auto_vs_devices.py: each run's time, and of its stats the job's own op and GPU start-up."""
    runs = []
    for r in doc["runs"]:
        st = r.get("stats") or {}
        ops = [{k: o[k] for k in ("op", "device", "batches", "seconds", "work", "reasons")}
               for o in st.get("ops", []) if o["op"] in ("search", "analyze")]
        runs.append({**{k: v for k, v in r.items() if k != "stats"}, "ops": ops,
                     "gpu_startup_s": st.get("gpu_startup_s", 0.0)})
    return {**{k: v for k, v in doc.items() if k != "runs"}, "runs": runs}


def slim(doc: dict) -> dict:
    if "tasks" in doc and "summary" in doc:
        return slim_batt(doc)
    if "runs" in doc and doc["runs"] and "job" in doc["runs"][0]:
        return slim_auto(doc)
    if "ops" in doc:
        return doc
    return slim_bench(doc)


def dump(doc: dict) -> str:
    """JSON with one record per line for the lists (tasks, ops, summary rows): small and diffable."""
    lines = ["{"]
    items = list(doc.items())
    for i, (key, value) in enumerate(items):
        end = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f" {json.dumps(key)}: [")
            lines += [f"  {json.dumps(v, separators=(',', ':'))}" + ("," if j < len(value) - 1 else "")
                      for j, v in enumerate(value)]
            lines.append(f" ]{end}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}{end}")
    return "\n".join(lines + ["}"]) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("full", type=Path)
    ap.add_argument("slim", type=Path)
    ap.add_argument("--commit", default="")
    ap.add_argument("--card", default="")
    ap.add_argument("--command", default="")
    args = ap.parse_args()
    doc = slim(json.loads(args.full.read_text()))
    provenance = {k: v for k, v in (("commit", args.commit), ("card", args.card), ("command", args.command)) if v}
    if provenance:
        doc = {"provenance": provenance, **doc}
    args.slim.write_text(dump(doc))


if __name__ == "__main__":
    main()
