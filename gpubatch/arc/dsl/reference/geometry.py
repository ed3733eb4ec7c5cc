"""Per-grid references of the geometry primitives: turns and mirrors, halves, scaling, tiling and crops."""
from __future__ import annotations

from .base import H, W, _crop_to, background


def identity(g): return g
def rot90(g): return [list(r) for r in zip(*g[::-1])]
def rot180(g): return [r[::-1] for r in g[::-1]]
def rot270(g): return [list(r) for r in zip(*g)][::-1]
def hmirror(g): return g[::-1]
def vmirror(g): return [r[::-1] for r in g]
def dmirror(g): return [list(r) for r in zip(*g)]
def cmirror(g): return rot180(dmirror(g))
def tophalf(g): return g[:H(g) // 2]
def bottomhalf(g): return g[H(g) - H(g) // 2:] if H(g) // 2 else []
def lefthalf(g): return [r[:W(g) // 2] for r in g]
def righthalf(g): return [r[W(g) - W(g) // 2:] for r in g] if W(g) // 2 else [[]]
def trim(g): return [r[1:-1] for r in g[1:-1]]


def canvas(g):
    if 2 * H(g) > 30 or 2 * W(g) > 30:
        return []
    return [list(r) + [0] * W(g) for r in g] + [[0] * (2 * W(g)) for _ in range(H(g))]


def pad_edge(g):
    rows = [[r[0], *r, r[-1]] for r in [g[0], *g, g[-1]]]
    for i in (0, -1):
        rows[i][0] = rows[i][-1] = 0
    return rows if H(rows) <= 30 and W(rows) <= 30 else []
def upscale(g, k): return [[v for v in r for _ in range(k)] for r in g for _ in range(k)]
def hupscale(g, k): return [[v for v in r for _ in range(k)] for r in g]
def vupscale(g, k): return [list(r) for r in g for _ in range(k)]
def downscale(g, k): return [r[::k] for r in g[::k]]


def upscale_colours(g):
    k = len({v for r in g for v in r} - {0})
    return upscale(g, k) if k else None


def tile(g, rows, cols): return [r * cols for _ in range(rows) for r in g]
def hconcat_mirror(g): return [r + r[::-1] for r in g]
def mirror_hconcat(g): return [r[::-1] + r for r in g]
def vconcat_mirror(g): return g + g[::-1]
def mirror_vconcat(g): return g[::-1] + g
def mirror4(g): return vconcat_mirror(hconcat_mirror(g))
def _quads(a, b, c, d): return [ra + rb for ra, rb in zip(a, b)] + [rc + rd for rc, rd in zip(c, d)]
def rot4(g): return _quads(g, rot90(g), rot270(g), rot180(g)) if H(g) == W(g) else None
def rot4_ccw(g): return _quads(g, rot270(g), rot90(g), rot180(g)) if H(g) == W(g) else None


def compress(g):
    rows = [i for i in range(H(g)) if len(set(g[i])) > 1]
    cols = [j for j in range(W(g)) if len({g[i][j] for i in range(H(g))}) > 1]
    return [[g[i][j] for j in cols] for i in rows]


def dedupe(g):
    rows = [r for i, r in enumerate(g) if i == 0 or r != g[i - 1]]
    cols = [j for j in range(W(g)) if j == 0 or [r[j] for r in g] != [r[j - 1] for r in g]]
    return [[r[j] for j in cols] for r in rows]


def _exact_period(g):
    """The smallest p dividing H(g) such that row i equals row i + p for every i."""
    return next(p for p in range(1, H(g) + 1) if H(g) % p == 0 and all(g[i] == g[i + p] for i in range(H(g) - p)))


def untile(g):
    py, px = _exact_period(g), _exact_period(dmirror(g))
    return [] if (py, px) == (H(g), W(g)) else [row[:px] for row in g[:py]]


def crop_colour(g, c):
    return _crop_to(g, [(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] == c])


def crop_bbox(g):
    bg = background(g)
    return _crop_to(g, [(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] != bg])
