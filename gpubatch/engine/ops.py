"""What the executor runs: a named batch op over a list of items, written once against `backend.xp`.

An op's `run(items, backend)` returns one result per item, in order. `prepare` (optional) is host work done
ahead of the device in the prefetch pool. `warm` (optional) readies a backend for the op (compiles and loads
its kernels, first-touch allocations) once, before timed batches. `bytes_per_item` feeds the batch sizer;
`work` (units the op defines: AST nodes, grid cells x primitives, bytes) and `cpu_threshold` feed dispatch by
work (`engine/dispatch.py`).
Ops that travel to worker processes must be built from module-level functions so that they pickle.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .backend import Backend


def _count(items: Sequence[Any]) -> int:
    return len(items)


@dataclass(frozen=True)
class BatchOp:
    """A named batched operation."""

    name: str
    run: Callable[[Any, Backend], Sequence[Any]]
    prepare: Callable[[list[Any]], Any] | None = None
    warm: Callable[[Backend], None] | None = None
    bytes_per_item: int = 0
    work: Callable[[Sequence[Any]], float] = _count
    cpu_threshold: int = 0  # seed of dispatch by work: a batch with less work runs on NumPy (0: none)
    gpu_gain: float = 0.5  # share of the op's NumPy time the GPU is expected to save, before it is measured
    prefetch: int = 0  # most batches prepared ahead for this op (0: gpu.performance.prefetch): large ones cap it


@dataclass(frozen=True)
class ItemFailure:
    """Result slot of an item whose op raised: the run goes on and reports it."""

    error: str
    kind: str

    @classmethod
    def of(cls, exc: BaseException) -> "ItemFailure":
        return cls(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, type(exc).__name__)


def is_oom(exc: BaseException) -> bool:
    """Out-of-memory from either backend (cupy's OutOfMemoryError subclasses MemoryError)."""
    if isinstance(exc, MemoryError):
        return True
    return type(exc).__name__ in ("OutOfMemoryError", "CUDARuntimeError") and "memory" in str(exc).lower()
