"""Each arc-dsl primitive of the reference on random values (hypothesis): equal to the oracle's value, set
iteration order included, or raising where the oracle raises. Combinators are covered by the solvers."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl.interp import failure_text
from gpubatch.arc.arcdsl.registry import CONSTANTS, primitives
from tests.arc.oracle import MISSING, oracle, run_oracle

pytestmark = pytest.mark.skipif(oracle() is None, reason=MISSING)

colour = st.integers(0, 9)
small = st.integers(-3, 4)
loc = st.tuples(st.integers(-2, 7), st.integers(-2, 7))
grid = st.one_of(st.just(()), st.just(((),)), st.integers(1, 6).flatmap(lambda h: st.integers(1, 6).flatmap(
    lambda w: st.tuples(*[st.tuples(*[st.integers(0, 3) for _ in range(w)]) for _ in range(h)]))))  # empty too:
# crops and halves make them, and arc-dsl raises on some
indices = st.frozensets(loc, max_size=8)
obj = st.frozensets(st.tuples(colour, loc), max_size=8)
patch = st.one_of(indices, obj)
num = st.one_of(small, st.tuples(small, small))
KINDS = {"G": grid, "O": obj, "P": patch, "I": indices, "c": colour, "i": small, "L": loc, "n": num,
         "b": st.booleans(), "f": st.integers(1, 3), "S": st.frozensets(small, max_size=6),
         "T": st.tuples(small, small, small)}

SIGNATURES = {
    "G": "rot90 rot180 rot270 hmirror vmirror dmirror cmirror trim tophalf bottomhalf lefthalf righthalf compress "
         "asindices asobject partition fgpartition frontiers mostcolor leastcolor palette numcolors height width "
         "shape portrait square",
    "P": "toindices uppermost lowermost leftmost rightmost ulcorner urcorner llcorner lrcorner height width shape "
         "portrait square vline hline center centerofmass normalize hmirror vmirror dmirror cmirror box inbox "
         "outbox backdrop delta corners size",
    "O": "color palette numcolors mostcolor leastcolor hperiod vperiod",
    "L": "dneighbors ineighbors neighbors vfrontier hfrontier toivec tojvec",
    "n": "invert double halve increment decrement crement sign",
    "i": "even positive flip", "S": "maximum minimum totuple first last initset",
    "T": "dedupe first last mostcommon leastcommon",
    "Gcc": "replace switch", "GcP": "fill underfill", "GO": "paint underpaint occurrences",
    "GLL": "crop", "Gf": "hsplit vsplit hupscale vupscale upscale downscale", "GG": "hconcat vconcat",
    "GGc": "cellwise", "Gbbb": "objects", "LL": "connect shoot add subtract", "PP": "manhattan adjacent position "
    "gravitate hmatching vmatching", "PG": "toobject subgrid bordering", "GL": "index", "cL": "canvas recolor",
    "PL": "shift", "GOL": "move", "GP": "cover", "Of": "upscale", "nn": "add subtract multiply divide",
    "ii": "greater both either equality astuple", "iii": "interval", "SS": "combine intersection difference "
    "product pair", "iS": "contained insert remove", "Si": "sizefilter other", "ci": "repeat",
    "Gc": "colorcount ofcolor", "Oc": "colorcount",
}
CASES = [(name, kinds) for kinds, names in SIGNATURES.items() for name in names.split()]


def test_signatures_cover_the_non_combinators():
    covered = {name for name, _ in CASES}
    higher = {"identity", "compose", "chain", "matcher", "rbind", "lbind", "power", "fork", "apply", "rapply",
              "mapply", "papply", "mpapply", "prapply", "sfilter", "mfilter", "extract", "order", "valmax",
              "valmin", "argmax", "argmin", "colorfilter", "merge", "branch"}
    assert set(primitives()) - covered - higher == set()
    dsl, _ = oracle()
    constants = {k: getattr(dsl, k, None) for k in CONSTANTS}
    import importlib
    import sys

    from tests.arc.oracle import ORACLE_DIR
    sys.path.insert(0, str(ORACLE_DIR))
    try:
        theirs = importlib.import_module("constants")
        assert {k: getattr(theirs, k) for k in CONSTANTS} == CONSTANTS
        constants = {k for k in vars(theirs) if k.isupper()}
        assert constants == set(CONSTANTS)
    finally:
        sys.path.remove(str(ORACLE_DIR))
        sys.modules.pop("constants", None)


def _same(ours, theirs) -> bool:
    if isinstance(theirs, Exception):
        return isinstance(ours, Exception)
    if isinstance(ours, Exception) or ours != theirs or type(ours) is not type(theirs):
        return False
    return not isinstance(ours, frozenset) or list(ours) == list(theirs)  # the same iteration order


def _same_failure(ours, theirs) -> bool:
    """Both fail with one `failure_text`, or both give the same value."""
    if isinstance(theirs, Exception):
        return isinstance(ours, Exception) and failure_text(ours) == failure_text(theirs)
    return _same(ours, theirs)


def _agrees(name: str, *args) -> None:
    """Ours and the oracle's `name` on `args`: the same value (set order included), or both raise."""
    dsl, _ = oracle()
    a, b = run_oracle(primitives()[name], *args), run_oracle(getattr(dsl, name), *args)
    assert _same(a, b), (name, args, a, b)


