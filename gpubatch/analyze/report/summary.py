"""Totals shared by the JSON report and the Rich summary."""
import heapq
from collections import Counter

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
    per_file = Counter(f.path for f in findings)
    return {"files": len(result.files), "errors": sum(1 for r in result.files if r.error),
            "lines": sum(r.raw.get("loc", 0) for r in result.files), "findings": len(findings),
            "by_rule": dict(sorted(Counter(f.code for f in findings).items())),
            "by_severity": dict(Counter(f.severity for f in findings)),
            "most_complex": most_complex(result.files),
            "most_findings": [{"path": p, "findings": n} for p, n in per_file.most_common(10)],
            "duplicates": duplicates_summary(result.duplicates), "gates": list(result.gate_failures),
            "cached_files": sum(1 for r in result.files if r.cached), "seconds": round(result.seconds, 3)}


def duplicates_summary(groups) -> dict:
    """Clone groups by kind, their copies, and the lines the copies (beyond each group's first) repeat, each
    line counted once (a piece of a function can be a group of its own beside the whole function's)."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for g in groups:
        for m in g.members[1:]:
            spans.setdefault(m.path, []).append((m.line, m.end_line))
    lines = 0
    for ranges in spans.values():
        reach = 0
        for a, b in sorted(ranges):
            lines += max(0, b - max(a, reach + 1) + 1)
            reach = max(reach, b)
    return {"groups": len(groups), "by_kind": dict(sorted(Counter(g.kind_name for g in groups).items())),
            "copies": sum(len(g.members) for g in groups), "duplicated_lines": lines}
