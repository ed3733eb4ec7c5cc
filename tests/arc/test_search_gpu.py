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
