"""Screen candidate rule-table keys before building one: each key, as a depth-1 rule on a task's inputs (and
on its colour-normalised copy), learned from the demos as `rules` does (key -> output colour; an unseen key
keeps the cell's colour), and scored on the test outputs. Prints, per key, the tasks it gets right and those
of them that a rank_variants run leaves unsolved. Choose keys on training tasks only.

usage: python benchmarks/screen_tables.py RANK_VARIANTS.json [--dataset arc1-train] [--agnostic] [--out F.json]
`--agnostic` drops the cell's own colour from each key and learns "keeps its colour" as an output of its own,
so that a test input's colours unseen in the demos can still be answered. The built-in tables
(`rules.KINDS`) are screened beside the candidates, as a baseline.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy import ndimage

from gpubatch.arc.colournorm import normalise
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.rules import KINDS, features
from gpubatch.arc.tasks import load_tasks

_CROSS = np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]])
KEEP = 10  # the agnostic output "keeps its colour"


def _objects(g: np.ndarray):
    """(label, top, bottom, left, right, rows, cols): objects 4-connected, one colour, 0 excluded."""
    lab, n = np.full(g.shape, -1), 0
    for c in range(1, 10):
        part, k = ndimage.label(g == c, structure=_CROSS)
        lab[part > 0] = part[part > 0] - 1 + n
        n += k
    box = np.zeros((max(n, 1), 4), int)
    for o, sl in enumerate(ndimage.find_objects(lab + 1)):
        box[o] = sl[0].start, sl[0].stop - 1, sl[1].start, sl[1].stop - 1
    rows, cols = np.indices(g.shape)
    return lab, box, rows, cols


def _placed(value):
    """A key of a cell's place in its object, from `value(box of its object, rows, cols)`; 0 cells get -1."""
    def key(g):
        lab, box, rows, cols = _objects(g)
        b = box[np.maximum(lab, 0)]
        return np.where(lab >= 0, value(b, rows, cols), -1)
    return key


def _depth(g, metric):
    out = np.zeros(g.shape, int)
    for c in np.unique(g):
        m = g == c
        out[m] = ndimage.distance_transform_cdt(np.pad(m, 1), metric=metric)[1:-1, 1:-1][m]
    return out


CANDIDATES = {
    "parity_in_object": _placed(lambda b, i, j: ((i - b[..., 0]) % 2) * 2 + (j - b[..., 2]) % 2),
    "half_of_box": _placed(lambda b, i, j: np.sign(2 * i - b[..., 0] - b[..., 1]) * 3
                           + np.sign(2 * j - b[..., 2] - b[..., 3]) + 4),
    "box_edge": _placed(lambda b, i, j: (i == b[..., 0]) + 2 * (i == b[..., 1]) + 4 * (j == b[..., 2])
                        + 8 * (j == b[..., 3])),
    "box_size": _placed(lambda b, i, j: (b[..., 1] - b[..., 0]) * 31 + b[..., 3] - b[..., 2]),
    "offset_in_box": _placed(lambda b, i, j: (i - b[..., 0]) * 31 + j - b[..., 2]),
    "ring_depth_8": lambda g: _depth(g, "chessboard"),
    "ring_depth_4": lambda g: _depth(g, "taxicab"),
    "row_col_counts": lambda g: (g != 0).sum(1)[:, None] * 31 + (g != 0).sum(0)[None, :],
    "colour_rank": lambda g: np.argsort(np.argsort(-np.bincount(g.ravel(), minlength=10), kind="stable"),
                                        kind="stable")[g],
}


def _keys(name: str, grids: list[np.ndarray]) -> list[np.ndarray]:
    """The key of every cell of each grid, own colour in the lowest digit."""
    if name in CANDIDATES:
        return [CANDIDATES[name](g).astype(np.int64) * 10 + g for g in grids]
    f = features(GridBatch.from_lists([g.tolist() for g in grids]), name)
    return [f[k, :g.shape[0], :g.shape[1]].astype(np.int64) for k, g in enumerate(grids)]


def right(task, name: str, agnostic: bool) -> bool:
    """Whether the key's table, learned on the demos of `task` or of its colour-normalised copy, gives every
    test output (and changes some test cell)."""
    norm = normalise(task)
    for view in (None,) if norm is None else (None, norm):
        t = task if view is None else view.task
        pairs = [(np.array(a), np.array(b)) for a, b in t.train]
        if any(a.shape != b.shape for a, b in pairs):
            return False
        keys = _keys(name, [a for a, _ in pairs] + [np.array(x) for x in t.test_inputs])
        table: dict[int, int] = {}
        consistent = True
        for k, (a, b) in zip(keys, pairs):
            k = k // 10 if agnostic else k
            want = np.where(b == a, KEEP, b) if agnostic else b
            for x, y in zip(k.ravel().tolist(), want.ravel().tolist()):
                consistent &= table.setdefault(x, y) == y
        if not consistent:
            continue
        good = True
        for j, (k, x) in enumerate(zip(keys[len(pairs):], t.test_inputs)):
            a = np.array(x)
            k = k // 10 if agnostic else k
            got = np.array([table.get(v, KEEP) for v in k.ravel().tolist()]).reshape(a.shape)
            got = np.where(got == KEEP, a, got)
            if view is not None:
                got = np.array(view.undo(j, got.tolist()))
            good &= bool((got != a).any()) and got.tolist() == [list(r) for r in task.test_outputs[j]]
        if good:
            return True
    return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="rank_variants.py --out JSON (its `solved` lists)")
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--agnostic", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    run = next(r for r in json.loads(Path(args.results).read_text())["runs"] if r["dataset"] == args.dataset)
    solved = set(run["solved"])
    tasks = [t for t in load_tasks(args.dataset)[0] if t.test_outputs]
    found = {name: [t.id for t in tasks if right(t, name, args.agnostic)] for name in (*CANDIDATES, *KINDS)}
    for name, ids in found.items():
        print(f"{name:18s} right {len(ids):3d}  unsolved now: {' '.join(i for i in ids if i not in solved) or '-'}")
    if args.out:
        args.out.write_text(json.dumps({"dataset": args.dataset, "agnostic": args.agnostic, "right": found,
                                        "unsolved": sorted({t.id for t in tasks} - solved)}, indent=1) + "\n")


if __name__ == "__main__":
    main()
