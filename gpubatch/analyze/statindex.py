"""The warm path of analyze: one index of finished reports keyed by each file's `stat` (size, mtime, inode and
ctime, which no tool can set back, so a copy that keeps the old mtime is still seen as changed),
so an unchanged tree is answered without reading, hashing or parsing a single source file, and without
starting the parser pool.

One zlib-compressed file per policy under the cache's generation folder (a few percent of the sources' size),
its reports stored as columns (`packed.py`), written atomically and sealed with a checksum: a damaged index is
no index (one warning), never a failed run. The stat is taken before a file is read, so a file changed during
the run is at worst parsed again next time; a file changed within two seconds of the run ("racily clean", as
git calls it) is not indexed, since a later change could keep its size and mtime.
"""
from __future__ import annotations

import os
import time
import zlib
from pathlib import Path
from typing import Any, Callable

from .cache import DAMAGED, _seal, _tag, _unseal, _write
from .model import FileReport
from .packed import Packed, pack

RACY_NS = 2_000_000_000
FORMAT = 4


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]


class StatIndex:
    """path -> (stat, path key, report) for one policy: the stored ones (`packed`) and those computed now."""

    def __init__(self, cache_dir: str, policy_key: str) -> None:
        self.file = Path(cache_dir) / _tag() / "index" / f"{policy_key}.idx"
        self.magic = f"gpubatch-index {FORMAT} {policy_key}\n".encode()
        self.packed: Packed | None = None
        self.served: dict[str, FileReport] = {}  # stored reports answered in this run
        self.fresh: dict[str, tuple[list[int], str, FileReport]] = {}  # reports computed in this run
        self.char_columns: dict[tuple[str, int, int], int] = {}  # (path, line, byte col) -> character column
        self.note: str | None = None  # DAMAGED when the index failed its checks
        self.changed = False
        self.stats: dict[str, list[int] | None] = {}
        try:
            blob = self.file.read_bytes()
        except OSError:
            return
        try:
            body = zlib.decompress(_unseal(blob))
            if not body.startswith(self.magic):
                raise ValueError("stale index")
            self.packed = Packed(memoryview(body)[len(self.magic):])
        except Exception:  # noqa: BLE001 - any damage means: no index
            self.note, self.changed = DAMAGED, True

    def __len__(self) -> int:
        stored = self.packed.index if self.packed is not None else {}
        return len(stored) + sum(1 for p in self.fresh if p not in stored)

    def lookup(self, path: str, path_key: str) -> FileReport | None:
        """The stored report when the file's stat (taken now, before any read) is the indexed one."""
        st = self.stats[path] = _stat(path)
        packed = self.packed
        i = packed.index.get(path) if packed is not None else None
        if st is None or i is None or packed.stat(i) != st or packed.key(i) != path_key:
            return None
        rep = self.served[path] = packed.report(i, path)
        if not rep.ascii and rep.findings:
            for line, col, char in packed.char_cols(i):
                self.char_columns[path, line, col] = char
        return rep

    def serve(self, paths, path_key: Callable[[str], str]) -> tuple[list[str], dict[int, Any], list[str]]:
        """(every path, the reports the index answers by position, and the paths left to analyse)."""
        paths = [str(p) for p in paths]
        hits = {}
        for i, p in enumerate(paths):
            found = self.lookup(p, path_key(p))
            if found is not None:
                hits[i] = found
        return paths, hits, [p for i, p in enumerate(paths) if i not in hits]

    def merge(self, paths: list[str], hits: dict[int, Any], computed: list, path_key) -> list:
        """Every report in the order of `paths`; the computed ones (without errors) indexed."""
        for rep in computed:
            if rep.error is None:
                self.add(rep.path, path_key(rep.path), rep)
        rest = iter(computed)
        return [hits[i] if i in hits else next(rest) for i in range(len(paths))]

    def add(self, path: str, path_key: str, report: FileReport) -> None:
        """Index a report computed in this run, under the stat taken before the file was read."""
        st = self.stats.get(path)
        if st is None or st[1] > time.time_ns() - RACY_NS:
            return
        self.fresh[path] = (st, path_key, report)
        self.changed = True

    def save(self, seen: int, char_col: Callable[[str, int, int], int]) -> bool:
        """Write the index if it changed (entries of files not seen in this run are kept, up to a bound).
        `char_col` gives the character column of a finding in a file computed now."""
        if not self.changed:
            return True
        entries = []
        packed = self.packed
        if packed is not None:
            keep_unseen = len(packed) + len(self.fresh) <= 4 * seen + 1000
            for path, i in packed.index.items():
                if path in self.fresh or not keep_unseen and path not in self.stats:
                    continue
                rep = self.served.get(path) or packed.report(i, path)
                if not rep.ascii and rep.findings:
                    self.char_columns.update(((path, ln, c), ch) for ln, c, ch in packed.char_cols(i))
                entries.append((path, packed.stat(i), packed.key(i), rep))
        entries += [(path, st, key, rep) for path, (st, key, rep) in self.fresh.items()]

        def column(path: str, line: int, col: int) -> int:
            known = self.char_columns.get((path, line, col))
            return known if known is not None else char_col(path, line, col)

        try:
            _write(self.file, _seal(zlib.compress(self.magic + pack(entries, column), 1)))
            return True
        except OSError:
            return False
