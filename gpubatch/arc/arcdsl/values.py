"""What the array forms read from per-value arguments: the closures the combinators make (which function, bound
to what), patches, locations and grids of plain Python ints as int64 arrays, and a small cache of what was read
from a value, kept by the value's identity (a solver asks about one grid or container many times)."""
from __future__ import annotations

from itertools import chain
from typing import Any, Callable

import numpy as np

from . import prims_func, prims_patch

LIMIT = 1 << 40  # coordinates and colours of larger magnitude: the reference (Python ints never overflow)
# the code of each closure the combinators make (`lbind`/`rbind`: of a function of two parameters), by name
CODES = {name: made.__code__ for name, made in (
    ("compose", prims_func.compose(None, None)), ("chain", prims_func.chain(None, None, None)),
    ("fork", prims_func.fork(None, None, None)), ("matcher", prims_func.matcher(None, None)),
    ("lbind", prims_func.lbind(prims_patch.shift, None)), ("rbind", prims_func.rbind(prims_patch.shift, None)))}


def closure(function: Any, code: Any) -> dict | None:
    """The free variables of `function` by name where it is a closure of `code`, else None."""
    if getattr(function, "__code__", None) is not code:
        return None
    return dict(zip(code.co_freevars, (c.cell_contents for c in function.__closure__)))


def bound(function: Any) -> tuple[Any, Any] | None:
    """(function, fixed) of a closure `lbind(function, fixed)` of a two-parameter function, else None."""
    cells = closure(function, CODES["lbind"])
    return None if cells is None else (cells.get("function"), cells.get("fixed"))


def int_rows(rows: list, types: set) -> np.ndarray | None:
    """Rows of equal length, of Python ints (of `types`), as int64 of magnitude below LIMIT, else None."""
    if not set(map(type, chain.from_iterable(rows))) <= types:
        return None
    try:
        arr = np.array(rows, dtype=np.int64)
    except (OverflowError, ValueError):
        return None
    return arr if arr.ndim == 2 and np.abs(arr).max(initial=0) < LIMIT else None


def patch_cells(patch: frozenset) -> tuple[np.ndarray, bool] | None:
    """The patch's cells in its iteration order as [n, 3] (colour, i, j; colour 0 for indices), and whether it is
    an object; None unless every element has the form of the first and plain ints (no bools)."""
    try:
        obj = prims_patch._is_object(patch)
        if obj:
            shaped = all(type(c) is tuple and len(c) == 2 and type(c[1]) is tuple and len(c[1]) == 2 for c in patch)
            rows = [(v, i, j) for v, (i, j) in patch] if shaped else []
        else:
            shaped = all(type(c) is tuple and len(c) == 2 for c in patch)
            rows = [(0, i, j) for i, j in patch] if shaped else []
    except (TypeError, ValueError, IndexError):
        return None
    arr = int_rows(rows, {int}) if shaped else None
    return None if arr is None else (arr, obj)


def int_pairs(locations: frozenset) -> np.ndarray | None:
    """The locations in their iteration order as [m, 2], where each is a pair of ints (or bools)."""
    if not all(type(d) is tuple and len(d) == 2 for d in locations):
        return None
    return int_rows(list(locations), {int, bool})


class ByIdentity:
    """What was read from a few values, by identity: the value itself is kept, so its id is not reused."""

    def __init__(self, kept: int = 16) -> None:
        self.kept = kept
        self.seen: dict[int, tuple[Any, Any]] = {}

    def read(self, value: Any, reader: Callable[[Any], Any]) -> Any:
        """`reader(value)`, from the cache where `value` was read before (a None is not kept)."""
        hit = self.seen.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        got = reader(value)
        if got is not None:
            if len(self.seen) >= self.kept:
                self.seen.clear()  # one call, safe where worker threads share the module
            self.seen[id(value)] = (value, got)
        return got


_GRIDS = ByIdentity()  # grid -> its array: a solver scans one grid many times


def grid_array(grid: Any) -> np.ndarray | None:
    """A grid (a non-empty tuple of equal, non-empty tuples of integers) as an int64 array; None otherwise."""
    return _GRIDS.read(grid, _grid_array)


def _grid_array(grid: Any) -> np.ndarray | None:
    if type(grid) is not tuple or not grid or type(grid[0]) is not tuple or not grid[0]:
        return None
    w = len(grid[0])
    if any(type(row) is not tuple or len(row) != w for row in grid):
        return None
    arr = _ints(grid)
    return arr if arr is not None and arr.ndim == 2 else None


def _ints(rows: Any) -> np.ndarray | None:
    """Nested sequences of Python ints or bools as an int64 array, or None (other values, ragged rows)."""
    try:
        arr = np.array(rows)
    except (ValueError, TypeError, OverflowError):
        return None
    if arr.dtype.kind not in "iub" or arr.size == 0:
        return None
    return arr.astype(np.int64, copy=False)
