"""Fingerprints of findings that survive unrelated edits: a hash of the rule and the finding's line text,
numbered when a file has several alike. SARIF's partial fingerprints, GitLab's and the baseline use them."""
from __future__ import annotations

import hashlib

from .columns import line_text


def line_hashes(findings) -> list[str]:
    """`HASH:N` per finding, in order: N counts the same rule on the same line text earlier in the file."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for f in findings:
        text = line_text(f.path, f.line).strip()
        base = hashlib.sha256(f"{f.code}:{text}".encode()).hexdigest()[:16]
        seen[(f.path, base)] = seen.get((f.path, base), 0) + 1
        out.append(f"{base}:{seen[(f.path, base)]}")
    return out
