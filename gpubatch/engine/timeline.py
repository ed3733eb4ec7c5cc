"""Timing the n steps of a loop without stalling the device: n + 1 reusable marks.

A mark records the host clock and, on the GPU, a CUDA event on the current stream (no synchronisation), so
the host keeps queueing work while the device runs behind. After the loop, `intervals()` waits for the last
mark and reads each step's host and device seconds. The events are created once and reused every round:
creating two events per step cost more host time than launching the step's kernels.
"""
from __future__ import annotations

import time


class Timeline:
    """Marks 0..n around n consecutive steps; read with `intervals()` once the last mark is set."""

    def __init__(self, backend, n: int) -> None:
        self.n = n
        self.host = [0.0] * (n + 1)
        self.events = [backend.xp.cuda.Event() for _ in range(n + 1)] if backend.is_gpu else None

    def mark(self, i: int) -> None:
        self.host[i] = time.perf_counter()
        if self.events is not None:
            self.events[i].record()

    def intervals(self) -> list[tuple[float, float]]:
        """(host seconds, device seconds) of each step; device seconds are 0.0 on the CPU."""
        host = [self.host[i + 1] - self.host[i] for i in range(self.n)]
        if self.events is None:
            return [(h, 0.0) for h in host]
        import cupy

        self.events[-1].synchronize()
        ev = self.events
        return [(host[i], cupy.cuda.get_elapsed_time(ev[i], ev[i + 1]) / 1e3) for i in range(self.n)]
