"""Content-keyed caches of parsed tensors and of finished per-file reports: an unchanged file is not parsed again.

Every entry carries a BLAKE2b checksum of its bytes and is keyed by everything that shapes it: the file's SHA-256,
the Python version, the tensor format version and, for reports, the policy and the per-file ignores that apply
to the file's path. A damaged, mismatched or unreadable entry is a miss (the file is parsed again) and an
unusable cache directory means "no cache": the run never fails because of its cache, and says so once.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

from .nodes import COLUMNS
from .tensorize import VERSION, FileTensors

_TAG = re.compile(r"\d+-\d+\.\d+$")  # a cache generation's folder: tensor format version, Python version
_SUM = 32  # bytes of the BLAKE2b checksum that ends every entry
DAMAGED = "damaged"  # FileTensors.cache_note of an entry that failed its checks (counted for one warning)


def _tag() -> str:
    return f"{VERSION}-{sys.version_info[0]}.{sys.version_info[1]}"


def _seal(body: bytes) -> bytes:
    return body + hashlib.blake2b(body, digest_size=_SUM).digest()


def _unseal(blob: bytes) -> bytes:
    """The body of a sealed entry; ValueError when its checksum does not match (a flipped bit, a torn write)."""
    body, digest = blob[:-_SUM], blob[-_SUM:]
    if len(blob) < _SUM or hashlib.blake2b(body, digest_size=_SUM).digest() != digest:
        raise ValueError("checksum mismatch")
    return body


def _write(entry: Path, data: bytes) -> None:
    """Atomic write (temporary file, then rename); failures are the caller's to ignore."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, entry)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _discard(entry: Path) -> None:
    """Remove a bad entry if we can; one we cannot remove is simply never trusted."""
    try:
        entry.unlink(missing_ok=True)
    except OSError:
        pass


def prepare(root: str | os.PathLike) -> str | None:
    """Make the cache directory usable: created, ignored by git (a `.gitignore` holding `*`, as ruff's and
    pytest's caches do) and writable. Returns why it is not usable, or None when it is."""
    if str(root).strip() in ("", "."):
        return "analyze.cache_dir is empty (it would put the cache among the sources)"
    root = Path(root)
    try:
        ours = not root.exists() or all(p.name == ".gitignore" or _TAG.match(p.name) for p in root.iterdir())
        root.mkdir(parents=True, exist_ok=True)
        marker = root / ".gitignore"
        if ours and not marker.is_file():  # never into a folder that holds other things: `*` would hide them
            _write(marker, b"# created by gpubatch: the cache is never committed\n*\n")
        fd, probe = tempfile.mkstemp(dir=root, suffix=".probe")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"{root}: {exc.strerror or exc}"
    return None


class TensorCache:
    """Parsed node tables: [8-byte header length][JSON header][int64 table][checksum] per entry."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)

    def _file(self, sha: str) -> Path:
        return self.root / _tag() / sha[:2] / f"{sha}.bin"

    def lookup(self, path: str, max_bytes: int) -> FileTensors | None:
        from .tensorize import read_source

        data, sha, error = read_source(path, max_bytes)
        if error is not None or data is None or len(data) > max_bytes:
            return None
        return self.lookup_sha(path, sha)

    def lookup_sha(self, path: str, sha: str) -> FileTensors | None:
        """The cached tensors of this content; None on a miss. A damaged entry is removed and reported as
        None with `self.damaged` set."""
        self.damaged = False
        entry = self._file(sha)
        try:
            blob = entry.read_bytes()
        except OSError:
            return None
        try:
            body = _unseal(blob)
            head = int.from_bytes(body[:8], "little")
            meta = json.loads(body[8:8 + head].decode())
            if meta["sha"] != sha or meta["columns"] != list(COLUMNS):
                raise ValueError("stale entry")
            table = np.frombuffer(body, dtype="<i8", offset=8 + head).reshape(meta["n"], len(COLUMNS))
            nodes = {c: table[:, k] for k, c in enumerate(COLUMNS)}
            noqa = {int(k): v for k, v in meta["noqa"].items()}
            strings = {int(k): v for k, v in meta.get("strings", {}).items()}
            return FileTensors(path, sha, nodes, table, meta["blocks"], noqa, meta["raw"], None, True,
                               string_lines=strings, ascii=meta["ascii"])
        except Exception:  # noqa: BLE001 - any damage means: parse again
            self.damaged = True
            _discard(entry)
            return None

    def store(self, ft: FileTensors) -> bool:
        """Write one entry; False when the cache could not take it (only costs time)."""
        meta = {"sha": ft.sha, "n": len(ft.nodes["kind"]), "columns": list(COLUMNS), "blocks": ft.blocks,
                "noqa": ft.noqa, "raw": ft.raw, "strings": ft.string_lines, "ascii": ft.ascii}
        head = json.dumps(meta).encode()
        table = np.ascontiguousarray(ft.wide(), dtype="<i8")
        try:
            _write(self._file(ft.sha), _seal(len(head).to_bytes(8, "little") + head + table.tobytes()))
            return True
        except OSError:
            return False


class ResultCache:
    """Finished per-file reports keyed by content, by the policy that produced them (rules, thresholds) and
    by the part of the policy that depends on the file's path (per-file ignores): a warm run over an
    unchanged tree reads these and computes nothing."""

    def __init__(self, root: str | os.PathLike, policy_key: str) -> None:
        self.root = Path(root) / _tag() / "results" / policy_key

    def _file(self, sha: str, path_key: str) -> Path:
        return self.root / sha[:2] / (f"{sha}-{path_key}.json" if path_key else f"{sha}.json")

    def lookup(self, sha: str, path_key: str = "") -> dict | None:
        self.damaged = False
        entry = self._file(sha, path_key)
        try:
            blob = entry.read_bytes()
        except OSError:
            return None
        try:
            data = json.loads(_unseal(blob).decode("utf-8"))
            if data.get("sha") != sha or data.get("path_key", "") != path_key:
                raise ValueError("stale entry")
            return data
        except Exception:  # noqa: BLE001 - damaged: recompute
            self.damaged = True
            _discard(entry)
            return None

    def store(self, sha: str, report: dict, path_key: str = "") -> bool:
        try:
            body = json.dumps({**report, "sha": sha, "path_key": path_key}).encode("utf-8")
            _write(self._file(sha, path_key), _seal(body))
            return True
        except (OSError, ValueError):
            return False


def policy_key(policy) -> str:
    """A short stable digest of everything that changes a file's report, whatever its path."""
    return hashlib.sha256(repr(policy).encode()).hexdigest()[:16]
