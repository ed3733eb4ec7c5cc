"""Shared fixtures: GPU tests skip cleanly where CuPy or a GPU is missing."""
import pytest


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
