"""Per-grid reference implementations: plain Python on lists of rows, written for clarity, not speed.

They define what each primitive means; the batched code must agree with them on every grid. None, an empty
grid or one larger than 30x30 means "invalid".
"""
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


# -- geometry -------------------------------------------------------------------------------------
def identity(g): return g
def rot90(g): return [list(r) for r in zip(*g[::-1])]
def rot180(g): return [r[::-1] for r in g[::-1]]
def rot270(g): return [list(r) for r in zip(*g)][::-1]
def hmirror(g): return g[::-1]
def vmirror(g): return [r[::-1] for r in g]
def dmirror(g): return [list(r) for r in zip(*g)]
def cmirror(g): return rot180(dmirror(g))


# -- size and cropping ----------------------------------------------------------------------------
def tophalf(g): return g[:H(g) // 2]
def bottomhalf(g): return g[H(g) - H(g) // 2:] if H(g) // 2 else []
def lefthalf(g): return [r[:W(g) // 2] for r in g]
def righthalf(g): return [r[W(g) - W(g) // 2:] for r in g] if W(g) // 2 else [[]]
def trim(g): return [r[1:-1] for r in g[1:-1]]
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


def _crop_to(g, cells):
    if not cells:
        return []
    r0, r1 = min(i for i, _ in cells), max(i for i, _ in cells)
    c0, c1 = min(j for _, j in cells), max(j for _, j in cells)
    return [row[c0:c1 + 1] for row in g[r0:r1 + 1]]


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


# -- colour ---------------------------------------------------------------------------------------
def _map(g, f): return [[f(v) for v in r] for r in g]


def cmap(g, m):
    table = dict((int(a), int(b)) for a, _, b in (p.partition(">") for p in str(m).split()))
    return _map(g, lambda v: table.get(v, v))
def replace(g, a, b): return _map(g, lambda v: b if v == a else v)
def swap(g, a, b): return _map(g, lambda v: b if v == a else a if v == b else v)


def keep(g, c):
    bg = background(g)
    return _map(g, lambda v: v if v == c else bg)


def remove(g, c):
    bg = background(g)
    return _map(g, lambda v: bg if v == c else v)


def recolor_fg(g, c):
    bg = background(g)
    return _map(g, lambda v: v if v == bg else c)


def fill_bg(g, c):
    bg = background(g)
    return _map(g, lambda v: c if v == bg else v)


def majority_fill(g):
    bg = background(g)
    return _map(g, lambda v: bg)


def minority_fill(g):
    counts = Counter(v for row in g for v in row)
    c = min(counts, key=lambda k: (counts[k], k))
    return _map(g, lambda v: c)


def recolor_fg_majority(g):
    bg = background(g)
    counts = Counter(v for row in g for v in row if v != bg)
    if not counts:
        return g
    c = min(counts, key=lambda k: (-counts[k], k))
    return _map(g, lambda v: v if v == bg else c)


def keep_least(g):
    bg = background(g)
    counts = Counter(v for row in g for v in row if v != bg)
    if not counts:
        return None
    c = min(counts, key=lambda k: (counts[k], k))
    return _map(g, lambda v: v if v == c else bg)


def palette(g, kind):
    counts = Counter(v for row in g for v in row if v != 0)
    colours = sorted(counts, key=lambda c: (-counts[c], c))
    if kind == "rest":
        colours = colours[1:]
    if not colours:
        return None
    if kind == "stripes":
        return _stripes(g, colours, counts)
    if kind in ("col", "rest"):
        return [[c] for c in colours]
    return [[c if i < counts[c] else 0 for c in colours] for i in range(counts[colours[0]])]


def _stripes(g, colours, counts):
    """The colours by their cells' mean place (sum * 2**20 // count) along the axis where those means spread
    most: a row if along the columns, else a column."""
    mean = {}
    for axis in (0, 1):
        sums = Counter()
        for i, row in enumerate(g):
            for j, v in enumerate(row):
                sums[v] += (i, j)[axis]
        mean[axis] = {c: sums[c] * (1 << 20) // counts[c] for c in colours}
    spread = {a: max(m.values()) - min(m.values()) for a, m in mean.items()}
    axis = 1 if spread[1] > spread[0] else 0
    order = sorted(colours, key=lambda c: (mean[axis][c], c))
    return [order] if axis == 1 else [[c] for c in order]


# -- objects --------------------------------------------------------------------------------------
def components(g, conn=4, multi=False, bg=False):
    """Connected components as lists of (row, col), each in BFS order; listed by their first cell. Memoized
    per grid (a family's instances, one per colour, ask for the same grid's components); read-only."""
    return _components(tuple(map(tuple, g)), conn, multi, bg)


@lru_cache(maxsize=1 << 15)
def _components(g, conn, multi, bg):
    excl = None if bg else background(g)
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)] + ([(-1, -1), (-1, 1), (1, -1), (1, 1)] if conn == 8 else [])
    seen = set()
    comps = []
    for i in range(H(g)):
        for j in range(W(g)):
            if (i, j) in seen or g[i][j] == excl:
                continue
            comp, queue = [], deque([(i, j)])
            seen.add((i, j))
            while queue:
                a, b = queue.popleft()
                comp.append((a, b))
                for da, db in steps:
                    x, y = a + da, b + db
                    if 0 <= x < H(g) and 0 <= y < W(g) and (x, y) not in seen and g[x][y] != excl \
                            and (multi or g[x][y] == g[a][b]):
                        seen.add((x, y))
                        queue.append((x, y))
            comps.append(comp)
    return comps


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


# -- other ----------------------------------------------------------------------------------------
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
    di, dj = RAY_STEPS[dir]
    out = [list(r) for r in g]
    for i in range(H(g)):
        for j in range(W(g)):
            si, sj = i - di, j - dj
            while g[i][j] == bg and 0 <= si < H(g) and 0 <= sj < W(g):
                if g[si][sj] != bg:  # the nearest non-background cell behind this one shines on it
                    out[i][j] = g[si][sj]
                    break
                si, sj = si - di, sj - dj
    return out


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
    from ..restore import ROUNDS, image, symmetries

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


# -- parts of the grid combined -------------------------------------------------------------------
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


def parts(g, stat):
    """One cell per part between full lines of the smallest colour that has one: its most common colour or its
    number of coloured cells (at most 9), neither 0 nor the divider counted."""
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
    if len(rb) * len(cb) < 2:
        return None
    out = []
    for band in rb:
        out.append([])
        for cband in cb:
            seen = Counter(g[i][j] for i in band for j in cband if g[i][j] not in (0, colour))
            if stat == "count":
                out[-1].append(min(sum(seen.values()), 9))
            else:
                out[-1].append(min(seen, key=lambda c: (-seen[c], c)) if seen else 0)
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
    none = [[-1] * W(g) for _ in g]
    if dir == "d":
        rows, cols = _diagonals_between(g, False), _diagonals_between(g, True)
    else:
        rows = [_between(r) for r in g] if dir != "v" else none
        cols = dmirror([_between(r) for r in dmirror(g)]) if dir != "h" else none
    out = []
    for i in range(H(g)):
        val = [rows[i][j] if rows[i][j] >= 0 else cols[i][j] for j in range(W(g))]
        out.append([g[i][j] if val[j] < 0 else (val[j] if c == "same" else c) for j in range(W(g))])
    return out


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


def continue_pattern(g, axis):
    if axis == "v":
        out = continue_pattern(dmirror(g), "h")
        return None if out is None else dmirror(out)
    cols = [j for j in range(W(g)) if any(r[j] for r in g)]
    if not cols or cols[-1] == W(g) - 1:
        return None
    first, last = cols[0], cols[-1]
    for p in range(1, last - first + 1):
        if all(r[j] == r[j + p] for r in g for j in range(first, last - p + 1)):
            return [[r[j] if j <= last else r[first + (j - first) % p] for j in range(W(g))] for r in g]
    return None


def reverse_rings(g):
    rings = (min(H(g), W(g)) + 1) // 2
    colour: dict = {}
    for i in range(H(g)):
        for j in range(W(g)):
            k = min(i, j, H(g) - 1 - i, W(g) - 1 - j)
            if colour.setdefault(k, g[i][j]) != g[i][j]:
                return None
    return [[colour[rings - 1 - min(i, j, H(g) - 1 - i, W(g) - 1 - j)] for j in range(W(g))] for i in range(H(g))]


def keep_centre(g, axis):
    if (H(g) if axis == "h" else W(g)) % 2 == 0:
        return None
    bg = background(g)
    if axis == "h":
        return [list(r) if i == H(g) // 2 else [bg] * W(g) for i, r in enumerate(g)]
    return [[v if j == W(g) // 2 else bg for j, v in enumerate(r)] for r in g]


def spread(g, order):
    split = _split_lines(g)
    if split is None:
        return None
    _, _, ph, pw = split
    merged = overlay(g, "lines", order)
    return [[g[i][j] if i % (ph + 1) == ph or j % (pw + 1) == pw else merged[i % (ph + 1)][j % (pw + 1)]
             for j in range(W(g))] for i in range(H(g))]


def sort_lines(g, axis, order):
    if axis == "cols":
        return dmirror(sort_lines(dmirror(g), "rows", order))
    bg = background(g)
    return sorted([list(r) for r in g], key=lambda r: (1 if order == "asc" else -1) * sum(v != bg for v in r))
