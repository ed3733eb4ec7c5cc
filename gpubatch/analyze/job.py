"""The analyze job: answer unchanged files from the stat index, parse the others in a process pool, run batched
metrics and rules through the engine, and filter findings (select/ignore, per-file ignores, noqa). What it
produces and decides by lives in `model.py`."""
from __future__ import annotations

import functools
import os
import time
from pathlib import Path
from typing import Iterable

import numpy as np

from ..engine import BatchExecutor, BatchOp
from ..engine.gcpause import gc_paused
from .batched import Block, block_metrics, concat, host, rule_masks, to_device
from .cache import ResultCache, policy_key, prepare as prepare_cache
from .halstead import halstead_counts, maintainability, mi_rank, report
from .model import AnalyzeResult, FileReport, Finding, Policy, from_dict as _from_dict, noqa_allows, \
    to_dict as _to_dict
from .parse import CacheTally, parsed
from .statindex import StatIndex
from .tensorize import FileTensors

NODES_PER_BYTE = 0.124  # AST nodes per byte of source (CPython 3.11's standard library): the work estimate
# dispatch by work under `auto` (H100 box, 2026-11-26, a 25k-file tree): at 256 files a batch (~300k nodes) the
# GPU saves 11% of the op's time, and the op is not what bounds the run (parsing is): wall time was 10% worse
# on the GPU, start-up included. Batches under 2M nodes stay on NumPy; the GPU pays for bigger ones.
CPU_THRESHOLD = 2_000_000
SMALL_RUN = 8  # files left to parse that are parsed in this process: starting a pool costs more
GPU_GAIN = 0.1  # share of a batch's NumPy time the GPU saves (host work is the same on both)
# batches joined ahead of the one running: one overlaps the joining with the op; more only hold memory (each
# is ~30 MB of int64 columns at 128 files; the 25k-file tree's peak fell by ~100 MB from 4 ahead to none,
# at the same time, H200 box, 2026-11-27)
PREFETCH = 2


def _todo(files: list[FileTensors]) -> list[FileTensors]:
    return [f for f in files if f.result is None]


def batch_work(files: list[FileTensors]) -> int:
    """The op's work: AST nodes of the batch's files that are not cached."""
    return sum(f.node_count for f in _todo(files) if f.error is None)


def prepare_batch(files: list[FileTensors]) -> tuple:
    """Host work done ahead of the device (`gpu.performance.prefetch` batches ahead): one set of arrays."""
    good = [f for f in _todo(files) if f.error is None]
    return files, concat(good) if good else None


def _analyze_batch(payload: tuple, backend, policy: Policy, cache_dir: str | None = None) -> list[FileReport]:
    """The engine op: one batch of files' arrays through every metric and rule (cached reports pass)."""
    files, arrays = payload
    todo = _todo(files)
    done = iter(_compute(todo, arrays, backend, policy)) if todo else iter(())
    results = ResultCache(cache_dir, policy_key(policy)) if cache_dir else None
    out = []
    for ft in files:
        if ft.result is not None:
            out.append(_from_dict(ft.path, ft.result))
            continue
        rep = next(done)
        if results is not None and ft.sha and ft.error is None:
            results.store(ft.sha, _to_dict(rep), policy.path_key(ft.path))
        out.append(rep)
    return out


