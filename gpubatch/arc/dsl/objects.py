"""Object primitives on connected components: crop/keep the largest or smallest, drop singletons, fill
enclosed regions, list objects. Parameters follow arc-dsl's `objects`: conn 4 or 8, multi (components may
mix colours), bg (background-coloured cells take part; by default they are left out)."""
from __future__ import annotations

import numpy as np

from ..grids import CELLS, MAX, PAD, GridBatch
from ..kernels import background, gather, memo
from ..labels import label
from ..stencils import component_stats
from . import reference as ref
from .geometry import bbox_params
from .registry import Param, family
from .colour import C

CONN = (Param("conn", (4, 8), 4, "4- or 8-connectivity"), Param("multi", (False, True), False, "multi-colour"),
        Param("bg", (False, True), False, "include background cells"))


def labels(g: GridBatch, conn: int = 4, multi: bool = False, bg: bool = False):
    """int16 [B, 900] component label (first cell's index) or -1; memoized on the batch, since many
    primitives of one search step share each of the 8 labellings."""
    key = ("labels", conn, multi, bg)
    if key not in g.memo:
        xp = g.xp
        excl = xp.full(len(g), -1, xp.int32) if bg else background(g)
        g.memo[key] = label(g, excl, conn8=conn == 8, univalued=not multi)
    return g.memo[key]


def sizes(xp, lab):
    """Each cell's component size (0 for unlabelled cells), [B, 900].

    Unlabelled cells count into a spare bin of their own grid, so no single counter takes every
    background cell's atomic add on the GPU."""
    if xp is not np:
        return component_stats(lab)[0]
    n = lab.shape[0]
    glob = xp.arange(n, dtype=xp.int32).reshape(n, 1) * (CELLS + 1) + xp.where(lab >= 0, lab, CELLS)
    counts = xp.bincount(glob.ravel(), minlength=n * (CELLS + 1))
    return xp.where(lab >= 0, counts[glob], 0)


def sizes_of(g: GridBatch, conn: int, multi: bool, bg: bool):
    """Component size per cell for one labelling, memoized on the batch."""
    key = ("sizes", conn, multi, bg)
    if key not in g.memo:
        g.memo[key] = sizes(g.xp, labels(g, conn, multi, bg))
    return g.memo[key]


def per_label(xp, lab, x):
    """`[B, 900]`: each cell's component's sum of `x` (`[B, 30, 30]` or `[B, 900]`) under the labelling `lab`
    (`labels`); unlabelled cells sum into a spare bin of their grid. One `bincount` for the batch."""
    n = lab.shape[0]
    lab = lab.astype(xp.int64)
    glob = xp.arange(n, dtype=xp.int64).reshape(n, 1) * (CELLS + 1) + xp.where(lab >= 0, lab, CELLS)
    return xp.bincount(glob.ravel(), weights=x.reshape(-1).astype(xp.float64), minlength=n * (CELLS + 1))[glob]


def per_region(g: GridBatch, x):
    """`per_label` over the regions: 4-connected, one colour, every colour (cells outside the grid included)."""
    return per_label(g.xp, labels(g, 4, False, True), x)


def pick(xp, lab, largest: bool, size=None):
    """Mask [B, 900] of the largest (or smallest) component; ties go to the one whose first cell is first."""
    size = sizes(xp, lab) if size is None else size
    has = lab >= 0
    best = (xp.where(has, size, -1).max(axis=1) if largest
            else xp.where(has, size, CELLS + 1).min(axis=1)).reshape(-1, 1)
    root = xp.where(has & (size == best), lab, CELLS).min(axis=1).reshape(-1, 1)
    return has & (lab == root), has.any(axis=1)


def picked(g: GridBatch, conn: int, multi: bool, bg: bool, largest: bool):
    """(mask, any) of the largest or smallest object, memoized on the batch."""
    key = ("pick", conn, multi, bg, largest)
    if key not in g.memo:
        g.memo[key] = pick(g.xp, labels(g, conn, multi, bg), largest, sizes_of(g, conn, multi, bg))
    return g.memo[key]


def _crop(largest: bool):
    def fn(g: GridBatch, conn: int, multi: bool, bg: bool) -> GridBatch:
        xp = g.xp
        mask, some = picked(g, conn, multi, bg, largest)
        return gather(g, "crop", params=bbox_params(xp, mask.reshape(-1, MAX, MAX), some & (g.h > 0)))
    return fn


def _keep(largest: bool):
    def fn(g: GridBatch, conn: int, multi: bool, bg: bool) -> GridBatch:
        xp = g.xp
        mask, some = picked(g, conn, multi, bg, largest)
        bgc = background(g).reshape(-1, 1)
        d = g.data.reshape(len(g), CELLS)
        out = xp.where(mask | (d == PAD), d, bgc).astype(xp.uint8).reshape(-1, MAX, MAX)
        return GridBatch(out, xp.where(some, g.h, 0), g.w)
    return fn


for _kind, _largest in (("largest", True), ("smallest", False)):
    _f = _crop(_largest)
    _f.__doc__ = f"Crop to the bounding box of the {_kind} object (ties: the first in reading order)."
    family(f"crop_{_kind}", "objects", getattr(ref, f"crop_{_kind}"), CONN, padded=True)(_f)
    _f = _keep(_largest)
    _f.__doc__ = f"Keep only the {_kind} object; every other cell becomes the background colour."
    family(f"keep_{_kind}", "objects", getattr(ref, f"keep_{_kind}"), CONN)(_f)


