"""SARIF 2.1.0 for code scanning: rules with descriptions and help, percent-encoded artifact URIs relative to
the repository root (the nearest folder with `.git`),
full regions, and partial fingerprints that survive unrelated edits (hash of the finding's line text)."""
import functools
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from ... import __version__
from ..model import RULES, SEVERITY
from .columns import char_col
from ...engine.forkjoin import joined
from ...jsonlayout import Raw, dumps
from ...jsonlayout import chunks as _layout
from .fingerprint import by_file, hashed, relative_posix

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def repository_root(start: Path) -> Path:
    """The nearest folder from `start` upward holding `.git` (the repository code scanning maps URIs to);
    `start` itself outside a repository."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


@functools.lru_cache(maxsize=4096)
def _location(path: str, root: Path) -> dict:
    """An artifact location: a percent-encoded URI relative to %SRCROOT% (the repository root) for a file
    inside it, an absolute file URI otherwise. Non-UTF-8 names are encoded from their bytes on disk."""
    rel = relative_posix(path, root)
    if rel is None:
        return {"uri": "file://" + quote(os.fsencode(Path(os.path.abspath(path)).as_posix()))}
    return {"uri": quote(os.fsencode(rel)), "uriBaseId": "%SRCROOT%"}


def _result(f, line_hash: str, index: dict, root: Path) -> dict:
    region = {"startLine": max(1, f.line), "startColumn": char_col(f.path, f.line, f.col)}
    if f.end_line >= f.line and f.end_line:
        end_col = char_col(f.path, f.end_line, f.end_col)
        if f.end_line > f.line or end_col > region["startColumn"]:
            region.update(endLine=f.end_line, endColumn=end_col)
    out = {"ruleId": f.code, "ruleIndex": index.get(f.code, 0), "level": _LEVEL[f.severity],
           "message": {"text": f.message},
           "locations": [{"physicalLocation": {"artifactLocation": dict(_location(f.path, root)), "region": region}}],
           "partialFingerprints": {"primaryLocationLineHash": line_hash}}
    if f.related:
        out["relatedLocations"] = [
            {"id": i + 1, "physicalLocation": {"artifactLocation": dict(_location(path, root)),
                                               "region": {"startLine": max(1, line), "endLine": max(1, end)}},
             "message": {"text": f"copy {i + 2} of {len(f.related) + 1}"}}
            for i, (path, line, end) in enumerate(f.related)]
    return out


def _file_results(group: tuple, index: dict, root: Path) -> str:
    """One file's results, encoded as the layout writes a list's records."""
    return ",\n".join(dumps(_result(f, h, index, root)) for f, h in hashed(group))


def chunks(result, root=None) -> Iterator[str]:
    root = repository_root(Path(os.path.abspath(root or os.getcwd())))
    codes = sorted(RULES)
    rules = [{"id": c, "name": RULES[c][0], "shortDescription": {"text": RULES[c][1]},
              "fullDescription": {"text": RULES[c][1]},
              "help": {"text": f"{c} ({RULES[c][0]}): {RULES[c][1]}", "markdown": f"**{c}** `{RULES[c][0]}`: {RULES[c][1]}"},
              "defaultConfiguration": {"level": _LEVEL[SEVERITY.get(c, "warning")]},
              "properties": {"tags": ["gpubatch"]}} for c in codes]
    index = {c: i for i, c in enumerate(codes)}
    encode = functools.partial(_file_results, index=index, root=root)
    results = map(Raw, joined(encode, by_file(result), ",\n", min_items=200))  # forked workers on a large tree
    run = {"tool": {"driver": {"name": "gpubatch", "version": __version__, "semanticVersion": __version__,
                               "informationUri": "https://pypi.org/project/gpubatch/", "rules": rules}},
           "originalUriBaseIds": {"%SRCROOT%": {"uri": "file://" + quote(os.fsencode(root.as_posix())) + "/"}},
           "results": results, "columnKind": "unicodeCodePoints"}
    yield from _layout({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, 4)
    yield "\n"