def _compute(files: list[FileTensors], arrays: tuple | None, backend, policy: Policy) -> list[FileReport]:
    xp = backend.xp
    good = [f for f in files if f.error is None]
    nodes_h, blocks_h = arrays if arrays is not None else concat([])
    nodes, blocks = to_device(xp, nodes_h), to_device(xp, blocks_h)
    metrics = block_metrics(xp, nodes, blocks, backend.asarray)
    complexity, nesting, methods = (host(xp, a) for a in metrics)
    hal_file, hal_fn, total = (host(xp, a) for a in halstead_counts(xp, nodes, blocks, len(good), backend.asarray))
    hal_rows = hal_fn.T.tolist()  # one conversion, not one per block
    if policy.thresholds.complexity == "mccabe":
        from .mccabe import mccabe_complexity

        complexity = host(xp, mccabe_complexity(xp, nodes, blocks, backend.asarray))
    masks = {code: host(xp, xp.flatnonzero(m))
             for code, m in rule_masks(xp, nodes, policy.thresholds, backend.asarray).items()}
    per_file: dict[int, list[Finding]] = {i: [] for i in range(len(good))}
    blocks_of: dict[int, list[Block]] = {i: [] for i in range(len(good))}
    th = policy.thresholds
    for code, idx in masks.items():
        for i in idx:
            f = int(nodes_h["file"][i])
            if code == "B006" and good[f].path.endswith(".pyi"):
                continue  # stubs: defaults there are never evaluated (ruff skips B006 in stubs too)
            at = int(nodes_h["parent"][i]) if code in _AT_PARENT else int(i)
            per_file[f].append(_finding(good[f], code, nodes_h, at, policy))
    # every block's values as Python ints and bools, read once: numpy scalars read one by one and a tuple of
    # limits per block were 12% of this op on CPU2 (int64 whatever dtype a device returned, as `int()` gave)
    methods, complexity, nesting = (np.asarray(a, dtype=t).tolist()
                                    for a, t in ((methods, bool), (complexity, np.int64), (nesting, np.int64)))
    limits = (th.max_complexity, th.max_function_lines, th.max_nesting, th.max_params)  # in `_BLOCK_CODES`' order
    max_cx, max_lines, max_nest, max_params = limits
    g = 0
    for f, ft in enumerate(good):
        fblocks, mine = ft.blocks, blocks_of[f]
        for b in fblocks:
            is_method, cx, nest = methods[g], complexity[g], nesting[g]
            kind = "C" if b[0] == "C" else ("M" if is_method else "F")
            blk = Block(kind, b[1], b[2], b[3], b[4], cx, b[6], nest, () if kind == "C" else tuple(hal_rows[g]))
            g += 1
            if b[5] < 0 or is_method and fblocks[b[5]][5] < 0:
                mine.append(blk)
            if kind == "C":
                continue
            lines = b[4] - b[2] + 1
            if cx > max_cx or lines > max_lines or nest > max_nest or b[6] > max_params:  # rare: then code by code
                for code, value, limit in zip(_BLOCK_CODES, (cx, lines, nest, b[6]), limits):
                    if value > limit:
                        per_file[f].append(_block_finding(ft, code, blk, value, limit, policy))
    features = [None] * len(good)
    if policy.duplicates is not None:  # made by the parser workers, else here for the whole batch
        from .clones.fromfiles import files_features

        made = [ft.features for ft in good]
        features = made if all(f is not None for f in made) else files_features(good, nodes_h, policy.duplicates)
    out, gi = [], 0
    hal_files, totals = np.asarray(hal_file, np.int64).T.tolist(), np.asarray(total, np.int64).tolist()
    for ft in files:
        if ft.error is not None:
            code, msg, line, col = ft.error
            fnd = [Finding(ft.path, line, col, code, msg, policy.level(code))] if policy.enabled(code, ft.path) else []
            out.append(FileReport(ft.path, tuple(fnd), (), {}, 0, msg))
            continue
        keep = tuple(sorted((x for x in per_file[gi] if _kept(x, ft, policy)), key=lambda x: (x.line, x.col, x.code)))
        hal = report(*hal_files[gi])
        mi = maintainability(hal["volume"], totals[gi], ft.raw)
        out.append(FileReport(ft.path, keep, tuple(blocks_of[gi]), ft.raw, len(ft.nodes["kind"]), None, ft.cached,
                              features[gi], {"halstead": hal, "mi": mi, "mi_rank": mi_rank(mi)}, ft.ascii))
        gi += 1
    return out


_MESSAGES = {"E722": "Do not use bare `except`", "B006": "Do not use mutable data structures for argument defaults",
             "B008": "Do not perform function call in argument defaults", "S307": "Use of possibly insecure "
             "function; consider using `ast.literal_eval`", "S102": "Use of `exec` detected",
             "E711": "Comparison to `None` should be `cond is None`", "E712": "Avoid equality comparisons to "
             "`True` or `False`", "GB201": "Call to a banned function", "GB202": "Import of a banned module"}


_BLOCK_CODES = ("C901", "GB101", "GB102", "GB103")  # complexity, lines, nesting, parameters: in `limits`' order

_AT_PARENT = {"E712"}  # reported at the node holding the flagged one: a `== True` at its comparison


def _finding(ft: FileTensors, code: str, nodes: dict, i: int, policy: Policy) -> Finding:
    return Finding(ft.path, int(nodes["line"][i]), int(nodes["col"][i]), code, _MESSAGES[code], policy.level(code),
                   int(nodes["end_line"][i]), int(nodes["end_col"][i]))


