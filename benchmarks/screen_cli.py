"""What the copy screens share (`piece_starts.py`, `dihedral_copies.py`, `norm_keys.py`): the command line
(`make SOURCE DIR` writes copies of the unsolved tasks as a dataset, `score DIR RESULTS` reads run-batt's results
on them), the unsolved tasks of a rank-variants file, and the score of copies named by an index."""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from gpubatch.arc.tasks import load_tasks


def main(doc: str, make: Callable[[str, Path, str], None], score: Callable[[Path, str], None]) -> None:
    """Parse `make`/`score` and their two arguments (and `--dataset`), then call the one asked for."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("what", choices=("make", "score"))
    ap.add_argument("args", nargs=2)
    ap.add_argument("--dataset", default="arc1-train")
    a = ap.parse_args()
    if a.what == "make":
        make(a.args[0], Path(a.args[1]), a.dataset)
    else:
        score(Path(a.args[0]), a.args[1])


def unsolved_tasks(variants: str, dataset: str) -> list:
    """The tasks of `dataset` whose test outputs run-batt's ranking did not all get right, by the `solved` counts
    of a `rank_variants.py` file."""
    runs = {r["dataset"]: r for r in json.loads(Path(variants).read_text())["runs"]}
    solved = runs[dataset]["solved"]
    return [t for t in load_tasks(dataset)[0] if solved.get(t.id, 0) < len(t.test_outputs or ())]


def write_copies(out: Path, copies, what: str) -> None:
    """Write each (task, kind, task document) as DIR/tasks/<task>_<kind>.json and the index of them all."""
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    index = {}
    for task_id, kind, doc in copies:
        (out / "tasks" / f"{task_id}_{kind}.json").write_text(json.dumps(doc))
        index[f"{task_id}_{kind}"] = [task_id, kind]
    (out / "index.json").write_text(json.dumps(index, indent=0))
    print(f"{len({t for t, _ in index.values()})} tasks copied, {what}: {len(index)} copies")


def score_copies(out: Path, results: str, kinds: list[str], kind: str) -> None:
    """Print the tasks whose copies (DIR/index.json: copy -> [task, kind]) run-batt got wholly right, by kind."""
    index = json.loads((out / "index.json").read_text())
    by_task: dict[str, list] = {}
    for r in json.loads(Path(results).read_text())["tasks"]:
        if r["correct"] and all(r["correct"]):
            by_task.setdefault(index[r["id"]][0], []).append(index[r["id"]][1])
    print(json.dumps({"copies": len(index), f"tasks right through a {kind}": len(by_task),
                      f"by {kind}": {k: sum(k in v for v in by_task.values()) for k in kinds}, "by task": by_task},
                     indent=1))


def screen(doc: str, copies: Callable, kinds: list[str], kind: str) -> None:
    """The whole command line of a screen whose `copies(tasks)` yields (task, kind, document) per copy."""
    main(doc, lambda variants, out, dataset: write_copies(out, copies(unsolved_tasks(variants, dataset)),
                                                          f"{len(kinds)} {kind} kinds"),
         lambda out, results: score_copies(out, results, kinds, kind))
