"""Per-grid references of `mirror_around` and `stamp_on` (`dsl/mirrors.py`): shapes copied across the centre
lines of a marker's bounding box, or centred on each marker cell."""
from __future__ import annotations

from .base import H, W, background


def _cells(g, c):
    return [(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] == c]


def _symmetric(cells) -> bool:
    """Whether the cells are the same under both mirrors of their bounding box."""
    s = set(cells)
    ti = min(i for i, _ in s) + max(i for i, _ in s)
    tj = min(j for _, j in s) + max(j for _, j in s)
    return all((ti - i, j) in s and (i, tj - j) in s for i, j in s)


def mirror_around(g, c):
    """Every cell neither colour c nor background is copied to its three mirror images across the centre lines
    of colour c's bounding box (c=sym: of the colours other than the background whose cells are symmetric under
    both mirrors of their box, the one with the fewest cells; ties: the smaller colour). None without such a
    colour, without a cell to copy, or where a copy would leave the grid or land on another colour."""
    bg = background(g)
    if c == "sym":
        sym = [v for v in range(10) if v != bg and _cells(g, v) and _symmetric(_cells(g, v))]
        if not sym:
            return None
        c = min(sym, key=lambda v: (len(_cells(g, v)), v))
    centre = _cells(g, c)
    if c == bg or not centre:
        return None
    si = min(i for i, _ in centre) + max(i for i, _ in centre)
    sj = min(j for _, j in centre) + max(j for _, j in centre)
    out = [r[:] for r in g]
    movers = [(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] not in (c, bg)]
    for i, j in movers:
        v = g[i][j]
        for y, x in ((si - i, j), (i, sj - j), (si - i, sj - j)):
            if not (0 <= y < H(g) and 0 <= x < W(g)) or g[y][x] not in (bg, v) or out[y][x] not in (bg, v):
                return None
            out[y][x] = v
    return out if movers else None


def stamp_on(g, c):
    """The cells neither colour c nor background, as one shape, copied centred on each cell of colour c (the
    original stays). None without both, where the shape has no centre cell (an even height or width), or where
    a copy would leave the grid or land on another colour."""
    bg = background(g)
    shape = [(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] not in (c, bg)]
    marks = _cells(g, c)
    if c == bg or not shape or not marks:
        return None
    si = min(i for i, _ in shape) + max(i for i, _ in shape)
    sj = min(j for _, j in shape) + max(j for _, j in shape)
    if si % 2 or sj % 2:
        return None
    out = [r[:] for r in g]
    written = {}
    for mi, mj in marks:
        for i, j in shape:
            y, x, v = mi + i - si // 2, mj + j - sj // 2, g[i][j]
            if not (0 <= y < H(g) and 0 <= x < W(g)) or g[y][x] not in (bg, c, v) or written.get((y, x), v) != v:
                return None
            out[y][x] = written[y, x] = v
    return out
