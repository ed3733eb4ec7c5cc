"""Per-op statistics: calls, items, batch sizes, time (GPU time from CUDA events), OOM retries, fallbacks."""
from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class OpStats:
    """Running totals for one op on one device; merged across worker processes."""

    op: str
    device: str
    calls: int = 0
    items: int = 0
    batches: int = 0
    max_batch: int = 0
    seconds: float = 0.0
    gpu_seconds: float = 0.0
    oom_retries: int = 0
    cpu_fallbacks: int = 0
    failures: int = 0
    worker_restarts: int = 0  # batches re-run because their worker process died
    gpu_error_retries: int = 0  # items that raised on the GPU (not out of memory) and were run on the CPU
    work: float = 0.0  # units of work the op reported for its batches (nodes, cells x primitives, bytes)
    reasons: dict = field(default_factory=dict)  # why batches were dispatched to NumPy -> how many

    def dispatched(self, reason: str) -> None:
        """Count a batch that dispatch by work sent to NumPy, and why."""
        self.reasons[reason] = self.reasons.get(reason, 0) + 1

    @property
    def cpu_dispatched(self) -> int:
        return sum(self.reasons.values())

    def add_batch(self, size: int, seconds: float, gpu_seconds: float = 0.0, work: float = 0.0) -> None:
        self.work += work
        self.batches += 1
        self.items += size
        self.max_batch = max(self.max_batch, size)
        self.seconds += seconds
        self.gpu_seconds += gpu_seconds

    def merge(self, other: "OpStats") -> None:
        for name in ("calls", "items", "batches", "seconds", "gpu_seconds", "oom_retries", "cpu_fallbacks",
                     "failures", "worker_restarts", "gpu_error_retries", "work"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for reason, n in other.reasons.items():
            self.reasons[reason] = self.reasons.get(reason, 0) + n
        self.max_batch = max(self.max_batch, other.max_batch)

    @property
    def mean_batch(self) -> float:
        return self.items / self.batches if self.batches else 0.0

    @property
    def items_per_s(self) -> float:
        t = self.gpu_seconds or self.seconds
        return self.items / t if t > 0 else 0.0

    @property
    def per_item_us(self) -> float:
        t = self.gpu_seconds or self.seconds
        return t / self.items * 1e6 if self.items else 0.0

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.update(cpu_dispatched=self.cpu_dispatched, mean_batch=self.mean_batch, items_per_s=self.items_per_s,
                   per_item_us=self.per_item_us)
        return out


@dataclass
class StatsCollector:
    """All ops of a run, keyed by (op, device)."""

    ops: dict[tuple[str, str], OpStats] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    pending: list = field(default_factory=list)  # (op stats, start event, end event) not yet read
    gpu_startup_s: float = 0.0  # starting the GPU at its first use (CuPy import, context, kernels)
    cache: dict = field(default_factory=lambda: {"hits": 0, "misses": 0, "bytes_saved": 0})  # device cache
    # the run's phases, (name, seconds since this collector was made), in the order they ended; the run's own
    # collector only (a worker's is merged without them): where a whole command's time goes, beside the ops
    phases: list = field(default_factory=list)
    began: float = field(default_factory=time.perf_counter)

    def mark(self, phase: str) -> None:
        """Note that `phase` of the run ended now."""
        self.phases.append((phase, time.perf_counter() - self.began))

    def cache_event(self, hit: bool, nbytes: int) -> None:
        """One lookup in a backend's device cache: a hit saves an upload of `nbytes`."""
        self.cache["hits" if hit else "misses"] += 1
        if hit:
            self.cache["bytes_saved"] += nbytes

    def add_pending(self, st: OpStats, events: tuple) -> None:
        self.pending.append((st, *events))

    def resolve(self) -> None:
        """Read deferred CUDA event pairs into GPU seconds (waits for those batches to finish)."""
        for st, start, end in self.pending:
            end.synchronize()
            st.gpu_seconds += _elapsed(start, end)
        self.pending.clear()

    def count_call(self, op: str) -> None:
        self.calls[op] = self.calls.get(op, 0) + 1

    def for_op(self, op: str, device: str) -> OpStats:
        key = (op, device)
        if key not in self.ops:
            self.ops[key] = OpStats(op, device)
        return self.ops[key]

    def merge(self, other: "StatsCollector") -> None:
        other.resolve()
        for (op, device), st in other.ops.items():
            self.for_op(op, device).merge(st)
        for op, n in other.calls.items():
            self.calls[op] = self.calls.get(op, 0) + n
        self.gpu_startup_s += other.gpu_startup_s
        for name, n in other.cache.items():
            self.cache[name] += n

    def rows(self) -> list[OpStats]:
        self.resolve()
        for s in self.ops.values():
            s.calls = self.calls.get(s.op, s.batches)  # sub-steps timed inside an op: one call a batch
        active = (s for s in self.ops.values()
                  if s.items or s.failures or s.cpu_fallbacks or s.oom_retries or s.cpu_dispatched or s.worker_restarts
                  or s.gpu_error_retries)
        return sorted(active, key=lambda s: (s.op, s.device))

    def to_json(self) -> str:
        phases = [{"phase": name, "at_s": round(at, 4)} for name, at in self.phases]
        return json.dumps({"ops": [s.as_dict() for s in self.rows()], "gpu_startup_s": self.gpu_startup_s,
                           "device_cache": self.cache, "phases": phases, "process_start_s": process_age(self.began)},
                          indent=2)


def process_age(at: float) -> float | None:
    """Seconds from this process's start (the interpreter's launch) to `at`, a `perf_counter` reading; None
    where the system does not say when the process started (read from /proc: Linux only)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            started = int(f.read().rsplit(b")", 1)[1].split()[19])  # field 22: start, in clock ticks since boot
        with open("/proc/uptime", "rb") as f:
            uptime = float(f.read().split()[0])
        age_now = uptime - started / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return round(max(0.0, age_now - (time.perf_counter() - at)), 3)


def _elapsed(start, end) -> float:
    import cupy

    return cupy.cuda.get_elapsed_time(start, end) / 1e3


FAMILY_ROWS = 12  # rows the table shows of a family of ops ("arcdsl host: objects", ...) before folding the rest


def fold_families(rows: list[OpStats], keep: int = FAMILY_ROWS) -> list[OpStats]:
    """The table's rows: a family of ops named "family: member" on one device with more than `keep` rows shows
    its `keep` costliest where its first row was, then one row for the rest (their totals), so that a battery's
    150 primitives stay readable; the JSON keeps every row."""
    families: dict[tuple[str, str], list[OpStats]] = {}
    slots: list = []  # each row, or a family's key at its first row's place
    for r in rows:
        if ": " not in r.op:
            slots.append(r)
            continue
        key = (r.op.split(": ", 1)[0], r.device)
        if key not in families:
            families[key] = []
            slots.append(key)
        families[key].append(r)
    out: list[OpStats] = []
    for slot in slots:
        if isinstance(slot, OpStats):
            out.append(slot)
            continue
        family = families[slot]
        if len(family) <= keep:
            out.extend(family)
            continue
        ranked = sorted(family, key=lambda r: -(r.gpu_seconds or r.seconds))
        rest = OpStats(f"{slot[0]}: {len(family) - keep} more", slot[1])
        for r in ranked[keep:]:
            rest.merge(r)
        out.extend([*ranked[:keep], rest])
    return out


def render_table(stats: StatsCollector, title: str = "per-op statistics"):
    """A Rich table of the collector (imported lazily: rich is only needed to render)."""
    from rich.table import Table

    if stats.gpu_startup_s:
        title += f"; GPU start-up {stats.gpu_startup_s:.2f} s"
    if stats.phases:
        title += "; " + ", ".join(f"{name} {at:.2f} s" for name, at in stats.phases)
    if stats.cache["hits"] or stats.cache["misses"]:
        c = stats.cache
        title += f"; device cache {c['hits']:,} hits, {c['misses']:,} misses, {c['bytes_saved']:,} bytes not re-uploaded"
    table = Table(title=title, title_justify="left")
    rows = fold_families(stats.rows())
    longest = min(32, max([len(s.op) for s in rows] + [2]))  # op names stay whole: ops differ in their endings
    for col in ("op", "device", "calls", "items", "batches", "mean batch", "max batch", "time s", "µs/item",
                "items/s", "to CPU (why)", "OOM retries", "CPU fallbacks", "GPU errors", "worker re-runs",
                "failed"):
        table.add_column(col, justify="left" if col in ("op", "device", "to CPU (why)") else "right",
                         min_width=longest if col == "op" else None, no_wrap=col == "op")
    for s in rows:
        t = s.gpu_seconds or s.seconds
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(s.reasons.items())) or "0"
        table.add_row(s.op, s.device + (" (gpu time)" if s.gpu_seconds else ""), str(s.calls), f"{s.items:,}",
                      str(s.batches), f"{s.mean_batch:,.1f}", f"{s.max_batch:,}", f"{t:.4f}",
                      f"{s.per_item_us:.3f}", f"{s.items_per_s:,.0f}", why, str(s.oom_retries),
                      str(s.cpu_fallbacks), str(s.gpu_error_retries), str(s.worker_restarts), str(s.failures))
    return table
