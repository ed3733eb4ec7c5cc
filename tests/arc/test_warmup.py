"""The GPU warm-up: primitives' kernels compiled by worker processes into a cold cache, never on a warm one."""
import pytest

from gpubatch.arc import warmup
from gpubatch.arc.search import builtin_primitives
from gpubatch.engine import numpy_backend


def test_no_worker_on_the_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path))
    backend = numpy_backend()
    assert warmup.precompile(backend, builtin_primitives()) == 0
    warmup.mark_warm(backend, builtin_primitives())
    assert list(tmp_path.iterdir()) == []


def test_sample_grids_are_fixed_and_use_every_colour():
    grids = warmup.sample_grids()
    assert grids == warmup.sample_grids() and len(grids) == 3
    assert {v for g in grids for row in g for v in row} == set(range(10))


@pytest.mark.gpu
def test_cold_cache_compiles_in_workers_then_is_marked_warm(tmp_path, monkeypatch):
    """A cold cache (an empty folder): two workers fill it with the primitives' modules; once marked warm, no
    worker starts; another set of primitives is another marker. In a daemonic process, or with the cache in
    memory, none starts."""
    from gpubatch.engine.backend import cupy_backend

    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path))
    backend = cupy_backend(0)
    prims = builtin_primitives()[:12]
    assert warmup.precompile(backend, prims, workers=2) == 2
    assert any(tmp_path.glob("*.cubin"))
    mark = warmup.marker(backend, prims)
    assert mark is not None and not mark.exists()
    warmup.mark_warm(backend, prims)
    assert mark.exists()
    assert warmup.precompile(backend, prims, workers=2) == 0
    assert warmup.marker(backend, prims[:6]) != mark
    monkeypatch.setattr(warmup, "_daemonic", lambda: True)  # a Dask worker may start no process
    assert warmup.precompile(backend, prims[:6], workers=2) == 0
    monkeypatch.setattr(warmup, "_daemonic", lambda: False)
    monkeypatch.setenv("CUPY_CACHE_IN_MEMORY", "1")
    assert warmup.precompile(backend, prims[:6], workers=2) == 0


def test_a_failing_worker_leaves_the_compiling_to_the_warm_up_search(tmp_path, monkeypatch):
    """Compiling ahead only saves time: when a worker fails (here: no CuPy to start), precompile gives up
    quietly, ends its pool and reports no worker; the cache is not marked warm."""
    from concurrent.futures import ThreadPoolExecutor

    from gpubatch.engine import Backend

    pools = []

    def pool(n):
        pools.append(ThreadPoolExecutor(n))
        return pools[-1]

    monkeypatch.setattr(warmup, "worker_pool", pool)
    monkeypatch.setattr(warmup, "marker", lambda backend, prims: tmp_path / "mark")
    monkeypatch.setattr(warmup, "_part", lambda device, steps: 1 / 0)
    gpu_like = Backend("cupy", numpy_backend().xp, 0)
    assert gpu_like.is_gpu
    assert warmup.precompile(gpu_like, builtin_primitives()[:4], workers=2) == 0
    assert pools and pools[0]._shutdown and not (tmp_path / "mark").exists()
