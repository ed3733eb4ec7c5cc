"""Dispatch by work for `--device auto`: each batch runs on NumPy or on the GPU, chosen from the batch's work
and what each device has been measured to cost for that op.

Rules, first match decides (the reason is counted in the stats):
1. the batch's work is below the op's threshold (`gpu.performance.cpu_threshold`, else the op's own seed,
   measured per op): NumPy, "small";
2. both devices have run this op: the one whose measured seconds per unit of work is lower, "measured";
3. NumPy has not run it, the batch is cheap (under `CALIBRATE` x the threshold) and more batches will follow:
   NumPy first, "calibrating";
4. the GPU is not started and the NumPy time it would save on the work left (the job's estimate, else this
   batch; the op's `gpu_gain` of it) is less than starting it costs (CuPy's import and context, the op's
   kernels; measured once done): NumPy, "start-up";
5. otherwise the GPU.
So a job whose work is small never initialises CuPy, and one with one large batch starts it at once.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

CALIBRATE = 8  # batches under this many thresholds of work are cheap enough to time on NumPy first
STARTUP_SEED = 1.5  # seconds to start the GPU before it has been measured (H100 and H200, 2026-11-26: 1.3-1.7 s)
LEARNING_BATCHES = 3  # batches per device timed synchronously before the rates are trusted


def threshold(op, configured: int = 0) -> int:
    """Work below which a batch of `op` runs on NumPy: `gpu.performance.cpu_threshold`, else the op's seed."""
    return configured or op.cpu_threshold


@dataclass
class DeviceCost:
    """What one op has cost on one device: batches, units of work and seconds (start-up excluded)."""

    batches: int = 0
    work: float = 0.0
    seconds: float = 0.0

    def predict(self, work: float) -> float:
        return self.seconds / max(self.work, 1.0) * work


@dataclass(frozen=True)
class Decision:
    gpu: bool
    reason: str | None = None  # why NumPy, when it is NumPy


class Dispatcher:
    """Chooses a device per op and batch (see the module's rules) and learns from every batch's time."""

    def __init__(self, threshold: int = 0, startup_seed: float = STARTUP_SEED) -> None:
        self.threshold = threshold  # 0: each op's own seed
        self.startup = startup_seed
        self.started = False  # the GPU is up (or known unusable: then `usable` is False)
        self.usable = True
        self.cost: dict[tuple[str, bool], DeviceCost] = defaultdict(DeviceCost)
        self.left: dict[str, float] = {}  # op -> work the job still expects (an estimate), when told


    def expect(self, op, work: float | None) -> None:
        """The job's estimate of the whole work of `op` ahead (None: unknown)."""
        if work is not None:
            self.left[op.name] = float(work)

    def choose(self, op, work: float) -> Decision:
        if not self.usable:
            return Decision(False)
        limit = threshold(op, self.threshold)
        cpu, gpu = self.cost[(op.name, False)], self.cost[(op.name, True)]
        if work < limit:
            return Decision(False, "small")
        if cpu.batches and gpu.batches:
            faster = gpu.predict(work) <= cpu.predict(work)
            return Decision(True) if faster else Decision(False, "measured")
        left = max(work, self.left.get(op.name, 0.0))
        if not cpu.batches and work < CALIBRATE * limit and left > 2 * work:
            return Decision(False, "calibrating")
        if not self.started and cpu.batches:
            if cpu.predict(left) * op.gpu_gain < self.startup:
                return Decision(False, "start-up")
        return Decision(True)

    def learning(self, op) -> bool:
        """Whether this op's batch times still teach the dispatcher (then they must be synchronised)."""
        return any(self.cost[(op.name, g)].batches < LEARNING_BATCHES for g in (False, True))

    def observe(self, op, gpu: bool, work: float, seconds: float) -> None:
        c = self.cost[(op.name, gpu)]
        c.batches += 1
        c.work += work
        c.seconds += seconds
        if op.name in self.left:
            self.left[op.name] = max(0.0, self.left[op.name] - work)

    def gpu_started(self, seconds: float) -> None:
        self.started, self.startup = True, seconds

    def gpu_unusable(self) -> None:
        self.started, self.usable = True, False
