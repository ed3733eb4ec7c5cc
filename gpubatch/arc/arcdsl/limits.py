"""Bounds on what one primitive may build from its arguments' values.

arc-dsl builds whatever a line asks for: `canvas(ZERO, (100000, 100000))` takes minutes and every byte of
memory before it fails, and `power(f, 10**9)` never returns, so one bad line of one solver could stall or kill
a whole battery. Here a primitive asked for more than these bounds raises `TooLarge` instead: that sample is an
error with its line and reason, and the run goes on.

Grids share their cell values, so a cell costs a pointer: 50M cells are 400 MB. Sets and ranges build a new
object per element (a pair, a large int), about ten times that, hence the lower bound. arc-dsl's own solvers
reach about 8.6M cells on ARC-AGI-1 training (`solve_feca6190` in the cross battery: a canvas 5 cells a side
per object), and at most about 16.4M on any 30x30 grid (810 single-cell objects).
"""
from __future__ import annotations

import operator
from typing import Any, Callable

MAX_CELLS = 50_000_000  # cells of a grid, or items of a tuple of shared values (`repeat`)
MAX_ITEMS = 5_000_000  # elements of a set or range built from argument values, each a new object
MAX_POWER = 10_000  # compositions of `power`


class TooLarge(MemoryError):
    """A value past the bounds above: arc-dsl would try to build it."""


def bound(n: Any, what: str, most: int = MAX_CELLS) -> None:
    """Raise TooLarge when `what` would hold more than `most` elements (or compositions). A count that is not an
    integer (`range` would refuse it) is left to the primitive, which fails on it with arc-dsl's own error."""
    try:
        n = operator.index(n)
    except TypeError:
        return
    if n > most:
        raise TooLarge(f"{what} would build {n:,} elements, more than {most:,}")


def bound_of(size: Callable[[], Any], what: str, most: int = MAX_CELLS) -> None:
    """`bound` on `size()`; where working the size out fails (values of the wrong kind), nothing is raised here:
    the primitive then fails as arc-dsl does, at the read arc-dsl fails at, with its error."""
    try:
        n = size()
    except Exception:  # noqa: BLE001 - any error here is the primitive's own, raised by the primitive itself
        return
    bound(n, what, most)
