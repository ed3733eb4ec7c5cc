"""Recall of `gpubatch analyze --duplicates` against pylint's duplicate-code (R0801) and jscpd on one tree.

usage: python benchmarks/dup_agree.py ROOT OURS.json [--pylint PYLINT.txt] [--jscpd JSCPD.json] [--out F.json]

OURS.json is `gpubatch analyze ROOT --duplicates --select GB301 --format json`. A peer's clone is covered when
every line of each of its places that carries code lies in one of our groups' members, in groups that also
have a member at each other place. Blank, comment-only and docstring lines do not count, as neither tool's ranges
are trimmed the same way, nor do lines of closing brackets alone at a place's start: the end of the statement
before the copy, which both peers' line and token matching take in where the two files share it (a `)` line,
or a `]:` that ends the header of the statement whose body is the copy).
Misses are listed by cause. pylint is measured twice: on its whole
ranges, and without the function signature lines that its ignore-signatures (on by default) left out of its
comparison while its ranges still span them.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import io
import json
import os
import re
import sys
import tokenize
from collections import Counter, defaultdict


MIN_NODES = 14  # analyze.duplicates.min_nodes, the default
MIN_RUN = 4  # pylint's min-similarity-lines: fewer equal lines in a row are no copy to either peer


def code_lines(path: str, cache: dict) -> tuple[set[int], set[int]]:
    """(lines that hold a token other than a comment, a string statement, an import or layout; lines inside a
    string constant that spans several lines). A line of blanks alone is layout, inside a string too: pylint
    drops it before comparing, and no tool compares whitespace."""
    if path in cache:
        return cache[path]
    out: set[int] = set()
    strings: set[int] = set()
    try:
        src = open(path, "rb").read()
        tree = ast.parse(src)
        skip = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                    isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)):
                skip.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            elif isinstance(node, ast.Constant) and (node.end_lineno or node.lineno) > node.lineno:
                strings.update(range(node.lineno, node.end_lineno + 1))
        for tok in tokenize.tokenize(io.BytesIO(src).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                            tokenize.ENCODING, tokenize.ENDMARKER):
                continue
            for ln in range(tok.start[0], tok.end[0] + 1):
                if ln not in skip:
                    out.add(ln)
        rows = re.split(r"\r\n|\r|\n", src.decode("utf-8", "replace"))
        out -= {k + 1 for k, text in enumerate(rows) if not text.strip()}
    except (SyntaxError, ValueError, OSError, tokenize.TokenError):
        pass
    cache[path] = out, strings
    return out, strings


def signature_lines(path: str, cache: dict) -> set[int]:
    """Lines of def and class headers and their decorators (pylint's ignore-signatures skips them)."""
    key = ("sig", path)
    if key not in cache:
        lines: set[int] = set()
        try:
            for node in ast.walk(ast.parse(open(path, "rb").read())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
                    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    lines.update(range(first, node.body[0].lineno))
        except (SyntaxError, ValueError, OSError):
            pass
        cache[key] = lines
    return cache[key]


def pylint_signature_lines(path: str, cache: dict) -> set[int]:
    """The lines pylint leaves out of its comparison with ignore-signatures (its default): each function's
    def line up to its first statement after the docstring, for the functions it finds: those in the bodies
    of the module, classes and functions, not inside other statements. Its reported ranges still span them."""
    key = ("pysig", path)
    if key not in cache:
        lines: set[int] = set()

        def visit(body) -> None:
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    rest = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
                    lines.update(range(node.lineno, rest[0].lineno if rest else node.end_lineno + 1))
                if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(node.body)
        try:
            visit(ast.parse(open(path, "rb").read()).body)
        except (SyntaxError, ValueError, OSError, RecursionError):
            pass
        cache[key] = lines
    return cache[key]


def node_lines(path: str, cache: dict) -> list[int]:
    """The first line of every syntax node that clone detection counts (no contexts, operators, imports or
    docstrings), one entry per node."""
    key = ("nodes", path)
    if key not in cache:
        out: list[int] = []
        try:
            tree = ast.parse(open(path, "rb").read())
            skip = set()
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                        isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                        and isinstance(node.value.value, str)):
                    skip.update(id(n) for n in ast.walk(node))
            out = [n.lineno for n in ast.walk(tree) if id(n) not in skip and getattr(n, "lineno", 0)
                   and not isinstance(n, (ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop))]
        except (SyntaxError, ValueError, OSError):
            pass
        cache[key] = out
    return cache[key]


def _texts(path: str, lines) -> list[str]:
    try:
        src = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return []
    return [src[ln - 1].strip() for ln in sorted(lines) if 0 < ln <= len(src)]


def alike_without_signatures(needs, cache) -> bool:
    """Whether the places read the same only once def/class headers are left out (what pylint compares)."""
    texts = [_texts(p, code - signature_lines(p, cache)) for p, _, _, code in needs]
    full = [_texts(p, code) for p, _, _, code in needs]
    return all(t == texts[0] for t in texts) and not all(f == full[0] for f in full)


def _partial(path: str, line: int, col: int, start: bool) -> bool:
    """Whether a peer's range starts after the line's first token (or ends before its last): a line it holds
    only in part, which neither side must cover."""
    try:
        text = open(path, encoding="utf-8", errors="replace").read().splitlines()[line - 1]
    except (OSError, IndexError):
        return False
    return col > len(text) - len(text.lstrip()) if start else col < len(text.rstrip())


def bare_texts(path: str, cache: dict) -> dict[int, str]:
    """Each line's text with its comment cut and no whitespace at all: what both peers compare (pylint
    strips lines and drops comments, jscpd compares tokens)."""
    key = ("bare", path)
    if key not in cache:
        out: dict[int, str] = {}
        try:
            src = open(path, "rb").read()
            rows = re.split(r"\r\n|\r|\n", src.decode("utf-8", "replace"))
            cut = {tok.start[0]: tok.start[1] for tok in tokenize.tokenize(io.BytesIO(src).readline)
                   if tok.type == tokenize.COMMENT}
            out = {k + 1: re.sub(r"\s+", "", row[:cut.get(k + 1, len(row))]) for k, row in enumerate(rows)}
        except (SyntaxError, ValueError, OSError, tokenize.TokenError):
            pass
        cache[key] = out
    return cache[key]


def _joined(path: str, a: int, b: int, cache: dict) -> str:
    """A place's text with no whitespace and no line breaks at all: strings that only a tool reading their text
    as tokens finds alike (`Exception, 5, 6` against `Exception,5,6` inside test inputs)."""
    bare = bare_texts(path, cache)
    return "".join(bare.get(ln, "") for ln in range(a, b + 1))


def alike_run(needs, left: list[set[int]], cache: dict) -> int:
    """The longest run of equal lines that holds a line left uncovered (difflib over the places' whole ranges,
    blank lines left out, docstrings and comment lines kept; against the first place, the first place against
    any other); 0 where every uncovered line differs from the other places. A line in no run of `MIN_RUN`
    equal lines is no copy to pylint's own rule: the peer's range runs past the copy (jscpd's token match
    into a line that differs, pylint's ranges that span lines one file lacks)."""
    seqs = []
    for p, a, b, _ in needs:
        bare = bare_texts(p, cache)
        lines = [ln for ln in range(a, b + 1) if bare.get(ln)]
        seqs.append((lines, [bare[ln] for ln in lines]))
    runs: list[dict[int, int]] = [{} for _ in needs]
    for i in range(1, len(needs)):
        sm = difflib.SequenceMatcher(None, seqs[0][1], seqs[i][1], autojunk=False)
        for a, b, n in sm.get_matching_blocks():
            for ln in seqs[0][0][a:a + n]:
                runs[0][ln] = max(runs[0].get(ln, 0), n)
            for ln in seqs[i][0][b:b + n]:
                runs[i][ln] = max(runs[i].get(ln, 0), n)
    return max((r.get(ln, 0) for lf, r in zip(left, runs) for ln in lf), default=0)


_CLOSING = re.compile(r"[)\]}]+[,;:]?")


def _closing_head(path: str, code: set[int]) -> set[int]:
    """The lines at the start of a place that hold only closing brackets: the end of the statement before the
    copy (pylint's ranges often start on a `)` that both files share), or of the header of a compound statement
    whose body is the copy (`]:`, where the header's list differs), which no copy of the code holds."""
    out: set[int] = set()
    lines = sorted(code)
    for ln, text in zip(lines, _texts(path, lines)):  # the file read once
        if not _CLOSING.fullmatch(text):
            break
        out.add(ln)
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
    """Each clone as [(path, first line, last line)]; a first or last line the clone holds only in part (it
    starts or ends mid-line, at a token) is left out."""
    def place(f):
        path = os.path.normpath(f["name"] if os.path.isabs(f["name"]) else os.path.join(root, f["name"]))
        a, b = f["startLoc"]["line"], f["endLoc"]["line"]
        if b > a and _partial(path, a, f["startLoc"]["column"], True):
            a += 1
        if b > a and _partial(path, b, f["endLoc"]["column"], False):
            b -= 1
        return (path, a, b)

    return [[place(d["firstFile"]), place(d["secondFile"])] for d in doc["duplicates"]]


def covered(clone, groups_by_file, lines_cache, exempt=None, analysed=None) -> str | None:
    """None when our groups cover the clone: every code line of each place lies in a member of a group that
    also has a member overlapping every other place (copies of one text, reported as such); else the cause.
    `exempt(path)`: lines that need no cover (those the peer itself did not compare). `analysed`: the real paths
    of the files our report holds (a file that discovery leaves out, such as a `venv` folder under ruff's
    default excludes, has no copies to find)."""
    if analysed is not None and any(os.path.realpath(p) not in analysed for p, _, _ in clone):
        return "in a file not analysed (excluded by default, as ruff excludes venv/)"
    needs = []
    in_strings = in_headers = 0
    for path, a, b in clone:
        lines, strings = code_lines(path, lines_cache)
        code = {ln for ln in range(a, b + 1) if ln in lines}
        if exempt is not None:
            code -= exempt(path)
        code -= _closing_head(path, code)
        if not code:
            return None  # nothing but comments, docstrings or imports: ignored by design
        in_strings += 2 * len(code & strings) >= len(code)
        in_headers += 2 * len(code & signature_lines(path, lines_cache)) >= len(code)
        needs.append((os.path.realpath(path), a, b, code))
    touching = [{gi for gi, lo, hi in groups_by_file.get(p, ()) if lo <= b and a <= hi} for p, a, b, _ in needs]
    shared = set.intersection(*touching)
    lefts = [_uncovered(p, a, b, code, groups_by_file, shared) for p, a, b, code in needs]
    for (p, a, b, code), left in zip(needs, lefts):
        if left:
            if in_headers == len(needs):
                return "mostly def/class headers and decorators (left out, as pylint's ignore-signatures)"
            if alike_without_signatures(needs, lines_cache):
                return "alike only without the def/class headers (pylint's ignore-signatures)"
            run = alike_run(needs, lefts, lines_cache)
            if run == 0:
                return "only lines that differ between the places left uncovered (the peer's range runs past the copy)"
            if run < MIN_RUN:
                return f"uncovered lines alike only in runs of under {MIN_RUN} lines (pylint's min-similarity-lines)"
            if 0 < in_strings < len(needs):
                return "text inside a string at one place, code at another (pylint compares both as lines)"
            if in_strings and len({_joined(p, a, b, lines_cache) for p, a, b, _ in needs}) == 1:
                return "inside strings alike only without their spacing and line breaks (other values)"
            if in_strings:
                return "mostly inside a multi-line string"
            size = min(sum(a <= ln <= b for ln in node_lines(p, lines_cache)) for p, a, b, _ in needs)
            if size < MIN_NODES:
                return f"under our min_nodes ({MIN_NODES} syntax nodes)"
            if shared:
                if all(lf <= signature_lines(q, lines_cache) for (q, _, _, _), lf in zip(needs, lefts)):
                    return "partly covered: only def/class header lines uncovered (left out by design)"
                if all(lf <= {min(code_q), max(code_q)} for (_, _, _, code_q), lf in zip(needs, lefts)):
                    return "partly covered: only a first or last line uncovered (its statement differs)"
                return "partly covered"
            return f"not found ({'under 6' if len(code) < 6 else '6+'} code lines)"
    return None


def _uncovered(path: str, a: int, b: int, code: set[int], groups_by_file, shared: set) -> set[int]:
    """The code lines of one place that no member of the `shared` groups holds."""
    left = set(code)
    for gi, lo, hi in groups_by_file.get(path, ()):
        if gi in shared:
            left -= set(range(lo, hi + 1))
    return left


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
    analysed = {os.path.realpath(f["path"]) for f in doc.get("files", ())} or None
    peers = []
    if args.pylint:
        peers.append(("pylint", pylint_clones(open(args.pylint).read(), args.root)))
    if args.jscpd:
        peers.append(("jscpd", jscpd_clones(json.load(open(args.jscpd)), args.root)))
    for name, clones in peers:
        misses = [(c, covered(c, groups_by_file, cache, analysed=analysed)) for c in clones]
        misses = [(c, why) for c, why in misses if why]
        report[name] = {"clones": len(clones), "covered": len(clones) - len(misses),
                        "misses_by_cause": dict(Counter(why for _, why in misses)),
                        "misses": [{"places": c, "cause": why} for c, why in misses]}
        print(f"{name}: {len(clones) - len(misses)}/{len(clones)} covered; misses {dict(Counter(w for _, w in misses))}")
        if name == "pylint":  # again, without the signature lines that pylint itself did not compare
            left = [(c, why) for c, why in misses
                    if covered(c, groups_by_file, cache, lambda p: pylint_signature_lines(p, cache), analysed)]
            report[name]["compared_lines"] = {
                "covered": len(clones) - len(left), "misses_by_cause": dict(Counter(why for _, why in left)),
                "misses": [{"places": c, "cause": why} for c, why in left]}
            print(f"{name}, the lines it compares (not its ignored signature lines): "
                  f"{len(clones) - len(left)}/{len(clones)} covered; misses {dict(Counter(w for _, w in left))}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
