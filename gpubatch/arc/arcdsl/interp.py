"""Solvers run line by line over a batch of samples: each line once for every sample that reaches it, and a
line that several solvers share (the same primitive on the same values: `objects(I, T, F, T)` opens over a
hundred of arc-dsl's solvers) once for all of them.

This is the per-value reference path (the primitives of `prims_*`, on the host): its results are what every
batched form must equal. A solver's output for a sample is the value it returns, or the first of its lines that
raised there (the exception's type and message), as Python would stop there; the other samples go on. Once
a graceful interrupt asks the run to stop (the first Ctrl-C), no further line runs: a sample whose lines did not
all run is a SampleStopped.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Sequence

from ...engine.gcpause import gc_paused
from ...engine.procs import stop_requested
from .registry import solver_table
from .solvers import Ref, Solver

_PRIMS: dict[str, Any] = {}
CHECK_EVERY_S = 0.05  # how often a long line asks whether the run should stop (each check may take a lock)


@dataclass(frozen=True)
class SampleError:
    """Why a solver gave no value for one sample."""

    line: int
    error: str


@dataclass(frozen=True)
class SampleStopped:
    """A sample whose lines did not all run: the run was asked to stop first."""


class _Failed:
    """A value that could not be computed for one sample (its first cause)."""

    __slots__ = ("error",)

    def __init__(self, error: str) -> None:
        self.error = error


_STOPPED = _Failed("stopped")  # a value never computed: the run stopped first


def _table() -> dict[str, Any]:
    if not _PRIMS:
        _PRIMS.update(solver_table())
    return _PRIMS


def _key(ref: Ref, env: dict[str, int]) -> tuple:
    if ref.kind == "var":
        return ("e", env[ref.value])
    if ref.kind == "prim":
        return ("prim", ref.value)
    # the value travels in its key; type and repr keep True and 1 (or (True, 1) and (1, 1)) apart
    return (ref.kind, type(ref.value).__name__, repr(ref.value), ref.value)


def _plan(solvers: Sequence[Solver]) -> tuple[list[tuple], list[list[int]], list[int]]:
    """Shared expressions: each line's key (callee and argument keys, arguments by expression), every solver's
    lines as expression ids, and its result's id. Id 0 is the input grid."""
    ids: dict[tuple, int] = {("I",): 0}
    exprs: list[tuple] = [("I",)]
    lines, results = [], []
    for s in solvers:
        env = {"I": 0}
        mine = []
        for line in s.lines:
            key = (_key(line.func, env), tuple(_key(a, env) for a in line.args), line.call)
            if key not in ids:
                ids[key] = len(exprs)
                exprs.append(key)
            env[line.target] = ids[key]
            mine.append(ids[key])
        lines.append(mine)
        results.append(env[s.result])
    return exprs, lines, results


def _arg(key: tuple, values: list[dict], k: int, prims: dict) -> Any:
    if key[0] == "e":
        return values[key[1]][k]
    return prims[key[1]] if key[0] == "prim" else key[3]


def evaluate_one(expr: tuple, values: list[dict[int, Any]], k: int, prims: dict) -> Any:
    """One expression's value for sample `k`, or the first failure that reached it."""
    func, args, call = expr
    try:
        fn = _arg(func, values, k, prims)
        vals = [_arg(a, values, k, prims) for a in args]
        bad = next((v for v in (fn, *vals) if isinstance(v, _Failed)), None)
        return bad if bad is not None else (fn(*vals) if call else fn)
    except Exception as exc:  # noqa: BLE001 - the oracle raises here too (RecursionError included)
        return _Failed(failure_text(exc))


# unpacking's messages, in CPython's words and in Cython's (the compiled primitives, `native`), read alike
_SHORT = re.compile(r"not enough values to unpack \(expected \d+, got (\d+)\)|need more than (\d+) values? to unpack")
_LONG = re.compile(r"too many values to unpack \(expected (\d+)(?:, got \d+)?\)")
_ARITY = re.compile(r"(\S+)\(\) (?:takes \d+ positional arguments? but \d+ (?:were|was) given|missing \d+ required "
                    r"positional arguments?: .*|takes (?:exactly|at least|at most) \d+ positional arguments? \(\d+ given\))")
_NOT_ITERABLE = re.compile(r"cannot unpack non-iterable (\S+) object")  # Cython: "'int' object is not iterable"
_STARRED = re.compile(r"Value after \* must be an iterable, not (\S+)")  # CPython's `(*a, *b)`; Cython: "not iterable"
_UNSLICEABLE = re.compile(r"'(\S+)' object is unsliceable")  # Cython's slice of a set; CPython: "not subscriptable"


