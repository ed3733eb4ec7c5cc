"""Grids built from parts of the grid: cell-wise logic of its two halves (with or without a divider line),
the grid placed into itself (a Kronecker product over some of its own cells), and 0 cells filled between
equal colours along rows and columns. Colour 0 is 'empty' here, as in the ARC tasks these serve: the most
frequent colour changes from one demo grid to the next. On the GPU halves_logic and connect are one fused
kernel each (`arc/stencils.py`); the array code here is their NumPy path and parity reference."""
from __future__ import annotations

import numpy as np

from ..grids import CELLS, MAX, PAD, GridBatch
from ..kernels import background, gather, memo
from ..stencils import halves_cuda, stencil
from . import reference as ref
from .colour import COLOURS
from .registry import Param, family, finish

_SPLIT = {"h": ("tophalf", "bottomhalf"), "v": ("lefthalf", "righthalf")}
_OPS = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
        "nor": lambda a, b: ~(a | b)}


def _halves(g: GridBatch, axis: str):
    """(first half, second half, valid) for every grid; an odd size needs a one-colour middle line."""
    def compute():
        xp = g.xp
        n = len(g)
        first, second = (gather(g, op) for op in _SPLIT[axis])
        size = g.h if axis == "h" else g.w
        mid = (size // 2).reshape(n, 1, 1)
        line = (xp.take_along_axis(g.data, xp.broadcast_to(mid, (n, 1, MAX)), axis=1).reshape(n, MAX) if axis == "h"
                else xp.take_along_axis(g.data, xp.broadcast_to(mid, (n, MAX, 1)), axis=2).reshape(n, MAX))
        uniform = ((line == line[:, :1]) | (line == PAD)).all(axis=1)
        return first, second, (first.h > 0) & ((size % 2 == 0) | uniform)
    return memo(g, ("halves", axis), compute)


@family("halves_logic", "compose", ref.halves_logic,
        (Param("axis", ("h", "v")), Param("op", tuple(_OPS)), Param("c", COLOURS)), padded=True)
def halves_logic(g: GridBatch, axis: str, op: str, c: int) -> GridBatch:
    """Overlay the grid's two halves (top/bottom or left/right, a one-colour divider skipped): cells where
    `op` of 'not 0' holds become c, the rest 0."""
    xp = g.xp
    if xp is not np:
        return halves_cuda(g, ("h", "v").index(axis), list(_OPS).index(op), c)
    a, b, ok = _halves(g, axis)
    res = _OPS[op]((a.data != 0) & (a.data < PAD), (b.data != 0) & (b.data < PAD))
    data = xp.where(a.data < PAD, xp.where(res, c, 0), PAD).astype(xp.uint8)
    return finish(g, GridBatch(data, xp.where(ok, a.h, 0).astype(xp.int32), a.w))


@family("kron", "compose", ref.kron, (Param("mode", ("fg", "majority")),))
def kron(g: GridBatch, mode: str) -> GridBatch:
    """An h*h x w*w grid: block (i, j) is a copy of the grid where cell (i, j) is not 0 (fg) or is the most
    frequent colour (majority), else 0."""
    xp = g.xp
    n = len(g)
    hh, ww = g.h.reshape(n, 1, 1), g.w.reshape(n, 1, 1)
    h1, w1 = xp.maximum(hh, 1), xp.maximum(ww, 1)
    ii = xp.arange(MAX, dtype=xp.int32).reshape(1, MAX, 1)
    jj = xp.arange(MAX, dtype=xp.int32).reshape(1, 1, MAX)
    inside = (ii < hh * hh) & (jj < ww * ww)
    flat = g.data.reshape(n, CELLS)
    outer = xp.take_along_axis(flat, xp.where(inside, (ii // h1) * MAX + jj // w1, 0).reshape(n, CELLS), axis=1)
    inner = xp.take_along_axis(flat, xp.where(inside, (ii % h1) * MAX + jj % w1, 0).reshape(n, CELLS), axis=1)
    on = (outer != 0) if mode == "fg" else (outer == background(g).reshape(n, 1))
    data = xp.where(inside.reshape(n, CELLS), xp.where(on, inner, 0), PAD).astype(xp.uint8)
    return GridBatch(data.reshape(n, MAX, MAX), (hh * hh).reshape(n).astype(xp.int32),
                     (ww * ww).reshape(n).astype(xp.int32))


@family("connect", "compose", ref.connect,
        (Param("dir", ("h", "v", "hv", "d")), Param("c", ("same",) + COLOURS[1:])), padded=True)
def connect(g: GridBatch, dir: str, c) -> GridBatch:
    """A 0 cell between the two nearest non-0 cells of one colour in its row (h), column (v), row then
    column (hv), or diagonal then anti-diagonal (d) becomes that colour (same) or colour c."""
    xp = g.xp
    if xp is not np:
        return stencil(g, "stencil_connect", {"h": 0, "v": 1, "hv": 2, "d": 3}[dir], -1 if c == "same" else c,
                       needs_bg=False)
    d = g.data
    val = memo(g, ("between", dir), lambda: _between_both(g, dir))  # shared by the ten colours
    out = np.where((d == 0) & (val >= 0), val if c == "same" else c, d).astype(np.uint8)
    return finish(g, GridBatch(out, g.h, g.w))


_I, _J = np.divmod(np.arange(CELLS), MAX)
_SHEAR = _J - _I + MAX - 1  # cell (i, j) -> column j - i + 29: each diagonal becomes a column


def _between_diagonals(d):
    """_between along diagonals, then anti-diagonals (the 30x30 canvas flipped left-right), via a shear."""
    n = len(d)
    vals = []
    for a in (d, d[:, :, ::-1]):
        sheared = np.full((n, MAX, 2 * MAX - 1), PAD, np.int16)
        sheared[:, _I, _SHEAR] = a.reshape(n, CELLS)
        vals.append(_between(sheared, 1)[:, _I, _SHEAR].reshape(n, MAX, MAX))
    return np.where(vals[0] >= 0, vals[0], vals[1][:, :, ::-1])


def _between_both(g: GridBatch, dir: str):
    d = g.data.astype(np.int16)
    if dir == "d":
        return _between_diagonals(d)
    val = _between(d, 2) if dir != "v" else np.full(d.shape, -1, np.int16)
    return np.where(val >= 0, val, _between(d, 1)) if dir != "h" else val


def _between(d, axis: int):
    """Colour of the nearest non-0 cells before and after each cell along `axis` when they are equal, else -1
    (NumPy: running max/min of the positions of non-0 cells)."""
    a = np.moveaxis(d, axis, -1)
    nz = (a != 0) & (a < PAD)
    pos = np.arange(MAX, dtype=np.int16)
    last = np.maximum.accumulate(np.where(nz, pos, -1), axis=-1)  # last non-0 at or before k
    nxt = np.minimum.accumulate(np.where(nz, pos, MAX)[..., ::-1], axis=-1)[..., ::-1]  # first at or after k
    before = np.take_along_axis(a, np.maximum(last, 0), axis=-1)
    after = np.take_along_axis(a, np.minimum(nxt, MAX - 1), axis=-1)
    same = (last >= 0) & (nxt < MAX) & (before == after)
    return np.moveaxis(np.where(same, before, -1).astype(np.int16), -1, axis)
