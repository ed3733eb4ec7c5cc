"""What searching a task turned or mirrored could add: every task a ranking leaves unsolved is copied once per
non-trivial symmetry of the square (three turns, two mirrors, two diagonal flips), every grid of the copy, its
outputs included, transformed alike. run-batt on the copies then searches `T | A | B | C | T^-1` for those
tasks: the programs the search's own primitives reach only in the other orientation.

usage: python benchmarks/dihedral_copies.py make RANK_VARIANTS.json DIR [--dataset arc1-train]
       gpubatch run-batt --dataset DIR/tasks --depth 3 --results R.json
       python benchmarks/dihedral_copies.py score DIR R.json
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from screen_cli import main

from gpubatch.arc.tasks import load_tasks

SYMMETRIES = {"rot90": lambda a: np.rot90(a, 1), "rot180": lambda a: np.rot90(a, 2),
              "rot270": lambda a: np.rot90(a, 3), "flip_rows": np.flipud, "flip_cols": np.fliplr,
              "transpose": lambda a: a.T, "antitranspose": lambda a: np.rot90(a, 2).T}


def _unsolved(variants: str, dataset: str) -> dict[str, int]:
    """Tasks of `dataset` whose test outputs run-batt's ranking did not all get right, by the variants file."""
    runs = {r["dataset"]: r for r in json.loads(Path(variants).read_text())["runs"]}
    return runs[dataset]["solved"]


def _turned(f, grid) -> list:
    return f(np.asarray(grid)).tolist()


def make(variants: str, out: Path, dataset: str) -> None:
    solved = _unsolved(variants, dataset)
    tasks = [t for t in load_tasks(dataset)[0] if solved.get(t.id, 0) < len(t.test_outputs or ())]
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    index = {}
    for t in tasks:
        for name, f in SYMMETRIES.items():
            doc = {"train": [{"input": _turned(f, a), "output": _turned(f, b)} for a, b in t.train],
                   "test": [{"input": _turned(f, a), "output": _turned(f, b)}
                            for a, b in zip(t.test_inputs, t.test_outputs)]}
            key = f"{t.id}_{name}"
            (out / "tasks" / f"{key}.json").write_text(json.dumps(doc))
            index[key] = [t.id, name]
    (out / "index.json").write_text(json.dumps(index, indent=0))
    print(f"{len(tasks)} unsolved tasks, {len(SYMMETRIES)} symmetries, {len(index)} copies")


def score(out: Path, results: str) -> None:
    index = json.loads((out / "index.json").read_text())
    by_task: dict[str, list] = {}
    for r in json.loads(Path(results).read_text())["tasks"]:
        if r["correct"] and all(r["correct"]):
            by_task.setdefault(index[r["id"]][0], []).append(index[r["id"]][1])
    per_sym = {s: sum(s in v for v in by_task.values()) for s in SYMMETRIES}
    print(json.dumps({"copies": len(index), "tasks right through a symmetry": len(by_task),
                      "by symmetry": per_sym, "by task": by_task}, indent=1))


if __name__ == "__main__":
    main(__doc__, make, score)
