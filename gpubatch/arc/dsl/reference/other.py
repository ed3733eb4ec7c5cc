"""Per-grid references of the other primitives: gravity, symmetry, outlines, rays, lines extended past their
tips, rays from corners, periodic patterns, the hidden part restored, shifts, connecting lines, elbow paths and diagonals."""
from __future__ import annotations

from functools import lru_cache

from .base import H, W, _crop_to, background
from .geometry import dmirror, hmirror, identity, rot90, rot180, rot270, vmirror


def gravity(g, dir):
    turn = {"down": (identity, identity), "up": (rot180, rot180), "left": (rot270, rot90),
            "right": (rot90, rot270)}[dir]
    t = turn[0](g)
    bg = background(g)
    cols = []
    for j in range(W(t)):
        col = [t[i][j] for i in range(H(t))]
        fg = [v for v in col if v != bg]
        cols.append([bg] * (len(col) - len(fg)) + fg)
    return turn[1]([[cols[j][i] for j in range(W(t))] for i in range(H(t))])


def symmetrize(g, axis, c):
    out = [list(r) for r in g]
    mirrors = {"h": [hmirror], "v": [vmirror], "hv": [vmirror, hmirror, rot180]}[axis]
    for m in mirrors:
        src = m(out)
        out = [[src[i][j] if out[i][j] == c and src[i][j] != c else out[i][j] for j in range(W(g))]
               for i in range(H(g))]
    return out


def outline(g, c):
    bg = background(g)
    out = [list(r) for r in g]
    for i in range(H(g)):
        for j in range(W(g)):
            if g[i][j] != bg:
                continue
            if any(0 <= i + a < H(g) and 0 <= j + b < W(g) and g[i + a][j + b] != bg
                   for a in (-1, 0, 1) for b in (-1, 0, 1)):
                out[i][j] = c
    return out


def hollow(g):
    bg = background(g)
    out = [list(r) for r in g]
    for i in range(1, H(g) - 1):
        for j in range(1, W(g) - 1):
            if g[i][j] != bg and all(g[i + a][j + b] != bg for a, b in ((-1, 0), (1, 0), (0, -1), (0, 1))):
                out[i][j] = bg
    return out


RAY_STEPS = {"down": (1, 0), "up": (-1, 0), "left": (0, -1), "right": (0, 1), "downright": (1, 1),
             "downleft": (1, -1), "upright": (-1, 1), "upleft": (-1, -1)}


def boxes(g):
    out = [list(r) for r in g]
    for c in range(1, 10):
        cells = [(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] == c]
        if len(cells) < 2:
            continue
        rows, cols = [i for i, _ in cells], [j for _, j in cells]
        for i in range(min(rows), max(rows) + 1):
            for j in range(min(cols), max(cols) + 1):
                if out[i][j] == 0:
                    out[i][j] = c
    return out


RAY_GROUPS = {"diag": ("downright", "downleft", "upright", "upleft")}  # every cell shines in all of them


def ray(g, dir):
    bg = background(g)
    if dir in RAY_GROUPS:  # rays of the input's cells only; where two cross, the first direction listed wins
        out = [list(r) for r in g]
        for d in RAY_GROUPS[dir]:
            r = ray(g, d)
            out = [[o if o != bg else v for o, v in zip(ro, rr)] for ro, rr in zip(out, r)]
        return out
    return _shine(g, *RAY_STEPS[dir], lambda si, sj: True)


def _shine(g, di, dj, shines):
    """Each background cell takes the colour of the nearest non-background cell behind it against the step
    (di, dj), if `shines(its row, its column)`; else it stays."""
    bg = background(g)
    out = [list(r) for r in g]
    for i in range(H(g)):
        for j in range(W(g)):
            si, sj = i - di, j - dj
            while g[i][j] == bg and 0 <= si < H(g) and 0 <= sj < W(g):
                if g[si][sj] != bg:  # the nearest non-background cell behind this one
                    if shines(si, sj):
                        out[i][j] = g[si][sj]
                    break
                si, sj = si - di, sj - dj
    return out


