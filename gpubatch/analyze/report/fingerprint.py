"""Fingerprints of findings that survive unrelated edits: a hash of the rule and the finding's line text,
numbered when a file has several alike, and the file's path from the repository root. SARIF's partial
fingerprints, GitLab's and the baseline use them."""
from __future__ import annotations

import functools
import hashlib
import itertools
import os
from pathlib import Path

from .columns import some_lines


def line_hashes(findings) -> list[str]:
    """`HASH:N` per finding, in order: N counts the same rule on the same line text earlier in the file."""
    seen: dict[tuple[str, str], int] = {}
    return [h for _, group in itertools.groupby(findings, key=lambda f: f.path)  # a file's findings come together
            for h in _file_hashes(list(group), seen)]


def _file_hashes(findings: list, seen: dict[tuple[str, str], int]) -> list[str]:
    """The hashes of one file's findings: the file read once, only its findings' lines decoded."""
    lines = some_lines(findings[0].path, (f.line for f in findings))
    out = []
    for f in findings:
        base = hashlib.sha256(f"{f.code}:{lines[f.line].strip()}".encode()).hexdigest()[:16]
        seen[f.path, base] = seen.get((f.path, base), 0) + 1
        out.append(f"{base}:{seen[f.path, base]}")
    return out


def relative_posix(path: str, root: Path) -> str | None:
    """`path` (made absolute) relative to the absolute folder `root`, `/`-separated, or None outside it. On
    POSIX by string prefix: `PurePath.relative_to` builds every parent of the path (Python 3.12), which was a
    third of SARIF's rendering over a large tree."""
    p = os.path.abspath(path)
    if os.sep != "/":  # Windows: drive letters and case-insensitive names, as pathlib compares them
        try:
            return Path(p).relative_to(root).as_posix()
        except ValueError:
            return None
    r = str(root)
    if p == r:
        return "."
    prefix = r if r.endswith("/") else r + "/"
    return p[len(prefix):] if p.startswith(prefix) else None


@functools.lru_cache(maxsize=4096)  # a file's findings come together: its path is worked out once
def repo_path(path: str, root: Path) -> str:
    """`path` relative to the repository root (absolute outside it), `/`-separated; undecodable bytes of a
    name as backslash escapes."""
    rel = relative_posix(path, root)
    if rel is None:
        rel = Path(os.path.abspath(path)).as_posix()
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
