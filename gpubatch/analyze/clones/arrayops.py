"""The few array operations group building needs that NumPy and CuPy do not share: running maxima, scatter
minima and maxima, stable multi-key sorts and first occurrences. Each takes `xp` (the array module of its
arrays, `array_module`) and gives the same result on both; the NumPy branch is NumPy's own routine.

CuPy has no `maximum.accumulate` and its `ufunc.at` does not cover every dtype, so the CuPy branches are
built from what it does have: a log-step scan (Hillis-Steele: about 20 passes over a million items, each one
kernel) and a stable sort followed by the first entry of each run.
"""
from __future__ import annotations

import numpy as np


def array_module(a):
    """NumPy for a NumPy array, else CuPy (imported only then)."""
    if isinstance(a, np.ndarray):
        return np
    import cupy

    return cupy


def to_host(a) -> np.ndarray:
    """A NumPy copy of a device array; a NumPy array as it is."""
    return a if isinstance(a, np.ndarray) else a.get()


def _scan(xp, x, name: str):
    """The running `name` (maximum or minimum) of `x`: NumPy's accumulate, or log2(n) steps on CuPy, each
    folding in the value `step` places back."""
    if xp is np:
        return getattr(np, name).accumulate(x)
    fold, out, step = getattr(xp, name), x.copy(), 1
    while step < len(out):
        out[step:] = fold(out[step:], out[:-step])  # the right side is made before it is stored
        step *= 2
    return out


def cummax(xp, x):
    """The running maximum of `x` (`np.maximum.accumulate`)."""
    return _scan(xp, x, "maximum")


def cummin(xp, x):
    """The running minimum of `x` (`np.minimum.accumulate`)."""
    return _scan(xp, x, "minimum")


def stable_argsort(xp, x):
    """Indices that sort `x`, equal values in their order (CuPy's sort is always stable)."""
    return np.argsort(x, kind="stable") if xp is np else xp.argsort(x)


def lexsort(xp, keys):
    """`np.lexsort(keys)`: the last key is the primary one, ties kept in order. On CuPy one stable sort per
    key, from the least significant up."""
    if xp is np:
        return np.lexsort(keys)
    order = xp.argsort(keys[0])
    for k in keys[1:]:
        order = order[xp.argsort(k[order])]
    return order


def _scatter(xp, out, idx, vals, name: str) -> None:
    """`np.<name>.at(out, idx, vals)` in place (`name`: minimum or maximum). On CuPy, one stable sort of the
    pairs by target, then value, leaves each target's extreme value first in its run."""
    if xp is np:
        getattr(np, name).at(out, idx, vals)
        return
    if not len(idx):
        return
    order = lexsort(xp, (vals if name == "minimum" else -vals, idx))
    i, v = idx[order], vals[order]
    head = changes(xp, i)
    out[i[head]] = getattr(xp, name)(out[i[head]], v[head])


def scatter_min(xp, out, idx, vals) -> None:
    """`np.minimum.at(out, idx, vals)`, in place."""
    _scatter(xp, out, idx, vals, "minimum")


def scatter_max(xp, out, idx, vals) -> None:
    """`np.maximum.at(out, idx, vals)`, in place."""
    _scatter(xp, out, idx, vals, "maximum")


def changes(xp, *cols):
    """Per row of sorted columns: whether it starts a new run (the first row, or any column differs from the
    row before)."""
    new = xp.zeros(len(cols[0]), dtype=bool)
    if len(new):
        new[0] = True
    for c in cols:
        new[1:] |= c[1:] != c[:-1]
    return new


def unique_first(xp, key):
    """(first, inverse) as `np.unique(key, return_index=True, return_inverse=True)` gives them: the index of
    each distinct value's first occurrence, in order of value, and each entry's distinct value's rank."""
    order = stable_argsort(xp, key)
    head = changes(xp, key[order])
    inverse = xp.empty(len(key), dtype=xp.int64)
    inverse[order] = xp.cumsum(head) - 1
    return order[head], inverse
