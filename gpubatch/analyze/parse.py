"""Parsing for the analyze job: files read and flattened in a process pool, in order, each served from the
cache when its content (and, for finished reports, the policy that applies to its path) is unchanged.

A worker killed mid-run (the OOM killer, a signal) costs nothing but time: what it held is parsed again in this
process. The pool's workers are ended at once when the run fails or is interrupted.

Parsers are replaced as they go, a group at a time (`parsers.py`): their memory grows with what they parse.
"""
from __future__ import annotations

import itertools
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ..engine.procs import wait_result
from .cache import DAMAGED, ResultCache, TensorCache
from .parsers import Parsers
from .tensorize import FileTensors, read_source, tensorize_bytes


def _parse_one(path: str, max_bytes: int, cache_dir: str | None, key: str | None = None,
               path_key: str = "") -> FileTensors:
    """Worker: a cached report, else cached tensors, else parse (and cache the tensors)."""
    data, sha, error = read_source(path, max_bytes)
    damaged = False
    if cache_dir and data is not None and len(data) <= max_bytes:
        if key is not None:
            results = ResultCache(cache_dir, key)
            hit = results.lookup(sha, path_key)
            if hit is not None:
                return FileTensors(path, sha, cached=True, result=hit)
            damaged = results.damaged
        tensors = TensorCache(cache_dir)
        hit_t = tensors.lookup_sha(path, sha)
        if hit_t is not None:
            hit_t.cache_note = DAMAGED if damaged else None
            return hit_t
        damaged = damaged or tensors.damaged
    ft = tensorize_bytes(path, data, sha, error, max_bytes)
    if cache_dir and ft.error is None and not TensorCache(cache_dir).store(ft):
        ft.cache_note = "cannot write entries"
    if damaged:
        ft.cache_note = DAMAGED
    return ft


def _parse_many(paths: list[tuple[str, str]], max_bytes: int, cache_dir: str | None, key: str | None,
                clones=None) -> list[FileTensors]:
    """Worker: a chunk of files; with `clones` (`CloneSettings`), their clone features too."""
    out = [_parse_one(p, max_bytes, cache_dir, key, pk) for p, pk in paths]
    if clones is not None:
        from .clones.fromfiles import add_features

        add_features(out, clones)
    return out


# chunks submitted per parser and not yet taken: one being parsed and one waiting keeps every parser busy;
# more only holds finished tables in the parent (a cold 16-core run takes them in slower than they come)
IN_FLIGHT = 2
ROTATE = 8  # chunks a parser takes (128 files) before a fresh one replaces it (`parsers.py`)


def parsed(paths: Iterable[tuple[str, str] | str | Path], jobs: int, max_bytes: int, cache_dir: str | None,
           chunk: int = 16, key: str | None = None, clones=None) -> Iterator[FileTensors]:
    """Parse files (paths, or `(path, path_key)` pairs for the result cache) in a process pool, in order, with a
    bounded number of chunks in flight (so a large tree is never all in memory). The pool starts with the first
    chunk and its workers are ended at once if the run fails or is interrupted; chunks lost with a killed
    worker are parsed in this process. With `clones` (`CloneSettings`), the workers also make each file's clone
    features (`clones/fromfiles.py`); in this process (one job), the analyze op makes them."""
    names = (p if isinstance(p, tuple) else (str(p), "") for p in paths)
    if jobs <= 1:
        for name, pk in names:
            yield _parse_one(name, max_bytes, cache_dir, key, pk)
        return
    first = list(itertools.islice(names, chunk))
    if not first:
        return
    pools = Parsers(jobs, ROTATE, __name__)
    failed = True
    pending: deque = deque()
    lost: list = []  # the chunk whose result is awaited: lost with its worker if that one dies
    try:
        batch = first
        while batch or pending:
            fut = pools.submit(_parse_many, batch, max_bytes, cache_dir, key, clones) if batch else None
            if fut is not None:
                pending.append((batch, fut))
                batch = list(itertools.islice(names, chunk))
            elif batch and not pending:
                pools.wait()  # every group is being replaced and no result is waiting
                continue
            if pending and (len(pending) >= IN_FLIGHT * jobs or not batch or fut is None):
                lost, fut = pending.popleft()
                done = wait_result(fut)
                lost = []
                yield from done
        failed = False
    except BrokenProcessPool:  # a worker was killed (OOM killer, a signal): the rest is parsed here, in order
        for chunk_names in [lost, *(c for c, _ in pending), batch]:
            yield from _parse_many(chunk_names, max_bytes, cache_dir, key)
        pending.clear()
        for name, pk in names:
            yield _parse_one(name, max_bytes, cache_dir, key, pk)
        failed = False
    finally:
        pools.close(failed)


@dataclass
class CacheTally:
    """What the cache could not do in this run, for one warning at the end."""

    damaged: int = 0
    unwritable: int = 0

    def see(self, ft: FileTensors) -> FileTensors:
        self.count(ft.cache_note)
        return ft

    def count(self, note: str | None) -> None:
        if note == DAMAGED:
            self.damaged += 1
        elif note:
            self.unwritable += 1

    def warnings(self, cache_dir: str) -> list[str]:
        out = []
        if self.damaged:
            out.append(f"{self.damaged} damaged cache entries in {cache_dir} were ignored (the files were parsed "
                       "again)")
        if self.unwritable:
            out.append(f"the cache in {cache_dir} could not store {self.unwritable} entries (only costs time)")
        return out
