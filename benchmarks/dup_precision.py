"""Precision of `gpubatch analyze --duplicates`: a seeded sample of reported groups, each copy's lines
tokenized independently of gpubatch and compared with the group's first copy.

usage: python benchmarks/dup_precision.py OURS.json [--sample 100] [--seed 0] [--out F.json]

Tokens are normalised as a clone detector's type-2 view: names become ID, numbers and strings LIT; comments,
layout tokens and lone string statements (docstrings) are dropped; keywords and operators stay. A group is
real when every copy's stream matches the first copy's with a difflib ratio of at least --min-ratio (0.8, the
default `min_similarity`).
"""
from __future__ import annotations

import argparse
import difflib
import io
import json
import keyword
import random
import tokenize

_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING,
         tokenize.ENDMARKER}


def stream(path: str, line: int, end: int) -> list[str]:
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines(keepends=True)[line - 1:end]
    except OSError:
        return []
    text = "".join(lines)
    indent = min((len(s) - len(s.lstrip()) for s in lines if s.strip()), default=0)
    text = "".join(s[indent:] if len(s) >= indent else s.lstrip() for s in lines)
    out: list[str] = []
    start_of_statement = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
                start_of_statement = True
            if tok.type in _SKIP:
                continue
            if tok.type == tokenize.STRING and start_of_statement:
                start_of_statement = False
                continue  # a lone string statement (docstring) or the first string of a statement: dropped
            start_of_statement = False
            if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string):
                out.append("ID")
            elif tok.type in (tokenize.NUMBER, tokenize.STRING):
                out.append("LIT")
            else:
                out.append(tok.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a range that ends inside a bracket: the tokens so far
    return out


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
