"""Local rules that do not read the cell's colour: a table from where a cell lies in its object to "keeps its
colour" or an output colour, so that a test object of a colour no demo shows is answered all the same.

`rules`' tables key on the cell's own colour, and a test cell of an unseen colour keeps it (a partial fit). In
`3bdb4ada` every 3-row bar loses every other cell of its middle row, counted from the bar's first cell, and the
test holds a bar of a colour no demo has: the table "(row offset, column offset from the object's first cell)
modulo 2 -> keeps its colour, or 0" reads it. Objects are 4-connected, one colour, background excluded (as for
`rules`' `size`); every other cell has a code of its own. Learned and predicted by `rules.table_fits`, on the
task's inputs only (`learned.INPUT_TABLES`), on NumPy or CuPy alike.

- `anyparity`: the parity of the cell's row and of its column, counted from its object's first cell (the
  first of its cells in reading order, row by row).
"""
from __future__ import annotations

from .dsl.objects import labels
from .grids import MAX, PAD, GridBatch
from .rules import _ROW_COL, table_fits

KINDS = ("anyparity",)
KEEP = PAD  # the learned output "keeps its colour": no cell inside a grid is PAD


def features(g: GridBatch, kind: str):
    """int64 [B, 30, 30]: each cell's code of `kind`, without its colour."""
    if kind != "anyparity":
        raise ValueError(f"unknown colour-free rule {kind!r}; expected one of {', '.join(KINDS)}")
    xp = g.xp
    lab = labels(g, 4, False, False).astype(xp.int64)  # the index of the object's first cell, or -1
    rows, cols = (xp.asarray(a) for a in _ROW_COL)
    code = 1 + (rows - lab // MAX) % 2 * 2 + (cols - lab % MAX) % 2
    return xp.where(lab >= 0, code, 0).reshape(len(g), MAX, MAX)


def anycolour_fits(C: GridBatch, task, targets: GridBatch, demo, kind: str):
    """(ok, unseen, predicted) as `rules.rule_fits`, for a table of `kind` that learns "keeps its colour"."""
    return table_fits(C, task, targets, demo, features(C, kind), keep=KEEP)[:3]
