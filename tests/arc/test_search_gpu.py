"""The search gives the same fits and predictions on CuPy as on NumPy."""
import pytest

from gpubatch.arc.batt import search_shard
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("depth, max_states, gpu_chunk", [(2, 2_000_000, 2048), (3, 40_000, 0)])
def test_search_cupy_equals_numpy(depth, max_states, gpu_chunk):
    """Depth 3 under a binding state budget, with the GPU's own chunk size (0: sized from free memory): the
    canonical order makes the kept states, fits and tie-breaks independent of the chunking."""
    from gpubatch.engine.backend import cupy_backend

    tasks, _ = load_tasks("arc1-train", 12)
    cpu = search_shard(tasks, numpy_backend(), SearchConfig(depth=depth, max_states=max_states, chunk_grids=2048))
    gpu = search_shard(tasks, cupy_backend(0), SearchConfig(depth=depth, max_states=max_states,
                                                            chunk_grids=gpu_chunk))
    for a, b in zip(cpu, gpu):
        assert (a.id, a.fits, a.predictions, a.correct, a.states) == (b.id, b.fits, b.predictions, b.correct, b.states)


def test_run_batt_warms_the_gpu_first_and_results_do_not_change():
    """`run_batt` readies the device before its timed search (a small made-up search compiles and loads the
    kernels); results equal a search on NumPy."""
    from gpubatch.arc.batt import run_batt
    from gpubatch.engine import BatchExecutor, EngineSettings

    tasks, _ = load_tasks("arc1-train", 6)
    cfg = SearchConfig(depth=2, max_states=20_000)
    with BatchExecutor(EngineSettings(device="cuda")) as ex:
        res, seconds, start = run_batt(tasks, ex, cfg)
    assert start > 0 and seconds > 0
    cpu = search_shard(tasks, numpy_backend(), cfg)
    assert [(r.id, r.fits, r.predictions, r.states) for r in res] == [(r.id, r.fits, r.predictions, r.states)
                                                                      for r in cpu]
