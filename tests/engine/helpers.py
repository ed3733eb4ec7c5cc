"""Module-level ops for engine tests (module level so they pickle into spawned workers)."""
from contextlib import contextmanager

import numpy as np

from gpubatch.engine import Backend, BatchOp


class FakeOOM(MemoryError):
    """Stands in for cupy.cuda.memory.OutOfMemoryError (which subclasses MemoryError)."""


def square_run(items, backend):
    arr = backend.xp.asarray(np.asarray(items, dtype=np.int64))
    return [int(v) for v in backend.asnumpy(arr * arr)]


def sized_run(items, backend):
    """Each result records the batch it ran in, so tests can see batch sizes from any process."""
    return [(x * x, len(items)) for x in items]


WARMED_PIDS: set = set()


def warm_here(backend):
    import os

    WARMED_PIDS.add(os.getpid())


def warmed_run(items, backend):
    """Whether the process running this batch was warmed first."""
    import os

    return [os.getpid() in WARMED_PIDS for _ in items]


def oom_at_8_and_16(items, backend):
    if len(items) in (8, 16):
        raise FakeOOM(f"fake out of memory at {len(items)}")
    return [x * 3 for x in items]


def fails_on_13(items, backend):
    if 13 in items:
        raise ValueError("item 13 is broken")
    return [x + 1 for x in items]


def gpu_oom_above_2(items, backend):
    if backend.is_gpu and len(items) > 2:
        raise FakeOOM("fake device OOM")
    return [(x, backend.label) for x in items]


def length_run(items, backend):
    return [len(x) for x in items]


def slow_first_run(items, backend):
    """Item 0 takes 2 s, every other 20 ms; each result names the process that ran it."""
    import os
    import time

    time.sleep(sum(2.0 if x == 0 else 0.02 for x in items))
    return [(x, os.getpid()) for x in items]


LENGTH = BatchOp("len", length_run)
SLOW_FIRST = BatchOp("slow first", slow_first_run)
SQUARE = BatchOp("square", square_run)
SIZED = BatchOp("sized", sized_run)
OOM = BatchOp("oom", oom_at_8_and_16)
FAILS = BatchOp("fails", fails_on_13)
WARMED = BatchOp("warmed", warmed_run, warm=warm_here)
GPU_OOM = BatchOp("gpu_oom", gpu_oom_above_2, work=lambda items: len(items))


class FakeGpu(Backend):
    """A NumPy-backed stand-in for a GPU backend, for dispatch and fallback logic in CI."""

    def __init__(self) -> None:
        super().__init__("cupy", np, 0)

    def asnumpy(self, a):
        return np.asarray(a)

    def pool_bytes(self) -> int:
        return 0

    def release(self) -> None:
        self.released = True

    @contextmanager
    def timed(self, sync=True):
        yield [0.0]
