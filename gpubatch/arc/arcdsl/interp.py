"""A solver run line by line over a batch of samples: each line once for every sample that reaches it.

This is the per-value reference path (the primitives of `prims_*`, on the host): its results are what every
batched form must equal. A sample whose line raises becomes an error (the exception's type and message) and
leaves the batch; the others go on. A value too deep to compute (runaway recursion) is an error too.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .registry import primitives
from .solvers import Ref, Solver

_PRIMS: dict[str, Any] = {}


@dataclass(frozen=True)
class SampleError:
    """Why a solver gave no value for one sample."""

    line: int
    error: str


def _table() -> dict[str, Any]:
    if not _PRIMS:
        _PRIMS.update(primitives())
    return _PRIMS


def _value(ref: Ref, env: dict[str, Any], prims: dict[str, Any]) -> Any:
    if ref.kind == "var":
        return env[ref.value]
    return prims[ref.value] if ref.kind == "prim" else ref.value


def run_solver(solver: Solver, grids: Sequence[Any]) -> list[Any]:
    """The solver's output for each input grid (tuples of tuples), or a SampleError where it raised."""
    prims = _table()
    envs: list[dict[str, Any] | None] = [{"I": g} for g in grids]
    out: list[Any] = [None] * len(grids)
    for line in solver.lines:
        for k, env in enumerate(envs):
            if env is None:
                continue
            try:
                fn = _value(line.func, env, prims)
                env[line.target] = fn(*(_value(a, env, prims) for a in line.args)) if line.call else fn
            except (Exception, RecursionError) as exc:  # noqa: BLE001 - the oracle raises here too: an error
                out[k], envs[k] = SampleError(line.lineno, f"{type(exc).__name__}: {exc}"[:200]), None
    for k, env in enumerate(envs):
        if env is not None:
            out[k] = env[solver.result]
    return out
