"""Accuracy of the output-size prediction (`gpubatch/arc/size.py`): the share of test outputs whose size it
predicts, per dataset, with the tasks that no rule fits and the rules kept most often.

usage: python benchmarks/size_accuracy.py [--datasets arc1-train,arc1-eval,arc2-eval] [--device cpu|cuda]
                                          [--out F.json]
"""
from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from datetime import date
from pathlib import Path

import numpy as np

from gpubatch.arc.size import predict_for_tasks
from gpubatch.arc.tasks import load_tasks


def measure(dataset: str, xp) -> dict:
    tasks = load_tasks(dataset)[0]
    t0 = time.perf_counter()
    sizes, fit = predict_for_tasks(tasks, xp)
    seconds = time.perf_counter() - t0
    right = known = 0
    for task, predicted in zip(tasks, sizes):
        for out, size in zip(task.test_outputs or (), predicted):
            known += 1
            right += (len(out), len(out[0])) == size
    rules = Counter(f"{a.describe() if a else '-'} x {b.describe() if b else '-'}" for a, b in zip(fit.rows, fit.cols))
    return {"dataset": dataset, "tasks": len(tasks), "test_outputs": known, "right": right,
            "accuracy": round(right / max(known, 1), 4), "tasks_without_a_rule": sum(
                a is None or b is None for a, b in zip(fit.rows, fit.cols)),
            "seconds": round(seconds, 3), "rules": dict(rules.most_common(15))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="arc1-train,arc1-eval,arc2-eval")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--out")
    a = ap.parse_args()
    xp = np
    if a.device == "cuda":
        import cupy as xp  # the GPU path only
    doc = {"date": date.today().isoformat(), "device": a.device,
           "runs": [measure(d, xp) for d in a.datasets.split(",")]}
    for run in doc["runs"]:
        print(f"{run['dataset']}: {run['right']}/{run['test_outputs']} ({run['accuracy']:.1%}), "
              f"{run['tasks_without_a_rule']} tasks without a rule, {run['seconds']} s")
    if a.out:
        Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
