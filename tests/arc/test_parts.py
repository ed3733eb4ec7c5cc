"""`parts(stat)`: a grid divided by full lines of one colour (0 included), summarised one cell per part; the
batched family against its reference, and the ARC-AGI-1 training tasks it serves."""
import pytest

from gpubatch.arc.batt import search_shard
from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend

DIVIDED = [[1, 1, 5, 0, 2],
           [3, 1, 5, 2, 2],
           [5, 5, 5, 5, 5],
           [0, 0, 5, 0, 7]]
BLANK = [[4, 4, 0, 0, 0, 6],
         [0, 0, 0, 0, 0, 0],
         [0, 4, 0, 3, 3, 3]]


@pytest.mark.parametrize("stat, grid, want", [
    ("major", DIVIDED, [[1, 2], [0, 7]]),  # grey lines split 2 x 2: each part's most common colour
    ("count", DIVIDED, [[4, 3], [0, 1]]),
    ("major", BLANK, [[4, 6], [4, 3]]),  # a blank row and a blank column split too (irregular bands)
    ("count", BLANK, [[2, 1], [1, 3]]),
])
def test_parts_summarises_each_part(stat, grid, want):
    prim = REGISTRY.get("parts", stat=stat)
    assert prim(GridBatch.from_lists([grid])).to_lists() == [want]
    assert prim.reference(grid) == want


def test_no_divider_or_one_part_is_invalid():
    prim = REGISTRY.get("parts", stat="major")
    for grid in ([[1, 2], [3, 4]], [[0, 0], [1, 2]]):  # no full line; a blank row leaves one part
        assert prim(GridBatch.from_lists([grid])).to_lists() == [None]
        assert prim.reference(grid) is None


def test_arc_training_tasks_of_divided_grids():
    tasks, _ = load_tasks("arc1-train", ids=["6773b310", "780d0b14"])
    want = {"6773b310": "parts(stat=count) | cmap(m=1>0 2>1)", "780d0b14": "parts(stat=major)"}
    for res in search_shard(tasks, numpy_backend(), SearchConfig(depth=1)):
        assert all(res.correct) and res.fits[0].program == want[res.id], res.id
