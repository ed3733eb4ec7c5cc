"""The clone search gives the same groups on CuPy as on NumPy, over real code (several stdlib packages)."""
import sysconfig
from pathlib import Path

import pytest

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.clones.search import CloneSettings, find_clones
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, _analyze_batch, prepare_batch
from gpubatch.analyze.parse import parsed
from gpubatch.engine import numpy_backend

pytestmark = pytest.mark.gpu


def test_cupy_groups_equal_numpy():
    from gpubatch.engine.backend import cupy_backend

    roots = [Path(sysconfig.get_paths()["stdlib"]) / d for d in ("email", "json", "asyncio", "unittest", "distutils")]
    files = list(parsed(discover(roots), 4, 4_000_000, None))
    settings = CloneSettings()
    reports = _analyze_batch(prepare_batch(files), numpy_backend(), Policy(Thresholds(), duplicates=settings))
    reports = [r for r in reports if r.features is not None]
    feats, paths = [r.features for r in reports], [r.path for r in reports]
    cpu = find_clones(numpy_backend(), feats, paths, settings)
    gpu = find_clones(cupy_backend(0), feats, paths, settings)
    assert len(cpu) > 50 and {g.kind for g in cpu} == {1, 2, 3}
    assert cpu == gpu


def test_cupy_thins_long_runs_as_numpy_does():
    """A generated table in one file and in two (`detect.shifted_runs`, past the work bound), and `verify` in
    slices: the same segments on both backends."""
    import cupy
    import numpy as np

    import gpubatch.analyze.clones.detect as d
    from tests.analyze.clones.test_detect import keys

    rep = [1, 2, 3] * 20_000
    for files in ([rep], [rep, [9] + rep]):
        shape, fo, starts, ends = keys(*files)
        host = d.find_segments(np, shape, shape, shape, fo, starts, ends, 4, np.asarray)
        on = [cupy.asarray(a) for a in (shape, shape, shape, fo, starts, ends)]
        dev = d.find_segments(cupy, *on, 4, cupy.asnumpy)
        assert all(np.array_equal(a, b) for a, b in zip(host, dev))
