"""A function built by the combinators, compiled into one: `fork(equality, power(first, TWO), compose(first,
last))` is a closure over closures, so calling it on one element makes eight Python calls, most of them the
combinators' own frames. `fuse` reads the closures (`compose`, `chain`, `fork`, `matcher`, and `lbind`/`rbind`
of a function of two parameters) and writes one lambda that makes the same calls of the same primitives in the
same order on the same values (`first` written out as `next(iter(...))`, `equality` as `==`, `identity` as its
argument: what they do): the same results and the same first error, with fewer frames. Used by `maps.py` where
the reference maps or filters a large container; any other callable stays a call.
"""
from __future__ import annotations

from typing import Any, Callable

from . import prims_base
from .values import CODES, closure

MIN_ITEMS = 256  # below this, compiling costs more than the frames it saves
_MAX_LEAVES = 32
_UNARY = {prims_base.first: "next(iter({}))", prims_base.identity: "{}"}
_BINARY = {prims_base.equality: "({} == {})"}
_COMPILED: dict[str, Callable] = {}  # source -> factory of the fused function over its leaves
_MAX_DEPTH = 40  # nested calls: far inside what CPython's parser takes (200 brackets deep)


class _TooLarge(Exception):
    """The function is too large or too deep to compile: it is used as it is."""


class _Writer:
    """The source of one fused function: its leaves (the callables and constants it calls and reads), and one
    temporary per shared argument."""

    def __init__(self) -> None:
        self.leaves: list[Any] = []
        self.temps = 0

    def leaf(self, value: Any) -> str:
        if len(self.leaves) >= _MAX_LEAVES:
            raise _TooLarge
        self.leaves.append(value)
        return f"_k{len(self.leaves) - 1}"

    def shared(self, arg: str) -> tuple[str, str]:
        """(first use, later uses) of an argument read twice: a plain name as it is, else computed once."""
        if arg.isidentifier():
            return arg, arg
        self.temps += 1
        name = f"_v{self.temps}"
        return f"({name} := {arg})", name

    def call(self, function: Any, arg: str) -> str:
        """The source of `function(arg)`."""
        if arg.count("(") > _MAX_DEPTH:
            raise _TooLarge
        if not callable(function):
            return f"{self.leaf(function)}({arg})"  # raises as the reference's call does
        for kind, code in CODES.items():
            cells = closure(function, code)
            if cells is not None:
                return getattr(self, "_" + kind)(cells, arg)
        if function in _UNARY:
            return _UNARY[function].format(arg)
        return f"{self.leaf(function)}({arg})"

    def call2(self, function: Any, a: str, b: str) -> str:
        if callable(function) and function in _BINARY:
            return _BINARY[function].format(a, b)
        return f"{self.leaf(function)}({a}, {b})"

    def _compose(self, c: dict, arg: str) -> str:
        return self.call(c["outer"], self.call(c["inner"], arg))

    def _chain(self, c: dict, arg: str) -> str:
        return self.call(c["h"], self.call(c["g"], self.call(c["f"], arg)))

    def _fork(self, c: dict, arg: str) -> str:
        once, again = self.shared(arg)
        return self.call2(c["outer"], self.call(c["a"], once), self.call(c["b"], again))

    def _matcher(self, c: dict, arg: str) -> str:
        return f"({self.call(c['function'], arg)} == {self.leaf(c['target'])})"

    def _lbind(self, c: dict, arg: str) -> str:
        return self.call2(c["function"], self.leaf(c["fixed"]), arg)

    def _rbind(self, c: dict, arg: str) -> str:
        return self.call2(c["function"], arg, self.leaf(c["fixed"]))


def fuse(function: Any) -> Any:
    """One function making the same calls as `function` (itself where nothing is gained)."""
    if all(closure(function, code) is None for code in CODES.values()):
        return function  # not a combinator: nothing to fuse
    w = _Writer()
    try:
        body = w.call(function, "x")
    except (_TooLarge, RecursionError):
        return function
    if body.count("(") > 2 * _MAX_DEPTH:
        return function
    params = ", ".join(f"_k{i}" for i in range(len(w.leaves)))
    source = f"lambda {params}: lambda x: {body}"
    factory = _COMPILED.get(source)
    if factory is None:
        factory = _COMPILED[source] = eval(source, {"__builtins__": {"next": next, "iter": iter}})  # noqa: S307
    return factory(*w.leaves)


def fused_for(function: Any, container: Any) -> Any:
    """`fuse(function)` for a container large enough to pay for it, else `function`."""
    try:
        large = len(container) >= MIN_ITEMS
    except TypeError:
        return function
    return fuse(function) if large and callable(function) else function
