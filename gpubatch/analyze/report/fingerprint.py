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


def by_file(result) -> list[tuple]:
    """The findings of each file that has some, as (finding, line hash) pairs per file: the unit a report's
    forked workers encode (`engine.forkjoin`), each pair as `line_hashes` gives it. A path listed twice has
    its hashes numbered across both."""
    seen: dict[tuple[str, str], int] = {}
    groups = [r.findings for r in result.files if r.findings]
    if len({g[0].path for g in groups}) == len(groups):  # each file's own count, worked out where it is encoded
        return [tuple(zip(g, itertools.repeat(None))) for g in groups]
    return [tuple(zip(g, _file_hashes(list(g), seen))) for g in groups]


def hashed(group: tuple) -> tuple:
    """A `by_file` group with its line hashes filled in (the file read once, in the worker that encodes it)."""
    if not group or group[0][1] is not None:
        return group
    findings = [f for f, _ in group]
    return tuple(zip(findings, _file_hashes(findings, {})))


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
