"""Recall of `gpubatch analyze --duplicates` against pylint's duplicate-code (R0801) and jscpd on one tree.

usage: python benchmarks/dup_agree.py ROOT OURS.json [--pylint PYLINT.txt] [--jscpd JSCPD.json] [--out F.json]

OURS.json is `gpubatch analyze ROOT --duplicates --select GB301 --format json`. A peer's clone is covered when
every line of each of its places that carries code lies in one of our groups' members, in groups that also
have a member at each other place (blank, comment-only and docstring lines at a place's ends do not count, as neither
tool's ranges are trimmed the same way). Misses are listed by cause.
"""
from __future__ import annotations

import argparse
import ast
import io
import json
import os
import re
import sys
import tokenize
from collections import Counter, defaultdict


def code_lines(path: str, cache: dict) -> set[int]:
    """Lines that hold a token other than a comment, a string statement, an import or layout."""
    if path in cache:
        return cache[path]
    out: set[int] = set()
    try:
        src = open(path, "rb").read()
        tree = ast.parse(src)
        skip = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                    isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)):
                skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        for tok in tokenize.tokenize(io.BytesIO(src).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                            tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            for ln in range(tok.start[0], tok.end[0] + 1):
                if ln not in skip:
                    out.add(ln)
    except (SyntaxError, ValueError, OSError, tokenize.TokenError):
        pass
    cache[path] = out
    return out


def pylint_clones(text: str, root: str) -> list[list[tuple[str, int, int]]]:
    """Each R0801 report as [(path, first line, last line)], lines 1-based inclusive."""
    out, cur = [], None
    for line in text.splitlines():
        if "R0801" in line:
            cur = []
            out.append(cur)
            continue
        m = re.match(r"==([\w.]+):\[(\d+):(\d+)\]", line)
        if m and cur is not None:
            mod = m.group(1).replace(".", "/")
            path = os.path.join(root, mod + ".py")
            if not os.path.exists(path):
                path = os.path.join(root, mod, "__init__.py")
            cur.append((path, int(m.group(2)) + 1, int(m.group(3))))
    return [c for c in out if c]


def jscpd_clones(doc: dict, root: str) -> list[list[tuple[str, int, int]]]:
    def place(f):
        path = f["name"] if os.path.isabs(f["name"]) else os.path.join(root, f["name"])
        return (os.path.normpath(path), f["startLoc"]["line"], f["endLoc"]["line"])

    return [[place(d["firstFile"]), place(d["secondFile"])] for d in doc["duplicates"]]


def covered(clone, groups_by_file, lines_cache) -> str | None:
    """None when our groups cover the clone: every code line of each place lies in a member of a group that
    also has a member overlapping every other place (copies of one text, reported as such); else the cause."""
    needs = []
    for path, a, b in clone:
        code = {ln for ln in range(a, b + 1) if ln in code_lines(path, lines_cache)}
        if not code:
            return None  # nothing but comments, docstrings or imports: ignored by design
        needs.append((os.path.realpath(path), a, b, code))
    touching = [{gi for gi, lo, hi in groups_by_file.get(p, ()) if lo <= b and a <= hi} for p, a, b, _ in needs]
    shared = set.intersection(*touching)
    for (p, a, b, code) in needs:
        left = set(code)
        for gi, lo, hi in groups_by_file.get(p, ()):
            if gi in shared:
                left -= set(range(lo, hi + 1))
        if left:
            if any(touching):
                return "partly covered"
            return f"not found ({'under 6' if len(code) < 6 else '6+'} code lines)"
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("ours")
    ap.add_argument("--pylint")
    ap.add_argument("--jscpd")
    ap.add_argument("--out")
    args = ap.parse_args()
    doc = json.load(open(args.ours))
    groups_by_file = defaultdict(list)
    for gi, g in enumerate(doc["duplicates"]):
        for m in g["members"]:
            groups_by_file[os.path.realpath(m["path"])].append((gi, m["line"], m["end_line"]))
    report, cache = {"groups": len(doc["duplicates"])}, {}
    peers = []
    if args.pylint:
        peers.append(("pylint", pylint_clones(open(args.pylint).read(), args.root)))
    if args.jscpd:
        peers.append(("jscpd", jscpd_clones(json.load(open(args.jscpd)), args.root)))
    for name, clones in peers:
        misses = [(c, covered(c, groups_by_file, cache)) for c in clones]
        misses = [(c, why) for c, why in misses if why]
        report[name] = {"clones": len(clones), "covered": len(clones) - len(misses),
                        "misses_by_cause": dict(Counter(why for _, why in misses)),
                        "misses": [{"places": c, "cause": why} for c, why in misses[:50]]}
        print(f"{name}: {len(clones) - len(misses)}/{len(clones)} covered; misses {dict(Counter(w for _, w in misses))}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
