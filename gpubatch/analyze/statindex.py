"""The warm path of analyze: one index of finished reports keyed by each file's `stat` (size, mtime, inode and
ctime, which no tool can set back, so a copy that keeps the old mtime is still seen as changed),
so an unchanged tree is answered without reading, hashing or parsing a single source file, and without
starting the parser pool.

One zlib-compressed file per policy under the cache's generation folder (a few percent of the sources' size),
written atomically and sealed with a checksum: a
damaged index is no index (one warning), never a failed run. The stat is taken before a file is read, so a
file changed during the run is at worst parsed again next time; a file changed within two seconds of the run
("racily clean", as git calls it) is not indexed, since a later change could keep its size and mtime.
"""
from __future__ import annotations

import json
import os
import time
import zlib
from pathlib import Path
from typing import Any

from .cache import DAMAGED, _seal, _tag, _unseal, _write

RACY_NS = 2_000_000_000
FORMAT = 3


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns]


class StatIndex:
    """path -> ([size, mtime_ns, inode, ctime_ns], path key, report dict) for one policy."""

    def __init__(self, cache_dir: str, policy_key: str) -> None:
        self.file = Path(cache_dir) / _tag() / "index" / f"{policy_key}.idx"
        self.entries: dict[str, list] = {}
        self.note: str | None = None  # DAMAGED when the index failed its checks
        self.changed = False
        self.stats: dict[str, list[int] | None] = {}
        try:
            blob = self.file.read_bytes()
        except OSError:
            return
        try:
            doc = json.loads(zlib.decompress(_unseal(blob)).decode("utf-8"))
            if doc.get("format") != FORMAT or doc.get("policy") != policy_key:
                raise ValueError("stale index")
            self.entries = doc["entries"]
        except Exception:  # noqa: BLE001 - any damage means: no index
            self.note, self.changed = DAMAGED, True

    def lookup(self, path: str, path_key: str) -> dict | None:
        """The stored report when the file's stat (taken now, before any read) is the indexed one."""
        st = self.stats[path] = _stat(path)
        entry = self.entries.get(path)
        if st is None or entry is None or entry[0] != st or entry[1] != path_key:
            return None
        return entry[2]

    def serve(self, paths, path_key, load) -> tuple[list[str], dict[int, Any], list[str]]:
        """(every path, the reports the index answers by position, built by `load(path, dict)`, and the paths
        left to analyse)."""
        paths = [str(p) for p in paths]
        hits = {}
        for i, p in enumerate(paths):
            found = self.lookup(p, path_key(p))
            if found is not None:
                hits[i] = load(p, found)
        return paths, hits, [p for i, p in enumerate(paths) if i not in hits]

    def merge(self, paths: list[str], hits: dict[int, Any], computed: list, path_key, dump) -> list:
        """Every report in the order of `paths`; the computed ones (without errors) indexed as `dump` stores
        them."""
        for rep in computed:
            if rep.error is None:
                self.add(rep.path, path_key(rep.path), dump(rep))
        rest = iter(computed)
        return [hits[i] if i in hits else next(rest) for i in range(len(paths))]

    def add(self, path: str, path_key: str, report: dict) -> None:
        """Index a report computed in this run, under the stat taken before the file was read."""
        st = self.stats.get(path)
        if st is None or st[1] > time.time_ns() - RACY_NS:
            return
        self.entries[path] = [st, path_key, report]
        self.changed = True

    def save(self, seen: int) -> bool:
        """Write the index if it changed (entries of files not seen in this run are kept, up to a bound)."""
        if not self.changed:
            return True
        if len(self.entries) > 4 * seen + 1000:
            self.entries = {p: e for p, e in self.entries.items() if p in self.stats}
        body = json.dumps({"format": FORMAT, "policy": self.file.stem, "entries": self.entries},
                          separators=(",", ":")).encode("utf-8")
        try:
            _write(self.file, _seal(zlib.compress(body, 1)))
            return True
        except OSError:
            return False
