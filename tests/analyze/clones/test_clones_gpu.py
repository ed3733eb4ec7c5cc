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
