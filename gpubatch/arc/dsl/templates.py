"""A template painted onto look-alikes: the grid's one object of several colours gives its colours to every
object of one colour that has its shape (`e76a88a6`: grey blocks take the pattern of the one patterned block;
`321b1fc6`: the same, the pattern itself then cleared). Meant for a task's inputs (depth 1 only).

Objects are 4-connected components of the cells that are not the background colour (`objects.labels`, colours
mixed). Two objects have one shape when they have as many cells and every cell of one, placed as it lies from
that object's first cell in reading order, lands on a cell of the other placed from its own first cell: a
shift keeps reading order, so no box or slot is needed, and any number of objects is handled at once.
"""
from __future__ import annotations

from ..grids import CELLS, MAX, GridBatch
from ..kernels import background
from . import reference as ref
from .objects import labels, per_label, sizes_of
from .registry import Param, family


def _colours_per_label(xp, lab, d):
    """[B, 901]: how many colours each label's cells hold (the last bin: unlabelled cells)."""
    n = lab.shape[0]
    glob = (xp.arange(n, dtype=xp.int64).reshape(n, 1) * (CELLS + 1) + xp.where(lab >= 0, lab, CELLS)) * 10 + d
    seen = xp.bincount(glob.ravel(), minlength=n * (CELLS + 1) * 10).reshape(n, CELLS + 1, 10) > 0
    return seen.sum(axis=2)


@family("paint_like", "objects", ref.paint_like, (Param("keep", (True, False), doc="the template stays"),),
        first=True)
def paint_like(g: GridBatch, keep: bool) -> GridBatch:
    """Every one-colour object shaped like the grid's only object of several colours takes that object's
    colours, cell for cell; the template stays (keep) or becomes background. Invalid without exactly one
    such template, or without an object to paint."""
    xp = g.xp
    n = len(g)
    d = g.data.reshape(n, CELLS).astype(xp.int64)
    lab = labels(g, 4, True, False).astype(xp.int64)
    labelled = lab >= 0
    safe = xp.where(labelled, lab, CELLS)
    ncol = xp.take_along_axis(_colours_per_label(xp, lab, xp.where(labelled, d, 0)), safe, axis=1)
    cell = xp.arange(CELLS, dtype=xp.int64).reshape(1, CELLS)
    is_template = labelled & (ncol > 1)
    roots = is_template & (lab == cell)
    one = roots.sum(axis=1) == 1
    troot = xp.argmax(roots, axis=1).reshape(n, 1)  # the template's first cell (any, where not `one`)
    size = sizes_of(g, 4, True, False).astype(xp.int64)
    tsize = xp.take_along_axis(size, troot, axis=1)
    # each cell's place from its object's first cell, moved onto the template
    di, dj = cell // MAX - lab // MAX, cell % MAX - lab % MAX
    ti, tj = troot // MAX + di, troot % MAX + dj
    inside = (ti >= 0) & (ti < MAX) & (tj >= 0) & (tj < MAX)
    src = xp.where(inside, ti * MAX + tj, 0)
    lands = inside & (xp.take_along_axis(lab, src, axis=1) == troot)
    cand = labelled & (ncol == 1) & (size == tsize)
    match = cand & (per_label(xp, lab, cand & lands) == size) & one.reshape(n, 1)  # every cell landed
    out = xp.where(match, xp.take_along_axis(d, src, axis=1), d)
    if not keep:
        out = xp.where(is_template & one.reshape(n, 1), background(g).reshape(n, 1), out)
    some = match.any(axis=1) & (g.h > 0)
    return GridBatch(out.astype(xp.uint8).reshape(n, MAX, MAX), xp.where(some, g.h, 0).astype(xp.int32),
                     xp.where(some, g.w, 0).astype(xp.int32))
