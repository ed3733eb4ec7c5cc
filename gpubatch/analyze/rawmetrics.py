"""Per-file line counts with `radon raw`'s definitions, in one linear pass instead of radon's re-tokenizing.

radon raw strips every line, groups consecutive lines into the shortest runs that tokenize on their own (a
statement with its bracketed or backslash continuations, a multi-line string, a comment line, a blank line)
and classifies each run: a lone comment is a single comment, a lone one-line string a single comment, a lone
multi-line string `multi`, anything else source lines; a run counts 2 logical lines when its last `:` is not
its last token (`if x: return`, `d = {1: 2}`, `a[1:]`), else 1. radon finds each run by tokenizing ever longer
prefixes, which is quadratic in a run's length (it never finishes on `pydoc_data/topics.py`). Here one regex
pass blanks out strings and comments, and NumPy finds bracket depth, runs and colons for the whole file. The
rare runs with `;` (and, on Python 3.12+, f-strings, whose colons the tokenizer reports) are tokenized alone.
"""
from __future__ import annotations

import io
import re
import sys
import tokenize

import numpy as np

# Strings (any prefix: the prefix letters are ordinary identifier bytes here) and comments, in the order the
# tokenizer sees them. Runs of plain characters are consumed in one step, so this stays linear and fast.
_TOKENS = re.compile(r"""'''(?:[^'\\]+|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]+|\\.|"(?!""))*\"\"\""""
                     r"""|'(?:[^'\\\n]+|\\.)*'|"(?:[^"\\\n]+|\\.)*"|#[^\n]*""", re.S)
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.I)
# ruff's file-level exemption: a comment on its own line, `# ruff: noqa` or `# flake8: noqa`, for the whole
# file or, followed by `: CODES`, for those codes
_FILE_NOQA = re.compile(r"#\s*(?:ruff|flake8)\s*:\s*(?i:noqa)(?:\s*:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?")
_FSTRING_TOKENS = sys.version_info >= (3, 12)  # 3.12+ tokenizes f-strings into parts, colons included

STR, FSTR, COMMENT, CONT = 2, 4, 3, 1  # marker bytes in the cleaned text
_OPEN = np.zeros(256, np.int8)
_OPEN[[ord(c) for c in "([{"]] = 1
_OPEN[[ord(c) for c in ")]}"]] = -1
_PREFIX = np.zeros(256, bool)
_PREFIX[[ord(c) for c in "rRbBuUfF"]] = True
_INSIGNIFICANT = np.zeros(256, bool)
_INSIGNIFICANT[[10, CONT, COMMENT, ord(" "), ord("\t"), ord("\\")]] = True

FIELDS = ("loc", "lloc", "sloc", "comments", "multi", "blank", "single_comments")


def raw_metrics(text: str) -> tuple[dict, dict[int, list[str]]]:
    """(radon-raw counts, `# noqa` codes by line) for source text that parses."""
    lines = [ln.strip() for ln in text.splitlines()]
    if not lines:
        return dict.fromkeys(FIELDS, 0), {}
    norm = "\n".join(lines) + "\n"
    noqa_at: list[tuple[int, str]] = []

    def blank_out(m: re.Match) -> str:
        s = m.group()
        if s[0] == "#":
            if "noqa" in s.lower():
                noqa_at.append((m.start(), s))
            return "\x03"
        k = s.count("\n")
        mark = "\x02"
        if _FSTRING_TOKENS and m.start() and norm[m.start() - 1] in "fFrR" and _has_f_prefix(norm, m.start()):
            mark = "\x04"
        return mark + "\x01\n" * k if k else mark

    b = np.frombuffer(_TOKENS.sub(blank_out, norm).encode("utf-8", "surrogatepass"), np.uint8)
    nl = np.flatnonzero(b == 10)
    L = len(nl)
    depth = np.cumsum(_OPEN[b], dtype=np.int32)
    prev = b[np.maximum(nl - 1, 0)]
    cont = (depth[nl] > 0) | (prev == CONT) | ((prev == ord("\\")) & (nl > 0))
    start = np.ones(L, bool)
    start[1:] = ~cont[:-1]
    gid_line = np.cumsum(start) - 1
    G = int(gid_line[-1]) + 1
    is_nl = b == 10
    line_of = np.cumsum(is_nl, dtype=np.int64) - is_nl  # the '\n' ends its own line
    blank = np.fromiter((not ln for ln in lines), bool, L)

    def per_group(mask: np.ndarray) -> np.ndarray:
        return np.bincount(gid_line[line_of[np.flatnonzero(mask)]], minlength=G)

    sig_mask = ~_INSIGNIFICANT[b]
    quote = np.flatnonzero((b == STR) | (b == FSTR))
    for back in (1, 2):  # a string's prefix letters (r, b, u, f) belong to its token
        quote = quote[(quote >= back) & _PREFIX[b[np.maximum(quote - back, 0)]]]
        sig_mask[quote - back] = False
    sig = per_group(sig_mask)
    strings = per_group(b == STR)
    comments = int((b == COMMENT).sum())
    n_lines = np.bincount(gid_line, minlength=G)
    nonblank = np.bincount(gid_line, weights=~blank, minlength=G).astype(np.int64)
    group_comments = per_group(b == COMMENT)
    single_comment = (sig == 0) & (group_comments > 0)
    lone_string = (sig == 1) & (strings == 1) & (group_comments == 0)
    single_string = lone_string & (n_lines == 1)
    multi_string = lone_string & (n_lines > 1)

    colon = (b == ord(":")) & (np.append(b[1:], 0) != ord("="))
    last_colon = _last_per_group(np.flatnonzero(colon), gid_line, line_of, G)
    last_sig = _last_per_group(np.flatnonzero(sig_mask), gid_line, line_of, G)
    lloc = np.where(last_colon >= 0, 1 + (last_sig > last_colon), sig > 0).astype(np.int64)
    exact = per_group(b == ord(";")) > 0
    if _FSTRING_TOKENS:
        exact |= per_group(b == FSTR) > 0
    for g in np.flatnonzero(exact):
        rows = np.flatnonzero(gid_line == g)
        lloc[g] = _logical_lines("\n".join(lines[rows[0]:rows[-1] + 1]))

    raw = {"loc": L, "lloc": int(lloc.sum()),
           "sloc": int(nonblank[~(single_comment | lone_string)].sum()), "comments": comments,
           "multi": int(nonblank[multi_string].sum()), "blank": int(blank.sum()),
           "single_comments": int(single_comment.sum() + single_string.sum())}
    return raw, _noqa_lines(text, norm, noqa_at)


