"""arc-dsl's combinators per value (section 2.3 of `arc-dsl-primitives.md`): functions built from functions.

`rbind`/`lbind` read the bound function's declared positional parameters, as arc-dsl does: 2 gives a unary
function, 3 a binary one, anything else a ternary one (so binding a one-parameter closure gives a function no
call can satisfy, exactly as in arc-dsl). Every closure here declares one parameter for that reason.
"""
from __future__ import annotations

from .limits import MAX_ITEMS, MAX_POWER, bound, bound_of
from .prims_base import merge


def _arity(function) -> int:
    return function.__code__.co_argcount


def compose(outer, inner): return lambda x: outer(inner(x))
def chain(h, g, f): return lambda x: h(g(f(x)))
def matcher(function, target): return lambda x: function(x) == target
def fork(outer, a, b): return lambda x: outer(a(x), b(x))


def rbind(function, fixed):
    n = _arity(function)
    if n == 2:
        return lambda x: function(x, fixed)
    if n == 3:
        return lambda x, y: function(x, y, fixed)
    return lambda x, y, z: function(x, y, z, fixed)


def lbind(function, fixed):
    n = _arity(function)
    if n == 2:
        return lambda y: function(fixed, y)
    if n == 3:
        return lambda y, z: function(fixed, y, z)
    return lambda y, z, a: function(fixed, y, z, a)


def power(function, n):
    """`function` n times over. arc-dsl counts n down by one until it equals 1: n = 1 is `function` itself, a
    value that cannot count down fails at `n - 1`, and one that never reaches 1 (0, negatives, False) recurses
    until Python stops it, with Python's error."""
    if n == 1:
        return function
    n - 1  # noqa: B018 - arc-dsl's read, and its error for a value of another kind
    if not isinstance(n, int) or n < 1:
        raise RecursionError("maximum recursion depth exceeded")
    bound(n, "power", MAX_POWER)
    out = function
    for _ in range(n - 1):
        out = compose(function, out)
    return out


def apply(function, container): return type(container)(function(e) for e in container)
def rapply(functions, value): return type(functions)(function(value) for function in functions)
def mapply(function, container): return merge(apply(function, container))
def papply(function, a, b): return tuple(function(i, j) for i, j in zip(a, b))
def mpapply(function, a, b): return merge(papply(function, a, b))
def prapply(function, a, b):
    bound_of(lambda: len(a) * len(b), "prapply", MAX_ITEMS)  # without lengths the loop fails as arc-dsl's
    return frozenset(function(i, j) for j in b for i in a)
