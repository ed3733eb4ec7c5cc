"""Other primitives many ARC tasks need: gravity, symmetry and period completion, symmetry restoration, rays
(from every cell, from tips, from corners), outlines, hollowing, shifting."""
from __future__ import annotations

import numpy as np

from ..grids import MAX, PAD, GridBatch
from ..kernels import background, colour_counts, gather, memo
from ..periodic import complete_diagonal, complete_periodic
from ..restore import restored
from ..stencils import boxes_cuda, gravity_cuda, stencil
from . import reference as ref
from .colour import COLOURS, C
from .geometry import bbox_params
from .registry import Param, family, finish

DIRS = (Param("dir", ("down", "up", "left", "right")),)
_DIR_CODE = {"down": 0, "up": 1, "left": 2, "right": 3}
_AXIS_CODE = {"h": 0, "v": 1, "hv": 2}
_STEP = {"down": (1, 0), "up": (-1, 0), "left": (0, -1), "right": (0, 1)}
_TURN = {"down": (None, None), "up": ("rot180", "rot180"), "left": ("rot270", "rot90"), "right": ("rot90", "rot270")}


def _fg(g: GridBatch, bg):
    return (g.data != bg) & (g.data < PAD)


def _shifted(xp, a, di: int, dj: int, fill):
    """a[:, i - di, j - dj] where inside the 30x30 array, `fill` elsewhere."""
    out = xp.full_like(a, fill)
    src = a[:, max(0, -di):MAX - max(0, di), max(0, -dj):MAX - max(0, dj)]
    out[:, max(0, di):MAX - max(0, -di), max(0, dj):MAX - max(0, -dj)] = src
    return out


