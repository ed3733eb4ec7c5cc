"""Per-grid references of the primitives that combine parts of a grid: halves by logic, parts between
dividers, overlays, kron, parts spread, a part coloured by a key."""
from __future__ import annotations

from collections import Counter

from .base import H, W, background
from .geometry import dmirror


def _halves(g, axis):
    """The two halves of a grid (top/bottom for axis h, left/right for v), skipping a one-colour middle
    line when the size is odd; None when there is no such split."""
    t = g if axis == "h" else dmirror(g)
    n = H(t)
    if n < 2 or (n % 2 and len(set(t[n // 2])) != 1):
        return None
    return t[:n // 2], t[n - n // 2:]


_LOGIC = {"and": lambda a, b: a and b, "or": lambda a, b: a or b, "xor": lambda a, b: a != b,
          "nor": lambda a, b: not (a or b)}


def halves_logic(g, axis, op, c):
    parts = _halves(g, axis)
    if parts is None:
        return None
    a, b = parts
    out = [[c if _LOGIC[op](x != 0, y != 0) else 0 for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
    return out if axis == "h" else dmirror(out)


def _split_lines(g):
    """The parts between divider lines (full rows and columns of one colour, not 0, regularly placed) as
    (rows of parts, columns of parts, part height, part width); the smallest such colour; None if none."""
    for colour in range(1, 10):
        rows = [i for i in range(H(g)) if all(v == colour for v in g[i])]
        cols = [j for j in range(W(g)) if all(r[j] == colour for r in g)]
        if not rows and not cols:
            continue
        shape = []
        for lines, size in ((rows, H(g)), (cols, W(g))):
            part = lines[0] if lines else size
            count = (size + 1) // (part + 1)
            if part == 0 or (size + 1) % (part + 1) or lines != [k * (part + 1) - 1 for k in range(1, count)]:
                break
            shape.append((count, part))
        else:
            (nr, ph), (nc, pw) = shape
            if nr * nc <= 9:
                return nr, nc, ph, pw
    return None


def _part_bands(g):
    """(divider colour, bands of rows, bands of columns) for the smallest colour with a full line, whose lines
    split the grid into two parts or more; None otherwise."""
    for colour in range(10):
        rows = [all(v == colour for v in row) for row in g]
        cols = [all(row[j] == colour for row in g) for j in range(W(g))]
        if any(rows) or any(cols):
            break
    else:
        return None

    def bands(full):
        out, cur = [], []
        for i, f in enumerate(full + [True]):
            if f and cur:
                out.append(cur)
                cur = []
            elif not f:
                cur.append(i)
        return out
    rb, cb = bands(rows), bands(cols)
    return (colour, rb, cb) if len(rb) * len(cb) >= 2 else None


def _part_counts(g, colour, band, cband):
    return Counter(g[i][j] for i in band for j in cband if g[i][j] not in (0, colour))


def parts(g, stat):
    """One cell per part between full lines of the smallest colour that has one: its most common colour or its
    number of coloured cells (at most 9), neither 0 nor the divider counted."""
    split = _part_bands(g)
    if split is None:
        return None
    colour, rb, cb = split
    out = []
    for band in rb:
        out.append([])
        for cband in cb:
            seen = _part_counts(g, colour, band, cband)
            if stat == "count":
                out[-1].append(min(sum(seen.values()), 9))
            else:
                out[-1].append(min(seen, key=lambda c: (-seen[c], c)) if seen else 0)
    return out


def fill_fullest(g):
    """The parts (as `parts` finds them) with the most coloured cells become all their most common colour
    (ties: the smaller colour); every other part becomes 0; the dividers stay. None without a coloured cell."""
    split = _part_bands(g)
    if split is None:
        return None
    colour, rb, cb = split
    seen = {(a, b): _part_counts(g, colour, band, cband) for a, band in enumerate(rb) for b, cband in enumerate(cb)}
    top = max(sum(c.values()) for c in seen.values())
    if top == 0:
        return None
    out = [r[:] for r in g]
    for (a, b), c in seen.items():
        fill = min(c, key=lambda v: (-c[v], v)) if sum(c.values()) == top else 0
        for i in rb[a]:
            for j in cb[b]:
                out[i][j] = fill
    return out


def _one_colour_part(g, colour, rb, cb):
    """(rows, columns) of the largest part whose coloured cells are all one colour (ties: the first), or None."""
    mask = None
    for band in rb:
        for cband in cb:
            if len(_part_counts(g, colour, band, cband)) == 1 and (
                    mask is None or len(band) * len(cband) > len(mask[0]) * len(mask[1])):
                mask = (band, cband)
    return mask


def key_colours(g):
    """The largest part (as `parts` splits the grid; ties: the first) whose coloured cells are all one colour is a
    mask; the coloured cells outside it, their rows and columns taken in order (a cell that is not one of them is
    0), are a key of kh x kw colours. The mask's coloured cells take the colour of the key cell over their block
    when the key is scaled up to the mask's size; its other cells are 0. None without such a mask or key, or when
    the mask's sides are not multiples of the key's."""
    split = _part_bands(g)
    if split is None:
        return None
    colour, rb, cb = split
    mask = _one_colour_part(g, colour, rb, cb)
    if mask is None:
        return None
    rows, cols = set(mask[0]), set(mask[1])
    key = {(i, j) for i in range(H(g)) for j in range(W(g))
           if g[i][j] not in (0, colour) and not (i in rows and j in cols)}
    if not key:
        return None
    krows, kcols = sorted({i for i, _ in key}), sorted({j for _, j in key})
    h, w, kh, kw = len(mask[0]), len(mask[1]), len(krows), len(kcols)
    if h % kh or w % kw:
        return None
    out = []
    for a, i in enumerate(mask[0]):
        out.append([])
        for b, j in enumerate(mask[1]):
            ki, kj = krows[a * kh // h], kcols[b * kw // w]
            out[-1].append(g[ki][kj] if g[i][j] not in (0, colour) and (ki, kj) in key else 0)
    return out


def overlay(g, parts, order):
    if parts == "lines":
        split = _split_lines(g)
        if split is None:
            return None
        nr, nc, ph, pw = split
        gap = 1
    else:
        nr, nc = {"h2": (2, 1), "h3": (3, 1), "v2": (1, 2), "v3": (1, 3), "q4": (2, 2)}[parts]
        if H(g) % nr or W(g) % nc:
            return None
        ph, pw, gap = H(g) // nr, W(g) // nc, 0
    pieces = [[row[c * (pw + gap):c * (pw + gap) + pw] for row in g[r * (ph + gap):r * (ph + gap) + ph]]
              for r in range(nr) for c in range(nc)]
    if order == "last":
        pieces = pieces[::-1]
    out = [[0] * pw for _ in range(ph)]
    for i in range(ph):
        for j in range(pw):
            out[i][j] = next((p[i][j] for p in pieces if p[i][j] != 0), 0)
    return out


def kron(g, mode):
    if H(g) * H(g) > 30 or W(g) * W(g) > 30:
        return None
    bg = background(g)
    on = (lambda v: v != 0) if mode == "fg" else (lambda v: v == bg)
    return [[g[r][s] if on(g[i][j]) else 0 for j in range(W(g)) for s in range(W(g))]
            for i in range(H(g)) for r in range(H(g))]


def spread(g, order):
    split = _split_lines(g)
    if split is None:
        return None
    _, _, ph, pw = split
    merged = overlay(g, "lines", order)
    return [[g[i][j] if i % (ph + 1) == ph or j % (pw + 1) == pw else merged[i % (ph + 1)][j % (pw + 1)]
             for j in range(W(g))] for i in range(H(g))]
