"""Totals shared by the JSON report and the Rich summary."""
import heapq
from collections import Counter

import numpy as np

from ..packed import block_column


def most_complex(files, k: int = 10) -> list[dict]:
    """The `k` most complex functions and methods, first found first among equals; read from the blocks'
    columns, so a warm run over a large tree builds no block object for it."""
    best: list[tuple[int, int, int]] = []  # a min-heap of (complexity, -file, -block)
    for fi, r in enumerate(files):
        cx = block_column(r.blocks, "complexity")
        if not cx or len(best) == k and max(cx) < best[0][0]:
            continue
        kinds = block_column(r.blocks, "kind")
        for j, c in enumerate(cx):
            if kinds[j] != "C" and (len(best) < k or (c, -fi, -j) > best[0]):
                (heapq.heappush if len(best) < k else heapq.heapreplace)(best, (c, -fi, -j))
    out = []
    for c, fi, j in sorted(best, reverse=True):
        r = files[-fi]
        out.append({"path": r.path, "name": block_column(r.blocks, "name")[-j],
                    "line": block_column(r.blocks, "line")[-j], "complexity": c})
    return out


def summary(result) -> dict:
    findings = result.findings
    per_file = Counter({r.path: len(r.findings) for r in result.files if r.findings})  # a file's findings are its own
    rules = Counter((f.code, f.severity) for f in findings)  # one pass over findings for both tallies
    by_rule, by_severity = Counter(), Counter()
    for (code, severity), n in rules.items():
        by_rule[code] += n
        by_severity[severity] += n
    return {"files": len(result.files), "errors": sum(1 for r in result.files if r.error),
            "lines": sum(r.raw.get("loc", 0) for r in result.files), "findings": len(findings),
            "by_rule": dict(sorted(by_rule.items())),
            "by_severity": dict(by_severity),
            "most_complex": most_complex(result.files),
            "most_findings": [{"path": p, "findings": n} for p, n in per_file.most_common(10)],
            "duplicates": duplicates_summary(result.duplicates), "gates": list(result.gate_failures),
            "cached_files": sum(1 for r in result.files if r.cached), "seconds": round(result.seconds, 3)}


def duplicates_summary(groups) -> dict:
    """Clone groups by kind, their copies, and the lines the copies (beyond each group's first) repeat, each
    line counted once (a piece of a function can be a group of its own beside the whole function's)."""
    paths: dict[str, int] = {}
    rows = [(paths.setdefault(m.path, len(paths)), m.line, m.end_line) for g in groups for m in g.members[1:]]
    return {"groups": len(groups), "by_kind": dict(sorted(Counter(g.kind_name for g in groups).items())),
            "copies": sum(len(g.members) for g in groups), "duplicated_lines": covered_lines(rows)}


def covered_lines(rows: list[tuple[int, int, int]]) -> int:
    """Lines inside the union of (file, first, last) ranges: per file, sorted by start, each range adds what
    lies past the furthest end before it (a running maximum, offset per file so files do not mix)."""
    if not rows:
        return 0
    f, a, b = np.asarray(rows, np.int64).T
    order = np.lexsort((b, a, f))
    f, a, b = f[order], a[order], b[order]
    span = int(b.max()) + 2
    reach = np.maximum.accumulate(b + f * span) - f * span  # furthest end so far within the file (or below 0)
    before = np.concatenate([[0], reach[:-1]])
    before[np.concatenate([[True], f[1:] != f[:-1]])] = 0
    return int(np.maximum(0, b - np.maximum(a, before + 1) + 1).sum())
