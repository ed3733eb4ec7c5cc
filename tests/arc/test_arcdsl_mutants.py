"""arc-dsl's solvers mutated (a seeded few, `tests/arc/mutants.py`): every sample of ours equal to the oracle's,
on values the shared solvers never make. The held-out solvers are other programs over the same primitives."""
from __future__ import annotations

import pytest

from tests.arc.mutants import fuzz
from tests.arc.oracle import MISSING, oracle

pytestmark = pytest.mark.skipif(oracle() is None, reason=MISSING)


def test_mutated_solvers_agree_with_the_oracle_sample_by_sample():
    from gpubatch.arc.tasks import load_tasks

    tasks = {t.id: t for t in load_tasks("arc1-train")[0]}
    tally = fuzz(tasks, seed=0, count=400)
    assert tally.differences == []
    assert tally.mutants >= 380 and tally.agreed >= 4000, vars(tally)  # most samples are compared, not left out
