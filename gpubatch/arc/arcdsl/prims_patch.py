"""arc-dsl's colour, patch and geometry primitives per value (sections 2.4 and 2.5 of `arc-dsl-primitives.md`).

A tuple is a grid and anything else a patch; a patch is an object when its first element's second component is
a pair (rule 1.1). Patches as tuples (`astuple` of two locations) pass through the functions that only iterate.
Coordinates are never clipped here: drawing clips.
"""
from __future__ import annotations

from .limits import MAX_ITEMS, bound, bound_of


def _is_object(patch) -> bool:
    return isinstance(next(iter(patch))[1], tuple)


def toindices(patch):
    if len(patch) == 0:
        return frozenset()
    return frozenset(loc for _, loc in patch) if _is_object(patch) else patch


def _colours(element) -> list:
    return [v for row in element for v in row] if isinstance(element, tuple) else [v for v, _ in element]


def mostcolor(element):
    values = _colours(element)
    return max(set(values), key=values.count)


def leastcolor(element):
    values = _colours(element)
    return min(set(values), key=values.count)


def palette(element):
    if isinstance(element, tuple):
        return frozenset({v for row in element for v in row})
    return frozenset({v for v, _ in element})


def numcolors(element): return len(palette(element))
def color(obj): return next(iter(obj))[0]


def colorcount(element, value):
    if isinstance(element, tuple):
        return sum(row.count(value) for row in element)
    return sum(v == value for v, _ in element)


def colorfilter(objs, value): return frozenset(obj for obj in objs if next(iter(obj))[0] == value)
def recolor(value, patch): return frozenset((value, loc) for loc in toindices(patch))


def _rows(patch) -> list:
    """The row of each cell, as `toindices` then `i for i, _` reads them, in one pass without building the
    indices (a location held twice is read twice: only the least and greatest are used; the same unpacking
    raises where that does)."""
    if len(patch) == 0:
        return []
    return [i for _, (i, _) in patch] if _is_object(patch) else [i for i, _ in patch]


def _cols(patch) -> list:
    if len(patch) == 0:
        return []
    return [j for _, (_, j) in patch] if _is_object(patch) else [j for _, j in patch]


def uppermost(patch): return min(_rows(patch))
def lowermost(patch): return max(_rows(patch))
def leftmost(patch): return min(_cols(patch))
def rightmost(patch): return max(_cols(patch))


def _corner(patch, row, col):
    """A bbox corner from `row`/`col` (min or max) of the patch's rows and columns; () when it is empty.
    Elements that are not pairs (a grid passed as a patch) take arc-dsl's way, `_corner_of_axes`."""
    try:
        return (row(_rows(patch)), col(_cols(patch))) if len(patch) else ()
    except (TypeError, ValueError):
        return _corner_of_axes(patch, row, col)


def _corner_of_axes(patch, row, col):
    """The corner over the transposed locations, as arc-dsl computes it: one value per axis (a grid's rows give
    one per column), and a third axis fails for the corners that mix min and max."""
    picks = {0: row, 1: col} if row is not col else None
    return tuple((picks[axis] if picks else row)(values) for axis, values in enumerate(zip(*toindices(patch))))


def ulcorner(patch): return _corner(patch, min, min)
def urcorner(patch): return _corner(patch, min, max)
def llcorner(patch): return _corner(patch, max, min)
def lrcorner(patch): return _corner(patch, max, max)


def height(piece):
    if len(piece) == 0:
        return 0
    if isinstance(piece, tuple):
        return len(piece)
    rows = _rows(piece)
    return max(rows) - min(rows) + 1


def width(piece):
    if len(piece) == 0:
        return 0
    if isinstance(piece, tuple):
        return len(piece[0])
    cols = _cols(piece)
    return max(cols) - min(cols) + 1


def shape(piece): return (height(piece), width(piece))
def portrait(piece): return height(piece) > width(piece)


def square(piece):
    if isinstance(piece, tuple):
        return len(piece) == len(piece[0])
    return height(piece) * width(piece) == len(piece) and height(piece) == width(piece)


def vline(patch): return height(patch) == len(patch) and width(patch) == 1
def hline(patch): return width(patch) == len(patch) and height(patch) == 1