def _block_finding(ft, code, blk: Block, value: int, limit: int, policy: Policy) -> Finding:
    what = {"C901": "is too complex", "GB101": "is too long (lines)", "GB102": "nests too deep",
            "GB103": "has too many parameters"}[code]
    return Finding(ft.path, blk.line, blk.col, code, f"`{blk.name}` {what} ({value} > {limit})", policy.level(code),
                   blk.end_line, 0)


def _kept(f: Finding, ft: FileTensors, policy: Policy) -> bool:
    return policy.enabled(f.code, f.path) and noqa_allows(ft.noqa, f.line, f.code)


def _work_estimate(paths) -> float | None:
    """The run's work before parsing, from the files' sizes (None when `paths` is a stream)."""
    if not isinstance(paths, (list, tuple)):
        return None
    total = 0
    for p in paths:
        try:
            total += os.stat(p).st_size
        except OSError:
            pass
    return total * NODES_PER_BYTE


def _named(ft: FileTensors, names: dict[str, str]) -> FileTensors:
    if ft.path in names:
        ft.path = names[ft.path]
    return ft


def run_analyze(paths: Iterable[Path], executor: BatchExecutor, policy: Policy, jobs: int = 0,
                max_bytes: int = 4_000_000, cache_dir: str | None = None,
                names: dict[str, str] | None = None, content_cache: bool = True) -> AnalyzeResult:
    """Analyse every file of `paths`. An unusable cache directory means no cache and one warning in
    `AnalyzeResult.warnings`, never a failed run. `names` gives a file another name in the rules and the
    report (stdin's contents, read from a temporary file, under `--stdin-filename`). With `cache_dir`, finished
    reports are indexed by each file's stat; `content_cache` also keeps parsed tensors and reports by content
    (another policy, or a touched but unchanged file, then parses nothing). The collector is paused
    meanwhile: the results are acyclic, and its passes over them were a sixth of a large cold run."""
    with gc_paused():
        return _run_analyze(paths, executor, policy, jobs, max_bytes, cache_dir, names, content_cache)


def _run_analyze(paths, executor, policy, jobs, max_bytes, cache_dir, names, content_cache) -> AnalyzeResult:
    t0 = time.perf_counter()
    res = AnalyzeResult()
    if cache_dir:
        why = prepare_cache(cache_dir)
        if why is not None:
            res.warnings.append(f"cache disabled: {why}")
            cache_dir = None
    jobs = jobs or os.cpu_count() or 1
    by_content = cache_dir if content_cache else None  # tensors and reports by content, beside the index
    op = BatchOp("analyze", functools.partial(_analyze_batch, policy=policy, cache_dir=by_content),
                 prepare=prepare_batch, work=batch_work, cpu_threshold=CPU_THRESHOLD, gpu_gain=GPU_GAIN,
                 prefetch=PREFETCH)
    key = policy_key(policy) if cache_dir else None
    tally = CacheTally()
    names = names or {}
    index = StatIndex(cache_dir, key) if cache_dir and not names else None
    if index is not None:  # the warm path: files whose stat is indexed are not read at all
        tally.count(index.note)
        paths, hits, todo = index.serve(paths, policy.path_key)
    else:
        todo = paths
    named = ((str(p), policy.path_key(names.get(str(p), str(p)))) for p in todo)
    runner = executor.runner
    if runner.workers_read_local_files and runner.width >= jobs and not names:  # workers as many as parsers
        from .onworkers import analyze_on_workers

        res.files = analyze_on_workers(list(named), executor, policy, max_bytes, by_content, key, tally,
                                       _work_estimate(todo))
    else:
        few = isinstance(todo, list) and len(todo) <= SMALL_RUN  # an edit or two: no parser pool to start
        stream = (_named(tally.see(ft), names) for ft in parsed(named, 1 if few else jobs, max_bytes, by_content,
                                                                key=key, clones=policy.duplicates))
        res.files = executor.run_all(op, stream, label="files", work=_work_estimate(todo))
    from .report.columns import char_col, known_ascii, known_columns

    if index is not None:
        res.files = index.merge(paths, hits, res.files, policy.path_key)
        known_columns(index.char_columns, index.stats)
        if not index.save(len(paths), char_col):
            tally.count("cannot write entries")
    known_ascii(r.path for r in res.files if r.ascii)
    if cache_dir:
        res.warnings += tally.warnings(cache_dir)
    if policy.duplicates is not None:
        from .duplicates import add_duplicates

        add_duplicates(res, executor, policy)
    res.seconds = time.perf_counter() - t0
    return res
