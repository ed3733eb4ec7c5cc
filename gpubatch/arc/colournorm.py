"""Colour normalisation of a task: each input and its output renamed by the colours' roles in that input.

Many tasks keep their rule and change their colours from one demo to the next ("recolour the smallest object
with the colour of the largest"): no program with a constant colour fits all demos. Normalising renames, in
every grid pair, the colours that are not fixed by the task by their rank in the pair's input (most cells
first, then first seen in row order), so that the same role gets the same colour in every pair. A colour is
*fixed* where it plays one role everywhere: present in every input (the background), or new in a demo output
(a colour the rule adds). The search runs on the normalised task as on any other; each test answer is mapped
back with its own input's renaming.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .tasks import Grid, Task

COLOURS = 10


@dataclass(frozen=True)
class NormView:
    """A task's normalised copy and the renaming of every grid pair (demos, then test inputs): colour ->
    normalised colour, a permutation of 0-9."""

    task: Task
    perms: tuple[tuple[int, ...], ...]

    def undo(self, test: int, grid: list | None) -> list | None:
        """A normalised test output (a list of rows, as fit records hold them) in the task's own colours."""
        if grid is None:
            return None
        inv = np.argsort(np.asarray(self.perms[len(self.task.train) + test]))
        return inv[np.asarray(grid, dtype=np.int64)].tolist()

    def undo_record(self, rec):
        """A fit record of the normalised copy as one of the task's own: its test outputs mapped back."""
        return replace(rec, outputs=[self.undo(i, g) for i, g in enumerate(rec.outputs)], normalised=True)


def fixed_colours(task: Task) -> frozenset[int]:
    """Colours with one role in the whole task: present in every input, or in a demo output but not its input."""
    inputs = [g for g, _ in task.train] + list(task.test_inputs)
    shared = set.intersection(*({c for row in g for c in row} for g in inputs))
    for i, o in task.train:
        shared |= {c for row in o for c in row} - {c for row in i for c in row}
    return frozenset(shared)


def permutation(grid: Grid, fixed: frozenset[int]) -> tuple[int, ...]:
    """The renaming of one input: its colours that are not fixed, by cell count (descending), then first
    appearance in row order, onto the free colours in increasing order; the colours it lacks follow, in order."""
    a = np.asarray(grid, dtype=np.int64).ravel()
    counts = np.bincount(a, minlength=COLOURS)
    first = np.full(COLOURS, a.size)
    np.minimum.at(first, a, np.arange(a.size))
    free = [c for c in range(COLOURS) if c not in fixed]
    present = sorted((c for c in free if counts[c]), key=lambda c: (-counts[c], first[c]))
    rest = [c for c in free if not counts[c]]
    perm = list(range(COLOURS))
    for src, dst in zip(present + rest, free):
        perm[src] = dst
    return tuple(perm)


def _rename(grid: Grid, perm: tuple[int, ...]) -> Grid:
    return tuple(tuple(perm[c] for c in row) for row in grid)


def renamings(task: Task) -> tuple[tuple[int, ...], ...] | None:
    """Each grid pair's renaming (demos, then test inputs), or None where every pair gets the same one (a
    renaming of the whole task finds nothing new: the search's colour-map fits cover it)."""
    fixed = fixed_colours(task)
    perms = tuple(permutation(g, fixed) for g in [i for i, _ in task.train] + list(task.test_inputs))
    return None if len(set(perms)) == 1 else perms


def normalise(task: Task) -> NormView | None:
    """The task's normalised view, or None where it needs none (`renamings`)."""
    perms = renamings(task)
    if perms is None:
        return None
    D = len(task.train)
    train = tuple((_rename(i, p), _rename(o, p)) for (i, o), p in zip(task.train, perms))
    tests = tuple(_rename(g, p) for g, p in zip(task.test_inputs, perms[D:]))
    return NormView(Task(task.id, train, tests), perms)  # the test outputs stay with the task, unseen


__all__ = ["NormView", "fixed_colours", "normalise", "permutation", "renamings"]
