"""`apply`, `mapply`, `sfilter` and `mfilter` of the solver table: each form that returns a value in turn (a
patch shifted to many places, `shifts.py`; a function called once per group of elements it reads alike,
`groups.py`), else the reference, with a large container's function compiled into one (`fused.py`). A form
returns None wherever its input is outside what it handles."""
from __future__ import annotations

from typing import Any

from . import fused, groups, prims_base, prims_func, shifts


def apply(function: Any, container: Any) -> Any:
    found = shifts.shifted(shifts.shifted_copies, function, container)
    if found is None:
        found = groups.apply(function, container)
    return prims_func.apply(fused.fused_for(function, container), container) if found is None else found


def mapply(function: Any, container: Any) -> Any:
    found = shifts.shifted(shifts.shifted_union, function, container)
    return prims_base.merge(apply(function, container)) if found is None else found


def sfilter(container: Any, condition: Any) -> Any:
    found = groups.sfilter(container, condition)
    return prims_base.sfilter(container, fused.fused_for(condition, container)) if found is None else found


def mfilter(container: Any, function: Any) -> Any:
    return prims_base.merge(sfilter(container, function))
