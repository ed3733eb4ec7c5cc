"""arc-dsl's constants and its arithmetic, logic and container primitives, per value: the reference that
batched forms must equal (arc-dsl's behaviour, as `arc-dsl-primitives.md` sections 1.2, 2.1 and 2.2 give it).

Integers and pairs broadcast (`add(1, (2, 3))` is `(3, 4)`); booleans act as 0 and 1; a container keeps its
type (tuple or frozenset) through `apply`, `sfilter`, `merge`, `combine`, `difference` and `remove`.
"""
from __future__ import annotations

import operator
from itertools import chain
from typing import Any, Callable

from .limits import MAX_ITEMS, bound, bound_of

CONSTANTS: dict[str, Any] = {
    "F": False, "T": True, "NEG_ONE": -1, "NEG_TWO": -2,
    **{name: i for i, name in enumerate(("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN",
                                         "EIGHT", "NINE", "TEN"))},
    "ORIGIN": (0, 0), "UNITY": (1, 1), "NEG_UNITY": (-1, -1), "DOWN": (1, 0), "RIGHT": (0, 1), "UP": (-1, 0),
    "LEFT": (0, -1), "UP_RIGHT": (-1, 1), "DOWN_LEFT": (1, -1), "ZERO_BY_TWO": (0, 2), "TWO_BY_ZERO": (2, 0),
    "TWO_BY_TWO": (2, 2), "THREE_BY_THREE": (3, 3),
}


def _broadcast(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A binary operation on integers lifted to pairs, component-wise, an integer meeting a pair broadcast. The
    branches and the order of the reads are arc-dsl's, so a value of another kind fails with arc-dsl's error
    (`add(((1, 2),), (1, 2))` is a TypeError at the first component, not an IndexError at the second)."""
    def lifted(a, b):
        if isinstance(a, int):
            if isinstance(b, int):
                return op(a, b)
            if isinstance(b, tuple):
                return (op(a, b[0]), op(a, b[1]))
        elif isinstance(a, tuple) and isinstance(b, tuple):
            return (op(a[0], b[0]), op(a[1], b[1]))
        return (op(a[0], b), op(a[1], b))
    return lifted


def _unary(op: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An operation on integers lifted to pairs, component-wise."""
    return lambda n: op(n) if isinstance(n, int) else (op(n[0]), op(n[1]))


_add, _sub, _mul, _div = (_broadcast(f) for f in (operator.add, operator.sub, operator.mul, operator.floordiv))
_neg, _dbl, _half = _unary(operator.neg), _unary(lambda v: v * 2), _unary(lambda v: v // 2)
_inc, _dec = _unary(lambda v: v + 1), _unary(lambda v: v - 1)
_crem = _unary(lambda v: v + 1 if v > 0 else v - 1 if v < 0 else 0)
_sign = _unary(lambda v: 1 if v > 0 else -1 if v < 0 else 0)


def identity(x): return x
def add(a, b): return _add(a, b)
def subtract(a, b): return _sub(a, b)
def multiply(a, b): return _mul(a, b)
def divide(a, b): return _div(a, b)
def invert(n): return _neg(n)
def even(n): return n % 2 == 0
def double(n): return _dbl(n)
def halve(n): return _half(n)
def flip(b): return not b
def equality(a, b): return a == b
def greater(a, b): return a > b
def positive(x): return x > 0
def increment(x): return _inc(x)
def decrement(x): return _dec(x)
def crement(x): return _crem(x)
def sign(x): return _sign(x)
def both(a, b): return a and b
def either(a, b): return a or b
def branch(condition, a, b): return a if condition else b
def toivec(i): return (i, 0)
def tojvec(j): return (0, j)
def astuple(a, b): return (a, b)


def contained(value, container): return value in container
def combine(a, b): return type(a)((*a, *b))
def intersection(a, b): return a & b
def difference(a, b):
    items = iter(a)  # at once, as CPython's generator does (Cython's would not, and `bool(...)` never iterates)
    return type(a)(e for e in items if e not in b)
def order(container, compfunc): return tuple(sorted(container, key=compfunc))
def repeat(item, num):
    bound(num, "repeat")
    return tuple(item for _ in range(num))


def size(container): return len(container)
def merge(containers): return type(containers)(chain.from_iterable(containers))  # the parts' order, in C
def maximum(container): return max(container, default=0)
def minimum(container): return min(container, default=0)
def initset(value): return frozenset((value,))
def totuple(container): return tuple(container)
def interval(start, stop, step):
    span = range(start, stop, step)
    bound(len(span), "interval", MAX_ITEMS)
    return tuple(span)


def pair(a, b): return tuple(zip(a, b))
def insert(value, container): return container.union(frozenset((value,)))
def remove(value, container):
    items = iter(container)  # at once: see `difference`
    return type(container)(e for e in items if e != value)
def sizefilter(container, n): return frozenset(e for e in container if len(e) == n)


def dedupe(tup):
    seen: list = []
    for e in tup:
        if not isinstance(tup, tuple):  # arc-dsl asks the tuple for each element's first index: a set has none
            raise AttributeError(f"{type(tup).__name__!r} object has no attribute 'index'")
        if e not in seen:
            seen.append(e)
    return tuple(seen)


def valmax(container, compfunc): return compfunc(max(container, key=compfunc, default=0))
def valmin(container, compfunc): return compfunc(min(container, key=compfunc, default=0))
def argmax(container, compfunc): return max(container, key=compfunc)  # ties: the first in iteration order
def argmin(container, compfunc): return min(container, key=compfunc)


def mostcommon(container):
    return max(set(container), key=container.count)  # ties: the first of the distinct values' set order


def leastcommon(container):
    return min(set(container), key=container.count)


def sfilter(container, condition):
    items = iter(container)  # at once: see `difference`
    return type(container)(e for e in items if condition(e))
def mfilter(container, function): return merge(sfilter(container, function))
def extract(container, condition): return next(e for e in container if condition(e))
def first(container): return next(iter(container))


def last(container):
    if isinstance(container, tuple) and container:
        return container[-1]
    if isinstance(container, frozenset) and container:
        *_, end = container  # a set's last element in iteration order
        return end
    return max(enumerate(container))[1]  # arc-dsl's read: an empty container fails in max, with max's error


def other(container, value): return first(remove(value, container))
def product(a, b):
    bound_of(lambda: len(a) * len(b) if len(b) else 0, "product", MAX_ITEMS)  # an empty b: a is never iterated
    return frozenset((i, j) for j in b for i in a)  # b outer, a inner: the set's build order
