"""Classify the tasks a run-batt results file does not solve, by what their demo pairs change: the table in
docs/benchmarks.md that guides which primitives to add next. Study training results only: the evaluation
set stays held out.

usage: python benchmarks/unsolved_classes.py RESULTS.json [--dataset arc1-train] [--list]
"""
import argparse
import json

import numpy as np

from gpubatch.arc.tasks import load_tasks

CLASSES = ("same size, only 0 cells change", "same size, only non-0 cells recoloured", "smaller, computed",
           "same size, other changes", "larger", "smaller, a sub-grid of the input")


def _sub_grid(a: np.ndarray, b: np.ndarray) -> bool:
    H, W = b.shape
    return any((a[i:i + H, j:j + W] == b).all() for i in range(a.shape[0] - H + 1) for j in range(a.shape[1] - W + 1))


def classify(task) -> str:
    """The class of one task from its demo pairs (see docs/benchmarks.md for the rules)."""
    pairs = [(np.array(a), np.array(b)) for a, b in task.train]
    if all(a.shape == b.shape for a, b in pairs):
        if all(not ((a != b) & (a != 0)).any() for a, b in pairs):
            return CLASSES[0]
        if all(not ((a != b) & (a == 0)).any() for a, b in pairs):
            return CLASSES[1]
        return CLASSES[3]
    if all(b.shape[0] <= a.shape[0] and b.shape[1] <= a.shape[1] for a, b in pairs):
        return CLASSES[5] if all(_sub_grid(a, b) for a, b in pairs) else CLASSES[2]
    return CLASSES[4]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--list", action="store_true", help="print the task ids of each class")
    args = ap.parse_args()
    res = json.load(open(args.results))["tasks"]
    solved = {t["id"] for t in res if t["correct"] and all(t["correct"])}
    overfit = sum(1 for t in res if t["fits"] and t["correct"] is not None and not all(t["correct"]))
    tasks, _ = load_tasks(args.dataset, ids=[t["id"] for t in res])
    by: dict[str, list[str]] = {c: [] for c in CLASSES}
    for t in tasks:
        if t.id not in solved:
            by[classify(t)].append(t.id)
    print(f"{len(tasks) - len(solved)} unsolved of {len(tasks)} ({overfit} with a fit that is wrong on a test input)")
    for c in sorted(CLASSES, key=lambda c: -len(by[c])):
        print(f"| {c} | {len(by[c])} |" + (f" {' '.join(by[c])}" if args.list else ""))


if __name__ == "__main__":
    main()
