"""arc-dsl's combinators on functions and values of every kind, as a solver may hand them over (a grid where a
function belongs, a function where a container does): each side with its own primitives, the same value, set
order included, or the same error text (`failure_text`); a function they build is compared by what it gives."""
from __future__ import annotations

import itertools

import pytest

from gpubatch.arc.arcdsl.interp import failure_text
from gpubatch.arc.arcdsl.registry import primitives
from tests.arc.oracle import MISSING, oracle, run_oracle

pytestmark = pytest.mark.skipif(oracle() is None, reason=MISSING)

COMBINATORS = ["identity", "compose", "chain", "matcher", "rbind", "lbind", "fork", "apply", "rapply", "mapply",
               "papply", "mpapply", "sfilter", "mfilter", "extract", "order", "valmax", "valmin", "argmax",
               "argmin", "branch", "colorfilter", "merge", "power", "prapply"]
FUNCTIONS = ["identity", "size", "first", "increment", "astuple", "add", "fill", "even", "color", "toindices"]
VALUES = [0, 2, -1, True, (1, 2), (), ((1, 2), (3, 4)), frozenset(), frozenset({(0, 0)}),
          frozenset({(1, (0, 0)), (2, (1, 1))}), ((1,),), frozenset({1, 2}), frozenset({frozenset({(1, (0, 0))})}),
          (1, 2, 3)]
PROBES = [(x, *rest) for x in (1, (1, 2), frozenset({(1, (0, 0))}), ((1, 2),)) for rest in ((), (2,), (2, 3))]


class Named(str):
    """A primitive's name in an argument list: each side calls its own."""


def _side(args: tuple, table: dict) -> tuple:
    return tuple(table[a] if isinstance(a, Named) else a for a in args)


def _plain(value):
    """A value as compared: an error by its text, a set with its order, a function inside a value as one."""
    if isinstance(value, BaseException):
        return ("error", failure_text(value))
    if callable(value):
        return "<function>"
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, frozenset):
        return ("frozenset", [_plain(v) for v in value])
    return (type(value).__name__, value)


def _outcome(value):
    """A function by what it gives on probes of one to three arguments; anything else as `_plain`."""
    if callable(value) and not isinstance(value, BaseException):
        return [_plain(run_oracle(value, *probe)) for probe in PROBES]
    return _plain(value)


@pytest.mark.parametrize("name", COMBINATORS)
def test_a_combinator_on_functions_and_values_of_any_kind_agrees_with_arc_dsl(name):
    dsl, _ = oracle()
    ours_table, theirs_table = primitives(), {n: getattr(dsl, n) for n in FUNCTIONS}
    theirs_fn, ours_fn = getattr(dsl, name), ours_table[name]
    pool = [Named(n) for n in FUNCTIONS] + VALUES
    arity = theirs_fn.__code__.co_argcount
    calls = itertools.product(pool, repeat=arity)
    if arity == 3:
        calls = itertools.islice(calls, 0, None, 3)  # a third of the triples: the suite stays lean
    for args in calls:
        ours = _outcome(run_oracle(ours_fn, *_side(args, ours_table)))
        assert ours == _outcome(run_oracle(theirs_fn, *_side(args, theirs_table))), args
