"""The warm path of analyze: one index of finished reports keyed by each file's `stat` (size, mtime, inode and
ctime, which no tool can set back, so a copy that keeps the old mtime is still seen as changed),
so an unchanged tree is answered without reading, hashing or parsing a single source file, and without
starting the parser pool.

Per policy, 16 zlib-compressed shard files under the cache's generation folder (a few percent of the sources'
size together), a file's shard chosen by its path's CRC, so a run that changes a few files rewrites a few
shards; reports stored as columns (`packed.py`). Each shard is written atomically and sealed with a checksum:
a damaged shard is no shard (one warning), never a failed run. The stat is taken before a file is read, so a file changed during
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
# errors that the file's bytes decide (and Python's version: the generation folder's), indexed like reports
KEPT_ERRORS = ("SyntaxError: ", "cannot decode: ", "binary file")
FORMAT = 5


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]


SHARDS = 16


def _shard(path: str) -> int:
    return zlib.crc32(path.encode("utf-8", "surrogateescape")) % SHARDS


class StatIndex:
    """path -> (stat, path key, report) for one policy: the stored ones (`packed`, by shard) and those computed
    in this run (`fresh`, by shard)."""

    def __init__(self, cache_dir: str, policy_key: str) -> None:
        self.folder = Path(cache_dir) / _tag() / "index"
        self.policy = policy_key
        self.magic = f"gpubatch-index {FORMAT} {policy_key}\n".encode()
        self.served: dict[str, FileReport] = {}  # stored reports answered in this run
        self.fresh: list[dict[str, tuple[list[int], str, FileReport]]] = [{} for _ in range(SHARDS)]
        self.char_columns: dict[tuple[str, int, int], int] = {}  # (path, line, byte col) -> character column
        self.note: str | None = None  # DAMAGED when a shard failed its checks
        self.dirty: set[int] = set()  # shards to write
        self.stats: dict[str, list[int] | None] = {}
        self.packed: list[Packed | None] = [self._load(k) for k in range(SHARDS)]

    def _file(self, k: int) -> Path:
        return self.folder / f"{self.policy}.{k:02d}.idx"

    def _load(self, k: int) -> Packed | None:
        try:
            blob = self._file(k).read_bytes()
        except OSError:
            return None
        try:
            body = zlib.decompress(_unseal(blob))
            if not body.startswith(self.magic):
                raise ValueError("stale index")
            return Packed(memoryview(body)[len(self.magic):])
        except Exception:  # noqa: BLE001 - any damage means: no shard
            self.note = DAMAGED
            self.dirty.add(k)
            return None

    def __len__(self) -> int:
        total = 0
        for packed, fresh in zip(self.packed, self.fresh):
            stored = packed.index if packed is not None else {}
            total += len(stored) + sum(1 for p in fresh if p not in stored)
        return total

    def lookup(self, path: str, path_key: str) -> FileReport | None:
        """The stored report when the file's stat (taken now, before any read) is the indexed one."""
        st = self.stats[path] = _stat(path)
        packed = self.packed[_shard(path)]
        i = packed.index.get(path) if packed is not None else None
        if st is None or i is None or packed.stat(i) != st or packed.key(i) != path_key:
            return None
        rep = self.served[path] = packed.report(i, path)
        self._keep_columns(packed, i, rep)
        return rep

    def _keep_columns(self, packed: Packed, i: int, rep: FileReport) -> None:
        """The stored character columns of a stored report's findings, when its file is not pure ASCII."""
        if not rep.ascii and rep.findings:
            self.char_columns.update(((rep.path, ln, c), ch) for ln, c, ch in packed.char_cols(i))

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
        """Every report in the order of `paths`; the computed ones indexed, but for errors that the file's bytes
        alone do not decide (unreadable, too large for this run's limit)."""
        for rep in computed:
            if rep.error is None or rep.error.startswith(KEPT_ERRORS):
                self.add(rep.path, path_key(rep.path), rep)
        rest = iter(computed)
        return [hits[i] if i in hits else next(rest) for i in range(len(paths))]

    def add(self, path: str, path_key: str, report: FileReport) -> None:
        """Index a report computed in this run, under the stat taken before the file was read."""
        st = self.stats.get(path)
        if st is None or st[1] > time.time_ns() - RACY_NS:
            return
        k = _shard(path)
        self.fresh[k][path] = (st, path_key, report)
        self.dirty.add(k)

    def save(self, seen: int, char_col: Callable[[str, int, int], int]) -> bool:
        """Write the shards that changed (entries of files not seen in this run are kept, up to a bound).
        `char_col` gives the character column of a finding in a file computed now."""
        stored = sum(len(p) for p in self.packed if p is not None) + sum(map(len, self.fresh))
        keep_unseen = stored <= 4 * seen + 1000

        def column(path: str, line: int, col: int) -> int:
            known = self.char_columns.get((path, line, col))
            return known if known is not None else char_col(path, line, col)

        ok = True
        try:  # the one-file index of earlier versions, superseded by the shards
            (self.folder / f"{self.policy}.idx").unlink(missing_ok=True)
        except OSError:
            pass
        for k in sorted(self.dirty if keep_unseen else range(SHARDS)):
            entries, packed, fresh = [], self.packed[k], self.fresh[k]
            for path, i in (packed.index.items() if packed is not None else ()):
                if path in fresh or not keep_unseen and path not in self.stats:
                    continue
                rep = self.served.get(path) or packed.report(i, path)
                self._keep_columns(packed, i, rep)
                entries.append((path, packed.stat(i), packed.key(i), rep))
            entries += [(path, st, key, rep) for path, (st, key, rep) in fresh.items()]
            if not entries and packed is None and k not in self.dirty:
                continue
            try:
                _write(self._file(k), _seal(zlib.compress(self.magic + pack(entries, column), 1)))
            except OSError:
                ok = False
        return ok