@family("gravity", "other", ref.gravity, DIRS, padded=True)
def gravity(g: GridBatch, dir: str) -> GridBatch:
    """Non-background cells slide towards `dir` within their column (or row), keeping their order."""
    xp = g.xp
    if xp is not np:
        return gravity_cuda(g, _DIR_CODE[dir])
    bg = background(g).reshape(-1, 1, 1)
    pre, post = _TURN[dir]
    t = gather(g, pre) if pre else g
    n = len(t)
    r = xp.arange(MAX, dtype=xp.int32).reshape(1, MAX, 1)
    inside_rows = r < t.h.reshape(-1, 1, 1)
    fg = _fg(t, bg) & inside_rows
    # the k-th non-background cell of a column (top to bottom) lands on row h - count + k
    dest = (t.h.reshape(-1, 1, 1) - fg.sum(axis=1, keepdims=True, dtype=xp.int32)
            + xp.cumsum(fg, axis=1, dtype=xp.int32) - 1)
    out = xp.where(inside_rows & (t.data < PAD), bg, t.data).astype(xp.uint8).reshape(-1)
    pos = xp.flatnonzero(fg)
    col = pos % MAX
    out[(pos // (MAX * MAX)) * (MAX * MAX) + dest.reshape(-1)[pos] * MAX + col] = t.data.reshape(-1)[pos]
    moved = GridBatch(out.reshape(n, MAX, MAX), t.h, t.w)
    return finish(g, gather(moved, post) if post else moved)


@family("symmetrize", "other", ref.symmetrize, (Param("axis", ("h", "v", "hv")), Param("c", COLOURS)),
        padded=True)
def symmetrize(g: GridBatch, axis: str, c: int) -> GridBatch:
    """Cells of colour c take the colour of their mirror image (top-bottom, left-right, or both)."""
    xp = g.xp
    if xp is not np:
        return stencil(g, "stencil_symmetrize", _AXIS_CODE[axis], c, needs_bg=False)
    out = g
    for m in {"h": ("hmirror",), "v": ("vmirror",), "hv": ("vmirror", "hmirror", "rot180")}[axis]:
        src = memo(g, ("gather", m), lambda: gather(g, m)).data if out is g else gather(out, m).data
        data = xp.where((out.data == c) & (src != c) & (src < PAD), src, out.data).astype(xp.uint8)
        out = GridBatch(data, g.h, g.w)
    return finish(g, out)


@family("restore", "other", ref.restore, (Param("c", COLOURS), Param("out", ("grid", "patch"), "grid")),
        padded=True, first=True)
def restore(g: GridBatch, c: int, out: str) -> GridBatch:
    """Cells of colour c take their colours from the grid's mirror symmetries (out=patch: only their part).

    At most half the grid may be colour c, and none may be left; see arc/restore.py."""
    full = restored(g, c)
    if out == "grid":
        return full
    return gather(full, "crop", params=bbox_params(g.xp, g.data == c, full.h > 0))


@family("ray", "other", ref.ray, (Param("dir", tuple(ref.RAY_STEPS) + tuple(ref.RAY_GROUPS)),), padded=True)
def ray(g: GridBatch, dir: str) -> GridBatch:
    """Every non-background cell shines its colour along `dir` over background cells, up to the next
    non-background cell (8 directions; diag: the 4 diagonal ones at once, the first listed winning)."""
    xp = g.xp
    if dir in ref.RAY_GROUPS:
        bg = background(g).reshape(-1, 1, 1)
        out = g.data
        for d in ref.RAY_GROUPS[dir]:
            out = xp.where(out == bg, ray(g, d).data, out)
        return GridBatch(out, g.h, g.w)
    di, dj = ref.RAY_STEPS[dir]
    if xp is not np:
        return stencil(g, "stencil_ray", di, dj)
    return _shone(g, di, dj, lambda fg: fg)


def _shone(g: GridBatch, di: int, dj: int, emitters) -> GridBatch:
    """NumPy: each background cell lit by the nearest emitting cell behind it against the step (di, dj), any
    non-background cell blocking; `emitters(fg)` picks the emitting cells among the non-background ones."""
    bg = background(g).reshape(-1, 1, 1)
    fg = (g.data != bg) & (g.data < PAD)
    light = _walk(g, di, dj, emitters(fg), fg)
    return GridBatch(np.where((g.data == bg) & (light >= 0), light, g.data).astype(np.uint8), g.h, g.w)


def _walk(g: GridBatch, di: int, dj: int, emit, block):
    """NumPy, per cell: the colour of the nearest `emit` cell behind it against the step (di, dj), with no
    `block` cell between them (-1: none); an `emit` cell blocks too."""
    n = len(g)
    # walk the lines across the step's main axis (rows, or columns for left/right) carrying, per line, the
    # colour of the last emitting cell; a diagonal step moves that colour one column sideways per row
    t = (lambda a: a.transpose(0, 2, 1)) if di == 0 else (lambda a: a)
    a, emit, block = t(g.data), t(emit), t(block)
    step, side = (dj, 0) if di == 0 else (di, dj)
    light = np.empty(a.shape, np.int16)
    cur = np.full((n, MAX), -1, np.int16)
    for k in range(MAX) if step > 0 else range(MAX - 1, -1, -1):
        if side:
            cur = np.concatenate([np.full((n, 1), -1, np.int16), cur[:, :-1]], axis=1) if side > 0 else \
                np.concatenate([cur[:, 1:], np.full((n, 1), -1, np.int16)], axis=1)
        light[:, k] = cur
        cur = np.where(emit[:, k], a[:, k], np.where(block[:, k], -1, cur))
    return np.ascontiguousarray(t(light))


_DIAGONALS = ("downright", "downleft", "upright", "upleft")


@family("corner_ray", "other", ref.corner_ray, (Param("dir", _DIAGONALS),), padded=True)
def corner_ray(g: GridBatch, dir: str) -> GridBatch:
    """As `ray` along a diagonal, but only a shape's corner towards the step shines (a cell with no
    non-background cell beside it in the step's row or column direction): a block shoots one diagonal from
    its outer corner, not one from each cell of its edge (`5c0a986e`)."""
    xp = g.xp
    di, dj = ref.RAY_STEPS[dir]
    if xp is not np:
        return stencil(g, "stencil_corner_ray", di, dj)
    return _shone(g, di, dj, lambda fg: fg & ~_shifted(np, fg, -di, 0, False) & ~_shifted(np, fg, 0, -dj, False))


@family("extend", "other", ref.extend, padded=True)
def extend(g: GridBatch) -> GridBatch:
    """Every tip (a non-background cell with one non-background cell among its 8 neighbours) shines its colour
    away from that neighbour over background cells, up to the next non-background cell: lines and diagonals
    continued past their ends (`7ddcd7ec`); where rays cross, the first of ray's 8 steps wins."""
    xp = g.xp
    if xp is not np:
        return stencil(g, "stencil_extend")
    bg = background(g).reshape(-1, 1, 1)
    fg = (g.data != bg) & (g.data < PAD)
    near = {(a, b): _shifted(xp, fg, -a, -b, False) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b}
    tips = fg & (sum(m.astype(np.int8) for m in near.values()) == 1)
    out = g.data.copy()
    for di, dj in ref.RAY_STEPS.values():  # a tip shines away from its neighbour, at (-di, -dj)
        emit = tips & near[(-di, -dj)]
        rows = np.flatnonzero(emit.any(axis=(1, 2)))  # 12-23% of ARC grids have a tip in a given direction
        if len(rows):
            sub = GridBatch(g.data[rows], g.h[rows], g.w[rows])
            light = _walk(sub, di, dj, emit[rows], fg[rows])
            part = out[rows]
            out[rows] = np.where((part == bg[rows]) & (light >= 0), light, part)
    return GridBatch(out, g.h, g.w)


@family("periodic", "other", ref.periodic,
        (Param("c", (0,), default=0, doc="a colour 0-9", accepts=lambda v: v in COLOURS),), padded=True)
def periodic(g: GridBatch, c: int) -> GridBatch:
    """Cells of colour c (at most half the grid) take the colour of the grid's repeating pattern (the smallest
    row and column periods its other cells agree with); enumerated for c = 0."""
    return complete_periodic(g, c)


@family("diagonal", "other", ref.diagonal, (Param("dir", ("anti", "main")),), padded=True, first=True)
def diagonal(g: GridBatch, dir: str) -> GridBatch:
    """Every cell takes the colour of its diagonal class, (i + j) mod p (anti) or (i - j) mod p (main), for the
    smallest p in 2..10 whose classes each hold non-0 cells of one colour; invalid without such a p."""
    return complete_diagonal(g, dir == "anti")


@family("outline", "other", ref.outline, C, padded=True)
def outline(g: GridBatch, c: int) -> GridBatch:
    """Background cells next to (8 neighbours) a non-background cell become colour c."""
    xp = g.xp
    if xp is not np:
        return stencil(g, "stencil_outline", 0, c)
    bg = background(g).reshape(-1, 1, 1)

    def ring():  # background cells touching a non-background cell: the same for every c
        fg = _fg(g, bg)
        near = xp.zeros_like(fg)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                if di or dj:
                    near |= _shifted(xp, fg, di, dj, False)
        return (g.data == bg) & near
    return finish(g, GridBatch(xp.where(memo(g, ("outline",), ring), c, g.data).astype(xp.uint8), g.h, g.w))


@family("boxes", "other", ref.boxes, padded=True)
def boxes(g: GridBatch) -> GridBatch:
    """0 cells inside the bounding box of a colour's cells (two or more) take that colour, smaller colours
    first (`56ff96f3`: two corners of each rectangle given)."""
    xp, d = g.xp, g.data
    if xp is not np:
        return boxes_cuda(g)
    out, counts = d, colour_counts(g)
    r = xp.arange(MAX).reshape(1, MAX)
    for c in range(1, 10):  # a box of height 0 where colour c has fewer than two cells
        top, left, bh, bw = bbox_params(xp, d == c, counts[:, c] >= 2).T.reshape(4, -1, 1)
        inside = ((r >= top) & (r < top + bh))[:, :, None] & ((r >= left) & (r < left + bw))[:, None, :]
        out = xp.where(inside & (out == 0), xp.uint8(c), out)
    return finish(g, GridBatch(out, g.h, g.w))


@family("hollow", "other", ref.hollow, padded=True)
def hollow(g: GridBatch) -> GridBatch:
    """Non-background cells whose four neighbours are all non-background become background."""
    xp = g.xp
    if xp is not np:
        return stencil(g, "stencil_hollow")
    bg = background(g).reshape(-1, 1, 1)
    fg = _fg(g, bg)
    inner = fg.copy()
    for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        inner &= _shifted(xp, fg, di, dj, False)
    return finish(g, GridBatch(xp.where(inner, bg, g.data).astype(xp.uint8), g.h, g.w))


@family("shift", "other", ref.shift, DIRS, padded=True)
def shift(g: GridBatch, dir: str) -> GridBatch:
    """Move the content one cell towards `dir`; the uncovered edge becomes background."""
    xp = g.xp
    di, dj = _STEP[dir]
    if xp is not np:
        return stencil(g, "stencil_shift", di, dj)
    bg = background(g).reshape(-1, 1, 1)
    moved = _shifted(xp, g.data, di, dj, PAD)
    return finish(g, GridBatch(xp.where(moved == PAD, bg, moved).astype(xp.uint8), g.h, g.w))
