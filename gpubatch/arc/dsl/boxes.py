"""Primitives on the bounding boxes of a grid's objects: fill every object's box, draw lines through every
object's centre. Meant for a task's inputs (the built-in search applies them at depth 1 only).

Objects are connected components without the background colour (`objects.labels`); a grid's first 30 in
reading order are handled, and a grid with more gives no result, as for the crops of one object (`picks`).
The whole batch at once: per object slot, the rows and the columns its cells reach ([B, 30, 30] each), from
which each box's extent and centre follow.
"""
from __future__ import annotations

from ..grids import CELLS, MAX, GridBatch
from ..kernels import background, memo
from . import reference as ref
from .colour import C
from .geometry import bbox_params
from .objects import object_slots
from .registry import Param, family


def slot_spans(g: GridBatch, conn: int, multi: bool):
    """(first row, last row, first column, last column) [B, 30] of each object slot's box (-1 where the slot is
    empty), and whether each grid has at most 30 objects. Memoized on the batch."""
    def compute():
        xp = g.xp
        n = len(g)
        lab, roots, count = object_slots(g, conn, multi)
        used = roots >= 0
        mask = (lab[:, None, :] == roots[:, :, None]) & used[:, :, None]  # [B, slot, 900]
        top, left, h, w = bbox_params(xp, mask.reshape(n * MAX, MAX, MAX), True).T.reshape(4, n, MAX)
        box = (top, top + h - 1, left, left + w - 1)
        return (*(xp.where(used, v, -1) for v in box), count <= MAX)
    return memo(g, ("spans", conn, multi), compute)


def _paint(g: GridBatch, where, c: int, ok) -> GridBatch:
    """Background cells where `where` [B, 900] holds become colour c; grids not `ok` are invalid."""
    xp = g.xp
    n = len(g)
    d = g.data.reshape(n, CELLS)
    out = xp.where(where & (d == background(g).reshape(n, 1)), c, d).astype(xp.uint8).reshape(-1, MAX, MAX)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)


@family("fill_boxes", "objects", ref.fill_boxes, C, padded=True, first=True)
def fill_boxes(g: GridBatch, c: int) -> GridBatch:
    """Background cells inside the bounding box of an object (8-connected, colours mixed) become colour c
    (`60b61512`); invalid with more than 30 objects."""
    def inside():
        r0, r1, c0, c1, _ = slot_spans(g, 8, True)
        r = g.xp.arange(MAX)
        rows = (r >= r0[:, :, None]) & (r <= r1[:, :, None])  # [B, slot, row]; an empty slot spans nothing
        cols = (r >= c0[:, :, None]) & (r <= c1[:, :, None])
        return (rows[:, :, :, None] & cols[:, :, None, :]).any(axis=1).reshape(len(g), CELLS)
    return _paint(g, memo(g, ("in_boxes",), inside), c, slot_spans(g, 8, True)[4])


@family("centre_lines", "objects", ref.centre_lines, (Param("dir", ("h", "v", "hv")),) + C, padded=True,
        first=True)
def centre_lines(g: GridBatch, dir: str, c: int) -> GridBatch:
    """Background cells in the row (h), the column (v) or both (hv) of an object's centre become colour c
    (objects 4-connected, one colour; a box of even height has no centre row, of even width no centre column;
    `41e4d17e`); invalid with more than 30 objects."""
    xp = g.xp
    r0, r1, c0, c1, ok = slot_spans(g, 4, False)
    r = xp.arange(MAX)
    hit = xp.zeros((len(g), MAX, MAX), bool)
    if "h" in dir:
        row = xp.where((r0 >= 0) & ((r0 + r1) % 2 == 0), (r0 + r1) // 2, -1)
        hit |= (row[:, :, None] == r).any(axis=1)[:, :, None]
    if "v" in dir:
        col = xp.where((c0 >= 0) & ((c0 + c1) % 2 == 0), (c0 + c1) // 2, -1)
        hit |= (col[:, :, None] == r).any(axis=1)[:, None, :]
    return _paint(g, hit.reshape(len(g), CELLS), c, ok)
