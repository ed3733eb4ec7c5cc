"""Fits up to a colour map: a search state whose demo outputs become the targets under one one-to-one
colour map shared by all demo pairs (`0d3d703e`: 3->4, 1->5, 2->6). The map is learned from the demos and
applied to the test outputs; colours the demos never show keep their colour. Maps that merge colours are
not accepted: with them any state of the right shape would "fit" a one-colour target.

`map_fits` checks every state of a batch at once with array operations (one bincount of (colour, target
colour) pairs), on NumPy or CuPy. The search itself does this check inside its scoring kernel
(`statescore`), for which `map_fits` is the array-module reference.
"""
from __future__ import annotations

from .grids import CELLS, NCOL, PAD, GridBatch


def map_fits(C: GridBatch, tgt: GridBatch, task, demo, K: int):
    """bool [n]: whether state s (rows s*K .. s*K+K-1 of C) maps onto its task's demo targets (rows of
    `tgt` from task[s]*K, `demo[task, K]` marking the demo rows) under one colour function."""
    xp = C.xp
    n = len(C) // K
    task = xp.asarray(task).astype(xp.int64)
    trows = (task.reshape(n, 1) * K + xp.arange(K)).ravel()
    dm = xp.asarray(demo)[task]  # [n, K]
    ch, cw = C.h.reshape(n, K), C.w.reshape(n, K)
    shape_ok = (((ch > 0) & (ch == tgt.h[trows].reshape(n, K)) & (cw == tgt.w[trows].reshape(n, K))) | ~dm).all(1)
    out = xp.zeros(n, bool)
    sel = xp.flatnonzero(shape_ok)  # only states of the right shapes need their cells compared
    if len(sel):
        rows = trows.reshape(n, K)[sel].ravel()
        out[sel] = _one_to_one(xp, C.data.reshape(n, K, CELLS)[sel], tgt.data[rows].reshape(len(sel), K, CELLS),
                               dm[sel])
    return out


def _one_to_one(xp, a, b, dm):
    """Whether each state's demo cells `a` [m, K, 900] map one-to-one onto `b`. Each demo pair alone is a
    necessary condition that rules most states out for a K-th of the work, so those filters run first."""
    m, K = dm.shape
    alive = xp.arange(m)
    for k in range(K):
        rows = alive[dm[alive, k]]
        if len(rows):
            bad = rows[~_pairs_one_to_one(xp, a[rows, k:k + 1], b[rows, k:k + 1], xp.ones((len(rows), 1), bool))]
            alive = alive[~xp.isin(alive, bad)]
    out = xp.zeros(m, bool)
    if len(alive):
        out[alive] = _pairs_one_to_one(xp, a[alive], b[alive], dm[alive])
    return out


def _pairs_one_to_one(xp, a, b, dm):
    n, K = dm.shape
    pairs = a.astype(xp.int64) * (PAD + 1) + b
    spare = (PAD + 1) ** 2  # a bin for the cells of rows that are not demos
    pairs = xp.where(dm.reshape(n, K, 1), pairs, spare) + xp.arange(n).reshape(n, 1, 1) * (spare + 1)
    seen = xp.bincount(pairs.ravel(), minlength=n * (spare + 1)).reshape(n, spare + 1)[:, :spare] > 0
    seen = seen.reshape(n, PAD + 1, PAD + 1)[:, :NCOL]
    return (seen.sum(axis=2) <= 1).all(axis=1) & (seen.sum(axis=1) <= 1).all(axis=1)


def learn_map(outputs: list, targets: list) -> dict[int, int] | None:
    """The one-to-one colour map taking every output grid onto its target (lists of rows), or None."""
    m: dict[int, int] = {}
    for out, want in zip(outputs, targets):
        if out is None or len(out) != len(want) or len(out[0]) != len(want[0]):
            return None
        for ro, rw in zip(out, want):
            for a, b in zip(ro, rw):
                if m.setdefault(a, b) != b:
                    return None
    return m if len(set(m.values())) == len(m) else None


def map_text(m: dict[int, int]) -> str:
    """`3>4 1>5` (colours that keep their colour are left out)."""
    return " ".join(f"{a}>{b}" for a, b in sorted(m.items()) if a != b)


def apply_map(grid, m: dict[int, int]):
    return None if grid is None else [[m.get(v, v) for v in row] for row in grid]


__all__ = ["apply_map", "learn_map", "map_fits", "map_text"]
