"""What a colour-normalised copy keyed otherwise could add: `colournorm` renames each pair's free colours by
their rank in its input, most cells first. Every task a ranking leaves unsolved is copied once per other key
(first seen in row order, first seen in column order, fewest cells first) where that key renames the pairs
unlike one another and unlike the search's own copy, every grid of the copy renamed by its pair's input, the
test outputs too, so that solving the copy is solving the task through that renaming.

usage: python benchmarks/norm_keys.py make RANK_VARIANTS.json DIR [--dataset arc1-train]
       GPUBATCH_BATT__COLOUR_NORM=0 gpubatch run-batt --dataset DIR/tasks --depth 2 --results R.json
       python benchmarks/norm_keys.py score DIR R.json
"""
from __future__ import annotations

import numpy as np
from screen_cli import screen

from gpubatch.arc.colournorm import COLOURS, fixed_colours, renamings


def _first_seen(a: np.ndarray) -> np.ndarray:
    first = np.full(COLOURS, a.size)
    np.minimum.at(first, a.ravel(), np.arange(a.size))
    return first


KEYS = {"row_order": lambda a, n: _first_seen(a),
        "column_order": lambda a, n: _first_seen(a.T),
        "fewest_first": lambda a, n: n * a.size + _first_seen(a)}


def _perm(grid, fixed, key) -> tuple[int, ...]:
    """As `colournorm.permutation`, the free colours present ranked by `key` (smallest first) instead."""
    a = np.asarray(grid, dtype=np.int64)
    counts = np.bincount(a.ravel(), minlength=COLOURS)
    rank = key(a, counts)
    free = [c for c in range(COLOURS) if c not in fixed]
    present = sorted((c for c in free if counts[c]), key=lambda c: (rank[c], c))
    perm = list(range(COLOURS))
    for src, dst in zip(present + [c for c in free if not counts[c]], free):
        perm[src] = dst
    return tuple(perm)


def _renamed(grid, perm) -> list:
    return np.asarray(perm)[np.asarray(grid)].tolist()


def _copies(tasks):
    for t in tasks:
        fixed, own = fixed_colours(t), renamings(t)
        inputs = [i for i, _ in t.train] + list(t.test_inputs)
        outputs = [o for _, o in t.train] + list(t.test_outputs)
        for name, key in KEYS.items():
            perms = [_perm(g, fixed, key) for g in inputs]
            if len(set(perms)) == 1 or (own is not None and tuple(perms) == own):
                continue
            pairs = [{"input": _renamed(i, p), "output": _renamed(o, p)} for i, o, p in zip(inputs, outputs, perms)]
            yield t.id, name, {"train": pairs[:len(t.train)], "test": pairs[len(t.train):]}


if __name__ == "__main__":
    screen(__doc__, _copies, list(KEYS), "key")
