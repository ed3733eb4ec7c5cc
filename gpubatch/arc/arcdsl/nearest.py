"""`argmin` and `argmax` by the Manhattan distance to a fixed patch, `compose(lbind(manhattan, patch), initset)`,
in arrays: the costliest line of the cross battery after the shifted copies (`solve_49d1d64f`: for every cell
of a grid's border, its nearest cell of an object) calls `manhattan` once per element of the container, through
three closures, for every cell it asks about.

The key of an element (a cell or a location) is the least |di| + |dj| between the patch's locations and the
element's own location, as `manhattan(patch, initset(element))` computes it; `min`/`max` keep the first element
of least/greatest key in the container's iteration order, as `np.argmin`/`np.argmax` do. A container's
locations are kept for the next call (solvers ask about many cells against one container). Anything outside
plain int cells returns to the reference, errors included.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import prims_base, prims_patch
from .values import CODES, ByIdentity, bound, closure, patch_cells

MIN_ELEMENTS = 16  # containers smaller than this: the reference is as fast
_SEEN = ByIdentity()  # container -> (its elements, their locations)


def distance_key(compfunc: Any) -> Any:
    """The patch of `compose(lbind(manhattan, patch), initset)`, else None."""
    parts = closure(compfunc, CODES["compose"])
    if parts is None or parts.get("inner") is not prims_base.initset:
        return None
    outer = bound(parts.get("outer"))
    return outer[1] if outer is not None and outer[0] is prims_patch.manhattan else None


def _elements(container: Any) -> tuple[list, np.ndarray] | None:
    """The container's elements in iteration order and their locations [n, 2], else None."""
    parsed = patch_cells(container)
    return None if parsed is None else (list(container), parsed[0][:, 1:])


def _pick(container: Any, compfunc: Any, pick) -> tuple[bool, Any]:
    """(True, the element `pick` chooses by distance) where the form applies, else (False, None)."""
    if type(container) is not frozenset or len(container) < MIN_ELEMENTS:
        return False, None
    patch = distance_key(compfunc)
    if type(patch) is not frozenset or not patch:
        return False, None
    fixed, got = patch_cells(patch), _SEEN.read(container, _elements)
    if fixed is None or got is None:
        return False, None
    elements, locs = got
    a = fixed[0][:, 1:]
    dist = (np.abs(locs[:, None, 0] - a[None, :, 0]) + np.abs(locs[:, None, 1] - a[None, :, 1])).min(axis=1)
    return True, elements[int(pick(dist))]


def argmin(container, compfunc):
    """`argmin` of the solver table: by distance in arrays where the key is one, else the reference."""
    done, found = _pick(container, compfunc, np.argmin)
    return found if done else prims_base.argmin(container, compfunc)


def argmax(container, compfunc):
    """`argmax` of the solver table: by distance in arrays where the key is one, else the reference."""
    done, found = _pick(container, compfunc, np.argmax)
    return found if done else prims_base.argmax(container, compfunc)
