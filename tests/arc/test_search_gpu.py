"""The search gives the same fits and predictions on CuPy as on NumPy."""
import pytest

from gpubatch.arc.batt import search_shard
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend

pytestmark = pytest.mark.gpu


def test_search_cupy_equals_numpy():
    from gpubatch.engine.backend import cupy_backend

    tasks, _ = load_tasks("arc1-train", 12)
    cfg = SearchConfig(depth=2, chunk_grids=2048)
    cpu = search_shard(tasks, numpy_backend(), cfg)
    gpu = search_shard(tasks, cupy_backend(0), cfg)
    for a, b in zip(cpu, gpu):
        assert (a.id, a.fits, a.predictions, a.correct, a.states) == (b.id, b.fits, b.predictions, b.correct, b.states)