@family("remove_singletons", "objects", ref.remove_singletons, CONN)
def remove_singletons(g: GridBatch, conn: int, multi: bool, bg: bool) -> GridBatch:
    """Objects of one cell become the background colour."""
    xp = g.xp
    d = g.data.reshape(len(g), CELLS)
    out = xp.where(sizes_of(g, conn, multi, bg) == 1, background(g).reshape(-1, 1), d).astype(xp.uint8)
    return GridBatch(out.reshape(-1, MAX, MAX), g.h, g.w)


@family("fill_enclosed", "objects", ref.fill_enclosed, C)
def fill_enclosed(g: GridBatch, c: int) -> GridBatch:
    """Background regions (4-connected) that do not touch the grid's border become colour c."""
    xp = g.xp
    enclosed = memo(g, ("enclosed",), lambda: _enclosed(g))
    return GridBatch(xp.where(enclosed, c, g.data.reshape(len(g), CELLS)).astype(xp.uint8).reshape(-1, MAX, MAX),
                     g.h, g.w)



@family("flood", "objects", ref.flood, C, first=True)
def flood(g: GridBatch, c: int) -> GridBatch:
    """Background regions (4-connected) with a cell of colour c beside one of their cells become colour c
    (`9edfc990`)."""
    xp = g.xp
    n = len(g)
    d = g.data.reshape(n, CELLS)
    lab = labels(g, 4, False, True)
    beside = xp.zeros((n, MAX, MAX), bool)
    for axis in (1, 2):  # a cell of colour c above/below (axis 1) or left/right (axis 2)
        hit = g.data == c
        lo, hi = [slice(None)] * 3, [slice(None)] * 3
        lo[axis], hi[axis] = slice(0, MAX - 1), slice(1, MAX)
        beside[tuple(lo)] |= hit[tuple(hi)]
        beside[tuple(hi)] |= hit[tuple(lo)]
    bg = (lab >= 0) & (d == background(g).reshape(n, 1))  # a background cell's region is all background
    out = xp.where(bg & (per_region(g, bg & beside.reshape(n, CELLS)) > 0), c, d).astype(xp.uint8)
    return GridBatch(out.reshape(-1, MAX, MAX), g.h, g.w)


def _enclosed(g: GridBatch):
    """Cells of background regions that do not touch the border, [B, 900] (independent of the fill colour)."""
    xp = g.xp
    n = len(g)
    lab = label(g, xp.full(n, -1, xp.int32), conn8=False, univalued=True)
    d = g.data.reshape(n, CELLS)
    if xp is not np:
        touched = component_stats(lab, g.h, g.w)[1]
        return (lab >= 0) & (d == background(g).reshape(n, 1)) & ~touched
    cells = xp.arange(CELLS)
    ii, jj = cells // MAX, cells % MAX
    h, w = g.h.reshape(n, 1), g.w.reshape(n, 1)
    border = (lab >= 0) & ((ii == 0) | (jj == 0) | (ii == h - 1) | (jj == w - 1))
    glob = xp.arange(n, dtype=xp.int64).reshape(n, 1) * (CELLS + 1) + xp.where(lab >= 0, lab, CELLS)
    touched = xp.bincount(glob[border], minlength=n * (CELLS + 1))
    return (lab >= 0) & (d == background(g).reshape(n, 1)) & (touched[glob] == 0)


def object_slots(g: GridBatch, conn: int, multi: bool):
    """(label [B, 900], first cell of each of the first 30 objects in reading order [B, 30] (-1: none), object
    count [B]); background cells are left out. Memoized on the batch."""
    def compute():
        xp = g.xp
        n = len(g)
        lab = labels(g, conn, multi, False)
        is_root = lab == xp.arange(CELLS, dtype=lab.dtype)
        rank = xp.cumsum(is_root, axis=1, dtype=xp.int32) - 1  # position of each root in reading order
        # every cell scatters: a root to its slot, the rest to one spare slot past the end (no `flatnonzero`,
        # whose result size would make the host wait for the device)
        dest = xp.where(is_root & (rank < MAX), xp.arange(n, dtype=xp.int64).reshape(n, 1) * MAX + rank, n * MAX)
        roots = xp.full(n * MAX + 1, -1, xp.int32)
        roots[dest.ravel()] = xp.broadcast_to(xp.arange(CELLS, dtype=xp.int32), (n, CELLS)).ravel()
        return lab, roots[:-1].reshape(n, MAX), is_root.sum(axis=1).astype(xp.int32)
    return memo(g, ("slots", conn, multi), compute)


@family("count_objects", "objects", ref.count_objects, CONN[:2])
def count_objects(g: GridBatch, conn: int, multi: bool) -> GridBatch:
    """A 1 x N row: the colour of each of the N objects' first cells, in reading order (N <= 30)."""
    xp = g.xp
    n = len(g)
    _, roots, count = object_slots(g, conn, multi)
    colours = xp.take_along_axis(g.data.reshape(n, CELLS), xp.maximum(roots, 0), axis=1)
    out = xp.full((n, MAX, MAX), PAD, xp.uint8)
    out[:, 0, :] = xp.where(roots >= 0, colours, PAD)
    return GridBatch(out, xp.where(count > 0, 1, 0).astype(xp.int32), count)


def _recolor(largest: bool):
    def fn(g: GridBatch, conn: int, c: int) -> GridBatch:
        xp = g.xp
        mask, _ = picked(g, conn, False, False, largest)
        out = xp.where(mask, c, g.data.reshape(len(g), CELLS)).astype(xp.uint8).reshape(-1, MAX, MAX)
        return GridBatch(out, g.h, g.w)
    return fn


for _kind, _largest in (("largest", True), ("smallest", False)):
    _f = _recolor(_largest)
    _f.__doc__ = f"The {_kind} single-colour object (ties: the first in reading order) becomes colour c."
    family(f"recolor_{_kind}", "objects", getattr(ref, f"recolor_{_kind}"), (CONN[0],) + C)(_f)

