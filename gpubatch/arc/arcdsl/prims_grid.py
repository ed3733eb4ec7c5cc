"""arc-dsl's grid, object and drawing primitives per value (sections 2.6-2.8 of `arc-dsl-primitives.md`).

Grids are tuples of row tuples. Crops follow Python slicing (a negative start counts from the far edge);
drawing skips positions off the grid.
"""
from __future__ import annotations

import operator

from .limits import MAX_ITEMS, bound, bound_of
from .prims_patch import (_is_object, leftmost, lowermost, mostcolor, normalize, palette, rightmost, shape, shift,
                          toindices, ulcorner, uppermost)


def rot90(grid): return tuple(zip(*grid[::-1]))
def rot180(grid): return tuple(tuple(row[::-1]) for row in grid[::-1])
def rot270(grid):
    """Quarter turn anticlockwise; the grid is sliced first, so a set raises as arc-dsl's does."""
    return tuple(column[::-1] for column in zip(*grid[::-1]))[::-1]


def _mirror_patch(piece, where):
    """A patch's positions moved by `where(i, j)`, colours kept."""
    if _is_object(piece):
        return frozenset((v, where(i, j)) for v, (i, j) in piece)
    return frozenset(where(i, j) for i, j in piece)


def _empty_corner(piece) -> None:
    """arc-dsl mirrors a set about its corners, and the corner of an empty set is `()`: reading it raises."""
    if len(piece) == 0:
        ulcorner(piece)[0]


def hmirror(piece):
    if isinstance(piece, tuple):
        return piece[::-1]
    _empty_corner(piece)
    d = uppermost(piece) + lowermost(piece)
    return _mirror_patch(piece, lambda i, j: (d - i, j))


def vmirror(piece):
    if isinstance(piece, tuple):
        return tuple(row[::-1] for row in piece)
    _empty_corner(piece)
    d = leftmost(piece) + rightmost(piece)
    return _mirror_patch(piece, lambda i, j: (i, d - j))


def dmirror(piece):
    if isinstance(piece, tuple):
        return tuple(zip(*piece))
    a, b = ulcorner(piece)
    return _mirror_patch(piece, lambda i, j: (j - b + a, i - a + b))


def cmirror(piece):
    if isinstance(piece, tuple):
        return tuple(zip(*(row[::-1] for row in piece[::-1])))
    return vmirror(dmirror(vmirror(piece)))


def crop(grid, start, dims):
    return tuple(row[start[1]:start[1] + dims[1]] for row in grid[start[0]:start[0] + dims[0]])


def subgrid(patch, grid): return crop(grid, ulcorner(patch), shape(patch))


def index(grid, loc):
    i, j = loc
    h, w = len(grid), len(grid[0])  # an empty grid raises, as in arc-dsl
    return grid[loc[0]][loc[1]] if 0 <= i < h and 0 <= j < w else None  # a set of two ints unpacks, then fails


def canvas(value, dimensions):
    bound_of(lambda: dimensions[0] * max(1, dimensions[1]) if dimensions[0] > 0 else 0,  # no rows: arc-dsl
             "canvas")  # never reads the width; rows of nothing take time too
    return tuple(tuple(value for _ in range(dimensions[1])) for _ in range(dimensions[0]))


