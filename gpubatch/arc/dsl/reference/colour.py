"""Per-grid references of the colour primitives: replacements, fills, colour lists."""
from __future__ import annotations

from collections import Counter

from .base import _map, background


def cmap(g, m):
    table = {int(a): int(b) for a, _, b in (p.partition(">") for p in str(m).split())}
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
