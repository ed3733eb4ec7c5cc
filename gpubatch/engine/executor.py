"""BatchExecutor: stream items through a batch op on the selected device(s), results in input order."""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Iterator, Sequence

from .backend import Selection, select_device
from .batch import EngineSettings
from .ops import BatchOp
from .progress import NullProgress, Progress
from .runners import RUNNERS
from .stats import StatsCollector


def select_for(settings: EngineSettings) -> Selection:
    """The device selection a run with these settings makes: probed lazily on one device with dispatch by
    work, and without CUDA contexts where a cluster's workers use the GPUs (DeviceUnavailable as
    `select_device`)."""
    return select_device(settings.device, settings.enabled, settings.count,
                         lazy=settings.dynamic_dispatch and not settings.cluster_address,
                         contexts=False if settings.cluster_address else None)


class BatchExecutor:
    """Owns a runner (chosen by name or by the settings) and the run's stats; use as a context manager."""

    def __init__(self, settings: EngineSettings | None = None, selection: Selection | None = None,
                 runner: str | None = None, stats: StatsCollector | None = None,
                 progress: Progress | None = None, notify: Callable[[str], None] | None = None) -> None:
        self.settings = settings or EngineSettings()
        self.selection = selection or select_for(self.settings)
        self.stats = stats or StatsCollector()
        self.progress = progress or NullProgress()
        if runner is None and self.settings.cluster_address:
            runner = "dask"
        if runner is None:
            workers = len(self.selection.gpus) if self.selection.kind == "cupy" else self.settings.count
            runner = "processes" if workers > 1 else "local"
        if runner not in RUNNERS:
            raise ValueError(f"unknown runner {runner!r}; choose from {', '.join(RUNNERS)}")
        self.runner = RUNNERS[runner](self.settings, self.selection, self.stats)
        if notify is not None:
            self.runner.notify = notify  # what the run learns late (a GPU found unusable at its first use)

    @property
    def device(self) -> str:
        """The backends batches ran on so far: "numpy", "cupy", or "cupy+numpy" where dispatch used both."""
        used = getattr(self.runner, "used", None)
        if used:
            return "+".join(sorted(used))
        return "cupy" if self.selection.kind == "cupy" else "numpy"

    @property
    def backend(self):
        """The in-process backend (the main device for local runs; NumPy for sync and process runs)."""
        return self.runner.backend if hasattr(self.runner, "backend") else None

    def warm(self, op: BatchOp, work: float | None = None) -> float:
        """Ready every device for `op` now (worker start, kernel compilation and loading), so that what is
        timed next is the work itself; returns the seconds it took. `work` is the job's whole work of `op`:
        on `auto` it decides whether the GPU is started at all."""
        t0 = time.perf_counter()
        self.runner.warm(op, work)
        return time.perf_counter() - t0

    def map(self, op: BatchOp, items: Iterable[Any], *, total: int | None = None,
            key: Callable[[Any], Any] | None = None, label: str | None = None,
            sizes: Sequence[int] = (), work: float | None = None) -> Iterator[tuple[Any, Any]]:
        """Yield `(identity, result)` for every item, in input order; identity is `key(item)` or the index.
        `sizes`, if given, is how to cut the first batches (e.g. one batch of balanced cost per device);
        `work`, the job's estimate of the whole work ahead (for dispatch by work)."""
        index = 0
        for batch, results in self.map_batches(op, items, total=total, label=label, sizes=sizes, work=work):
            for item, result in zip(batch, results):
                yield (key(item) if key else index), result
                index += 1

    def map_batches(self, op: BatchOp, items: Iterable[Any], *, total: int | None = None,
                    label: str | None = None, sizes: Sequence[int] = (), work: float | None = None
                    ) -> Iterator[tuple[Any, Any]]:
        """Yield `(batch_items, batch_results)` per batch: the bulk path, with no per-item work."""
        dispatch = getattr(self.runner, "dispatch", None)
        if dispatch is not None:
            dispatch.expect(op, work)
        sizer = self.settings.sizer(op.bytes_per_item)
        sizer.follow(sizes)
        self.stats.count_call(op.name)
        self.progress.start(label or op.name, total)
        try:
            for batch, results in self.runner.run(op, items, sizer):
                yield batch, results
                self.progress.advance(len(batch))
        finally:
            self.progress.finish()

    def run_all(self, op: BatchOp, items: Iterable[Any], **kw: Any) -> list[Any]:
        """Results only, as a list in input order."""
        return [r for _, r in self.map(op, items, **kw)]

    def close(self, failed: bool = False) -> None:
        """Release the runner; `failed` (an error, an interrupt) ends worker processes without waiting."""
        self.runner.close(failed)

    def __enter__(self) -> "BatchExecutor":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(failed=exc_type is not None)
