"""GitLab Code Quality: a JSON array of issues (description, check_name, fingerprint, severity, location with
a path relative to the repository root and the first line), as GitLab's merge-request widget reads them.

The one escaping layer of this format is `json.dumps`; a file name that is not valid UTF-8 is written with
backslash escapes. Fingerprints are unique in the report: the path and the line hash SARIF uses.
"""
import functools
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

from ...engine.forkjoin import joined
from ...jsonlayout import Raw, dumps
from ...jsonlayout import chunks as _layout
from .fingerprint import by_file, hashed, repo_path
from .sarif import repository_root

_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def _issue(f, line_hash: str, root: Path) -> dict:
    path = repo_path(f.path, root)
    lines = {"begin": max(1, f.line)}
    if f.end_line and f.end_line >= f.line:
        lines["end"] = f.end_line
    return {"description": f"{f.code} {f.message}", "check_name": f.code,
            "fingerprint": hashlib.sha256(f"{path}\0{line_hash}".encode()).hexdigest(),
            "severity": _SEVERITY[f.severity], "location": {"path": path, "lines": lines}}


def _file_issues(group: tuple, root: Path) -> str:
    """One file's issues, encoded as the layout writes a list's records."""
    return ",\n".join(dumps(_issue(f, h, root)) for f, h in hashed(group))


def chunks(result, root=None) -> Iterator[str]:
    root = repository_root(Path(os.path.abspath(root or os.getcwd())))
    encode = functools.partial(_file_issues, root=root)
    yield from _layout(map(Raw, joined(encode, by_file(result), ",\n", min_items=200)), 1)
    yield "\n"
