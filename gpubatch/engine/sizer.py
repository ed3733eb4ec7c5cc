"""Dynamic batch sizing: keep batches within a fraction of free device memory, grow while throughput rises.

The sizer starts at `initial`, doubles while measured items/s improves and memory allows, returns to the
best size once throughput falls, and after an out-of-memory error caps itself below the size that failed.
A caller that knows how its items should be cut (one batch of balanced cost per device) gives a plan of
sizes instead; the out-of-memory cap still applies to it.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class BatchSizer:
    initial: int
    min_size: int = 1
    max_size: int = 1 << 20
    dynamic: bool = True
    max_fraction: float = 0.8
    bytes_per_item: float = 0.0
    _size: int = field(init=False)
    _best_rate: float = field(default=0.0, init=False)
    _best_size: int = field(default=0, init=False)
    _settled: bool = field(default=False, init=False)
    _ceiling: int = field(init=False)
    _plan: deque = field(default_factory=deque, init=False)

    def __post_init__(self) -> None:
        self._ceiling = self.max_size
        self._size = self._clamp(self.initial)

    def _clamp(self, n: int) -> int:
        return max(self.min_size, min(int(n), self._ceiling))

    def memory_cap(self, free_bytes: int | None) -> int | None:
        if free_bytes is None or self.bytes_per_item <= 0:
            return None
        return max(self.min_size, int(free_bytes * self.max_fraction / self.bytes_per_item))

    def follow(self, sizes) -> None:
        """Cut the next batches to these sizes, in order (then size as before)."""
        self._plan.extend(int(n) for n in sizes)

    def next_size(self, free_bytes: int | None = None) -> int:
        """Size of the next batch given the device's free bytes (None on the CPU)."""
        if self._plan:
            return max(1, min(self._plan.popleft(), self._ceiling))
        cap = self.memory_cap(free_bytes)
        size = self._size if cap is None else min(self._size, cap)
        return self._clamp(size)

    def observe(self, size: int, seconds: float, bytes_used: int | None = None) -> None:
        """Learn from a finished batch: its measured memory per item and throughput."""
        if bytes_used and size:
            self.bytes_per_item = max(self.bytes_per_item, bytes_used / size)
        if not self.dynamic or self._settled or size < self._size or seconds <= 0:
            return
        rate = size / seconds
        if rate >= self._best_rate * 1.05:
            self._best_rate, self._best_size = rate, size
            self._size = self._clamp(size * 2)
        elif rate < self._best_rate * 0.9:
            self._size, self._settled = self._clamp(self._best_size), True
        else:
            self._size = self._clamp(size * 2)

    def on_oom(self, failed_size: int) -> None:
        """Never try `failed_size` again in this run."""
        self._ceiling = max(self.min_size, min(self._ceiling, failed_size // 2))
        self._size = self._clamp(self._size)

    @property
    def learning(self) -> bool:
        """Whether batch timings still steer the size (then they must be synchronized)."""
        return self.dynamic and not self._settled

    @property
    def current(self) -> int:
        return self._size
