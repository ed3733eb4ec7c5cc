"""Machine-readable results: summary, per-file metrics and blocks, and every finding (the outcomes), then
`duplicates` (clone groups, under --duplicates), then `timings` (seconds, cached files): two runs of the same tree agree on everything but `timings`, which
`gpubatch diff` leaves out."""
import json
from dataclasses import asdict

from .summary import summary


def render(result, root=None) -> str:
    files = [{"path": r.path, "error": r.error, "nodes": r.nodes, "raw": r.raw,
              "blocks": [asdict(b) for b in r.blocks]} for r in result.files]
    outcomes = summary(result)
    timings = {"seconds": outcomes.pop("seconds"), "cached_files": outcomes.pop("cached_files")}
    doc = {"summary": outcomes, "files": files, "findings": [asdict(f) for f in result.findings]}
    if result.duplicates:
        doc["duplicates"] = [asdict(g) | {"kind": g.kind_name} for g in result.duplicates]
    return json.dumps(doc | {"timings": timings}, indent=1) + "\n"
