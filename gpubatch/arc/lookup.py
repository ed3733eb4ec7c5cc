"""Lookups: a task whose output is one of a few fixed grids, chosen by one number read off the input.

In `d4469b4b` the input's colour says which of three fixed patterns is the output; in `ff28f65a` the number
of coloured cells says how many of the pattern's cells are lit. No chain of grid primitives writes those
patterns, but a table learned from the demos does: feature value -> demo output. A table *fits* a task when
demos of equal value have equal outputs, at least two demos share a value (a table of distinct values is
evidence of nothing), and every test input's value is one the demos showed: its prediction is then the demo
output of that value. The features, simplest first: the number of colours other than 0 and their set, the
most and least common of them, the cells not 0, the objects (one colour, 8 and 4 neighbours), and per colour
its cells and its objects.

A *painted* lookup reads a colour instead: where every demo output is one pattern in one colour other than 0
(`445eab21`: a 2 x 2 block in the colour of the input's larger frame), and that colour is the input's most
(or least) common, the test output is the pattern in the test input's colour of that rank. Its fit needs two
demo colours (one colour is a constant output, a table's case) and a test input with some colour.

The features of all grids of a K-group and the fits of all its tasks are a few array passes on NumPy or CuPy
alike (one `label` per connectivity, sorted keys for the tables); the host sees only each task's first two
fitting features. A task keeps up to two lookups with different predictions; they rank after the fits of
one or two steps and before the longer ones (`ranking.LONG_FIT`), so that a short program that explains the
demos goes first, and a long one that fits tiny outputs by chance does not.
"""
from __future__ import annotations

import numpy as np

from .fits import FitRecord, host
from .grids import CELLS, GridBatch
from .kernels import colour_counts
from .labels import label
from .windows import CORNERS, fit_window, window

FEATURES = ("colours", "palette", "major", "minor", "filled", "objects8", "objects4") \
    + tuple(f"cells{c}" for c in range(1, 10)) + tuple(f"objects{c}" for c in range(1, 10))
KEEP = 2  # lookups kept per task, with different predictions
PAINTS = ("major", "minor")  # the colour features that paint a pattern
_VALUES = 1 << 10  # every feature value is below this (a palette is a 10-bit set, counts are at most 900)


def _roots(g: GridBatch, conn8: bool):
    """`[B, 900]` bool: the first cell of each object (one colour, 0 left out) of every grid."""
    xp = g.xp
    lab = label(g, exclude=xp.zeros(len(g), xp.int32), conn8=conn8).astype(xp.int64)
    return lab == xp.arange(CELLS).reshape(1, -1)


def features(g: GridBatch):
    """`[B, len(FEATURES)]` int64: each grid's features (0 where a grid has no colour but 0)."""
    xp = g.xp
    n = len(g)
    cc = colour_counts(g).astype(xp.int64)[:, 1:10]  # cells of colours 1..9
    present = cc > 0
    colours = present.sum(axis=1)
    palette = (present * xp.asarray([1 << c for c in range(1, 10)], dtype=xp.int64)).sum(axis=1)
    major = xp.where(colours > 0, cc.argmax(axis=1) + 1, 0)
    minor = xp.where(colours > 0, xp.where(present, cc, CELLS + 1).argmin(axis=1) + 1, 0)
    roots8, roots4 = _roots(g, True), _roots(g, False)
    colour = g.data.reshape(n, CELLS).astype(xp.int64)  # objects of each colour, 4 neighbours: one bincount
    key = xp.where(roots4, xp.arange(n, dtype=xp.int64).reshape(-1, 1) * 10 + colour, n * 10)
    per_colour = xp.bincount(key.ravel(), minlength=n * 10 + 1)[:-1].reshape(n, 10)[:, 1:]
    cols = [colours, palette, major, minor, cc.sum(axis=1), roots8.sum(axis=1), roots4.sum(axis=1)]
    return xp.concatenate([xp.stack(cols, axis=1), cc, per_colour], axis=1).astype(xp.int64)