def center(patch):
    if isinstance(patch, tuple):
        return (uppermost(patch) + height(patch) // 2, leftmost(patch) + width(patch) // 2)
    rows = _rows(patch)
    top = min(rows)  # in the reference's order: uppermost, height, leftmost, width (an empty patch raises here)
    tall = max(rows) - top + 1
    cols = _cols(patch)
    left = min(cols)
    return (top + tall // 2, left + (max(cols) - left + 1) // 2)


def centerofmass(patch):
    return tuple(sum(values) // len(patch) for values in zip(*toindices(patch)))  # per axis, as `_corner`


def shift(patch, directions):
    if len(patch) == 0:
        return patch
    di, dj = directions
    if _is_object(patch):
        return frozenset((v, (i + di, j + dj)) for v, (i, j) in patch)
    return frozenset((i + di, j + dj) for i, j in patch)


def normalize(patch):
    return patch if len(patch) == 0 else shift(patch, (-uppermost(patch), -leftmost(patch)))


def dneighbors(loc):
    i = loc[0]
    up, j = i - 1, loc[1]  # arc-dsl works out the row above before it reads loc[1]
    return frozenset({(up, j), (i + 1, j), (i, j - 1), (i, j + 1)})


def ineighbors(loc):
    i = loc[0]
    up, j = i - 1, loc[1]  # arc-dsl works out the row above before it reads loc[1]
    return frozenset({(up, j - 1), (up, j + 1), (i + 1, j - 1), (i + 1, j + 1)})


def neighbors(loc): return dneighbors(loc) | ineighbors(loc)


def hmatching(a, b): return bool({i for i, _ in toindices(a)} & {i for i, _ in toindices(b)})
def vmatching(a, b): return bool({j for _, j in toindices(a)} & {j for _, j in toindices(b)})


def manhattan(a, b):
    ais, bs = toindices(a), ()
    for ai, aj in ais:  # arc-dsl reads a's first position, then b's (an empty a fails in min alone)
        bs = toindices(b)
        break
    return min(abs(ai - bi) + abs(aj - bj) for ai, aj in ais for bi, bj in bs)


def adjacent(a, b): return manhattan(a, b) == 1


def bordering(patch, grid):
    return (uppermost(patch) == 0 or leftmost(patch) == 0 or lowermost(patch) == len(grid) - 1
            or rightmost(patch) == len(grid[0]) - 1)


def position(a, b):
    ia, ja = center(toindices(a))
    ib, jb = center(toindices(b))
    horizontal = 1 if ja < jb else -1
    if ia == ib:
        return (0, horizontal)
    if ja == jb:
        return (1 if ia < ib else -1, 0)
    return (1 if ia < ib else -1, horizontal)


def gravitate(source, destination):
    si, sj = center(source)
    di, dj = center(destination)
    step = ((1 if si < di else -1), 0) if vmatching(source, destination) else (0, (1 if sj < dj else -1))
    moved = 0
    while moved < 42 and not adjacent(source, destination):
        moved += 1
        source = shift(source, step)
    return (step[0] * moved, step[1] * moved)


def corners(patch): return frozenset({ulcorner(patch), urcorner(patch), llcorner(patch), lrcorner(patch)})


def connect(a, b):
    (ai, aj), (bi, bj) = a, b
    rows, cols = range(min(ai, bi), max(ai, bi) + 1), range(min(aj, bj), max(aj, bj) + 1)
    if ai == bi:
        bound(len(cols), "connect", MAX_ITEMS)
        return frozenset((ai, j) for j in cols)
    if aj != bj and abs(bi - ai) != abs(bj - aj):
        return frozenset()  # neither a line nor a diagonal
    bound(len(rows), "connect", MAX_ITEMS)  # a column or a diagonal: one cell a row
    if aj == bj:
        return frozenset((i, aj) for i in rows)
    if bi - ai == bj - aj:
        return frozenset(zip(rows, cols))
    return frozenset(zip(rows, reversed(cols)))


def shoot(start, direction): return connect(start, (start[0] + 42 * direction[0], start[1] + 42 * direction[1]))
def vfrontier(location): return frozenset((i, location[1]) for i in range(30))
def hfrontier(location): return frozenset((location[0], j) for j in range(30))


def backdrop(patch):
    if len(patch) == 0:
        return frozenset()
    si, sj = ulcorner(patch)  # arc-dsl's reads, in its order
    ei, ej = lrcorner(patch)
    bound_of(lambda: (ei - si + 1) * (ej - sj + 1), "backdrop", MAX_ITEMS)  # corners of another kind: range fails
    return frozenset((i, j) for i in range(si, ei + 1) for j in range(sj, ej + 1))


def delta(patch): return frozenset() if len(patch) == 0 else backdrop(patch) - toindices(patch)


def _ring(ai, aj, bi, bj):
    """The perimeter of the rectangle spanned by two corners (in either order)."""
    si, ei, sj, ej = min(ai, bi), max(ai, bi), min(aj, bj), max(aj, bj)
    sides = {(i, sj) for i in range(si, ei + 1)} | {(i, ej) for i in range(si, ei + 1)}
    return frozenset(sides | ({(si, j) for j in range(sj, ej + 1)} | {(ei, j) for j in range(sj, ej + 1)}))


def inbox(patch):
    return _ring(uppermost(patch) + 1, leftmost(patch) + 1, lowermost(patch) - 1, rightmost(patch) - 1)


def outbox(patch):
    return _ring(uppermost(patch) - 1, leftmost(patch) - 1, lowermost(patch) + 1, rightmost(patch) + 1)


def box(patch):
    if len(patch) == 0:
        return patch
    ai, aj = ulcorner(patch)  # a corner of another length fails in the unpacking, as in arc-dsl
    bi, bj = lrcorner(patch)
    return _ring(ai, aj, bi, bj)