def trim(grid): return tuple(row[1:-1] for row in grid[1:-1])
def tophalf(grid): return grid[:len(grid) // 2]
def bottomhalf(grid): return grid[len(grid) // 2 + len(grid) % 2:]
def lefthalf(grid): return rot270(tophalf(rot90(grid)))
def righthalf(grid): return rot270(bottomhalf(rot90(grid)))


def hsplit(grid, n):
    bound(n, "hsplit", MAX_ITEMS)
    h, w = len(grid), len(grid[0]) // n  # the height read first, as arc-dsl reads it
    gap = len(grid[0]) % n != 0
    return tuple(crop(grid, (0, (w + gap) * k), (h, w)) for k in range(n))


def vsplit(grid, n):
    bound(n, "vsplit", MAX_ITEMS)
    h, w = len(grid) // n, len(grid[0])  # the width read first: an empty grid raises, as in arc-dsl
    gap = len(grid) % n != 0
    return tuple(crop(grid, ((h + gap) * k, 0), (h, w)) for k in range(n))


def _cells(grid) -> int:
    """A grid's cells; anything else counts its items. Any container passes, as in arc-dsl (`vconcat` joins any
    two tuples, `hupscale` iterates a set of tuples as rows), so nothing is indexed here."""
    first = next(iter(grid), None)
    return len(grid) * len(first) if isinstance(first, tuple) else len(grid)


def hconcat(a, b):
    bound(_cells(a) + _cells(b), "hconcat")  # doubling under `power` grows fast
    return tuple(i + j for i, j in zip(a, b))


def vconcat(a, b):
    if isinstance(a, tuple) and isinstance(b, tuple):  # arc-dsl adds anything: two integers make their sum
        bound(_cells(a) + _cells(b), "vconcat")
    return a + b


def hupscale(grid, factor):
    bound_of(lambda: sum(len(row) for row in grid) * operator.index(factor), "hupscale")  # a factor of another kind: never
    # multiplied (a tuple would repeat), and arc-dsl's `range` refuses it
    return tuple(tuple(v for v in row for _ in range(factor)) for row in grid)


def vupscale(grid, factor):
    if grid:
        bound_of(lambda: max(len(grid), _cells(grid)) * operator.index(factor), "vupscale")  # rows of nothing take time too
    return tuple(row for row in grid for _ in range(factor))


def upscale(element, factor):
    if isinstance(element, tuple):
        return vupscale(hupscale(element, factor), factor)
    if len(element) == 0:
        return frozenset()
    bound_of(lambda: len(element) * max(0, operator.index(factor)) ** 2, "upscale", MAX_ITEMS)
    oi, oj = ulcorner(element)
    cells = {(v, (i * factor + a, j * factor + b)) for v, (i, j) in normalize(element)
             for a in range(factor) for b in range(factor)}
    return shift(frozenset(cells), (oi, oj))


def downscale(grid, factor):
    h, w = len(grid), len(grid[0])  # arc-dsl's reads, in its order: an empty grid raises
    cols = [j for j in range(w) if j % factor == 0]
    rows = tuple(tuple(grid[i][j] for j in cols) for i in range(h))
    return tuple(row for i, row in enumerate(rows) if i % factor == 0)


def cellwise(a, b, fallback):
    h, w = len(a), len(a[0])  # arc-dsl's reads, in its order: an empty grid raises
    cols = range(w)
    return tuple(tuple(x if x == b[i][j] else fallback for j in cols for x in (a[i][j],)) for i in range(h))


def replace(grid, replacee, replacer):
    return tuple(tuple(replacer if v == replacee else v for v in row) for row in grid)


def switch(grid, a, b):
    return tuple(tuple(b if v == a else a if v == b else v for v in row) for row in grid)


def compress(grid):
    rows = {i for i, row in enumerate(grid) if len(set(row)) == 1}
    cols = {j for j, col in enumerate(dmirror(grid)) if len(set(col)) == 1}  # a set goes dmirror's patch way
    return tuple(tuple(v for j, v in enumerate(row) if j not in cols) for i, row in enumerate(grid) if i not in rows)


def _drawn(grid, cells, only_bg: bool):
    """A copy of `grid` with (value, (i, j)) cells written in order; off-grid cells skipped. The grid is read
    before the cells, as arc-dsl does: values of another kind fail at arc-dsl's read, with its error."""
    h, w = len(grid), len(grid[0])
    bg = mostcolor(grid) if only_bg else None
    out = [list(row) for row in grid]
    for value, (i, j) in cells:
        if 0 <= i < h and 0 <= j < w and (not only_bg or out[i][j] == bg):
            out[i][j] = value
    return tuple(tuple(row) for row in out)


def _valued(value, patch):
    """(value, position) for each of a patch's positions, read only once drawing starts (a generator's body)."""
    for loc in toindices(patch):
        yield value, loc


def fill(grid, value, patch): return _drawn(grid, _valued(value, patch), False)
def paint(grid, obj): return _drawn(grid, obj, False)
def underfill(grid, value, patch): return _drawn(grid, _valued(value, patch), True)
def underpaint(grid, obj): return _drawn(grid, obj, True)
def cover(grid, patch): return fill(grid, mostcolor(grid), toindices(patch))
def move(grid, obj, offset): return paint(cover(grid, obj), shift(obj, offset))
def asindices(grid): return frozenset((i, j) for i in range(len(grid)) for j in range(len(grid[0])))
def ofcolor(grid, value): return frozenset((i, j) for i, row in enumerate(grid) for j, v in enumerate(row) if v == value)
def asobject(grid): return frozenset((v, (i, j)) for i, row in enumerate(grid) for j, v in enumerate(row))


def toobject(patch, grid):
    h, w = len(grid), len(grid[0])
    return frozenset((grid[i][j], (i, j)) for i, j in toindices(patch) if 0 <= i < h and 0 <= j < w)


def _same_colour_cells(grid, value):
    return frozenset((v, (i, j)) for i, row in enumerate(grid) for j, v in enumerate(row) if v == value)


def partition(grid): return frozenset(_same_colour_cells(grid, c) for c in palette(grid))
def fgpartition(grid): return frozenset(_same_colour_cells(grid, c) for c in palette(grid) - {mostcolor(grid)})
