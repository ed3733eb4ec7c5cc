"""Per-grid references of the object primitives: picks of one object, object boxes and lines, fills from
objects, templates painted on look-alikes."""
from __future__ import annotations

from collections import Counter

from .base import H, W, _crop_to, background, components


def _pick(g, largest, **kw):
    comps = components(g, **kw)
    if not comps:
        return None
    best = max(len(c) for c in comps) if largest else min(len(c) for c in comps)
    return next(c for c in comps if len(c) == best)  # first in row-major order of first cells


def crop_largest(g, **kw): return _crop_to(g, _pick(g, True, **kw) or [])
def crop_smallest(g, **kw): return _crop_to(g, _pick(g, False, **kw) or [])


def _keep_cells(g, cells):
    bg = background(g)
    keep_set = set(cells)
    return [[g[i][j] if (i, j) in keep_set else bg for j in range(W(g))] for i in range(H(g))]


def keep_largest(g, **kw):
    c = _pick(g, True, **kw)
    return None if c is None else _keep_cells(g, c)


def keep_smallest(g, **kw):
    c = _pick(g, False, **kw)
    return None if c is None else _keep_cells(g, c)


def remove_singletons(g, **kw):
    bg = background(g)
    out = [list(r) for r in g]
    for comp in components(g, **kw):
        if len(comp) == 1:
            i, j = comp[0]
            out[i][j] = bg
    return out


def fill_enclosed(g, c):
    bg = background(g)
    out = [list(r) for r in g]
    for comp in components(g, conn=4, multi=False, bg=True):
        i, j = comp[0]
        if g[i][j] != bg or any(a in (0, H(g) - 1) or b in (0, W(g) - 1) for a, b in comp):
            continue
        for a, b in comp:
            out[a][b] = c
    return out


def count_objects(g, conn=4, multi=False):
    comps = components(g, conn=conn, multi=multi, bg=False)
    firsts = sorted(min(comp) for comp in comps)
    return [[g[i][j] for i, j in firsts]]


def _objects_or_none(g, conn, multi):
    comps = components(g, conn=conn, multi=multi)
    return comps if 1 <= len(comps) <= 30 else None


def _shape(comp):
    i0, j0 = min(comp)
    return frozenset((a - i0, b - j0) for a, b in comp)


def crop_pick(g, by, conn):
    comps = _objects_or_none(g, conn, False)
    if comps is None:
        return None
    if by == "rare":
        counts = Counter(v for row in g for v in row)
        score = [-counts[g[c[0][0]][c[0][1]]] for c in comps]
    else:
        shapes = Counter(_shape(c) for c in comps)
        score = [shapes[_shape(c)] * (-1 if by == "unique" else 1) for c in comps]
    return _crop_to(g, comps[score.index(max(score))])


def crop_most(g, c):
    comps = _objects_or_none(g, 8, True)
    if comps is None:
        return None
    score = [sum(g[a][b] == c for a, b in comp) for comp in comps]
    return _crop_to(g, comps[score.index(max(score))]) if max(score) > 0 else None


def paint_like(g, keep):
    comps = components(g, conn=4, multi=True)
    templates = [cp for cp in comps if len({g[a][b] for a, b in cp}) > 1]
    if len(templates) != 1:
        return None
    (t,) = templates

    def placed(cp):
        a0, b0 = min(cp)
        return {(a - a0, b - b0) for a, b in cp}
    shape, (ta, tb) = placed(t), min(t)
    out = [list(r) for r in g]
    hit = False
    for cp in comps:
        if cp is not t and len({g[a][b] for a, b in cp}) == 1 and placed(cp) == shape:
            a0, b0 = min(cp)
            for a, b in cp:
                out[a][b] = g[ta + a - a0][tb + b - b0]
            hit = True
    if not keep:
        for a, b in t:
            out[a][b] = background(g)
    return out if hit else None


def _recolor(g, largest, conn, c):
    cells = _pick(g, largest, conn=conn) or []
    out = [list(r) for r in g]
    for i, j in cells:
        out[i][j] = c
    return out


def recolor_largest(g, conn, c): return _recolor(g, True, conn, c)
def recolor_smallest(g, conn, c): return _recolor(g, False, conn, c)


def fill_boxes(g, c):
    comps = components(g, conn=8, multi=True)
    if len(comps) > 30:
        return None
    out, bg = [list(r) for r in g], background(g)
    for comp in comps:
        rows, cols = [a for a, _ in comp], [b for _, b in comp]
        for i in range(min(rows), max(rows) + 1):
            for j in range(min(cols), max(cols) + 1):
                if g[i][j] == bg:
                    out[i][j] = c
    return out


def centre_lines(g, dir, c):
    comps = components(g, conn=4)
    if len(comps) > 30:
        return None
    out, bg = [list(r) for r in g], background(g)
    for comp in comps:
        rows, cols = [a for a, _ in comp], [b for _, b in comp]
        if "h" in dir and (min(rows) + max(rows)) % 2 == 0:
            i = (min(rows) + max(rows)) // 2
            out[i] = [c if g[i][j] == bg else out[i][j] for j in range(W(g))]
        if "v" in dir and (min(cols) + max(cols)) % 2 == 0:
            j = (min(cols) + max(cols)) // 2
            for i in range(H(g)):
                if g[i][j] == bg:
                    out[i][j] = c
    return out


def flood(g, c):
    """Background regions (4-connected) with a cell of colour c beside one of their cells become c."""
    bg, out = background(g), [list(r) for r in g]
    for comp in components(g, conn=4, bg=True):
        if g[comp[0][0]][comp[0][1]] != bg:
            continue
        if any(0 <= a + da < H(g) and 0 <= b + db < W(g) and g[a + da][b + db] == c
               for a, b in comp for da, db in ((-1, 0), (1, 0), (0, -1), (0, 1))):
            for a, b in comp:
                out[a][b] = c
    return out


def keep_rect(g):
    """Keep only the largest solid one-colour rectangle of non-background cells (ties: the first top-left
    corner in reading order, then the shorter); every other cell becomes the background colour. None where
    nothing changes."""
    bg, h, w = background(g), H(g), W(g)
    right = [[0] * (w + 1) for _ in range(h)]  # same-colour run from (i, j) rightwards
    for i in range(h):
        for j in range(w - 1, -1, -1):
            right[i][j] = 1 + (right[i][j + 1] if j + 1 < w and g[i][j + 1] == g[i][j] else 0)
    best = None
    for t in range(h):
        for left in range(w):
            v, width, b = g[t][left], w, t
            while v != bg and b < h and g[b][left] == v:
                width = min(width, right[b][left])
                if best is None or (b - t + 1) * width > best[0]:
                    best = ((b - t + 1) * width, t, left, b, width)
                b += 1
    if best is None:
        return None
    _, t, left, b, width = best
    out = [[g[i][j] if t <= i <= b and left <= j < left + width else bg for j in range(w)] for i in range(h)]
    return out if out != g else None