def failure_text(exc: BaseException) -> str:
    """"Type: message" of a sample's error, the same whether the primitives run as Python or compiled: what
    Cython's messages lack (an unpacking's count of values wanted, a call's parameters, that a non-iterable was
    unpacked or starred rather than iterated) is left out, and its "unsliceable" reads as CPython's "not
    subscriptable"."""
    text = str(exc)
    if type(exc) is TypeError and "positional argument" in text and (m := _ARITY.fullmatch(text)):
        text = f"{m.group(1)}() called with the wrong number of arguments"
    elif type(exc) is TypeError and (m := _NOT_ITERABLE.fullmatch(text) or _STARRED.fullmatch(text)):
        text = f"'{m.group(1)}' object is not iterable"
    elif type(exc) is TypeError and (m := _UNSLICEABLE.fullmatch(text)):
        text = f"'{m.group(1)}' object is not subscriptable"
    elif type(exc) is ValueError and "unpack" in text:
        if m := _SHORT.fullmatch(text):
            text = f"not enough values to unpack (got {m.group(1) or m.group(2)})"
        elif m := _LONG.fullmatch(text):
            text = f"too many values to unpack (expected {m.group(1)})"
    return f"{type(exc).__name__}: {text}"[:200]


def _evaluate(exprs: list[tuple], need: list[set[int]], values: list[dict[int, Any]], prims: dict,
              timings: dict[str, list] | None = None) -> None:
    """Every expression in order, for the samples that need it; none once the run is asked to stop (checked
    before each expression, and every CHECK_EVERY_S within a long one). `timings`, where given, gets per
    callee (`callee_name`) [lines, sample evaluations, seconds]."""
    stopped = False
    for e in range(1, len(exprs)):
        expr, out = exprs[e], values[e]
        stopped = stopped or stop_requested()
        began = checked = time.perf_counter()
        for k in sorted(need[e]):
            if not stopped and time.perf_counter() - checked > CHECK_EVERY_S:
                stopped, checked = stop_requested(), time.perf_counter()
            out[k] = _STOPPED if stopped else evaluate_one(expr, values, k, prims)
        if timings is not None:
            got = timings.setdefault(callee_name(exprs, e), [0, 0, 0.0])
            got[0] += 1
            got[1] += len(need[e])
            got[2] += time.perf_counter() - began


def callee_name(exprs: list[tuple], e: int) -> str:
    """What expression `e` calls, for the stats: a primitive's name, or for a function a line computed, the
    primitive that made it (`a function from rbind`)."""
    func = exprs[e][0]
    if func[0] == "prim":
        return func[1]
    if func[0] == "e" and func[1] > 0:
        maker = exprs[func[1]][0]
        return f"a function from {maker[1]}" if maker[0] == "prim" else "a function from a function"
    return "a constant or the input"


def run_many(jobs: Sequence[tuple[Solver, Sequence[int]]], grids: Sequence[Any],
             timings: dict[str, list] | None = None) -> list[list[Any]]:
    """Each job (a solver and the indexes of the grids it runs on): its output per grid, in the job's order, or a
    SampleError where one of its lines raised. `timings`: as `_evaluate` fills it (host time per primitive)."""
    prims = _table()
    exprs, lines, results = _plan([s for s, _ in jobs])
    need: list[set[int]] = [set() for _ in exprs]
    for (_, samples), mine in zip(jobs, lines):
        for e in mine:
            need[e].update(samples)
    values: list[dict[int, Any]] = [dict(enumerate(grids))] + [{} for _ in exprs[1:]]
    with gc_paused():
        _evaluate(exprs, need, values, prims, timings)
        outputs = [_outputs(solver, samples, mine, result, values)
                   for (solver, samples), mine, result in zip(jobs, lines, results)]
        values.clear()  # the values freed while the collector is still off, not traversed once more on the way
    return outputs


def _outputs(solver: Solver, samples: Sequence[int], mine: list[int], result: int, values: list[dict]) -> list:
    """One job's output per sample: the solver's value, a SampleError at the first line that failed, or
    SampleStopped when the run stopped before that."""
    got = []
    for k in samples:
        first = next(((line, values[e][k]) for line, e in zip(solver.lines, mine)
                      if isinstance(values[e][k], _Failed)), None)
        if first is None:
            got.append(values[result][k])
        else:
            got.append(SampleStopped() if first[1] is _STOPPED else SampleError(first[0].lineno, first[1].error))
    return got


def run_solver(solver: Solver, grids: Sequence[Any]) -> list[Any]:
    """The solver's output for each input grid (tuples of tuples), or a SampleError where it raised."""
    return run_many([(solver, range(len(grids)))], grids)[0]
