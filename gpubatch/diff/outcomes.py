"""Outcome diffs of results files: what two runs found, never how long they took.

Both jobs write outcomes apart from `timings` (and run-batt from `run`, the settings such as the device), so
the same work on the CPU and on a GPU must give documents equal outside those keys. Records are matched by
their identity (a task's `id`, a file's `path`, a finding's location and code), so a difference names the
task or file it is in rather than a list index.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

IGNORED = ("timings", "run")  # how long, where and with which settings: not outcomes
_IDENTITY = ("id", "path")  # the key that names a record of a list, when every record has it
_SHOW = 120  # characters of a value shown in a difference


class DiffError(Exception):
    """A file that is not a results file, or two files of different jobs."""


@dataclass(frozen=True)
class Difference:
    """One place where the outcomes differ: a dotted location and the two values (None where absent)."""

    where: str
    a: Any
    b: Any

    def line(self) -> str:
        return f"{self.where}: {_short(self.a)} != {_short(self.b)}"


def load(path: Path) -> dict:
    """A results document; DiffError with the reason when the file is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DiffError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise DiffError(f"{path}: not JSON: {exc}") from None
    if not isinstance(data, dict) or "summary" not in data or not ({"tasks", "files"} & data.keys()):
        raise DiffError(f"{path}: not a gpubatch results file (run-batt --results or analyze --format json)")
    return data


def job_of(data: dict) -> str:
    return "run-batt" if "tasks" in data else "analyze"


def compare(a: dict, b: dict) -> list[Difference]:
    """Every difference in outcomes between two results documents, in document order."""
    if job_of(a) != job_of(b):
        raise DiffError(f"cannot compare a {job_of(a)} results file with a {job_of(b)} one")
    out: list[Difference] = []
    _walk({k: v for k, v in a.items() if k not in IGNORED}, {k: v for k, v in b.items() if k not in IGNORED},
          "", out)
    return out


def compare_files(a: Path, b: Path) -> list[Difference]:
    return compare(load(a), load(b))


def _walk(a: Any, b: Any, where: str, out: list[Difference]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            _walk(a.get(key), b.get(key), f"{where}.{key}" if where else str(key), out)
    elif isinstance(a, list) and isinstance(b, list) and _keyed(a) and _keyed(b):
        ka, kb = _index(a), _index(b)
        for key in list(ka) + [k for k in kb if k not in ka]:
            _walk(ka.get(key), kb.get(key), f"{where}[{key}]", out)
    elif isinstance(a, list) and isinstance(b, list) and a != b and any(isinstance(r, dict) for r in a + b):
        _records(a, b, where, out)
    elif a != b:
        out.append(Difference(where, a, b))


def _keyed(records: list) -> str | None:
    """The identity field every record of the list has, or None."""
    for name in _IDENTITY:
        if records and all(isinstance(r, dict) and name in r for r in records):
            if len({json.dumps(r[name]) for r in records}) == len(records):
                return name
    return None


def _index(records: list) -> dict:
    name = _keyed(records)
    return {str(r[name]): r for r in records}


def _records(a: list, b: list, where: str, out: list[Difference]) -> None:
    """Lists of records without an identity (findings): what is in one and not the other."""
    sa, sb = [json.dumps(r, sort_keys=True) for r in a], [json.dumps(r, sort_keys=True) for r in b]
    only_b = set(sb)
    for text, rec in zip(sa, a):
        if text not in only_b:
            out.append(Difference(f"{where}[{_label(rec)}]", rec, None))
    only_a = set(sa)
    for text, rec in zip(sb, b):
        if text not in only_a:
            out.append(Difference(f"{where}[{_label(rec)}]", None, rec))


def _label(rec: dict) -> str:
    parts = [str(rec[k]) for k in ("path", "line", "col", "code", "program") if k in rec]
    return ":".join(parts) or "?"


def _short(value: Any) -> str:
    if value is None:
        return "(absent)"
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= _SHOW else text[:_SHOW - 3] + "..."
