"""What searching a task turned or mirrored could add: every task a ranking leaves unsolved is copied once per
non-trivial symmetry of the square (three turns, two mirrors, two diagonal flips), every grid of the copy, its
outputs included, transformed alike. run-batt on the copies then searches `T | A | B | C | T^-1` for those
tasks: the programs the search's own primitives reach only in the other orientation.

usage: python benchmarks/dihedral_copies.py make RANK_VARIANTS.json DIR [--dataset arc1-train]
       gpubatch run-batt --dataset DIR/tasks --depth 3 --results R.json
       python benchmarks/dihedral_copies.py score DIR R.json
"""
from __future__ import annotations

import numpy as np
from screen_cli import screen

SYMMETRIES = {"rot90": lambda a: np.rot90(a, 1), "rot180": lambda a: np.rot90(a, 2),
              "rot270": lambda a: np.rot90(a, 3), "flip_rows": np.flipud, "flip_cols": np.fliplr,
              "transpose": lambda a: a.T, "antitranspose": lambda a: np.rot90(a, 2).T}


def _turned(f, grid) -> list:
    return f(np.asarray(grid)).tolist()


def _copies(tasks):
    for t in tasks:
        for name, f in SYMMETRIES.items():
            yield t.id, name, {"train": [{"input": _turned(f, a), "output": _turned(f, b)} for a, b in t.train],
                               "test": [{"input": _turned(f, a), "output": _turned(f, b)}
                                        for a, b in zip(t.test_inputs, t.test_outputs)]}


if __name__ == "__main__":
    screen(__doc__, _copies, list(SYMMETRIES), "symmetry")
