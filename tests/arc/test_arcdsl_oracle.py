"""The arc-dsl battery against arc-dsl itself (the oracle in ../shared): every shared solver on its own task,
sample by sample, and the same solved tasks; a fixed sample of the cross battery; and each primitive on random
values (hypothesis), equal to the oracle's value or raising where it raises."""
from __future__ import annotations

import pytest

from gpubatch.arc.arcdsl.battery import _outcome
from gpubatch.arc.arcdsl.interp import SampleError, run_solver
from gpubatch.arc.arcdsl.solvers import read_solvers
from tests.arc.oracle import MISSING, SOLVERS_FILE, oracle, run_oracle

pytestmark = pytest.mark.skipif(oracle() is None, reason=MISSING)
CHUNKS = 6  # the own battery in pieces, so that test workers share it


def _tasks():
    from gpubatch.arc.tasks import load_tasks

    tasks, problems = load_tasks("arc1-train")
    assert not problems
    return {t.id: t for t in tasks}


def _inputs(task):
    return [g for g, _ in task.train] + list(task.test_inputs)


def _same(ours, theirs) -> bool:
    if isinstance(theirs, Exception):
        return isinstance(ours, SampleError)
    return not isinstance(ours, SampleError) and ours == theirs


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_own_battery_equals_the_oracle_per_sample(chunk):
    """Every shared solver on its own task: each sample's output equal to the oracle's (or both raise), and the
    pair solved exactly when the oracle's outputs are all right."""
    _, osolvers = oracle()
    tasks = _tasks()
    solvers = read_solvers(SOLVERS_FILE)[chunk::CHUNKS]
    assert solvers and not [s for s in solvers if s.unsupported]
    for s in solvers:
        task = tasks[s.task_id]
        grids = _inputs(task)
        ours = run_solver(s, grids)
        theirs = [run_oracle(getattr(osolvers, s.name), g) for g in grids]
        assert [_same(a, b) for a, b in zip(ours, theirs)] == [True] * len(grids), s.name
        wanted = [o for _, o in task.train] + list(task.test_outputs)
        assert (_outcome(s, task, ours).status == "solved") == (theirs == wanted), s.name


def test_cross_battery_sample_equals_the_oracle():
    """A fixed sample of the cross battery (every 25th solver on every 40th task): each sample equal."""
    _, osolvers = oracle()
    tasks = sorted(_tasks().values(), key=lambda t: t.id)[::40]
    solvers = read_solvers(SOLVERS_FILE)[::25]
    checked = errors = 0
    for s in solvers:
        grids = [g for t in tasks for g in _inputs(t)]
        ours = run_solver(s, grids)
        theirs = [run_oracle(getattr(osolvers, s.name), g) for g in grids]
        for a, b in zip(ours, theirs):
            assert _same(a, b), s.name
        checked += len(grids)
        errors += sum(isinstance(b, Exception) for b in theirs)
    assert checked > 400 and 0 < errors < checked  # both kinds of outcome were compared