def _has_f_prefix(norm: str, pos: int) -> bool:
    j = pos
    while j > 0 and pos - j < 2 and norm[j - 1] in "rRbBuUfF":
        j -= 1
    prefix = norm[j:pos]
    return "f" in prefix.lower() and not (j > 0 and (norm[j - 1].isalnum() or norm[j - 1] == "_"))


def _last_per_group(pos: np.ndarray, gid_line: np.ndarray, line_of: np.ndarray, G: int) -> np.ndarray:
    """The largest position of `pos` in each group; -1 where a group has none."""
    out = np.full(G, -1, np.int64)
    if len(pos):
        out[gid_line[line_of[pos]]] = pos  # positions ascend: the last write per group wins
    return out


def _logical_lines(run: str) -> int:
    """radon's logical-line count of one run, from real tokens: per `;`-separated part, 2 when the part's
    last `:` is not followed by exactly one more token (the end marker of the last part), else 1; 0 for a
    part with no tokens."""
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(run).readline)
                if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE)]
    except (tokenize.TokenError, SyntaxError):
        return 1
    parts: list[list] = [[]]
    for t in toks:
        if t.type == tokenize.OP and t.string == ";":
            parts.append([])
        else:
            parts[-1].append(t)
    total = 0
    for part in parts:
        colons = [i for i, t in enumerate(part) if t.type == tokenize.OP and t.string == ":"]
        if colons:
            total += 1 if colons[-1] == len(part) - 2 else 2
        elif any(t.type != tokenize.ENDMARKER for t in part):
            total += 1
    return total


def _noqa_lines(text: str, norm: str, found: list[tuple[int, str]]) -> dict[int, list[str]]:
    """`# noqa[: CODES]` comments by the parser's line numbers (which, unlike str.splitlines, only break on
    \\n, \\r\\n and \\r); line 0 holds the file-level exemptions (`# ruff: noqa[: CODES]`)."""
    if not found:
        return {}
    real_break = np.cumsum([ln[-1:] in ("\n", "\r") for ln in text.splitlines(True)])
    out: dict[int, list[str]] = {}
    for pos, comment in found:
        whole = _FILE_NOQA.match(comment) if pos == 0 or norm[pos - 1] == "\n" else None
        if whole:
            codes = re.split(r"[,\s]+", whole.group("codes")) if whole.group("codes") else []
            blanket = not codes or out.get(0) == []  # a blanket exemption covers every code, once given
            out[0] = [] if blanket else out.get(0, []) + codes
            continue
        m = _NOQA.search(comment)
        if not m:
            continue
        row = norm.count("\n", 0, pos)
        out[1 + (int(real_break[row - 1]) if row else 0)] = (
            re.split(r"[,\s]+", m.group("codes").upper()) if m.group("codes") else [])
    return out
