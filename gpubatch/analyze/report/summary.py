"""Totals shared by the JSON report and the Rich summary."""
from collections import Counter


def summary(result) -> dict:
    findings = result.findings
    blocks = [(r.path, b) for r in result.files for b in r.blocks if b.kind != "C"]
    top = sorted(blocks, key=lambda pb: -pb[1].complexity)[:10]
    per_file = Counter(f.path for f in findings)
    return {"files": len(result.files), "errors": sum(1 for r in result.files if r.error),
            "lines": sum(r.raw.get("loc", 0) for r in result.files), "findings": len(findings),
            "by_rule": dict(sorted(Counter(f.code for f in findings).items())),
            "by_severity": dict(Counter(f.severity for f in findings)),
            "most_complex": [{"path": p, "name": b.name, "line": b.line, "complexity": b.complexity} for p, b in top],
            "most_findings": [{"path": p, "findings": n} for p, n in per_file.most_common(10)],
            "duplicates": duplicates_summary(result.duplicates), "gates": list(result.gate_failures),
            "cached_files": sum(1 for r in result.files if r.cached), "seconds": round(result.seconds, 3)}


def duplicates_summary(groups) -> dict:
    """Clone groups by kind, their copies, and the lines the copies (beyond each group's first) repeat."""
    return {"groups": len(groups), "by_kind": dict(sorted(Counter(g.kind_name for g in groups).items())),
            "copies": sum(len(g.members) for g in groups),
            "duplicated_lines": sum(m.end_line - m.line + 1 for g in groups for m in g.members[1:])}
