"""Paths drawn between a grid's marked cells: an elbow from one of two single cells to the other
(`a2fd1cf0`, `d4a91cb9`). Meant for a task's inputs: the built-in search applies it at depth 1 only. Whole
batches with array operations on NumPy or CuPy.
"""
from __future__ import annotations

from ..grids import MAX, PAD, GridBatch
from . import reference as ref
from .colour import COLOURS
from .registry import Param, family


@family("elbow", "compose", ref.elbow, (Param("corner", ("lo", "hi")), Param("c", COLOURS[1:])), padded=True,
        first=True)
def elbow(g: GridBatch, corner: str, c: int) -> GridBatch:
    """Two non-0 cells of two colours joined by a path of colour c over 0 cells: along the lower colour's row
    (corner=lo; the higher's for hi) to the other's column, then along it; invalid unless exactly two such cells."""
    xp = g.xp
    n = len(g)
    d = g.data
    flat = ((d != 0) & (d < PAD)).reshape(n, MAX * MAX)
    first = flat.argmax(axis=1)
    last = MAX * MAX - 1 - flat[:, ::-1].argmax(axis=1)
    rows = xp.arange(n)
    ca, cb = d.reshape(n, MAX * MAX)[rows, first], d.reshape(n, MAX * MAX)[rows, last]
    ok = (flat.sum(axis=1) == 2) & (ca != cb) & (g.h > 0)
    lo, hi = xp.where(ca < cb, first, last), xp.where(ca < cb, last, first)
    a, b = (lo, hi) if corner == "lo" else (hi, lo)
    r1, c1, r2, c2 = (v.reshape(n, 1, 1) for v in (a // MAX, a % MAX, b // MAX, b % MAX))
    i = xp.arange(MAX).reshape(1, MAX, 1)
    j = xp.arange(MAX).reshape(1, 1, MAX)
    along_row = (i == r1) & (j >= xp.minimum(c1, c2)) & (j <= xp.maximum(c1, c2))
    along_col = (j == c2) & (i >= xp.minimum(r1, r2)) & (i <= xp.maximum(r1, r2))
    out = xp.where((along_row | along_col) & (d == 0), c, d).astype(xp.uint8)
    return GridBatch(out, xp.where(ok, g.h, 0).astype(xp.int32), g.w)