def _tip_step(g, bg, i, j):
    """The step away from the only non-background cell among the 8 neighbours of (i, j); None where there are
    none or several."""
    near = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)
            if (a or b) and 0 <= i + a < H(g) and 0 <= j + b < W(g) and g[i + a][j + b] != bg]
    return (-near[0][0], -near[0][1]) if len(near) == 1 else None


def extend(g):
    bg = background(g)
    out = [list(r) for r in g]
    tips = {(i, j): _tip_step(g, bg, i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] != bg}
    for step in RAY_STEPS.values():  # where two tips' lines cross, the first step in RAY_STEPS's order wins
        for (i, j) in (cell for cell, tip in tips.items() if tip == step):
            si, sj = i + step[0], j + step[1]
            while 0 <= si < H(g) and 0 <= sj < W(g) and g[si][sj] == bg:  # up to the next shape
                if out[si][sj] == bg:  # not lit by an earlier step (a tip's colour is never the background)
                    out[si][sj] = g[i][j]
                si, sj = si + step[0], sj + step[1]
    return out


def _corner(g, bg, i, j, di, dj):
    """Whether non-background cell (i, j) is its shape's corner towards the diagonal step (di, dj): neither the
    cell beside it in the step's row direction nor the one in its column direction is non-background."""
    return all(not (0 <= a < H(g) and 0 <= b < W(g)) or g[a][b] == bg for a, b in ((i + di, j), (i, j + dj)))


def corner_ray(g, dir):
    di, dj = RAY_STEPS[dir]
    bg = background(g)  # once per grid, not once per walked cell
    return _shine(g, di, dj, lambda si, sj: _corner(g, bg, si, sj, di, dj))


def _first_period(g, c):
    """The smallest p such that every two known (not c) cells p rows apart in a column agree; H(g) if none."""
    for p in range(1, H(g)):
        if all(g[i][j] == g[i + p][j] for i in range(H(g) - p) for j in range(W(g))
               if g[i][j] != c and g[i + p][j] != c):
            return p
    return H(g)


def periodic(g, c):
    unknown = sum(v == c for r in g for v in r)
    if not unknown or 2 * unknown > H(g) * W(g):
        return g
    py, px = _first_period(g, c), _first_period(dmirror(g), c)
    if py == H(g) and px == W(g):
        return g
    reps: dict = {}
    for i in range(H(g)):
        for j in range(W(g)):
            if g[i][j] != c and reps.setdefault((i % py, j % px), g[i][j]) != g[i][j]:
                return g  # the known cells disagree within a class: no such pattern
    return [[reps.get((i % py, j % px), c) if g[i][j] == c else g[i][j] for j in range(W(g))] for i in range(H(g))]


def restore(g, c, out):
    """Mask cells (colour c) take their colours from the mirror symmetries that hold (see arc/restore.py);
    `out` = grid: the restored grid; patch: its part under the mask's bounding box."""
    from ...restore import ROUNDS, image, symmetries

    h, w = H(g), W(g)
    hidden = [(i, j) for i in range(h) for j in range(w) if g[i][j] == c]
    if not hidden or 2 * len(hidden) > h * w:
        return None
    n_known = h * w - len(hidden)
    holding = []
    for kind, o, p in symmetries():
        pairs, agree = {}, 0
        for i in range(h):
            for j in range(w):
                a, b = image(kind, o, p, i, j, h, w)
                if not (0 <= a < h and 0 <= b < w):
                    continue
                pairs[i, j] = (a, b)
                if g[i][j] != c and g[a][b] != c:
                    if g[i][j] != g[a][b]:
                        break  # a disagreement: this symmetry does not hold
                    agree += 1
            else:
                continue
            break
        else:
            if 2 * agree >= n_known:
                holding.append(pairs)
    res = [row[:] for row in g]
    for _ in range(ROUNDS):
        for pairs in holding:
            before = [row[:] for row in res]
            for (i, j), (a, b) in pairs.items():
                if before[i][j] == c and before[a][b] != c:
                    res[i][j] = before[a][b]
    if any(v == c for row in res for v in row):
        return None
    return res if out == "grid" else _crop_to(res, hidden)