def fit_tables(xp, feat, demo, out_id):
    """Fit a table per (task, feature). `feat[T*K, F]` holds the features of each task's K grids in a row
    (its demos first), `demo[T, K]` marks demo grids, `out_id[T*K]` each demo output's index among its task's
    distinct demo outputs. Returns `ok[T, F]` (the table fits) and `pred[T*K, F]`: the output index predicted
    for each grid (-1 where its value no demo showed)."""
    T, K = demo.shape
    F = feat.shape[1]
    d = demo.ravel()
    task = xp.repeat(xp.arange(T, dtype=xp.int64), K).reshape(-1, 1)
    cell = (task * F + xp.arange(F, dtype=xp.int64).reshape(1, -1)) * _VALUES  # (task, feature) of each entry
    key = cell + xp.clip(feat, 0, _VALUES - 1)  # (task, feature, value)
    dkey = key[d]
    pairs = xp.unique((dkey * K + out_id[d].reshape(-1, 1)).ravel())  # distinct (task, feature, value, output)
    keys = xp.unique(dkey.ravel())  # distinct (task, feature, value) among the demos
    per_cell = xp.bincount(keys // _VALUES, minlength=T * F)
    consistent = xp.bincount(pairs // K // _VALUES, minlength=T * F) == per_cell
    shared = per_cell < xp.bincount(xp.repeat(xp.arange(T), K)[d], minlength=T).repeat(F)  # two demos share
    at = xp.minimum(xp.searchsorted(pairs, key * K), len(pairs) - 1)
    seen = pairs[at] // K == key
    pred = xp.where(seen, pairs[at] % K, -1)
    unseen = (~seen & ~d.reshape(-1, 1)).reshape(T, K, F).any(axis=1).ravel()
    ok = consistent & shared & ~unseen
    return ok.reshape(T, F), pred


def output_ids(tasks) -> np.ndarray:
    """`[T, K]` per task: each demo output's index among the task's distinct demo outputs (0 elsewhere)."""
    K = max(len(t.train) + len(t.test_inputs) for t in tasks)
    ids = np.zeros((len(tasks), K), np.int64)
    for i, t in enumerate(tasks):
        seen: dict = {}
        for k, (_, out) in enumerate(t.train):
            ids[i, k] = seen.setdefault(tuple(map(tuple, out)), len(seen))
    return ids


def patterns(tasks) -> tuple[np.ndarray, list]:
    """Per task, the one pattern of its demo outputs: `ink[T, K]` (each demo output's colour other than 0; -1
    at the test inputs, and in every row of a task whose demo outputs are not one pattern in two colours or
    more) and the pattern as a boolean array (None for those tasks)."""
    K = max(len(t.train) + len(t.test_inputs) for t in tasks)
    ink = np.full((len(tasks), K), -1, np.int64)
    masks: list = []
    for i, t in enumerate(tasks):
        outs = [np.asarray(out) for _, out in t.train]
        mask = outs[0] != 0
        inks = [np.unique(o[o != 0]) for o in outs]
        one = all(o.shape == mask.shape and ((o != 0) == mask).all() and len(c) == 1 for o, c in zip(outs, inks))
        if not one or len({int(c[0]) for c in inks}) < 2:
            masks.append(None)
            continue
        ink[i, :len(outs)] = [int(c[0]) for c in inks]
        masks.append(mask)
    return ink, masks


def fit_paints(xp, feat, demo, ink):
    """`ok[T, len(PAINTS)]`: each colour feature names every demo output's colour, and every test input has
    one (`feat[T*K, F]` and `demo[T, K]` as in `fit_tables`, `ink` from `patterns`)."""
    T, K = demo.shape
    cols = feat[:, [FEATURES.index(f) for f in PAINTS]].reshape(T, K, len(PAINTS))
    d = demo.reshape(T, K, 1)
    named = xp.where(d, cols == ink.reshape(T, K, 1), cols > 0)
    return named.all(axis=1) & (ink[:, :1] >= 0)


class LookupBook:
    """Lookups of a group's tasks (a mixin of GroupSearch: reads `ts`, `K`, `xp`, `inp`, `demo`)."""

    def fit_lookups(self) -> None:
        """Fit the tables and the painted patterns of every task of the group at once, and each task's fixed
        window (`windows`); each task keeps up to `KEEP` lookups whose predictions differ: tables in the order of
        `FEATURES`, then paints, then its window (a colour-normalised copy keeps none: its task has them)."""
        xp, K = self.xp, self.K
        tasks = [st.task for st in self.ts]
        if not any(len(t.train) > 1 for t in tasks):
            return
        ids = output_ids(tasks)
        feat, demo = features(self.inp), xp.asarray(self.demo)
        ok, pred = fit_tables(xp, feat, demo, xp.asarray(ids.ravel()))
        ok, pred = host(xp, ok), host(xp, pred)
        ink, masks = patterns(tasks)
        paint = host(xp, fit_paints(xp, feat, demo, xp.asarray(ink)))
        colours = host(xp, feat[:, [FEATURES.index(f) for f in PAINTS]]) if paint.any() else None
        wins = {t: at for t, st in enumerate(self.ts) if not st.copy and (at := fit_window(st.task.train))}
        for t in sorted(set(np.flatnonzero(ok.any(axis=1) | paint.any(axis=1)).tolist()) | set(wins)):
            st = self.ts[t]
            if st.copy:
                continue
            outs = [out for _, out in st.task.train]
            firsts = {int(i): outs[k] for k, i in reversed(list(enumerate(ids[t, :len(outs)])))}
            tests = range(t * K + len(outs), t * K + len(outs) + len(st.task.test_inputs))
            kept: list[tuple] = []
            for f in np.flatnonzero(ok[t]):
                choice = tuple(int(pred[r, f]) for r in tests)
                if choice in kept:
                    continue
                kept.append(choice)
                st.lookups.append(FitRecord(0, len(st.lookups), None, [[list(r) for r in firsts[i]] for i in choice],
                                            text=f"lookup(f={FEATURES[f]})"))
                if len(kept) == KEEP:
                    break
            for f in np.flatnonzero(paint[t]):
                if len(st.lookups) == KEEP:
                    break
                outputs = [(masks[t] * int(colours[r, f])).tolist() for r in tests]
                if all(outputs != fit.outputs for fit in st.lookups):
                    st.lookups.append(FitRecord(0, len(st.lookups), None, outputs, text=f"lookup(f={PAINTS[f]}, paint)"))
            if t in wins and len(st.lookups) < KEEP:
                self._add_window(st, wins[t])

    @staticmethod
    def _add_window(st, at: tuple[int, int, int]) -> None:
        """The test inputs' windows where the demos' are (`windows`), unless one does not fit or a lookup
        kept already predicts the same."""
        shape = np.asarray(st.task.train[0][1]).shape
        outputs = [window(g, shape, at) for g in st.task.test_inputs]
        if all(o is not None for o in outputs) and all(outputs != fit.outputs for fit in st.lookups):
            corner, rows, cols = at
            st.lookups.append(FitRecord(0, len(st.lookups), None, outputs,
                                        text=f"lookup(window={CORNERS[corner]}, at={rows},{cols})"))
