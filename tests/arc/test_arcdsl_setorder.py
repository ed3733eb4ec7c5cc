"""`setorder` against CPython itself: the hashes of small-int tuples and of frozensets, and the iteration order
of sets laid out from hashes alone, on random cells (negative coordinates, and -1 and -2, which hash alike)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from gpubatch.arc.arcdsl import setorder

cell = st.tuples(st.integers(0, 9), st.tuples(st.integers(-3, 40), st.integers(-3, 40)))


def _hashes(cells: list) -> np.ndarray:
    arr = np.array([(v, i, j) for v, (i, j) in cells], dtype=np.int64).reshape(-1, 3)
    inner = setorder.tuple_hash(setorder.int_hash(arr[:, 1]), setorder.int_hash(arr[:, 2]))
    return setorder.tuple_hash(setorder.int_hash(arr[:, 0]), inner)


def test_the_interpreter_lays_sets_out_as_emulated():
    assert setorder.available()


def test_int_and_tuple_hashes_are_cpythons():
    xs = np.array([0, 1, -1, -2, 5, -7, 2 ** 40, -(2 ** 40)], dtype=np.int64)
    assert setorder.int_hash(xs).view(np.int64).tolist() == [hash(int(x)) for x in xs]
    pairs = [(int(a), int(b)) for a in xs for b in xs]
    got = setorder.tuple_hash(setorder.int_hash(np.array([a for a, _ in pairs])),
                              setorder.int_hash(np.array([b for _, b in pairs])))
    assert got.view(np.int64).tolist() == [hash(p) for p in pairs]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.lists(cell, min_size=1, max_size=120, unique=True), min_size=1, max_size=4))
def test_frozenset_hashes_and_orders_are_cpythons(sets):
    for cells in sets:
        h = _hashes(cells)
        assert setorder.frozenset_hash(h[None]).view(np.int64).tolist() == [hash(frozenset(cells))]
        assert [cells[k] for k in setorder.order(h)] == list(frozenset(cells))


def test_equal_hashes_of_unequal_cells_keep_their_order():
    """(i, -1) and (i, -2) hash alike: the set probes past one to place the other, and so do the proxies."""
    cells = [(0, (i, j)) for i in range(-3, 6) for j in range(-3, 6)][::-1]
    h = _hashes(cells)
    assert len(np.unique(h)) < len(h)
    assert [cells[k] for k in setorder.order(h)] == list(frozenset(cells))


def test_a_set_of_frozensets_is_ordered_by_their_hashes():
    sets = [frozenset((v, (i + d, i - d)) for v, i in ((1, 0), (2, 3), (1, 7))) for d in range(-4, 300)]
    hs = np.stack([setorder.frozenset_hash(_hashes(list(s))[None])[0] for s in sets])
    assert [sets[k] for k in setorder.order(hs)] == list(frozenset(sets))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 2 ** 64 - 1), min_size=1, max_size=50))
def test_proxies_carry_the_hash_and_their_index(values):
    h = np.array(values, dtype=np.uint64)
    z = setorder.proxies(h)
    if z is None:  # a hash of -1 (no object has it) or a proxy's real part of -1.0 (it hashes as -2)
        assert 2 ** 64 - 1 in values or any(v % 1000003 == 1000002 and v // 1000003 == 0 for v in values)
        return
    assert [hash(p) % 2 ** 64 for p in z.tolist()] == values
    assert setorder.indexes(z).tolist() == list(range(len(values)))
