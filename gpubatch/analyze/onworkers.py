"""analyze where the files are: on a cluster whose workers see this host's files (`--cluster local:N`), each
worker reads, parses (through the same cache) and analyses its own batches of paths. No parsed arrays travel
to the workers and no parser pool runs here beside them: on a 2-core machine, shipping every file's arrays
cost more than the metrics they fed. A cluster of other hosts gets the arrays, parsed here, as before.
"""
from __future__ import annotations

import functools
import os
from typing import Any

from ..engine import BatchExecutor, BatchOp, ItemFailure
from .parse import CacheTally, _parse_many

BATCH_FILES = 32  # many batches a worker, so that the workers finish together


def _parse_and_analyze(named: list[tuple[str, str]], backend, policy, cache_dir: str | None, key: str | None,
                       max_bytes: int) -> list[tuple[Any, str | None]]:
    """The engine op on a worker: the batch's files read, parsed (or taken from the cache) and analysed; each
    report with its cache note, for the one warning at the end of the run."""
    from .job import _analyze_batch, prepare_batch

    files = _parse_many(named, max_bytes, cache_dir, key)
    reports = _analyze_batch(prepare_batch(files), backend, policy, cache_dir)
    return [(rep, ft.cache_note) for rep, ft in zip(reports, files)]


def _paths_work(named: list[tuple[str, str]]) -> float:
    """The batch's work before parsing: its files' sizes in estimated AST nodes."""
    from .job import NODES_PER_BYTE

    total = 0
    for path, _ in named:
        try:
            total += os.stat(path).st_size
        except OSError:
            pass
    return total * NODES_PER_BYTE


def analyze_on_workers(named: list[tuple[str, str]], executor: BatchExecutor, policy, max_bytes: int,
                       cache_dir: str | None, key: str | None, tally: CacheTally, work: float | None) -> list:
    """Every file's report, in order; a batch that failed on its worker becomes its files' error reports."""
    from .job import CPU_THRESHOLD, GPU_GAIN
    from .model import FileReport

    op = BatchOp("analyze", functools.partial(_parse_and_analyze, policy=policy, cache_dir=cache_dir, key=key,
                                              max_bytes=max_bytes),
                 work=_paths_work, cpu_threshold=CPU_THRESHOLD, gpu_gain=GPU_GAIN)
    sizes = [BATCH_FILES] * -(-len(named) // BATCH_FILES)
    out = []
    for (path, _), res in zip(named, executor.run_all(op, named, label="files", sizes=sizes, work=work)):
        if isinstance(res, ItemFailure):
            out.append(FileReport(path, (), (), {}, 0, f"internal error: {res.kind}: {res.error}"))
            continue
        report, note = res
        tally.count(note)
        out.append(report)
    return out
