"""Crops of one object chosen by a property other than its size: the one of the rarest colour, the one whose
shape no other object has, the one of the most common shape, the one with the most cells of colour c.

Objects are connected components (arc-dsl's `objects`, background left out), listed in reading order of
their first cells; ties go to the first. Grids with more than 30 objects give no result. The whole batch at
once: per-component sums by one `bincount` (a scatter-add on the GPU), a shape as two sums of per-cell
pseudo-random numbers of the cell's place relative to the component's first cell (equal shapes give equal
sums; different shapes equal ones with negligible odds), then a [B, 30, 30] comparison of the objects of
each grid. crop_most (ten colours, one weighted `bincount` each) is meant for a task's inputs: the search
applies it at depth 1 only.
"""
from __future__ import annotations

import numpy as np

from ..grids import CELLS, MAX, PAD, GridBatch
from ..kernels import colour_counts, gather, memo
from . import reference as ref
from .colour import C
from .geometry import bbox_params
from .objects import object_slots
from .registry import Param, family

_SPAN = 2 * MAX + 1  # relative column -30..30


def _mix(xp, x, salt: int):
    """A 31-bit pseudo-random number for each integer of `x` (a 64-bit mixing function, computed where `x`
    lives: no table to upload, the same values on NumPy and CuPy)."""
    z = x.astype(xp.uint64) * xp.uint64(0x9E3779B97F4A7C15) + xp.uint64(salt)
    z = (z ^ (z >> xp.uint64(30))) * xp.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> xp.uint64(27))) * xp.uint64(0x94D049BB133111EB)
    return ((z ^ (z >> xp.uint64(31))) >> xp.uint64(33)).astype(xp.float64)


def _per_object(g: GridBatch, lab, roots, weights):
    """Sum of `weights` [B, 900] over each object, at its slot [B, 30] (exact: float64 sums of integers).

    A cell of no object adds to a bin of its own (never an object's: those are first cells of objects), so
    on the GPU no counter takes every background cell's atomic add."""
    xp = g.xp
    n = len(g)
    base = xp.arange(n, dtype=xp.int64).reshape(n, 1) * (CELLS + 1)
    glob = base + xp.where(lab >= 0, lab, xp.arange(CELLS, dtype=lab.dtype))
    w = weights.ravel().astype(xp.float64)
    if xp is np:
        sums = np.bincount(glob.ravel(), weights=w, minlength=n * (CELLS + 1))
    else:  # CuPy's bincount reads its input's maximum back to the host: a scatter-add does not wait
        sums = xp.zeros(n * (CELLS + 1), xp.float64)
        xp.add.at(sums, glob.ravel(), w)
    return sums[base + xp.where(roots >= 0, roots, CELLS)]


def _shape_counts(g: GridBatch, conn: int):
    """For each object slot: how many objects of its grid have its shape (0 for empty slots)."""
    def compute():
        xp = g.xp
        lab, roots, _ = object_slots(g, conn, False)
        cells = xp.arange(CELLS, dtype=xp.int32)
        safe = xp.where(lab >= 0, lab, 0).astype(xp.int32)
        rel = (cells // MAX - safe // MAX) * _SPAN + (cells % MAX - safe % MAX + MAX)
        rel = xp.where(lab >= 0, rel, 0)
        places = xp.arange(MAX * _SPAN)
        k1, k2 = (_per_object(g, lab, roots, xp.where(lab >= 0, _mix(xp, places, salt)[rel], 0))
                  for salt in (1, 2))
        used = roots >= 0
        same = (k1[:, :, None] == k1[:, None, :]) & (k2[:, :, None] == k2[:, None, :]) & used[:, None, :]
        return xp.where(used, same.sum(axis=2), 0)
    return memo(g, ("shape_counts", conn), compute)


def _crop_best(g: GridBatch, lab, roots, count, score) -> GridBatch:
    """Crop each grid to its object of the highest score [B, 30] (first on ties); invalid without objects or
    with more than 30."""
    xp = g.xp
    used = roots >= 0
    best = xp.where(used, score, -xp.inf).argmax(axis=1).reshape(-1, 1)
    root = xp.take_along_axis(roots, best, axis=1)
    mask = (lab == root) & (lab >= 0)
    ok = (g.h > 0) & (count >= 1) & (count <= MAX)
    return gather(g, "crop", params=bbox_params(xp, mask.reshape(-1, MAX, MAX), ok))


@family("crop_pick", "objects", ref.crop_pick,
        (Param("by", ("rare", "unique", "common")), Param("conn", (4, 8), 4, "4- or 8-connectivity")), padded=True)
def crop_pick(g: GridBatch, by: str, conn: int) -> GridBatch:
    """Crop to the single-colour object of the rarest colour in the grid, of a shape no other object has, or
    of the most common shape."""
    xp = g.xp
    lab, roots, count = object_slots(g, conn, False)
    if by == "rare":
        colour = xp.take_along_axis(g.data.reshape(len(g), CELLS), xp.maximum(roots, 0), axis=1).astype(xp.int64)
        colour = xp.minimum(colour, PAD - 1)
        score = -xp.take_along_axis(colour_counts(g), colour, axis=1).astype(xp.float64)
    else:
        same = _shape_counts(g, conn).astype(xp.float64)
        score = -same if by == "unique" else same
    return _crop_best(g, lab, roots, count, score)


@family("crop_most", "objects", ref.crop_most, C, padded=True, first=True)
def crop_most(g: GridBatch, c: int) -> GridBatch:
    """Crop to the object (8-connected, of any colours) with the most cells of colour c (invalid with none)."""
    xp = g.xp
    lab, roots, count = object_slots(g, 8, True)
    score = _per_object(g, lab, roots, g.data.reshape(len(g), CELLS) == c)
    out = _crop_best(g, lab, roots, count, score)
    some = (xp.where(roots >= 0, score, 0).max(axis=1) > 0)
    return GridBatch(out.data, xp.where(some, out.h, 0).astype(xp.int32), out.w)
