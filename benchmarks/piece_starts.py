"""What pieces as start states could add: every task a ranking leaves unsolved is copied once per piece
selector (a crop of an object, of a colour, of the bounding box, a cell of a divided grid...), each copy's
inputs (demos and tests) replaced by that piece, its outputs kept. run-batt on the copies at depth 3 then
searches programs `piece | A | B | C`, one level past the search's own, for those tasks only.

usage: python benchmarks/piece_starts.py make RECORDS.json.gz DIR [--dataset arc1-train]
       gpubatch run-batt --dataset DIR/tasks --depth 3 --results R.json
       python benchmarks/piece_starts.py score DIR R.json[.gz]
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from rank_records import attempts_right
from screen_cli import main

from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.tasks import load_tasks

SELECTORS = {"crop_bbox", "crop_colour", "crop_largest", "crop_smallest", "crop_pick", "crop_most", "parts",
             "compress", "trim", "untile", "dedupe"}


def _piece(prim, grid) -> list | None:
    try:
        out = prim.reference([list(r) for r in grid])
    except (ValueError, IndexError, ZeroDivisionError):  # a selector undefined on this grid: no copy for it
        return None
    return [list(map(int, r)) for r in out] if out and out[0] else None


def make(records: str, out: Path, dataset: str) -> None:
    with gzip.open(records) as f:
        recs = json.load(f)[dataset]
    tasks = [t for t in load_tasks(dataset)[0] if attempts_right(recs.get(t.id, [])) < len(t.test_outputs or ())]
    sel = [p for p in REGISTRY.instances() if p.family.name in SELECTORS]
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    index = {}
    for t in tasks:
        grids = [a for a, _ in t.train] + list(t.test_inputs)
        seen = set()
        for k, prim in enumerate(sel):
            got = [_piece(prim, g) for g in grids]
            key = json.dumps(got)
            if any(g is None for g in got) or got == [[list(r) for r in g] for g in grids] or key in seen:
                continue
            seen.add(key)
            n = len(t.train)
            doc = {"train": [{"input": got[i], "output": [list(r) for r in b]} for i, (_, b) in enumerate(t.train)],
                   "test": [{"input": got[n + i], "output": [list(r) for r in o]}
                            for i, o in enumerate(t.test_outputs)]}
            name = f"{t.id}x{k:03d}"
            (out / "tasks" / f"{name}.json").write_text(json.dumps(doc))
            index[name] = [t.id, prim.text]
    (out / "index.json").write_text(json.dumps(index, indent=0))
    print(f"{len(tasks)} unsolved tasks, {len(sel)} selectors, {len(index)} copies")


def score(out: Path, results: str) -> None:
    index = json.loads((out / "index.json").read_text())
    solved: dict[str, list] = {}
    with (gzip.open if results.endswith(".gz") else open)(results) as f:
        rows = json.load(f)["tasks"]
    for r in rows:
        if r["correct"] and all(r["correct"]):
            solved.setdefault(index[r["id"]][0], []).append(index[r["id"]][1])
    print(json.dumps({"copies": len(index), "tasks right through a piece": len(solved), "by task": solved}, indent=1))


if __name__ == "__main__":
    main(__doc__, make, score)
