"""Precision of `gpubatch analyze --duplicates`: a seeded sample of reported groups, each copy's lines
tokenized independently of gpubatch and compared with the group's first copy.

usage: python benchmarks/dup_precision.py OURS.json [--sample 100] [--seed 0] [--out F.json]

Each file is tokenized whole and its tokens normalised as a clone detector's type-2 view: names become ID,
numbers and strings LIT (a string over several lines also gives its further lines' stripped text, one token a
line); comments and layout tokens are dropped, and so is what the detector's defaults leave out (docstrings,
imports, decorators, def and class headers but for one token `def` or `class`); keywords and operators stay. A group is
real when every copy's stream matches the first copy's with a difflib ratio of at least --min-ratio (0.8, the
default `min_similarity`).
"""
from __future__ import annotations

import argparse
import difflib
import functools
import json
import keyword
import random
import tokenize

_LAYOUT = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
           tokenize.ENDMARKER}


def _normalised(tok) -> list[tuple[int, str]]:
    if tok.type == tokenize.STRING:  # LIT, then a token for each further line, by its text
        return [(tok.start[0], "LIT")] + [(tok.start[0] + 1 + k, "TXT " + text.strip())
                                          for k, text in enumerate(tok.string.split("\n")[1:])]
    if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
        return [(tok.start[0], "ID")]
    return [(tok.start[0], "LIT" if tok.type == tokenize.NUMBER else tok.string)]


def _statement(toks: list) -> list[tuple[int, str]]:
    """One logical line's normalised tokens, with what the detector's defaults leave out left out here too:
    a statement of strings alone (a docstring), an import, a decorator, a def or class header (its name,
    parameters and bases: one token `def` or `class` stays)."""
    if not toks or all(t.type == tokenize.STRING for t in toks) or toks[0].string in ("import", "from", "@"):
        return []
    words = [t.string for t in toks[:2]]
    head = "def" if words[0] == "def" or words == ["async", "def"] else "class" if words[0] == "class" else None
    out: list[tuple[int, str]] = []
    if head:
        depth, k = 0, 0
        while k < len(toks) and not (toks[k].string == ":" and depth == 0):
            depth += (toks[k].string in "([{") - (toks[k].string in ")]}") if toks[k].type == tokenize.OP else 0
            k += 1
        out.append((toks[0].start[0], head))
        toks = toks[k + 1:]
    for tok in toks:
        out.extend(_normalised(tok))
    return out


@functools.lru_cache(maxsize=256)
def file_tokens(path: str) -> tuple[tuple[int, str], ...]:
    """A whole file's normalised tokens with their first lines. The file is tokenized whole, so a range that
    starts inside a bracket or a block reads as it does in the file."""
    with open(path, "rb") as fh:  # a missing file is an error, not an empty match
        tokens = list(tokenize.tokenize(fh.readline))
    out: list[tuple[int, str]] = []
    statement: list = []
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            out.extend(_statement(statement))
            statement = []
        elif tok.type not in _LAYOUT:
            statement.append(tok)
    return tuple(out)


def stream(path: str, line: int, end: int) -> list[str]:
    """The normalised tokens on lines `line`..`end` of `path` (a string's further lines by their own line)."""
    return [t for ln, t in file_tokens(path) if line <= ln <= end]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ours")
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-ratio", type=float, default=0.8)
    ap.add_argument("--out")
    args = ap.parse_args()
    groups = json.load(open(args.ours))["duplicates"]
    sample = random.Random(args.seed).sample(groups, min(args.sample, len(groups)))
    rows = []
    for g in sample:
        first = stream(g["members"][0]["path"], g["members"][0]["line"], g["members"][0]["end_line"])
        ratios = [difflib.SequenceMatcher(None, first, stream(m["path"], m["line"], m["end_line"]),
                                          autojunk=False).ratio() for m in g["members"][1:]]
        rows.append({"kind": g["kind"], "copies": len(g["members"]), "lowest_ratio": round(min(ratios), 3),
                     "real": min(ratios) >= args.min_ratio,
                     "first": [g["members"][0]["path"], g["members"][0]["line"], g["members"][0]["end_line"]]})
    real = sum(r["real"] for r in rows)
    by_kind = {k: f"{sum(r['real'] for r in rows if r['kind'] == k)}/{sum(r['kind'] == k for r in rows)}"
               for k in sorted({r["kind"] for r in rows})}
    print(f"real: {real}/{len(rows)} ({real / max(1, len(rows)):.0%}); by kind {by_kind}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"sample": len(rows), "real": real, "min_ratio": args.min_ratio, "by_kind": by_kind,
                       "groups": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
