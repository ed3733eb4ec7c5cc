"""Rectangles of one colour searched for at many sizes: `occurrences(I, asobject(canvas(c, (h, w))))` over a
range of sizes is how arc-dsl's solvers look for the largest empty box, and each size built its canvas, its
object and a full scan of the grid anew, once per sample.

Here `canvas` of a plain colour and small dimensions is made once and shared (grids are immutable tuples, so
a shared one is equal in every way to a new one), `asobject` of a grid seen before is read back by the grid's
identity, and `occurrences` of an object that is a filled rectangle of one colour reads the windows off a
summed-area table kept per grid and colour. Sets are built as the reference builds them (row by row), so they
iterate alike; anything else goes to the reference.
"""
from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from . import prims_grid
from .values import LIMIT, ByIdentity, grid_array

MAX_CELLS = 1024  # canvases up to this size are kept; larger ones are rare and cost their size anyway
MAX_KEPT = 4096  # canvases kept at once (cleared when full)
_CANVAS: dict[tuple, tuple] = {}
_OBJECTS = ByIdentity(kept=512)  # grid -> asobject(grid)
_SOLID = ByIdentity(kept=512)  # object -> (colour, height, width) when it is a filled one-colour rectangle
_TABLES = ByIdentity(kept=64)  # grid -> {colour: summed-area table of its cells of that colour}
_PLAIN = (int, bool)


def canvas(value: Any, dimensions: Any) -> Any:
    """`canvas`, one shared grid per plain colour and small size."""
    if type(value) not in _PLAIN or not _plain_pair(dimensions):
        return prims_grid.canvas(value, dimensions)
    key = (type(value), value, *(type(d) for d in dimensions), *dimensions)  # True and 1 make unequal grids
    hit = _CANVAS.get(key)
    if hit is None:
        hit = prims_grid.canvas(value, dimensions)  # raises where the reference raises
        if len(hit) * (len(hit[0]) if hit else 0) <= MAX_CELLS:
            if len(_CANVAS) >= MAX_KEPT:
                _CANVAS.clear()
            _CANVAS[key] = hit
    return hit


def _plain_pair(dimensions: Any) -> bool:
    return type(dimensions) is tuple and len(dimensions) == 2 and all(type(d) in _PLAIN for d in dimensions)


def asobject(grid: Any) -> Any:
    """`asobject`, read back for a grid whose object was made before."""
    if type(grid) is not tuple:
        return prims_grid.asobject(grid)
    return _OBJECTS.read(grid, prims_grid.asobject)


def solid(obj: Any) -> tuple[int, int, int] | None:
    """(colour, height, width) of an object that fills its bounding box with one plain-int colour, else None."""
    return _SOLID.read(obj, _solid_of) or None


def _solid_of(obj: Any) -> tuple | bool:
    if type(obj) is not frozenset or not obj or not all(map(_is_cell, obj)):
        return False
    colours = {c[0] for c in obj}
    rows, cols = {c[1][0] for c in obj}, {c[1][1] for c in obj}
    if len(colours) != 1 or not all(map(_small_int, chain(colours, rows, cols))):
        return False
    oh, ow = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
    return (next(iter(colours)), oh, ow) if len(obj) == oh * ow else False


def _is_cell(c: Any) -> bool:
    return type(c) is tuple and len(c) == 2 and type(c[1]) is tuple and len(c[1]) == 2


def _small_int(x: Any) -> bool:
    return type(x) is int and abs(x) < LIMIT


def occurrences_solid(g: np.ndarray, grid: Any, shape: tuple[int, int, int]) -> frozenset:
    """Upper-left corners of the windows of `grid` (as `g`) that are all `shape`'s colour, at its size."""
    colour, oh, ow = shape
    h2, w2 = g.shape[0] - oh + 1, g.shape[1] - ow + 1
    if h2 <= 0 or w2 <= 0:
        return frozenset()
    tables = _TABLES.read(grid, lambda _: {})
    s = tables.get(colour)
    if s is None:
        s = tables[colour] = summed(g == colour)
    return frozenset(set(map(tuple, np.argwhere(full_windows(s, oh, ow)).tolist())))  # row by row, as the reference


def summed(eq: np.ndarray) -> np.ndarray:
    """The summed-area table of a boolean grid, with a row and a column of zeros in front."""
    s = np.zeros((eq.shape[0] + 1, eq.shape[1] + 1), dtype=np.int64)
    s[1:, 1:] = eq.cumsum(axis=0).cumsum(axis=1)
    return s


def full_windows(s: np.ndarray, oh: int, ow: int) -> np.ndarray:
    """Which oh x ow windows are all True, from the summed-area table `s` of a boolean grid."""
    return s[oh:, ow:] - s[:-oh, ow:] - s[oh:, :-ow] + s[:-oh, :-ow] == oh * ow


def occurrences(grid: Any, obj: Any) -> frozenset | None:
    """`occurrences` of a filled one-colour rectangle in a grid of ints, else None (the caller goes on)."""
    shape = solid(obj)
    if shape is None:
        return None
    g = grid_array(grid)
    return None if g is None else occurrences_solid(g, grid, shape)
