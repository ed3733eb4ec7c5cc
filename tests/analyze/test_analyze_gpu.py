"""The batched metrics and rules give identical reports on CuPy and NumPy, over real code."""
import sysconfig
from pathlib import Path

import pytest

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, _analyze_batch, prepare_batch
from gpubatch.analyze.parse import parsed
from gpubatch.engine import numpy_backend

pytestmark = pytest.mark.gpu


def test_cupy_reports_equal_numpy():
    from gpubatch.engine.backend import cupy_backend

    roots = [Path(sysconfig.get_paths()["stdlib"]) / d for d in ("email", "json", "asyncio", "unittest")]
    files = list(parsed(discover(roots), 4, 4_000_000, None))
    policy = Policy(Thresholds(max_complexity=5, banned_calls=("os.system",), banned_imports=("pickle",)))
    cpu = _analyze_batch(prepare_batch(files), numpy_backend(), policy)
    device = cupy_backend(0, cache_size=64)
    gpu = _analyze_batch(prepare_batch(files), device, policy)
    again = _analyze_batch(prepare_batch(files), device, policy)  # the constant tables: from the device cache
    assert len(cpu) == len(files) > 50
    assert cpu == gpu == again
    assert device.cache.hits >= device.cache.misses > 0
    assert sum(len(r.findings) for r in cpu) > 10
    assert all(r.metrics["halstead"]["N1"] >= 0 for r in cpu) and any(b.halstead for r in cpu for b in r.blocks)


def test_cupy_mccabe_equals_numpy():
    """C901 under mccabe's definition (block depths, nested sums) on both devices, over real code."""
    from gpubatch.engine.backend import cupy_backend

    roots = [Path(sysconfig.get_paths()["stdlib"]) / d for d in ("email", "asyncio")]
    files = list(parsed(discover(roots), 4, 4_000_000, None))
    policy = Policy(Thresholds(max_complexity=3, complexity="mccabe"))
    cpu = _analyze_batch(prepare_batch(files), numpy_backend(), policy)
    gpu = _analyze_batch(prepare_batch(files), cupy_backend(0, cache_size=64), policy)
    assert cpu == gpu
    assert sum(f.code == "C901" for r in cpu for f in r.findings) > 50
