"""SARIF 2.1.0 for code scanning: rules with descriptions and help, repository-relative artifact URIs,
full regions, and partial fingerprints that survive unrelated edits (hash of the finding's line text)."""
import hashlib
import json
import os
from pathlib import Path

from ... import __version__
from ..job import RULES, SEVERITY
from .columns import char_col, line_text

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(path: str, root: Path) -> str:
    p = Path(path).resolve()
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return Path(os.path.relpath(p, root)).as_posix()


def render(result, root=None) -> str:
    root = Path(root or os.getcwd()).resolve()
    codes = sorted(RULES)
    rules = [{"id": c, "name": RULES[c][0], "shortDescription": {"text": RULES[c][1]},
              "fullDescription": {"text": RULES[c][1]},
              "help": {"text": f"{c} ({RULES[c][0]}): {RULES[c][1]}", "markdown": f"**{c}** `{RULES[c][0]}`: {RULES[c][1]}"},
              "defaultConfiguration": {"level": _LEVEL[SEVERITY.get(c, "warning")]},
              "properties": {"tags": ["gpubatch"]}} for c in codes]
    index = {c: i for i, c in enumerate(codes)}
    results, seen = [], {}
    for f in result.findings:
        text = line_text(f.path, f.line).strip()
        base = hashlib.sha256(f"{f.code}:{text}".encode()).hexdigest()[:16]
        seen[(f.path, base)] = seen.get((f.path, base), 0) + 1
        region = {"startLine": max(1, f.line), "startColumn": char_col(f.path, f.line, f.col)}
        if f.end_line >= f.line and f.end_line:
            end_col = char_col(f.path, f.end_line, f.end_col)
            if f.end_line > f.line or end_col > region["startColumn"]:
                region.update(endLine=f.end_line, endColumn=end_col)
        results.append({"ruleId": f.code, "ruleIndex": index.get(f.code, 0), "level": _LEVEL[f.severity],
                        "message": {"text": f.message},
                        "locations": [{"physicalLocation": {
                            "artifactLocation": {"uri": _uri(f.path, root), "uriBaseId": "%SRCROOT%"},
                            "region": region}}],
                        "partialFingerprints": {"primaryLocationLineHash": f"{base}:{seen[(f.path, base)]}"}})
    run = {"tool": {"driver": {"name": "gpubatch", "version": __version__, "semanticVersion": __version__,
                               "informationUri": "https://pypi.org/project/gpubatch/", "rules": rules}},
           "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
           "results": results, "columnKind": "unicodeCodePoints"}
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=1) + "\n"
