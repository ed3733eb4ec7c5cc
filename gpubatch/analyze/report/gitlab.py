"""GitLab Code Quality: a JSON array of issues (description, check_name, fingerprint, severity, location with
a path relative to the repository root and the first line), as GitLab's merge-request widget reads them.

The one escaping layer of this format is `json.dumps`; a file name that is not valid UTF-8 is written with
backslash escapes. Fingerprints are unique in the report: the path and the line hash SARIF uses.
"""
import hashlib
import os
from pathlib import Path

from .fingerprint import line_hashes, repo_path
from .sarif import repository_root
from .layout import layout

_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(result, root=None) -> str:
    root = repository_root(Path(os.path.abspath(root or os.getcwd())))
    issues = []
    for f, line_hash in zip(result.findings, line_hashes(result.findings)):
        path = repo_path(f.path, root)
        lines = {"begin": max(1, f.line)}
        if f.end_line and f.end_line >= f.line:
            lines["end"] = f.end_line
        issues.append({"description": f"{f.code} {f.message}", "check_name": f.code,
                       "fingerprint": hashlib.sha256(f"{path}\0{line_hash}".encode()).hexdigest(),
                       "severity": _SEVERITY[f.severity], "location": {"path": path, "lines": lines}})
    return layout(issues, 1) + "\n"
