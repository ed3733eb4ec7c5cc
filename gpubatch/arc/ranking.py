"""Attempt order of a task's records: which two outputs per test input run-batt submits.

A task's records are its fits (exact, up to a colour map or a local rule), lookups, overlays, partial fits and
guesses, its own and its colour-normalised copy's (`colournorm`). Fits rank first, shorter programs first
(`rank_key`), those whose test outputs have the predicted sizes before the others; lookups come before the
long fits; then overlays, the rule fits that keep unseen test cells, partial fits and guesses. `attempts` takes
the first two distinct outputs per test input. Every choice below was measured on the training tasks (the
comments give the figures).
"""
from __future__ import annotations

from .fits import FitRecord
from .learned import LAST, MAJOR
from .search import TaskState
from .tasks import Task


# Ranking: exact fits and complete fits up to a local rule, shorter first (a rule is a step); then fits up to a
# colour map; then partial rule fits, fewest unseen cells first (`rules`). Within each, exact before rule, a fit
# of the task's colour-normalised copy after the task's own, more programs agreeing first, then by last
# primitive and parent state (an order that does not depend on batching). On ARC-AGI-1 training (H100,
# 2026-11-26), complete rule fits ranked by length among the exact ones rather than after them gained a task
# (bb43febb) and lost none.
def rank_key(f: FitRecord) -> tuple:
    group = 2 if f.unseen else 1 if f.cmap is not None or f.rule in LAST else 0
    return (group, f.unseen, f.length, f.rule is not None, f.normalised, -f.votes,
            (f.order,) if f.path is None else (f.path[2], f.path[1]))


def record_kinds(st: TaskState) -> tuple[list[FitRecord], ...]:
    """A task's own fits (`rank_key`), lookups, overlays, partial fits and guesses: a partial rule fit's second
    prediction, its unseen cells given their majority colour (`learned.MAJOR`)."""
    fits = sorted(st.fits, key=rank_key)
    guess = [(f.rule or "").endswith(MAJOR) for f in fits]
    return ([f for f, g in zip(fits, guess) if not g], list(st.lookups), list(st.overlays),
            [rec for _, rec in st.partials or ()], [f for f, g in zip(fits, guess) if g])


def normalised_records(st: TaskState) -> list[FitRecord]:
    """The records of the task's colour-normalised copy in its attempt order, mapped back to the task's colours."""
    return [r for kind in by_kind(st)[1] for r in kind]


def by_kind(st: TaskState) -> tuple[tuple, tuple]:
    """The task's own records of each kind (`record_kinds`), and its normalised copy's mapped back (empty
    without one)."""
    own = record_kinds(st)
    if st.view is None:
        return own, tuple([] for _ in own)
    return own, tuple([st.norm.undo_record(r) for r in kind] for kind in record_kinds(st.view))


# Ranking: the task's fits and its normalised copy's together (`rank_key`), then lookups, overlays, the copy's
# overlays, partial fits (both's, below), guesses, the copy's guesses. ARC-AGI-1 training at depth 3, copies at
# depth 2 (H200, 2026-11-28): 186/416, against 174 with the copy's fits after the task's own, 171 with all of
# the copy's records after all of the task's, and 169 without copies. Fits of the predicted sizes first: +1 on
# training at depth 3 (239be575) in three runs (e1a53f8, 657399c, 5645486), none lost.
#
# Partial fits, the task's and its copy's together, most demos matched first, then shorter, then the task's own
# first: +1 on ARC-AGI-1 training at depth 3 (bc1d5164, whose copy's partial fit matched two demos and ranked
# after the task's own of one), none lost on training or evaluation (from d0773da's records, `rank_records`).
def merged_kinds(st: TaskState) -> tuple[list[FitRecord], ...]:
    """Fits (the task's and its normalised copy's ranked together, those whose test outputs have the predicted
    sizes first), lookups, overlays, partial fits (together, most demos matched first) and guesses (the copy's
    after the task's of each kind but partial fits)."""
    own, copy = by_kind(st)
    fits = sorted(own[0] + copy[0], key=lambda f: (not sized(f, st.sizes), rank_key(f)))
    lookups, overlays, partials, guesses = (a + b for a, b in zip(own[1:], copy[1:]))
    return fits, lookups, overlays, sorted(partials, key=lambda r: (-r.matched, r.length)), guesses


