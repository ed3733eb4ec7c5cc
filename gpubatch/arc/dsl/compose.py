"""Grids built from parts of the grid: cell-wise logic of its two halves (with or without a divider line),
its equal parts stacked, the grid placed into itself (a Kronecker product over some of its own cells), and
0 cells filled between equal colours along rows and columns. Colour 0 is 'empty' here, as in the ARC tasks
these serve: the most frequent colour changes from one demo grid to the next. On the GPU halves_logic and
connect are one fused kernel each (`arc/stencils.py`); the array code here is their NumPy path and parity
reference."""
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
    def compute():  # the cells `op` marks, as 0/1, PAD outside: shared by the ten colours
        a, b, ok = _halves(g, axis)
        res = _OPS[op]((a.data != 0) & (a.data < PAD), (b.data != 0) & (b.data < PAD))
        return xp.where(a.data < PAD, res, PAD).astype(xp.uint8), xp.where(ok, a.h, 0).astype(xp.int32), a.w
    marks, h, w = memo(g, ("halves_logic", axis, op), compute)
    lut = np.array([0, c] + [0] * (PAD - 2) + [PAD], np.uint8)
    return finish(g, GridBatch(lut[marks], h, w))


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


_FIXED = {"h2": (2, 1), "h3": (3, 1), "v2": (1, 2), "v3": (1, 3), "q4": (2, 2)}
MAX_PARTS = 9


def _lines_split(g: GridBatch):
    """Per grid: (rows of parts, columns of parts, divider colour or -1) of the split by divider lines: full
    rows and columns of one colour D (not 0) at regular places, cutting the grid into 2..9 equal parts; the
    smallest such D. (0, 0, -1) without one."""
    xp = g.xp
    n = len(g)
    d = g.data
    r = xp.arange(MAX, dtype=xp.int32).reshape(1, MAX)
    h, w = g.h.astype(xp.int32).reshape(n, 1), g.w.astype(xp.int32).reshape(n, 1)
    nr = nc = xp.zeros(n, xp.int32)
    colour = xp.full(n, -1, xp.int32)
    for D in range(9, 0, -1):  # the smallest valid colour is written last
        counts = []
        for full, size in (((d == D) | (d == PAD)).all(axis=2) & (r < h), h), \
                          (((d == D) | (d == PAD)).all(axis=1) & (r < w), w):
            any_ = full.any(axis=1).reshape(n, 1)
            step = xp.where(any_, full.argmax(axis=1).reshape(n, 1), size) + 1  # part size + 1
            regular = (full == (((r + 1) % step == 0) & (r < size))).all(axis=1)
            fits = ((size + 1) % step == 0).reshape(n)
            good = regular & fits & (step > 1).reshape(n)
            counts.append((xp.where(good, ((size + 1) // step).reshape(n), 0), any_.reshape(n)))
        (rows, any_r), (cols, any_c) = counts
        ok = (rows > 0) & (cols > 0) & (any_r | any_c) & (rows * cols <= MAX_PARTS) & (g.h > 0)
        nr, nc = xp.where(ok, rows, nr), xp.where(ok, cols, nc)
        colour = xp.where(ok, D, colour)
    return nr, nc, colour


@family("overlay", "compose", ref.overlay,
        (Param("parts", ("lines",) + tuple(_FIXED)), Param("order", ("first", "last"))), padded=True, first=True)
def overlay(g: GridBatch, parts: str, order: str) -> GridBatch:
    """Stack the grid's equal parts (split by divider lines, or in halves, thirds or quarters): each cell
    takes the first (or last) part's colour there that is not 0."""
    xp = g.xp
    n = len(g)
    if parts == "lines":
        nr, nc, _ = memo(g, ("lines_split",), lambda: _lines_split(g))
        gap = 1
    else:
        fr, fc = _FIXED[parts]
        ok = (g.h % fr == 0) & (g.w % fc == 0) & (g.h > 0)
        nr, nc = xp.where(ok, fr, 0).astype(xp.int32), xp.where(ok, fc, 0).astype(xp.int32)
        gap = 0
    some = nr > 0
    ph = xp.where(some, (g.h - (nr - 1) * gap) // xp.maximum(nr, 1), 0).astype(xp.int32).reshape(n, 1)
    pw = xp.where(some, (g.w - (nc - 1) * gap) // xp.maximum(nc, 1), 0).astype(xp.int32).reshape(n, 1)
    cells = xp.arange(CELLS, dtype=xp.int32).reshape(1, CELLS)
    li, lj = cells // MAX, cells % MAX
    inside = (li < ph) & (lj < pw)
    flat = g.data.reshape(n, CELLS)
    out = xp.zeros((n, CELLS), xp.uint8)
    count = (nr * nc).reshape(n, 1)
    ks = range(MAX_PARTS - 1, -1, -1) if order == "first" else range(MAX_PARTS)
    for k in ks:  # later writes win
        rk, ck = k // xp.maximum(nc, 1).reshape(n, 1), k % xp.maximum(nc, 1).reshape(n, 1)
        use = inside & (k < count)
        v = xp.take_along_axis(flat, xp.where(use, (rk * (ph + gap) + li) * MAX + ck * (pw + gap) + lj, 0), axis=1)
        out = xp.where(use & (v != 0), v, out)
    out = xp.where(inside, out, PAD).astype(xp.uint8).reshape(n, MAX, MAX)
    return GridBatch(out, xp.where(some, ph.reshape(n), 0).astype(xp.int32), pw.reshape(n).astype(xp.int32))


@family("spread", "compose", ref.spread, (Param("order", ("first", "last")),), padded=True, first=True)
def spread(g: GridBatch, order: str) -> GridBatch:
    """Every part of a grid divided by lines (`overlay(parts=lines)`) becomes the parts stacked, the first (or
    last) part's colour that is not 0 in each cell; the dividers stay (`c444b776`)."""
    xp = g.xp
    n = len(g)
    merged = overlay(g, "lines", order)
    ph, pw = merged.h.reshape(n, 1, 1), merged.w.reshape(n, 1, 1)
    r = xp.arange(MAX)
    li, lj = r.reshape(1, MAX, 1) % (ph + 1), r.reshape(1, 1, MAX) % (pw + 1)
    line = (li == ph) | (lj == pw) | (g.data == PAD)
    flat = xp.clip(li, 0, MAX - 1) * MAX + xp.clip(lj, 0, MAX - 1)
    v = xp.take_along_axis(merged.data.reshape(n, -1), flat.reshape(n, -1), axis=1).reshape(n, MAX, MAX)
    out = xp.where(line, g.data, v).astype(xp.uint8)
    return GridBatch(out, xp.where(merged.h > 0, g.h, 0).astype(xp.int32), g.w)
