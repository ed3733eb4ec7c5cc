"""arc-dsl's object extraction and pattern primitives per value: `objects` (connected components),
`frontiers`, `occurrences`, `hperiod` and `vperiod` (sections 2.5 and 2.7 of `arc-dsl-primitives.md`)."""
from __future__ import annotations

from .prims_grid import asindices
from .prims_patch import dneighbors, height, mostcolor, neighbors, normalize, shape, shift, width


def objects(grid, univalued, diagonal, without_bg):
    """Connected components: 8-connected when `diagonal`; of one colour when `univalued`, else of any
    non-background cells; cells of the most common colour left out when `without_bg`."""
    bg = mostcolor(grid) if without_bg else None
    h, w = len(grid), len(grid[0])
    around = neighbors if diagonal else dneighbors
    found, taken = set(), set()
    for seed in asindices(grid):
        if seed in taken:
            continue
        colour = grid[seed[0]][seed[1]]
        if colour == bg:
            continue
        cells, frontier = {(colour, seed)}, {seed}
        while frontier:
            grown = set()
            for loc in frontier:
                v = grid[loc[0]][loc[1]]
                if (v == colour) if univalued else (v != bg):
                    cells.add((v, loc))
                    taken.add(loc)
                    grown |= {(i, j) for i, j in around(loc) if 0 <= i < h and 0 <= j < w}
            frontier = grown - taken
        found.add(frozenset(cells))
    return frozenset(found)


def frontiers(grid):
    h, w = len(grid), len(grid[0])
    rows = tuple(i for i, row in enumerate(grid) if len(set(row)) == 1)
    cols = tuple(j for j, col in enumerate(zip(*grid)) if len(set(col)) == 1)
    across = frozenset({frozenset({(grid[i][j], (i, j)) for j in range(w)}) for i in rows})
    down = frozenset({frozenset({(grid[i][j], (i, j)) for i in range(h)}) for j in cols})
    return across | down


def occurrences(grid, obj):
    """Upper-left corners where every cell of the normalised object finds its colour in the grid."""
    normed = normalize(obj)
    h, w = len(grid), len(grid[0])
    oh, ow = shape(obj)
    if h < oh or w < ow:  # no place to try: arc-dsl never reads a cell of the object
        return frozenset()
    cells = [(v, a, b) for v, (a, b) in normed]  # inside the object's own bbox: never off the grid below
    found = set()
    for i in range(h - oh + 1):
        rows = grid[i:i + oh]
        for j in range(w - ow + 1):
            if all(rows[a][b + j] == v for v, a, b in cells):
                found.add((i, j))
    return frozenset(found)


def _period(obj, extent, offset, keep) -> int:
    normed = normalize(obj)
    n = extent(normed)
    for p in range(1, n):
        moved = {(c, (i, j)) for c, (i, j) in shift(normed, offset(p)) if keep(i, j)}
        if frozenset(moved).issubset(normed):
            return p
    return n


def hperiod(obj): return _period(obj, width, lambda p: (0, -p), lambda i, j: j >= 0)
def vperiod(obj): return _period(obj, height, lambda p: (-p, 0), lambda i, j: i >= 0)