def sized(f: FitRecord, sizes: list | None) -> bool:
    """Whether every test output of `f` has its predicted size (True where the task has no prediction)."""
    if sizes is None:
        return True
    return all(g is not None and (len(g), len(g[0])) == s for g, s in zip(f.outputs, sizes))


# Lookups rank before the fits of LONG_FIT steps or more: a lookup is one learned step, and programs of three
# steps fit tiny demo outputs by chance (`445eab21`'s 2 x 2 blocks). ARC-AGI-1 training at depth 3 (H200,
# 2026-11-28): 214/416 against 213 with lookups after every fit, none lost; before the fits of two steps or
# more: 213 (three gained, three lost).
LONG_FIT = 3


def ranked_records(st: TaskState) -> list[FitRecord]:
    """A task's records in attempt order (`attempt_order` of `merged_kinds`)."""
    return attempt_order(merged_kinds(st))


# Rule fits with unseen test cells (a table that must keep cells whose key no demo showed) rank after the
# overlays, before the partial fits: the lookups and overlays explain every cell of the test output, such a fit
# guesses some. From c6fe1e8's records (`rank_records.py --unseen-late`): ARC-AGI-1 training 260 -> 263
# (6cdd2623, ae3edfdc, 6e02f1e3, whose overlay or lookup was right), none lost; after the lookups only: 261;
# after the partial fits too: 261 (two lost). Evaluation, reported: 110 -> 111 (009d5c81), none lost.
def attempt_order(kinds: tuple[list[FitRecord], ...], long_fit: int = LONG_FIT, unseen_late: bool = True
                  ) -> list[FitRecord]:
    """`merged_kinds`'s records in attempt order: the fits that explain every test cell, those of fewer than
    `long_fit` steps, then the lookups, then the longer ones; the overlays; the fits with unseen test cells
    (among the others by length where `unseen_late` is False); the partial fits; the guesses."""
    fits, lookups, overlays, *rest = kinds
    whole = [f for f in fits if not (f.unseen and unseen_late)]
    return ([f for f in whole if f.length < long_fit] + lookups + [f for f in whole if f.length >= long_fit]
            + overlays + [f for f in fits if f.unseen and unseen_late] + [r for kind in rest for r in kind])


# Outputs of colours from nowhere rank last: a test output's colours are those of its input and those that some
# demo output adds to its own input. No test output of ARC-AGI-1 training (416), evaluation (419) or ARC-AGI-2
# evaluation (167) breaks that.
def attempts(task: Task, ranked_outputs: list, late_colours: bool = True) -> tuple[tuple, tuple[bool, ...] | None]:
    """Per test input, up to two distinct outputs (lists of rows) taken from the records in rank order, those
    with a colour from nowhere (`seen_colours`) after all others unless `late_colours` is False, and whether
    each test input's attempts hold its known output."""
    preds = []
    for i in range(len(task.test_inputs)):
        seen = seen_colours(task, i) if late_colours else None
        tries: list = []
        late: list = []  # the first two outputs of colours from nowhere: all an attempt may still take
        for outputs in ranked_outputs:
            g = outputs[i]
            if g is None or g in tries or g in late:
                continue
            if seen is None or colours_seen(g, seen):
                tries.append(g)
            elif len(late) < 2:
                late.append(g)
            if len(tries) == 2:
                break
        preds.append(tuple((tries + late)[:2]))
    correct = None
    if task.test_outputs is not None:
        correct = tuple([list(r) for r in want] in list(preds[i]) for i, want in enumerate(task.test_outputs))
    return tuple(preds), correct


def seen_colours(task: Task, i: int) -> set[int]:
    """The colours test output i may hold: its input's, and those that a demo output adds to its own input."""
    added = set().union(*(_colours(out) - _colours(inp) for inp, out in task.train))
    return added | _colours(task.test_inputs[i])


def _colours(grid) -> set[int]:
    return {c for row in grid for c in row}


def colours_seen(grid, seen: set[int]) -> bool:
    """Whether every colour of `grid` is in `seen`."""
    return _colours(grid) <= seen


__all__ = ["LONG_FIT", "attempt_order", "attempts", "by_kind", "colours_seen", "merged_kinds", "normalised_records",
           "rank_key", "ranked_records", "record_kinds", "seen_colours", "sized"]
