"""`fused.fuse`: a function of the combinators compiled into one makes the same calls, in the same order, on the
same values as the closures it replaces: the same results, the same first error, an argument shared by a
`fork` computed once."""
from __future__ import annotations

import random

from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import fused, maps, prims_base as b, prims_func as f, prims_patch as p


def _outcome(fn, x):
    try:
        return "value", fn(x)
    except Exception as exc:  # noqa: BLE001  (the error is the result compared)
        return "error", (type(exc), str(exc))


_UNARY = [b.first, b.last, b.identity, p.color, p.center, p.toindices, b.size, p.height, p.vline, b.flip]
_BINARY = [b.equality, b.astuple, p.connect, b.either, b.both, b.combine, p.hmatching]


@st.composite
def functions(draw, depth: int = 3):
    """Functions of every combinator that `fuse` reads, over primitives that read pairs, cells and patches."""
    kind = draw(st.sampled_from(["prim", "compose", "chain", "fork", "matcher", "lbind", "rbind", "power"]
                                if depth else ["prim"]))
    inner = functions(depth - 1)
    if kind == "prim":
        return draw(st.sampled_from(_UNARY))
    if kind == "compose":
        return f.compose(draw(inner), draw(inner))
    if kind == "chain":
        return f.chain(draw(inner), draw(inner), draw(inner))
    if kind == "matcher":
        return f.matcher(draw(inner), draw(st.sampled_from([0, 1, True, (0, 1)])))
    if kind == "power":
        return f.power(draw(inner), draw(st.integers(1, 3)))
    if kind in ("lbind", "rbind"):
        bind = f.lbind if kind == "lbind" else f.rbind
        return bind(draw(st.sampled_from(_BINARY)), draw(st.sampled_from([0, (1, 2), frozenset({(0, 0)})])))
    return f.fork(draw(st.sampled_from(_BINARY)), draw(inner), draw(inner))


def _elements(seed: int) -> list:
    rnd = random.Random(seed)
    cells = [(rnd.randrange(3), (rnd.randrange(5), rnd.randrange(5))) for _ in range(6)]
    return [(cells[0], cells[1]), cells[2], cells[3][1], frozenset(cells[:3]), frozenset(c[1] for c in cells),
            (frozenset(cells[:2]), frozenset(cells[2:])), (), 7, frozenset()]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(functions(), st.integers(0, 2 ** 32))
def test_fused_functions_give_the_same_values_and_errors(fn, seed):
    one = fused.fuse(fn)
    for x in _elements(seed):
        assert _outcome(one, x) == _outcome(fn, x)


def test_calls_run_in_the_same_order_and_a_shared_argument_once():
    seen = []

    def note(name):
        def g(x):
            seen.append((name, x))
            return (x, name)
        return g

    fn = f.compose(f.fork(b.astuple, note("a"), f.chain(note("b"), b.first, note("c"))), note("inner"))
    want = fn(5)
    calls, seen[:] = list(seen), []
    one = fused.fuse(fn)
    assert one is not fn and one(5) == want
    assert seen == calls and [n for n, _ in calls].count("inner") == 1


def test_what_is_not_a_combinator_stays_itself():
    assert fused.fuse(b.first) is b.first
    moved = f.lbind(p.shift, frozenset({(0, 0)}))  # a function of two parameters bound: called directly
    assert fused.fuse(moved) is not moved and fused.fuse(moved)((1, 2)) == frozenset({(1, 2)})
    not_callable = f.compose(b.first, (1, 2))  # a tuple where a function should be: the call raises, as before
    assert _outcome(fused.fuse(not_callable), (3, 4)) == _outcome(not_callable, (3, 4))


def test_large_containers_take_it_in_the_maps():
    rnd = random.Random(0)
    cells = frozenset((rnd.randrange(3), (rnd.randrange(20), rnd.randrange(20))) for _ in range(40))
    pairs = b.product(cells, cells)
    assert len(pairs) >= fused.MIN_ITEMS
    same = f.fork(b.equality, f.power(b.first, 2), f.compose(b.first, b.last))
    assert list(maps.sfilter(pairs, same)) == list(b.sfilter(pairs, same))
    line = f.fork(p.connect, f.compose(b.last, b.first), f.power(b.last, 2))
    assert list(maps.apply(line, pairs)) == list(f.apply(line, pairs))


def test_a_function_too_deep_to_compile_stays_itself():
    deep = f.power(b.first, 100)  # `first` of `first`... a hundred calls deep
    assert fused.fuse(deep) is deep
    shallow = f.power(b.first, 3)
    assert fused.fuse(shallow) is not shallow and fused.fuse(shallow)((((1,),),)) == 1
