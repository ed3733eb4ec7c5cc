"""Compare two runs' per-op statistics (`--stats-json` files): for the ops both runs have, device seconds per
grid evaluated, in all and op by op; the ops only one run has, and the search's time outside the ops. Tells
"the primitives got slower" apart from "the search does more" (issue 21's speed target is about the first).

    python benchmarks/ops_compare.py OLD-stats.json NEW-stats.json [--top 15] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def load(path: Path) -> dict[str, dict]:
    """The per-op rows of a stats file by op name (a name seen on several devices summed)."""
    ops: dict[str, dict] = {}
    for row in json.loads(path.read_text())["ops"]:
        acc = ops.setdefault(row["op"], {"items": 0, "gpu_seconds": 0.0, "calls": 0})
        acc["items"] += row.get("items", 0)
        acc["gpu_seconds"] += row.get("gpu_seconds") or row.get("seconds", 0.0)
        acc["calls"] += row.get("calls", 0)
    return ops


def ns_per_grid(rows: list[dict]) -> float:
    items = sum(r["items"] for r in rows)
    return 1e9 * sum(r["gpu_seconds"] for r in rows) / items if items else 0.0


def compare(old: dict[str, dict], new: dict[str, dict]) -> dict:
    """Totals for the common ops, per-op ratios (new / old ns a grid), and the ops of one side only."""
    steps = {n for n in (*old, *new) if n == "search" or n.startswith("search.")}
    common = sorted(n for n in old if n in new and n not in steps and old[n]["items"] and new[n]["items"])
    per_op = {n: {"old_ns": ns_per_grid([old[n]]), "new_ns": ns_per_grid([new[n]]),
                  "old_s": old[n]["gpu_seconds"], "new_s": new[n]["gpu_seconds"]} for n in common}
    for row in per_op.values():
        row["ratio"] = row["new_ns"] / row["old_ns"] if row["old_ns"] else float("inf")
    side = {"old_only": sorted(set(old) - set(new) - steps), "new_only": sorted(set(new) - set(old) - steps)}
    return {
        "common_ops": len(common),
        "common": {"old_ns_per_grid": ns_per_grid([old[n] for n in common]),
                   "new_ns_per_grid": ns_per_grid([new[n] for n in common]),
                   "old_s": sum(old[n]["gpu_seconds"] for n in common),
                   "new_s": sum(new[n]["gpu_seconds"] for n in common),
                   "old_grids": sum(old[n]["items"] for n in common),
                   "new_grids": sum(new[n]["items"] for n in common)},
        "only": {k: {"ops": len(v), "seconds": sum((old if k == "old_only" else new)[n]["gpu_seconds"] for n in v)}
                 for k, v in side.items()},
        "steps": {n: (old.get(n, {}).get("gpu_seconds"), new.get(n, {}).get("gpu_seconds")) for n in sorted(steps)},
        "per_op": per_op,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--top", type=int, default=15, help="list the ops whose device time changed most")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    out = compare(load(args.old), load(args.new))
    c = out["common"]
    print(f"{out['common_ops']} common ops: {c['old_ns_per_grid']:.2f} -> {c['new_ns_per_grid']:.2f} ns a grid "
          f"({c['old_s']:.1f} s for {c['old_grids'] / 1e9:.2f}G grids -> {c['new_s']:.1f} s for "
          f"{c['new_grids'] / 1e9:.2f}G)")
    for k, v in out["only"].items():
        print(f"{k}: {v['ops']} ops, {v['seconds']:.1f} s")
    for name, (a, b) in out["steps"].items():
        print(f"{name}: {a if a is None else round(a, 2)} -> {b if b is None else round(b, 2)} s")
    moved = sorted(out["per_op"].items(), key=lambda kv: -abs(kv[1]["new_s"] - kv[1]["old_s"]))[:args.top]
    for name, r in moved:
        print(f"  {name:32s} {r['old_ns']:8.2f} -> {r['new_ns']:8.2f} ns/grid ({r['ratio']:.2f}x), "
              f"{r['old_s']:.2f} -> {r['new_s']:.2f} s")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
