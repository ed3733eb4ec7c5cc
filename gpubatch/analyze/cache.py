"""A content-hash cache of parsed tensors: an unchanged file is not parsed again.

One file per entry: the header's length, a JSON header, then the node table. Entries are keyed by the file's SHA-256, the Python version and the tensor format version; a corrupt or
mismatched entry is deleted and the file parsed again, never trusted.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from .tensorize import COLUMNS, VERSION, FileTensors


class TensorCache:
    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)

    def _file(self, sha: str) -> Path:
        tag = f"{VERSION}-{sys.version_info[0]}.{sys.version_info[1]}"
        return self.root / tag / sha[:2] / f"{sha}.bin"

    def lookup(self, path: str, max_bytes: int) -> FileTensors | None:
        try:
            data = open(path, "rb").read(max_bytes + 1)
        except OSError:
            return None
        if len(data) > max_bytes:
            return None
        return self.lookup_sha(path, hashlib.sha256(data).hexdigest())

    def lookup_sha(self, path: str, sha: str) -> FileTensors | None:
        entry = self._file(sha)
        if not entry.is_file():
            return None
        try:
            blob = entry.read_bytes()
            head = int.from_bytes(blob[:8], "little")
            meta = json.loads(blob[8:8 + head].decode())
            table = np.frombuffer(blob, dtype="<i8", offset=8 + head).reshape(meta["n"], len(COLUMNS))
            nodes = {c: table[:, k] for k, c in enumerate(COLUMNS)}
            if meta["sha"] != sha or meta["columns"] != list(COLUMNS):
                raise ValueError("stale entry")
        except Exception:  # noqa: BLE001 - any damage means: parse again
            entry.unlink(missing_ok=True)
            return None
        ft = FileTensors(path, sha, nodes, table, meta["blocks"], {int(k): v for k, v in meta["noqa"].items()},
                         meta["raw"], None, True)
        return ft

    def store(self, ft: FileTensors) -> None:
        entry = self._file(ft.sha)
        meta = {"sha": ft.sha, "n": len(ft.nodes["kind"]), "columns": list(COLUMNS), "blocks": ft.blocks,
                "noqa": ft.noqa, "raw": ft.raw}
        head = json.dumps(meta).encode()
        table = np.ascontiguousarray(ft.table, dtype="<i8")
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:  # [8-byte header length][JSON header][int64 node table]
                fh.write(len(head).to_bytes(8, "little") + head + table.tobytes())
            os.replace(tmp, entry)
        except OSError:
            pass  # a cache that cannot be written only costs time


class ResultCache:
    """Finished per-file reports keyed by content and by the policy that produced them (rules, thresholds):
    a warm run over an unchanged tree reads these and computes nothing."""

    def __init__(self, root: str | os.PathLike, policy_key: str) -> None:
        tag = f"{VERSION}-{sys.version_info[0]}.{sys.version_info[1]}"
        self.root = Path(root) / tag / "results" / policy_key

    def lookup(self, sha: str) -> dict | None:
        entry = self.root / sha[:2] / f"{sha}.json"
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
            if data.get("sha") != sha:
                raise ValueError("stale entry")
            return data
        except FileNotFoundError:
            return None
        except Exception:  # noqa: BLE001 - damaged: recompute
            entry.unlink(missing_ok=True)
            return None

    def store(self, sha: str, report: dict) -> None:
        entry = self.root / sha[:2] / f"{sha}.json"
        try:
            entry.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({**report, "sha": sha}, fh)
            os.replace(tmp, entry)
        except OSError:
            pass


def policy_key(policy) -> str:
    """A short stable digest of everything that changes a file's report."""
    return hashlib.sha256(repr(policy).encode()).hexdigest()[:16]
