"""Per-grid references of the moves (`dsl/moves.py`): a piece towards a colour, each cell towards a colour or
its own colour's line, each cell mirrored across the nearest cell of a colour."""
from __future__ import annotations

from .base import H, W, background


def gravitate(g, c):
    bg = background(g)
    fixed = {(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] == c}
    piece = {(i, j) for i in range(H(g)) for j in range(W(g)) if g[i][j] not in (c, bg)}
    if not fixed or not piece:
        return None
    fr, fc = [i for i, _ in fixed], [j for _, j in fixed]
    pr, pc = [i for i, _ in piece], [j for _, j in piece]
    if min(pc) <= max(fc) and min(fc) <= max(pc):
        step = (1, 0) if max(pr) < min(fr) else (-1, 0) if min(pr) > max(fr) else None
    elif min(pr) <= max(fr) and min(fr) <= max(pr):
        step = (0, 1) if max(pc) < min(fc) else (0, -1) if min(pc) > max(fc) else None
    else:
        step = None
    if step is None:
        return None
    for k in range(30):
        cells = {(i + k * step[0], j + k * step[1]) for i, j in piece}
        if any((i + a, j + b) in fixed for i, j in cells for a, b in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1))):
            break
    else:
        return None
    if any(not (0 <= i < H(g) and 0 <= j < W(g)) for i, j in cells):
        return None
    out = [[bg if (i, j) in piece else g[i][j] for j in range(W(g))] for i in range(H(g))]
    for i, j in piece:
        out[i + k * step[0]][j + k * step[1]] = g[i][j]
    return out


ATTRACT_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


def _nearest_in_line(g, i, j, steps, hit):
    """(steps k, di, dj) to the nearest cell (y, x) in line from (i, j) for which hit(y, x) holds, passing over
    anything; ties: the first of `steps`. None where no direction meets one inside the grid."""
    best, h, w = None, H(g), W(g)
    for di, dj in steps:
        k = 1
        while 0 <= i + k * di < h and 0 <= j + k * dj < w and not hit(i + k * di, j + k * dj):
            k += 1
        if 0 <= i + k * di < h and 0 <= j + k * dj < w and (best is None or k < best[0]):
            best = (k, di, dj)
    return best


def attract(g, c):
    """Each cell neither colour c nor background moves, alone, towards the nearest cell of colour c in a
    straight line (8 directions, passing over anything; ties: the first of ATTRACT_STEPS) until beside it;
    a cell with none in line stays. None where two cells would land on one, or where nothing moves."""
    bg = background(g)
    if c == bg or not any(c in r for r in g):  # nothing to move towards
        return None
    out = [[bg if v not in (c, bg) else v for v in r] for r in g]
    moves = []
    for i in range(H(g)):
        for j in range(W(g)):
            v = g[i][j]
            if v in (c, bg):
                continue
            best = _nearest_in_line(g, i, j, ATTRACT_STEPS, lambda y, x: g[y][x] == c)
            if best is None:
                out[i][j] = v
            else:
                k, di, dj = best
                moves.append((i + (k - 1) * di, j + (k - 1) * dj, v, k > 1))
    if not any(m[3] for m in moves):
        return None
    for y, x, v, _ in moves:
        if out[y][x] != bg:
            return None
        out[y][x] = v
    return out


def attach(g):
    """Each lone cell (no 4-neighbour of its colour, not background) moves straight (4 directions, passing over
    anything; ties: the first of ATTRACT_STEPS) to beside the nearest cell of its colour that has such a
    neighbour; one with none in line is removed. None without a lone cell, or where a cell would land on
    another colour."""
    bg, h, w = background(g), H(g), W(g)

    def fixed(i, j):
        return g[i][j] != bg and any(0 <= i + a < h and 0 <= j + b < w and g[i + a][j + b] == g[i][j]
                                     for a, b in ATTRACT_STEPS[:4])
    stay = [[fixed(i, j) for j in range(w)] for i in range(h)]
    out = [[g[i][j] if stay[i][j] else bg for j in range(w)] for i in range(h)]
    lone = [(i, j) for i in range(h) for j in range(w) if g[i][j] != bg and not stay[i][j]]
    for i, j in lone:
        v = g[i][j]
        best = _nearest_in_line(g, i, j, ATTRACT_STEPS[:4], lambda y, x, v=v: stay[y][x] and g[y][x] == v)
        if best is not None:
            k, di, dj = best
            y, x = i + (k - 1) * di, j + (k - 1) * dj
            if out[y][x] not in (bg, v):
                return None
            out[y][x] = v
    return out if lone else None


def reflect(g, c):
    """Each cell neither colour c nor background moves to its mirror image across the nearest cell of colour c
    in line (4 directions, passing over anything; ties: the first of ATTRACT_STEPS); one with none in line stays.
    None where a cell would leave the grid or land on another, or where nothing moves."""
    bg, h, w = background(g), H(g), W(g)
    if c == bg or not any(c in r for r in g):  # nothing to mirror across
        return None
    out = [[v if v in (c, bg) else bg for v in r] for r in g]
    lands, moved = [], False
    for i in range(h):
        for j in range(w):
            v = g[i][j]
            if v in (c, bg):
                continue
            best = _nearest_in_line(g, i, j, ATTRACT_STEPS[:4], lambda y, x: g[y][x] == c)
            k, di, dj = best or (0, 0, 0)
            y, x = i + 2 * k * di, j + 2 * k * dj
            if not (0 <= y < h and 0 <= x < w):
                return None
            lands.append((y, x, v))
            moved = moved or k > 0
    for y, x, v in lands:
        if out[y][x] != bg:
            return None
        out[y][x] = v
    return out if moved else None


def centre_on(g, c):
    """Every cell neither colour c nor background moves, as one piece, so that its bounding box is centred on
    colour c's. None where the centres differ by a half cell, the piece would leave the grid or land on colour
    c, or nothing moves."""
    bg, h, w = background(g), H(g), W(g)
    fixed = [(i, j) for i in range(h) for j in range(w) if g[i][j] == c]
    piece = [(i, j) for i in range(h) for j in range(w) if g[i][j] not in (c, bg)]
    if not fixed or not piece:
        return None
    twice_i = min(fixed)[0] + max(fixed)[0] - min(piece)[0] - max(piece)[0]
    twice_j = (min(j for _, j in fixed) + max(j for _, j in fixed) - min(j for _, j in piece)
               - max(j for _, j in piece))
    if twice_i % 2 or twice_j % 2 or (twice_i, twice_j) == (0, 0):
        return None
    out = [[v if v in (c, bg) else bg for v in r] for r in g]
    for i, j in piece:
        y, x = i + twice_i // 2, j + twice_j // 2
        if not (0 <= y < h and 0 <= x < w) or g[y][x] == c:
            return None
        out[y][x] = g[i][j]
    return out