@pytest.mark.parametrize("name,kinds", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_primitive_equals_the_oracle(name, kinds):
    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(st.tuples(*[KINDS[k] for k in kinds]))
    def check(args):
        _agrees(name, *args)

    check()


ANY = st.one_of(grid, obj, indices, st.frozensets(obj, max_size=4), st.tuples(*[loc] * 3), small, loc,
                st.booleans(), st.frozensets(small, max_size=4))
MISUSES = [(name, kinds, at) for name, kinds in CASES for at in range(len(kinds))]


BOUNDED = ["canvas", "hsplit", "vsplit", "repeat", "hupscale", "vupscale", "upscale", "interval", "product",
           "hconcat", "vconcat", "connect", "backdrop"]


@pytest.mark.parametrize("name", BOUNDED)
def test_a_bounded_primitive_on_values_of_another_kind_fails_with_arc_dsls_error(name):
    """The size bounds (`limits`) are worked out before the primitive builds anything; on values of the wrong
    kind (a pair as a factor, a grid of ints as a height) they must not raise first: the error, type and text,
    is arc-dsl's, raised at the read where arc-dsl raises it (as a sample records it, `failure_text`, which reads
    CPython's and Cython's wordings of the same error alike: this suite runs on the compiled build too)."""
    dsl, _ = oracle()
    theirs_fn, ours_fn = getattr(dsl, name), primitives()[name]
    values = [0, 2, -1, True, (1, 2), (2,), (), ((1, 2), (3, 4)), frozenset(), frozenset({(0, 0)}),
              frozenset({(1, (0, 0)), (2, (1, 1))}), ((1,),)]
    arity = theirs_fn.__code__.co_argcount

    def same(*args):
        assert _same_failure(run_oracle(ours_fn, *args), run_oracle(theirs_fn, *args)), args

    for args in itertools.product(values, repeat=arity):
        same(*args)

    @settings(max_examples=100, deadline=None, derandomize=True)
    @given(st.tuples(*[ANY] * arity))
    def check(args):
        same(*args)

    check()


WIDE = [0, 2, -1, True, (1, 2), (2,), (), ((1, 2), (3, 4)), frozenset(), frozenset({(0, 0)}),
        frozenset({(1, (0, 0)), (2, (1, 1))}), ((1,),), ((0, 1, 2), (3, 4, 5)), frozenset({1, 2}),
        frozenset({frozenset({(1, (0, 0))})}), (0, 0), ((),), (1, 2, 3), frozenset({(0, 1), (2, 2)}),
        frozenset({((0, 0), 1)}), (1, (0, 0)), ((1, 2), 3), frozenset({(3, (0, 0)), (3, (0, 1)), (4, (2, 2))})]
NARROW = WIDE[:8] + [frozenset({(1, (0, 0)), (2, (1, 1))}), ((1,),), frozenset({((0, 0), 1)})]


@pytest.mark.parametrize("name", sorted({name for name, _ in CASES}))
def test_every_primitive_on_values_of_any_kind_fails_with_arc_dsls_error(name):
    """Each pair (triple: a narrower set) of values of every kind, as solvers hand them over: the value, or the
    error, type and text, that arc-dsl gives, raised at arc-dsl's first failing read (a grid's length before a
    patch's positions, a location's row before its column, an empty set's corner)."""
    dsl, _ = oracle()
    theirs_fn, ours_fn = getattr(dsl, name), primitives()[name]
    arity = theirs_fn.__code__.co_argcount
    for args in itertools.product(WIDE if arity < 3 else NARROW, repeat=arity):
        assert _same_failure(run_oracle(ours_fn, *args), run_oracle(theirs_fn, *args)), args


@pytest.mark.parametrize("name,function", [("power", "increment"), ("prapply", "astuple")])
def test_power_and_prapply_on_values_of_any_kind_fail_with_arc_dsls_error(name, function):
    """Each side with its own `function`: `power` counting n down to 1 (n < 1 ends in Python's recursion
    error, a value of another kind at `n - 1`), `prapply` reading b before a; composed functions applied to 1."""
    dsl, _ = oracle()
    theirs_fn, ours_fn = getattr(dsl, name), primitives()[name]
    theirs_f, ours_f = getattr(dsl, function), primitives()[function]
    for args in itertools.product(WIDE if name == "power" else NARROW, repeat=theirs_fn.__code__.co_argcount - 1):
        theirs, ours = run_oracle(theirs_fn, theirs_f, *args), run_oracle(ours_fn, ours_f, *args)
        if callable(theirs) and callable(ours):
            theirs, ours = run_oracle(theirs, 1), run_oracle(ours, 1)
        assert _same_failure(ours, theirs), args


@pytest.mark.parametrize("name,kinds,at", MISUSES, ids=[f"{n}-{k}-{a}" for n, k, a in MISUSES])
def test_a_value_of_another_kind_raises_where_the_oracle_raises(name, kinds, at):
    """Solvers hand primitives values of the wrong kind (a set of objects to `rot270`, an empty tuple as a
    factor); ours must then fail or succeed exactly where arc-dsl's does, with the same value."""
    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(st.tuples(*[ANY if k == at else KINDS[kind] for k, kind in enumerate(kinds)]))
    def check(args):
        _agrees(name, *args)

    check()


EDGES = [("canvas", (1, (-1, frozenset({frozenset({(1, (0, 0))})})))), ("canvas", (1, (0, ()))),
         ("rot270", (frozenset({frozenset({(1, (0, 0))})}),)), ("ulcorner", (((0, 1, 2), (3, 4, 5)),)),
         ("urcorner", (((0, 1, 2),),)), ("centerofmass", (((0, 1, 2),),)), ("dedupe", (frozenset({1}),)),
         ("hupscale", ((), ())), ("vupscale", (((),), ())), ("product", (0, frozenset())),
         ("occurrences", (((),), ((0, 0),))), ("compress", (frozenset(),)),
         ("vconcat", (5, 5)), ("vconcat", (True, 2)), ("vconcat", (frozenset(), frozenset())),
         ("hupscale", (frozenset({frozenset()}), ())), ("vsplit", ((), -1)), ("vsplit", ((), 0))]


@pytest.mark.parametrize("name,args", EDGES, ids=[n for n, _ in EDGES])
def test_values_the_mutated_solvers_found_agree(name, args):
    """Cases where ours once raised and arc-dsl did not, or the other way round (`tests/arc/mutants.py`)."""
    _agrees(name, *args)


TWO_ARGUMENTS = sorted({name for name, kinds in CASES if len(kinds) == 2})


@pytest.mark.parametrize("name", TWO_ARGUMENTS)
def test_two_values_of_any_kind_agree(name):
    """Both arguments of any kind (`vconcat` of two integers is their sum in arc-dsl)."""
    @settings(max_examples=60, deadline=None, derandomize=True)
    @given(ANY, ANY)
    def check(a0, a1):
        _agrees(name, a0, a1)

    check()


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide"])
def test_arithmetic_on_values_of_any_kind_fails_with_arc_dsls_error(name):
    """The same exception, type and text, as arc-dsl's where the arguments are not ints and pairs: a sample's
    error in the results then reads as arc-dsl's would."""
    dsl, _ = oracle()

    @settings(max_examples=200, deadline=None, derandomize=True)
    @given(ANY, ANY)
    def check(a, b):
        ours, theirs = run_oracle(primitives()[name], a, b), run_oracle(getattr(dsl, name), a, b)
        if isinstance(theirs, Exception):
            assert (type(ours), str(ours)) == (type(theirs), str(theirs)), (a, b)
        else:
            assert _same(ours, theirs), (a, b)

    check()
    one = ((1, 2),)  # a grid of one row against a pair: arc-dsl reads the first components first
    ours, theirs = run_oracle(primitives()[name], one, (1, 2)), run_oracle(getattr(dsl, name), one, (1, 2))
    assert (type(ours), str(ours)) == (type(theirs), str(theirs))
    assert type(theirs) is (IndexError if name == "multiply" else TypeError)  # a row times 1 is a row
