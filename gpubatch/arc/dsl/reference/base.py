"""What every per-grid reference shares: grid size, the background colour, a cell map, a crop to cells,
and connected components (memoized per grid)."""
from __future__ import annotations

from collections import Counter, deque
from functools import lru_cache

Grid = list[list[int]]


def H(g: Grid) -> int:
    return len(g)


def W(g: Grid) -> int:
    return len(g[0])


def background(g: Grid) -> int:
    """Most frequent colour; ties go to the smallest colour."""
    counts = Counter(v for row in g for v in row)
    return min(counts, key=lambda c: (-counts[c], c))


def _crop_to(g, cells):
    if not cells:
        return []
    r0, r1 = min(i for i, _ in cells), max(i for i, _ in cells)
    c0, c1 = min(j for _, j in cells), max(j for _, j in cells)
    return [row[c0:c1 + 1] for row in g[r0:r1 + 1]]


def _map(g, f): return [[f(v) for v in r] for r in g]


def components(g, conn=4, multi=False, bg=False):
    """Connected components as lists of (row, col), each in BFS order; listed by their first cell. Memoized
    per grid (a family's instances, one per colour, ask for the same grid's components); read-only."""
    return _components(tuple(map(tuple, g)), conn, multi, bg)


@lru_cache(maxsize=1 << 15)
def _components(g, conn, multi, bg):
    h, w = H(g), W(g)
    excl = None if bg else background(g)
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)] + ([(-1, -1), (-1, 1), (1, -1), (1, 1)] if conn == 8 else [])
    seen = [[False] * w for _ in range(h)]
    comps = []
    for i in range(h):
        for j in range(w):
            if seen[i][j] or g[i][j] == excl:
                continue
            comp, queue = [], deque([(i, j)])
            seen[i][j] = True
            while queue:
                a, b = queue.popleft()
                comp.append((a, b))
                for da, db in steps:
                    x, y = a + da, b + db
                    if 0 <= x < h and 0 <= y < w and not seen[x][y] and g[x][y] != excl \
                            and (multi or g[x][y] == g[a][b]):
                        seen[x][y] = True
                        queue.append((x, y))
            comps.append(comp)
    return comps
