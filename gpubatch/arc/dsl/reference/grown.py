"""Per-grid references of the patterns grown from a few cells (`dsl/grown.py`): a diagonal that bounces between
two walls, and the runs of a line tiled along it."""
from __future__ import annotations

from .base import H, W
from .geometry import dmirror

DIAGONALS = {"downright": (1, 1), "downleft": (1, -1), "upright": (-1, 1), "upleft": (-1, -1)}
MAX_SOURCES = 8  # more cells than this and a grid is no set of seeds: `bounce` is invalid there


def _path(i, j, dy, dx, h, w):
    """The cells after (i, j) on its diagonal (dy, dx), reflected at the left and right edges, until it leaves
    through the top or the bottom."""
    period = 2 * (w - 1)
    for t in range(1, h):
        y = i + dy * t
        if not 0 <= y < h:
            return
        m = (j + dx * t) % period
        yield y, (m if m < w else period - m)


def _bounce_h(g, dy, dx):
    h, w = H(g), W(g)
    sources = [(i, j) for i in range(h) for j in range(w) if g[i][j]]
    if not sources or len(sources) > MAX_SOURCES or w < 2:
        return None
    out = [list(r) for r in g]
    changed = False
    for i, j in sources:  # in reading order: the first source's path wins where two cross
        for y, x in _path(i, j, dy, dx, h, w):
            if out[y][x] == 0:
                out[y][x] = g[i][j]
                changed = True
    return out if changed else None


def bounce(g, dir, axis):
    dy, dx = DIAGONALS[dir]
    if axis == "h":
        return _bounce_h(g, dy, dx)
    out = _bounce_h(dmirror(g), dx, dy)  # between the top and the bottom: the same on the transposed grid
    return None if out is None else dmirror(out)


def _tile_rows(g):
    """Each row whose non-0 cells are one run of at least two, shorter than the row, repeated along it; the
    rows changed."""
    out, changed = [list(r) for r in g], []
    for k, r in enumerate(g):
        cols = [j for j, v in enumerate(r) if v]
        if len(cols) >= 2 and cols[-1] - cols[0] + 1 == len(cols) < len(r):
            first, span = cols[0], len(cols)
            out[k] = [r[first + (j - first) % span] for j in range(len(r))]
            changed.append(k)
    return out, changed


def tile_runs(g, axis):
    rows, by_row = _tile_rows(g) if "h" in axis else (g, [])
    cols, by_col = _tile_rows(dmirror(g)) if "v" in axis else (dmirror(g), [])
    if not by_row and not by_col:
        return None
    out = [list(r) for r in rows]
    for j in by_col:  # a column tiled writes over the rows' result
        for i in range(H(g)):
            out[i][j] = cols[j][i]
    return out
