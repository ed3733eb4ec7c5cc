"""CPython's frozenset iteration order, computed instead of built: the hashes of small-int tuples and of
frozensets on NumPy arrays, and the order a set of such elements iterates in, from their hashes alone.

arc-dsl's results depend on the order its frozensets iterate in (`first`, `paint` where colours overlap, ties
in `argmax`; spec section 1.3). That order is the order of the set's table slots, fixed by its elements'
hashes and the order they were inserted in (collisions, the table growing), and by nothing else when the
elements are distinct with distinct hashes. So `order` lays out a set of *proxies*: complex numbers `a + Bj`
whose hash, `hash(a) + 1000003 * hash(B)` modulo 2**64 for integral parts, is the element's hash exactly; CPython
builds that set in C, from cheap elements, and it iterates as the real one would. `available()` checks the
hashes and the orders against real sets once per process; callers build the real sets where it says no.
"""
from __future__ import annotations

import random

import numpy as np

U = np.uint64
_XX1, _XX2, _XX5 = U(11400714785074694791), U(14029467366897019727), U(2870177450012600261)
_ALL = U(0xFFFFFFFFFFFFFFFF)
_CHECKED: list[bool] = []


def int_hash(x: np.ndarray) -> np.ndarray:
    """hash() of int64 values of magnitude below 2**61 - 1 (CPython's modulus), as uint64 (hash(-1) is -2)."""
    x = np.asarray(x, dtype=np.int64)
    return np.where(x == -1, np.int64(-2), x).view(U)


def tuple_hash(*lanes: np.ndarray) -> np.ndarray:
    """hash() of tuples whose items have the hashes `lanes` (uint64 arrays of one shape): CPython's xxHash form."""
    with np.errstate(over="ignore"):
        acc = np.full(np.shape(lanes[0]), _XX5, dtype=U)
        for lane in lanes:
            acc = acc + lane * _XX2
            acc = (acc << U(31)) | (acc >> U(33))
            acc = acc * _XX1
        acc = acc + U(len(lanes) ^ (2870177450012600261 ^ 3527539))
    return np.where(acc == _ALL, U(1546275796), acc)


def frozenset_hash(h: np.ndarray) -> np.ndarray:
    """hash() of the frozensets whose rows of `h` [M, n] are their n distinct elements' hashes."""
    with np.errstate(over="ignore"):
        acc = np.bitwise_xor.reduce(((h ^ U(89869747)) ^ (h << U(16))) * U(3644798167), axis=1)
        acc = acc ^ (U(h.shape[1] + 1) * U(1927868237))
        acc = acc ^ ((acc >> U(11)) ^ (acc >> U(25)))
        acc = acc * U(69069) + U(907133923)
    return np.where(acc == _ALL, U(590923713), acc)


_IMAG = 1000003  # CPython's multiplier of a complex number's imaginary hash


def proxies(h: np.ndarray) -> np.ndarray | None:
    """Complex numbers with the hashes `h` (uint64) that tell which element they stand for: element t is
    (a + 1000003 t) + (B - t)j, where a = h mod 1000003 and B = h // 1000003, the same hash (or (a - 1000003 t) +
    (B + t)j where B < t); all parts are exact in float64. None in the one case with no such pair (-1.0 hashes
    as -2), for the hash -1 that no object has, and where there are too many elements for float64."""
    if len(h) >= 1 << 30 or (h == _ALL).any():
        return None
    t = np.arange(len(h), dtype=np.int64)
    a = (h % U(_IMAG)).astype(np.int64)
    b = (h // U(_IMAG)).astype(np.int64)
    sign = np.where(t > b, -1, 1)
    a, b = a + sign * _IMAG * t, b - sign * t
    if (a == -1).any():
        return None
    return a.astype(np.float64) + 1j * b.astype(np.float64)


def indexes(z: np.ndarray) -> np.ndarray:
    """Which element each proxy of `proxies` stands for."""
    a = z.real.astype(np.int64)
    return np.where(a >= 0, a // _IMAG, (_IMAG - 1 - a) // _IMAG)


def order(h: np.ndarray) -> np.ndarray | None:
    """Where each element lands in the iteration of a frozenset built by inserting distinct elements of hashes `h`
    (uint64, insertion order): the indexes into `h` in iteration order (None where no proxies exist)."""
    z = proxies(h)
    if z is None:
        return None
    return indexes(np.fromiter(frozenset(z.tolist()), np.complex128, len(z)))


def _agrees(cells: list[list]) -> bool:
    """The hashes and orders computed here against real sets of these cells, and a set of those sets."""
    arr = np.array([[(v, i, j) for v, (i, j) in c] for c in cells], dtype=np.int64)
    h = tuple_hash(int_hash(arr[..., 0]), tuple_hash(int_hash(arr[..., 1]), int_hash(arr[..., 2])))
    real = [frozenset(c) for c in cells]
    if [hash(c) for cs in cells for c in cs] != h.view(np.int64).ravel().tolist() \
            or [hash(s) for s in real] != frozenset_hash(h).view(np.int64).tolist():
        return False
    if any(list(s) != [c[x] for x in order(row)] for s, c, row in zip(real, cells, h)):
        return False
    return list(frozenset(real)) == [real[x] for x in order(frozenset_hash(h))]


def _self_check() -> bool:
    """Sets of random cells (negative coordinates and -1, which hashes as -2, among them) from one to a few hundred
    cells (several growths of the table)."""
    rnd = random.Random(7)
    for n in (1, 4, 5, 19, 20, 77, 300):
        cells = [list(dict.fromkeys((rnd.randrange(10), (rnd.randrange(-3, 30), rnd.randrange(-3, 30)))
                                    for _ in range(n * 2)))[:n] for _ in range(6)]
        if all(len(c) == n for c in cells) and not _agrees(cells):
            return False
    return True


def available() -> bool:
    """Whether this interpreter's sets are laid out as emulated here (checked once per process)."""
    if not _CHECKED:
        _CHECKED.append(_self_check())
    return _CHECKED[0]
