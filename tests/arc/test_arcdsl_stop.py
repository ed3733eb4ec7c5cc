"""The first Ctrl-C of a battery: no further line runs, a sample whose lines did not all run is stopped, and so
is its pair; what ran before keeps its outcome (a line that failed earlier stays that sample's error)."""
from __future__ import annotations

from gpubatch.arc.arcdsl import interp
from gpubatch.arc.arcdsl.battery import STATUSES, _outcome
from gpubatch.arc.arcdsl.interp import SampleError, SampleStopped, run_solver
from gpubatch.arc.arcdsl.solvers import parse_solvers
from gpubatch.arc.tasks import Task

G = ((1, 2), (3, 4))
SOLVER = parse_solvers("def solve_x(I):\n    x1 = height(I)\n    x2 = divide(ONE, x1)\n    x3 = rot90(I)\n"
                       "    return x3\n")[0]


def _stop_after(monkeypatch, checks: int) -> None:
    """stop_requested() answers no `checks` times, then yes (as the first Ctrl-C would, mid-run)."""
    calls = iter(range(10 ** 6))
    monkeypatch.setattr(interp, "stop_requested", lambda: next(calls) >= checks)


def test_a_run_asked_to_stop_runs_no_line(monkeypatch):
    _stop_after(monkeypatch, 0)
    assert run_solver(SOLVER, [G, G]) == [SampleStopped(), SampleStopped()]


def test_a_stop_mid_run_keeps_the_errors_that_came_first(monkeypatch):
    _stop_after(monkeypatch, 2)  # lines 1 and 2 run; rot90 never does
    out = run_solver(SOLVER, [G, ()])  # an empty grid's height is 0: `divide` raised before the stop
    assert out[0] == SampleStopped()
    assert isinstance(out[1], SampleError) and out[1].line == 3


def test_a_pair_with_a_stopped_sample_is_stopped():
    task = Task("t", [(G, G)], [G], [G])
    pair = _outcome(SOLVER, task, [G, SampleStopped()])
    assert (pair.status, pair.samples) == ("stopped", ("stopped", "stopped"))
    assert STATUSES[-1] == "stopped"


def test_nothing_changes_when_no_stop_comes(monkeypatch):
    _stop_after(monkeypatch, 10 ** 5)
    assert run_solver(SOLVER, [G]) == [((3, 1), (4, 2))]
