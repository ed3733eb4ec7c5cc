"""Machine-readable results: summary, per-file metrics and blocks, and every finding."""
import json
from dataclasses import asdict

from .summary import summary


def render(result, root=None) -> str:
    files = [{"path": r.path, "error": r.error, "nodes": r.nodes, "raw": r.raw,
              "blocks": [asdict(b) for b in r.blocks]} for r in result.files]
    return json.dumps({"summary": summary(result), "files": files,
                       "findings": [asdict(f) for f in result.findings]}, indent=1) + "\n"
