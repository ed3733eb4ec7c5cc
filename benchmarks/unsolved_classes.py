"""Classify the tasks a run-batt results file does not solve, by what their demo pairs change: the table in
docs/benchmarks.md that guides which primitives to add next. Study training results only: the evaluation
set stays held out.

usage: python benchmarks/unsolved_classes.py RESULTS.json [--dataset arc1-train] [--list]
(RESULTS: run-batt's `--results`, or `rank_variants.py --out`, whose run of the dataset is read)
"""
import argparse
import json
from pathlib import Path

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


def _right(path: str, dataset: str) -> dict[str, int]:
    """Test outputs right per task id: from a run-batt `--results` file, or from `rank_variants.py --out`
    (its run of `dataset`, run-batt's ranking)."""
    doc = json.loads(Path(path).read_text())
    if "runs" in doc:
        run = next(r for r in doc["runs"] if r["dataset"] == dataset)
        return dict(run["solved"])
    return {t["id"]: sum(t["correct"] or ()) for t in doc["tasks"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="run-batt --results JSON, or rank_variants.py --out JSON")
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--list", action="store_true", help="print the task ids of each class")
    args = ap.parse_args()
    right = _right(args.results, args.dataset)
    tasks, _ = load_tasks(args.dataset)
    rows: dict[str, list] = {c: [0, 0, 0, []] for c in CLASSES}  # tasks, test outputs, right, unsolved ids
    for t in tasks:
        row = rows[classify(t)]
        n = len(t.test_outputs or ())
        row[0], row[1], row[2] = row[0] + 1, row[1] + n, row[2] + right.get(t.id, 0)
        if right.get(t.id, 0) < n:
            row[3].append(t.id)
    print("| what the demos change | tasks | test outputs right |")
    print("|---|--:|--:|")
    for c in sorted(CLASSES, key=lambda c: -rows[c][1]):
        n, outs, ok, ids = rows[c]
        print(f"| {c} | {n} | {ok}/{outs} ({ok / max(1, outs):.0%}) |" + (f" {' '.join(ids)}" if args.list else ""))


if __name__ == "__main__":
    main()
