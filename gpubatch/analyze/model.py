"""What the analyze job produces and decides by: rule metadata, findings, per-file reports, the run's result,
the policy (rules, thresholds, select/ignore, per-file ignores), and a report's stored form (the result cache
and the stat index keep reports in it)."""
from __future__ import annotations

import base64
import fnmatch
import hashlib
from dataclasses import dataclass, field
from typing import Any

from .batched import Block, Thresholds

SEVERITY = {"E999": "error", "E902": "error", "S307": "error", "S102": "error", "GB201": "error",
            "GB202": "error", "GB301": "warning", "E722": "warning", "B006": "warning", "B008": "warning",
            "E711": "warning", "E712": "warning", "C901": "warning", "GB101": "info", "GB102": "info",
            "GB103": "info"}
RULES = {
    "E999": ("syntax-error", "The file does not parse."),
    "E902": ("io-error", "The file cannot be read, is binary, or is larger than analyze.max_file_bytes."),
    "E722": ("bare-except", "Do not use bare `except`: it also catches KeyboardInterrupt and SystemExit."),
    "B006": ("mutable-argument-default", "A mutable default argument is shared between calls."),
    "B008": ("function-call-in-default-argument", "A call in a default argument runs once, at definition."),
    "S307": ("suspicious-eval-usage", "`eval` runs arbitrary code; use ast.literal_eval for data."),
    "S102": ("exec-builtin", "`exec` runs arbitrary code."),
    "E711": ("none-comparison", "Compare with None using `is` / `is not`."),
    "E712": ("true-false-comparison", "Compare with True/False by truth value or `is`."),
    "C901": ("complex-structure", "Cyclomatic complexity above analyze.max_complexity (as radon cc counts it, or "
             "mccabe and ruff under analyze.complexity = \"mccabe\")."),
    "GB101": ("function-too-long", "Function longer than analyze.max_function_lines."),
    "GB102": ("nesting-too-deep", "Statements nested deeper than analyze.max_nesting."),
    "GB103": ("too-many-parameters", "More parameters than analyze.max_params."),
    "GB201": ("banned-call", "A call listed in analyze.rules.banned_calls."),
    "GB202": ("banned-import", "An import listed in analyze.rules.banned_imports."),
    "GB301": ("duplicate-code", "A stretch of code copied elsewhere (verbatim, renamed or with small edits); "
              "under --duplicates."),
}
LEVELS = {"info": 1, "warning": 2, "error": 3, "never": 99}


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int
    code: str
    message: str
    severity: str
    end_line: int = 0
    end_col: int = 0
    related: tuple[tuple[str, int, int], ...] = ()  # other places of the finding (GB301: the other copies)


@dataclass(frozen=True)
class FileReport:
    path: str
    findings: tuple[Finding, ...]
    blocks: tuple[Block, ...]
    raw: dict
    nodes: int
    error: str | None = None
    cached: bool = False
    features: Any = field(default=None, compare=False, repr=False)  # clone features under --duplicates
    metrics: dict = field(default_factory=dict)  # file-level: halstead (radon hal), mi and mi_rank (radon mi)
    ascii: bool = False  # the file is pure ASCII: its byte columns are its character columns


@dataclass
class AnalyzeResult:
    files: list[FileReport] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # what the run could not do (cache), said once each
    duplicates: list = field(default_factory=list)  # clone groups (clones.groups.CloneGroup) under --duplicates
    gate_failures: list[str] = field(default_factory=list)  # xenon's gates exceeded (analyze.max_absolute...)

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.files for f in r.findings]


@dataclass(frozen=True)
class Policy:
    thresholds: Thresholds
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: tuple[tuple[str, str], ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    duplicates: Any = None  # clones.search.CloneSettings when duplicate code is searched for

    def enabled(self, code: str, path: str) -> bool:
        if self.select and not any(code.startswith(s) for s in self.select):
            return False
        if any(code.startswith(s) for s in self.ignore):
            return False
        for glob, codes in self.per_file_ignores:
            if fnmatch.fnmatch(path, glob) and any(code.startswith(c) for c in codes):
                return False
        return True

    def path_key(self, path: str) -> str:
        """A digest of the per-file ignores that apply to `path` ("" when none does): cached reports of the
        same content are shared only between paths that the policy treats alike."""
        hit = [(glob, codes) for glob, codes in self.per_file_ignores if fnmatch.fnmatch(path, glob)]
        return hashlib.sha256(repr(hit).encode()).hexdigest()[:12] if hit else ""

    def level(self, code: str) -> str:
        return dict(self.severity).get(code, SEVERITY.get(code, "warning"))


def to_dict(rep: FileReport) -> dict:
    out = {"findings": [[f.line, f.col, f.code, f.message, f.severity, f.end_line, f.end_col] for f in rep.findings],
           "blocks": [list(c) for c in zip(*rep.blocks)],  # by column: a warm run decodes and rebuilds them fast
           "raw": rep.raw, "nodes": rep.nodes, "metrics": rep.metrics, "ascii": rep.ascii}
    if rep.features is not None:
        out["features"] = base64.b64encode(rep.features.to_bytes()).decode("ascii")
    return out


def from_dict(path: str, d: dict) -> FileReport:
    features = None
    if "features" in d:
        from .clones.features import Features

        features = Features.from_bytes(base64.b64decode(d["features"]))
    cols = d["blocks"]
    blocks = tuple(map(Block, *cols[:8], map(tuple, cols[8]))) if cols else ()
    return FileReport(path, tuple(Finding(path, *f) for f in d["findings"]), blocks, d["raw"], d["nodes"], None,
                      True, features, d["metrics"], d["ascii"])


def noqa_allows(noqa: dict, line: int, code: str) -> bool:
    """Whether the file's `noqa` comments (and its file-level `# ruff: noqa`) let a finding of `code` at `line`
    through."""
    codes = noqa.get(line) if line else None
    whole = noqa.get(0)  # the file-level exemption: every code, or those named exactly (as ruff matches them)
    if whole is not None and (not whole or code in whole):
        return False
    return codes is None or bool(codes and not any(code.startswith(c) for c in codes))