def shift(g, dir):
    bg = background(g)
    di, dj = {"down": (1, 0), "up": (-1, 0), "left": (0, -1), "right": (0, 1)}[dir]
    return [[g[i - di][j - dj] if 0 <= i - di < H(g) and 0 <= j - dj < W(g) else bg for j in range(W(g))]
            for i in range(H(g))]


def _between(line):
    """Per position of a row: the colour of the nearest non-0 cells on both sides if they are equal."""
    out = [-1] * len(line)
    for k, v in enumerate(line):
        if v:
            continue
        left = next((x for x in reversed(line[:k]) if x), None)
        right = next((x for x in line[k + 1:] if x), None)
        if left is not None and left == right:
            out[k] = left
    return out


def _diagonals_between(g, anti):
    """_between along every diagonal (i - j constant) or anti-diagonal (i + j constant)."""
    out = [[-1] * W(g) for _ in g]
    lines: dict[int, list] = {}
    for i in range(H(g)):
        for j in range(W(g)):
            lines.setdefault(i + j if anti else i - j, []).append((i, j))
    for cells in lines.values():
        for (i, j), v in zip(cells, _between([g[i][j] for i, j in cells])):
            out[i][j] = v
    return out


def connect(g, dir, c):
    rows, cols = _connections(tuple(map(tuple, g)), dir)
    out = []
    for i in range(H(g)):
        val = [rows[i][j] if rows[i][j] >= 0 else cols[i][j] for j in range(W(g))]
        out.append([g[i][j] if val[j] < 0 else (val[j] if c == "same" else c) for j in range(W(g))])
    return out


@lru_cache(maxsize=1 << 14)
def _connections(g, dir):
    """`connect`'s lines of a grid (read-only), which do not depend on the colour: a family's instances, one per
    colour, ask for the same grid's lines."""
    none = [[-1] * W(g) for _ in g]
    if dir == "d":
        return _diagonals_between(g, False), _diagonals_between(g, True)
    rows = [_between(r) for r in g] if dir != "v" else none
    cols = dmirror([_between(r) for r in dmirror(g)]) if dir != "h" else none
    return rows, cols


def elbow(g, corner, c):
    """Exactly two non-0 cells, of two colours: a path of colour c over the 0 cells between them, along the
    row of the lower colour's cell (corner=lo; the higher's for hi) to the other's column, then along that
    column to it; None otherwise."""
    cells = sorted((g[i][j], i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j])
    if len(cells) != 2 or cells[0][0] == cells[1][0]:
        return None
    (_, r1, c1), (_, r2, c2) = cells if corner == "lo" else cells[::-1]
    path = {(r1, j) for j in range(min(c1, c2), max(c1, c2) + 1)} | \
        {(i, c2) for i in range(min(r1, r2), max(r1, r2) + 1)}
    return [[c if (i, j) in path and not g[i][j] else g[i][j] for j in range(W(g))] for i in range(H(g))]

def diagonal(g, dir):
    """Every cell takes the colour of its diagonal class: (i + j) mod p (anti) or (i - j) mod p (main) for the
    smallest p in 2..10 whose classes each hold non-0 cells of exactly one colour; None without such a p."""
    def cls(i, j, p):
        return (i + j if dir == "anti" else i - j) % p
    for p in range(2, 11):
        seen: dict = {}
        ok = True
        for i in range(H(g)):
            for j in range(W(g)):
                if g[i][j] and seen.setdefault(cls(i, j, p), g[i][j]) != g[i][j]:
                    ok = False
        if ok and len(seen) == p:
            return [[seen[cls(i, j, p)] for j in range(W(g))] for i in range(H(g))]
    return None
