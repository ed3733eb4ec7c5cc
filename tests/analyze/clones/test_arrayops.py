"""The group building's array operations give NumPy's answers on both branches: the NumPy one, and the one
written for CuPy, run here on NumPy through a module that is not `numpy` (so CI checks that code too); on the
GPU box, on CuPy itself."""
import types

import numpy as np
import pytest

from gpubatch.analyze.clones import arrayops as ops


def _not_numpy():
    """NumPy under another name, with CuPy's always-stable argsort: it takes the CuPy branches."""
    fake = types.SimpleNamespace(**{k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    fake.argsort = lambda a: np.argsort(a, kind="stable")
    return fake


def _cases(seed: int):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 7, 1000, 4099):
        yield rng.integers(-50, 50, n), rng.integers(0, max(n // 5, 1), n), rng.random(n)


def _check(xp, to):
    for seed in range(3):
        for x, idx, f in _cases(seed):
            back = ops.to_host
            assert np.array_equal(back(ops.cummax(xp, to(x))), np.maximum.accumulate(x))
            assert np.array_equal(back(ops.cummin(xp, to(x))), np.minimum.accumulate(x))
            keys = (to(x), to(idx), to(x % 3))
            assert np.array_equal(back(ops.lexsort(xp, keys)), np.lexsort((x, idx, x % 3)))
            assert np.array_equal(back(ops.stable_argsort(xp, to(idx))), np.argsort(idx, kind="stable"))
            first, inverse = ops.unique_first(xp, to(idx))
            _, want_first, want_inverse = np.unique(idx, return_index=True, return_inverse=True)
            assert np.array_equal(back(first), want_first) and np.array_equal(back(inverse), want_inverse)
            for vals in (x, f):
                for scatter, ufunc, fill in ((ops.scatter_min, np.minimum, 99), (ops.scatter_max, np.maximum, -99)):
                    want = np.full(len(x) // 5 + 1, fill, vals.dtype)
                    ufunc.at(want, idx, vals)
                    got = to(np.full(len(x) // 5 + 1, fill, vals.dtype))
                    scatter(xp, got, to(idx), to(vals))
                    assert np.array_equal(back(got), want)
            want = np.zeros(len(x), bool)
            if len(x):
                want[0] = True
                want[1:] = (idx[1:] != idx[:-1]) | (x[1:] != x[:-1])
            assert np.array_equal(back(ops.changes(xp, to(idx), to(x))), want)


def test_numpy_branch_is_numpy():
    _check(np, np.asarray)


def test_cupy_branch_gives_numpy_answers_on_numpy():
    _check(_not_numpy(), np.asarray)


@pytest.mark.gpu
def test_cupy_branch_on_cupy():
    import cupy

    _check(cupy, cupy.asarray)


def test_groups_built_on_the_cupy_branches_equal_numpy_s(monkeypatch):
    """The whole group building over real code (three stdlib packages) through the CuPy branches: the same
    groups as on NumPy's."""
    import sysconfig
    from pathlib import Path

    from gpubatch.analyze.batched import Thresholds
    from gpubatch.analyze.clones import cover, groups, places
    from gpubatch.analyze.clones.search import CloneSettings, find_clones
    from gpubatch.analyze.discover import discover
    from gpubatch.analyze.job import Policy, _analyze_batch, prepare_batch
    from gpubatch.analyze.parse import parsed
    from gpubatch.engine import numpy_backend

    roots = [Path(sysconfig.get_paths()["stdlib"]) / d for d in ("email", "json", "unittest")]
    settings = CloneSettings()
    reports = _analyze_batch(prepare_batch(list(parsed(discover(roots), 1, 4_000_000, None))), numpy_backend(),
                             Policy(Thresholds(), duplicates=settings))
    reports = [r for r in reports if r.features is not None]
    feats, paths = [r.features for r in reports], [r.path for r in reports]
    want = find_clones(numpy_backend(), feats, paths, settings)
    fake = _not_numpy()
    for module in (cover, groups, places):
        monkeypatch.setattr(module, "array_module", lambda a: fake)
    got = find_clones(numpy_backend(), feats, paths, settings)
    assert len(want) > 20 and {g.kind for g in want} == {1, 2, 3}
    assert got == want
