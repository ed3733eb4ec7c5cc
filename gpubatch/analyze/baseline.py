"""Baselines, for adopting the checker on an old codebase: the current findings' fingerprints written once;
later runs report (and fail on) only the findings not in it, and count the entries no finding matches any
more (fixed, or their line changed).

A fingerprint is the file's path from the repository root, the rule, and the hash of the rule and the
finding's line text numbered among alike in the file (SARIF's partial fingerprint): it survives lines moving
and other lines changing, not a change of the line itself.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

from .report.fingerprint import line_hashes, repo_path
from .report.sarif import repository_root

FORMAT = "gpubatch-baseline"
VERSION = 1


class BaselineError(Exception):
    """The baseline file cannot be used (unreadable, not a gpubatch baseline): a usage error."""


@dataclass(frozen=True)
class Applied:
    """What a baseline did to a run: findings it hid, and entries of the analysed files that matched nothing."""

    hidden: int
    gone: int


def _root() -> Path:
    return repository_root(Path(os.getcwd()))


def _keys(findings, root: Path) -> list[tuple[str, str, str]]:
    return [(repo_path(f.path, root), f.code, h) for f, h in zip(findings, line_hashes(findings))]


def render(result) -> str:
    """The baseline of a run: every finding's fingerprint, sorted, as JSON."""
    entries = sorted(_keys(result.findings, _root()))
    return json.dumps({"format": FORMAT, "version": VERSION,
                       "findings": [{"path": p, "code": c, "hash": h} for p, c, h in entries]}, indent=1) + "\n"


def load(path: Path) -> set[tuple[str, str, str]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("format") != FORMAT or doc.get("version") != VERSION:
            raise ValueError(f"not a {FORMAT} file of version {VERSION}")
        return {(e["path"], e["code"], e["hash"]) for e in doc["findings"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BaselineError(f"--baseline {path}: cannot use it: {exc}") from None


def apply(result, entries: set[tuple[str, str, str]]):
    """The run without the baselined findings, and what that took away."""
    root = _root()
    keys = iter(_keys(result.findings, root))
    files, hidden, seen = [], 0, set()
    for rep in result.files:
        mine = [(f, next(keys)) for f in rep.findings]
        seen.update(k for _, k in mine)
        kept = tuple(f for f, k in mine if k not in entries)
        hidden += len(mine) - len(kept)
        files.append(replace(rep, findings=kept) if len(kept) != len(mine) else rep)
    analysed = {repo_path(rep.path, root) for rep in result.files}
    gone = sum(1 for e in entries if e[0] in analysed and e not in seen)
    return replace(result, files=files), Applied(hidden, gone)
