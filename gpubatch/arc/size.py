"""Output-size prediction: each task's test output size, from rules fitted to its demos, for all tasks at once.

Each grid (every demo input and test input of every task, one GridBatch) gets a few scalar features: its
height and width, the bounding boxes of its non-background cells, of its largest and smallest objects (8
neighbours, one colour) and of its least frequent colour, its rows and columns once runs of equal ones are
merged, the cells of a grid divided by lines, counts of objects, colours, cells not 0 and the most common
colour's cells, and its height and width summed. A rule gives one dimension of the output as a feature times
a small factor, divided by one, plus a small offset, or as a constant (the first demo's). For each task and
each dimension the first rule, in a fixed order from the simplest, that gives every demo's output is kept and
applied to the test inputs; a constant kept beside a feature of a pair (a bounding box's height) gives way to
the pair's other feature (its width) where that fits the demos too, and else to the other dimension's own
rule (a square as tall as the input). Written against the array module: the features and the fit are a few
array passes over all grids of all tasks, on NumPy or CuPy alike. The search keeps partial fits (`partials`)
only where their test outputs have the predicted sizes.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .dsl.geometry import bbox_params
from .fits import host
from .grids import CELLS, MAX, GridBatch
from .kernels import background, colour_counts
from .labels import label

_PAIRS = (("h", "w"), ("box_h", "box_w"), ("big_h", "big_w"), ("small_h", "small_w"), ("rare_h", "rare_w"),
          ("runs_r", "runs_c"), ("cells_r", "cells_c"))
FEATURES = tuple(n for pair in _PAIRS for n in pair) + ("objects", "colours", "filled", "major", "h+w")
# (factor, divisor, offset, floor): the simplest first, so that a task whose demos several rules fit keeps the
# one a person would name (an output as large as its input, before "as large as its bounding box"); a divisor
# must divide exactly, but for the floor forms (a grid's half without its middle line)
_FORMS = [(1, 1, 0, False)] + [(k, 1, 0, False) for k in (2, 3, 4, 5)] + [(1, k, 0, False) for k in (2, 3, 4, 5)] \
    + [(1, 1, b, False) for b in (-1, 1, -2, 2)] + [(k, 1, k - 1, False) for k in (2, 3, 4)] \
    + [(k, 1, 1 - k, False) for k in (2, 3, 4)] + [(1, k, 0, True) for k in (2, 3)]
CONST = -1  # the rule "the first demo's output size"


@dataclass(frozen=True)
class SizeRule:
    """One output dimension: `CONST` (the first demo's) or feature * factor // divisor + offset."""

    feature: int
    factor: int = 1
    divisor: int = 1
    offset: int = 0
    floor: bool = False

    def describe(self) -> str:
        if self.feature == CONST:
            return "constant"
        text = FEATURES[self.feature]
        text += f" * {self.factor}" if self.factor != 1 else ""
        text += f" {'//' if self.floor else '/'} {self.divisor}" if self.divisor != 1 else ""
        return text + (f" {'+' if self.offset > 0 else '-'} {abs(self.offset)}" if self.offset else "")


def _rules(dim: int) -> list[SizeRule]:
    """Rules for dimension `dim` (0 rows, 1 columns) in order of preference: the same dimension of the input,
    then a constant, then each form over every feature (each pair's own dimension before the other's): every
    feature as it is, then every feature doubled, and so on (this order scored best on the training tasks)."""
    same = [2 * i + dim for i in range(len(_PAIRS))]
    other = [f for f in range(len(FEATURES)) if f not in same]
    out = [SizeRule(same[0]), SizeRule(CONST)]
    for k, d, b, fl in _FORMS:  # every feature as it is, then every feature doubled, ...
        out += [SizeRule(f, k, d, b, fl) for f in same + other if (f, k, d, b, fl) != (same[0], 1, 1, 0, False)]
    return out


RULES = (_rules(0), _rules(1))
_CONST_AT = tuple(next(i for i, r in enumerate(rs) if r.feature == CONST) for rs in RULES)


def _rule_index(dim: int) -> dict[tuple, int]:
    """Each rule of dimension `dim` by (feature, factor, divisor, offset, floor)."""
    return {(r.feature, r.factor, r.divisor, r.offset, r.floor): i for i, r in enumerate(RULES[dim])}


def _partners(dim: int) -> list[int]:
    """For each rule of dimension `dim`: the index of the same form over its pair's other feature among the
    other dimension's rules (-1 for a constant, a count, or a feature of the other dimension)."""
    index = _rule_index(1 - dim)
    out = []
    for r in RULES[dim]:
        own = 0 <= r.feature < 2 * len(_PAIRS) and r.feature % 2 == dim
        twin = (r.feature - dim + (1 - dim), r.factor, r.divisor, r.offset, r.floor)
        out.append(index.get(twin, -1) if own else -1)
    return out


def _sames(dim: int) -> list[int]:
    """For each rule of dimension `dim`: the index of the same rule (feature and form) among the other
    dimension's rules (-1 for a constant): a square output as large as one feature of the input."""
    index = _rule_index(1 - dim)
    return [-1 if r.feature == CONST else index.get((r.feature, r.factor, r.divisor, r.offset, r.floor), -1)
            for r in RULES[dim]]


# where a constant gives way, in turn: to the pair's other feature, then to the other dimension's own rule
_GIVE_WAY = ((_partners(0), _partners(1)), (_sames(0), _sames(1)))


def features(g: GridBatch):
    """`[B, len(FEATURES)]` int64 per grid (0 where a grid has no such object)."""
    xp = g.xp
    n = len(g)
    bg = background(g)
    inside = g.data < 10
    box = bbox_params(xp, inside & (g.data != bg.reshape(-1, 1, 1)), g.h > 0)
    lab = label(g, exclude=bg, conn8=True).astype(xp.int64)  # [B, 900], -1 outside any object
    flat = xp.arange(n, dtype=xp.int64).reshape(-1, 1) * CELLS + lab
    size = xp.bincount(xp.where(lab >= 0, flat, n * CELLS).ravel(), minlength=n * CELLS + 1)[:-1].reshape(n, CELLS)
    objects = (size > 0).sum(axis=1)
    big = size.argmax(axis=1)
    small = xp.where(size > 0, size, CELLS + 1).argmin(axis=1)
    parts = []
    for which in (big, small):
        mask = (lab == which.reshape(-1, 1)).reshape(n, MAX, MAX)
        parts.append(bbox_params(xp, mask, objects > 0)[:, 2:])
    cc = colour_counts(g)
    filled = cc[:, 1:].sum(axis=1)  # cells not 0 (a list of a grid's coloured cells: d631b094)
    colours = (cc > 0).sum(axis=1) - 1  # but the background
    counts = xp.where(cc > 0, cc, CELLS + 1)
    rare = bbox_params(xp, g.data == counts.argmin(axis=1).reshape(-1, 1, 1), g.h > 0)[:, 2:]
    cols = [g.h, g.w, box[:, 2], box[:, 3], parts[0][:, 0], parts[0][:, 1], parts[1][:, 0], parts[1][:, 1],
            rare[:, 0], rare[:, 1], *_runs(g), *_cells(g), objects, colours, filled,
            cc.max(axis=1), g.h + g.w]
    return xp.stack([xp.asarray(c).astype(xp.int64) for c in cols], axis=1)


def _runs(g: GridBatch):
    """Rows and columns once runs of equal neighbours are merged: (rows, columns) per grid."""
    xp = g.xp
    inside = xp.arange(MAX).reshape(1, -1)
    rows = ((g.data[:, 1:, :] != g.data[:, :-1, :]).any(axis=2) & (inside[:, 1:] < g.h.reshape(-1, 1))).sum(axis=1)
    cols = ((g.data[:, :, 1:] != g.data[:, :, :-1]).any(axis=1) & (inside[:, 1:] < g.w.reshape(-1, 1))).sum(axis=1)
    return xp.where(g.h > 0, rows + 1, 0), xp.where(g.h > 0, cols + 1, 0)


def _cells(g: GridBatch):
    """Cells of a grid divided by whole rows or columns of one colour, the background's too (in a sparse grid,
    the bands that hold something): (cells down, cells across) per grid (1 each where no line divides it)."""
    xp = g.xp
    out = []
    for axis, n in ((2, g.h), (1, g.w)):  # a dividing row is uniform along axis 2, a column along axis 1
        d = g.data if axis == 2 else g.data.transpose(0, 2, 1)
        first = d[:, :, :1]
        inside = xp.arange(MAX).reshape(1, 1, -1) < (g.w if axis == 2 else g.h).reshape(-1, 1, 1)
        line = ((d == first) | ~inside).all(axis=2)
        line &= xp.arange(MAX).reshape(1, -1) < n.reshape(-1, 1)
        body = ~line & (xp.arange(MAX).reshape(1, -1) < n.reshape(-1, 1))
        starts = body[:, :1].astype(xp.int64).sum(axis=1) + (body[:, 1:] & ~body[:, :-1]).sum(axis=1)
        out.append(xp.where(line.any(axis=1), starts, 1))
    return out


def _values(feat, first_out, rules: Sequence[SizeRule], xp):
    """`[B, R]` each rule's value for each grid (`first_out[B]`: its task's first demo output dimension)."""
    f = xp.asarray([max(r.feature, 0) for r in rules])
    k, d, b = (xp.asarray([getattr(r, a) for r in rules]) for a in ("factor", "divisor", "offset"))
    x = feat[:, f]
    fl = xp.asarray([r.floor for r in rules])
    v = xp.where((x * k % d == 0) | fl, x * k // d + b, -1)  # a divisor must divide exactly, but for floor forms
    const = xp.asarray([r.feature == CONST for r in rules])
    return xp.where(const, first_out.reshape(-1, 1), v)


@dataclass(frozen=True)
class SizeFit:
    """Per task: the rule kept for each dimension (None where no rule fits every demo)."""

    rows: tuple[SizeRule | None, ...]
    cols: tuple[SizeRule | None, ...]


def predict_sizes(grids: GridBatch, task_of, is_demo, out_h, out_w, n_tasks: int):
    """Fit and apply the rules. `grids` holds the demo inputs and test inputs of `n_tasks` tasks, each task's
    grids together and its demos first (`task_of[B]` ascending, `is_demo[B]`), `out_h[B]`/`out_w[B]` the
    demos' output sizes (anything for test inputs). Returns (pred_h[B], pred_w[B], SizeFit); a dimension that
    no rule fits, or whose rule gives no possible size, is predicted as the input's."""
    xp = grids.xp
    feat = features(grids)
    task_of, is_demo = xp.asarray(task_of, dtype=xp.int64), xp.asarray(is_demo, dtype=bool)
    first = xp.searchsorted(task_of, xp.arange(n_tasks))  # each task's first grid, a demo
    first_of = first[xp.minimum(task_of, n_tasks - 1)]
    idx = xp.arange(len(grids))
    targets = (xp.asarray(out_h, dtype=xp.int64), xp.asarray(out_w, dtype=xp.int64))
    vals, fits = [], []
    for dim, target in enumerate(targets):
        rules = RULES[dim]
        r = len(rules)
        v = _values(feat, target[first_of], rules, xp)
        wrong = is_demo.reshape(-1, 1) & (v != target.reshape(-1, 1))
        key = (task_of.reshape(-1, 1) * r + xp.arange(r).reshape(1, -1)).ravel()
        vals.append(v)
        fits.append(xp.bincount(key, weights=wrong.ravel().astype(xp.float64), minlength=n_tasks * r).reshape(
            n_tasks, r) == 0)
    choices = [xp.where(f.any(axis=1), f.argmax(axis=1), -1) for f in fits]
    for dim in (0, 1):  # a constant beside a feature's dimension: that feature's other dimension, where it fits
        other = choices[1 - dim]
        for table in _GIVE_WAY:
            twin = xp.asarray(table[1 - dim])[xp.maximum(other, 0)]
            ok = (choices[dim] == _CONST_AT[dim]) & (other >= 0) & (twin >= 0)
            ok &= fits[dim][xp.arange(n_tasks), xp.maximum(twin, 0)]
            choices[dim] = xp.where(ok, twin, choices[dim])
    preds, kept = [], []
    for dim in (0, 1):
        rules, some = RULES[dim], choices[dim] >= 0
        choice = xp.maximum(choices[dim], 0)  # no rule fits: rule 0, the input's own dimension
        pred = vals[dim][idx, choice[task_of]]
        own = feat[:, dim]  # a size no grid can have (doubled past 30, an object that is not there): the input's
        preds.append(xp.where((pred >= 1) & (pred <= MAX), pred, own))
        chosen = zip(host(xp, choice).tolist(), host(xp, some).tolist())
        kept.append(tuple(rules[c] if ok else None for c, ok in chosen))
    return preds[0], preds[1], SizeFit(*kept)


def predict_for_tasks(tasks: Sequence, xp=np) -> tuple[list[list[tuple[int, int]]], SizeFit]:
    """Each task's predicted test output sizes, (rows, columns) per test input, and the rules kept; the grids
    of all tasks go through `predict_sizes` as one batch on `xp`."""
    rows = [(grid, t, True, len(out), len(out[0])) for t, task in enumerate(tasks) for grid, out in task.train]
    rows += [(grid, t, False, 0, 0) for t, task in enumerate(tasks) for grid in task.test_inputs]
    rows.sort(key=lambda r: (r[1], not r[2]))  # each task's grids together, its demos first
    grids, task_of, is_demo, out_h, out_w = (list(c) for c in zip(*rows)) if rows else ([], [], [], [], [])
    if not grids:
        return [], SizeFit((), ())
    g = GridBatch.from_lists(grids).to(xp)
    ph, pw, fit = predict_sizes(g, task_of, is_demo, out_h, out_w, len(tasks))
    sizes: list[list[tuple[int, int]]] = [[] for _ in tasks]
    for t, demo, h, w in zip(task_of, is_demo, host(xp, ph).tolist(), host(xp, pw).tolist()):
        if not demo:
            sizes[t].append((h, w))
    return sizes, fit
