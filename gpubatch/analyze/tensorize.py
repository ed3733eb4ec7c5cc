"""Parse one file (never import or run it) and flatten its syntax tree into arrays.

Runs in a worker process. Per node: kind, parent, line and column span, the block (function or class)
that owns it for complexity as `radon cc` counts it, whether radon's visitor skips it ("dead": decorators,
signatures, assert bodies), two small counts the decision rules need, role and flag bits the rules need,
and a 64-bit hash of the qualified name of calls and imports. A file that cannot be read or parsed becomes
a record with an error, not an exception.
"""
from __future__ import annotations

import ast
import errno
import hashlib
import io
import os
import re
import stat
import sys
import tokenize
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..engine.gcpause import gc_paused
from .flatten import Flatten
from .nodes import COLUMNS, F_TEXT, KIND, OP_VALUES
from .rawmetrics import raw_metrics

VERSION = "22"  # of the cache: the parsed arrays and the reports stored with them (clone features included)
_CONST_KIND, _FSTR_KIND = KIND["Constant"], KIND["JoinedStr"]


@dataclass
class FileTensors:
    path: str
    sha: str = ""
    nodes: dict = field(default_factory=dict)  # column -> array (views into `table`)
    # [nodes, len(COLUMNS)] int64; from a worker process, one array per column in its narrowest type, kept so
    # until the batch is concatenated (`column`, `node_count`, `wide`): the parent holds a quarter of the bytes
    table: np.ndarray | list | None = None
    blocks: list = field(default_factory=list)  # [kind, name, line, col, end_line, owner, params, node]
    noqa: dict = field(default_factory=dict)  # line -> list of codes (empty list: all)
    raw: dict = field(default_factory=dict)
    error: tuple | None = None  # (code, message, line, col)
    cached: bool = False
    result: dict | None = None  # a cached report of this content under the same policy: nothing to compute
    cache_note: str | None = None  # why the cache could not serve or take this file (one warning per run)
    string_lines: dict = field(default_factory=dict)  # line -> hash of its text, inside multi-line strings
    ascii: bool = False  # pure ASCII source: byte columns are character columns (no re-read to report)
    features: object = None  # clone features (`clones.features.Features`), made by a parser worker under --duplicates

    def __getstate__(self) -> dict:
        """Workers send the table once (the column views in `nodes` would each be pickled as a copy), each column
        in the narrowest integer type that holds it: a third of the bytes through the pipe, which the parent
        process reads for every file of a cold run."""
        state = dict(self.__dict__)
        state["nodes"] = None
        table = state["table"]
        if isinstance(table, np.ndarray) and table.dtype == np.int64:
            state["table"] = [narrow(table[:, k]) for k in range(table.shape[1])]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        table = self.table
        if isinstance(table, list):
            self.nodes = dict(zip(COLUMNS, table))
        else:
            self.nodes = {c: table[:, k] for k, c in enumerate(COLUMNS)} if table is not None else {}

    @property
    def node_count(self) -> int:
        """How many AST nodes the file's table holds (0 without a table)."""
        return len(self.nodes["kind"]) if self.nodes else 0

    def column(self, k: int) -> np.ndarray:
        """Column `k` of the table, in whatever integer type it is held."""
        return self.nodes[COLUMNS[k]]

    def wide(self) -> np.ndarray:
        """The whole table as [nodes, len(COLUMNS)] int64 (the content cache stores it so)."""
        return np.stack(self.table, axis=1).astype(np.int64) if isinstance(self.table, list) else self.table


def narrow(col: np.ndarray) -> np.ndarray:
    """The integer array in the narrowest signed or unsigned type that holds its values (for the pipe between
    processes and for the stat index)."""
    if not len(col):
        return col
    lo, hi = int(col.min()), int(col.max())
    for dt in (np.uint8, np.int8, np.int16, np.int32):
        info = np.iinfo(dt)
        if info.min <= lo and hi <= info.max:
            return col.astype(dt)
    return np.ascontiguousarray(col)


def read_source(path: str, max_bytes: int) -> tuple[bytes | None, str, tuple | None]:
    """(bytes, sha256, error): at most max_bytes + 1 bytes are read."""
    try:
        data = read_regular(path, max_bytes + 1)
    except OSError as exc:
        return None, "", ("E902", f"cannot read file: {exc.strerror or exc}", 1, 0)
    except ValueError as exc:  # a NUL in the name
        return None, "", ("E902", f"cannot read file: {exc}", 1, 0)
    return data, hashlib.sha256(data).hexdigest(), None


def read_regular(path: str, limit: int) -> bytes:
    """At most `limit` bytes of a regular file. Opened without blocking and checked on the open descriptor, so a
    FIFO or device is refused (OSError) instead of hanging the run, even if it replaced the file after discovery."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(limit)
    finally:
        os.close(fd)


def tensorize(path: str, max_bytes: int = 4_000_000) -> FileTensors:
    """Read, parse and flatten one file; problems become `error` (E902 unreadable, E999 syntax)."""
    data, sha, error = read_source(path, max_bytes)
    return tensorize_bytes(path, data, sha, error, max_bytes)


def tensorize_bytes(path: str, data: bytes | None, sha: str, error: tuple | None, max_bytes: int) -> FileTensors:
    ft = FileTensors(path, sha, error=error)
    if data is None:
        return ft
    if len(data) > max_bytes:
        ft.error = ("E902", f"file larger than analyze.max_file_bytes ({max_bytes} bytes)", 1, 0)
        return ft
    ft.ascii = data.isascii()
    if b"\0" in data[:8192]:
        ft.error = ("E902", "binary file (NUL bytes)", 1, 0)
        return ft
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        ft.error = ("E902", f"cannot decode: {exc}", 1, 0)
        return ft
    return tensorize_text(ft, text)


def tensorize_text(ft: FileTensors, text: str) -> FileTensors:
    """Parse and flatten with the cyclic garbage collector paused: a syntax tree is millions of fresh objects
    without cycles (reference counting frees them), and the collector's passes over them cost 15% of the time."""
    with gc_paused():
        return _tensorize_text(ft, text)


# statements that only Python 3.12's parser reads: `type` aliases and type parameters (PEP 695)
_PY312 = (("a `type` statement", re.compile(r"\s*type\s+[A-Za-z_]\w*\s*(\[.*\])?\s*=")),
          ("type parameters", re.compile(r"\s*(async\s+def|def|class)\s+[A-Za-z_]\w*\s*\[")))
# an f-string whose braces hold its own quote character or a backslash (PEP 701)
_PY312_FSTRING = re.compile(r"""[fF][rR]?(?:"[^"{]*\{[^}"]*["\\]|'[^'{]*\{[^}']*['\\])""")


def newer_syntax(text: str, exc: SyntaxError) -> str:
    """A hint when the line that does not parse looks like syntax newer than this Python's parser: analyze
    parses with the interpreter it runs on, so code written for 3.12 fails under 3.11 (ruff reads both)."""
    if sys.version_info >= (3, 12) or not exc.lineno:
        return ""
    lines = text.splitlines()
    line = lines[exc.lineno - 1] if exc.lineno <= len(lines) else ""
    what = next((name for name, pattern in _PY312 if pattern.match(line)), None)
    if what is None and (exc.msg or "").startswith("f-string") and _PY312_FSTRING.search(line):
        what = "an f-string whose braces hold its own quote or a backslash"
    if what is None:
        return ""
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return f"{what}, new in Python 3.12; this run's parser is Python {version}'s: run gpubatch on 3.12 or later"


def _tensorize_text(ft: FileTensors, text: str) -> FileTensors:
    try:
        with warnings.catch_warnings():  # the analysed code's invalid escapes etc. are not ours to print
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=ft.path)
    except SyntaxError as exc:
        hint = newer_syntax(text, exc)
        ft.error = ("E999", f"SyntaxError: {exc.msg}" + (f" ({hint})" if hint else ""), exc.lineno or 1,
                    max(0, (exc.offset or 1) - 1))
        return ft
    except (RecursionError, MemoryError, ValueError) as exc:
        ft.error = ("E999", f"cannot parse: {type(exc).__name__} (nesting too deep?)", 1, 0)
        return ft
    flat = Flatten()
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 20_000))
        flat.walk(tree, -1, -1, 0, 0, 0)
        flat.resolve_calls()
        flat.mark_comparisons()
    except RecursionError:
        ft.error = ("E999", "syntax tree too deep to flatten", 1, 0)
        return ft
    finally:
        sys.setrecursionlimit(limit)
    arr = np.asarray(flat.rows, dtype=np.int64).reshape(-1, len(COLUMNS))
    numbered = arr[:, 14] >= OP_VALUES
    hashes, operands = flat.value_hashes()
    constants = arr[:, 0] == _CONST_KIND  # their qname column (calls' and imports' only) holds the operand
    arr[constants, 13] = operands[arr[constants, 14] - OP_VALUES]
    arr[numbered, 14] = hashes[arr[numbered, 14] - OP_VALUES]
    ft.table = arr
    ft.nodes = {c: arr[:, k] for k, c in enumerate(COLUMNS)}
    ft.blocks = flat.blocks
    ft.raw, ft.noqa = raw_metrics(text)
    ft.string_lines = _string_lines(arr, text)
    return ft


LINE_BREAK = re.compile(r"\r\n|\r|\n")  # where the parser breaks lines (not str.splitlines)
# a line that is one whole single-quoted literal and a comment, as each line of `('a'  # one\n 'b'  # two)`
JOINED_LITERAL = re.compile(r"""(\s*[rRbBuU]{0,2}(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"))\s*#.*$""")


def _string_lines(arr: np.ndarray, text: str) -> dict[int, int]:
    """A hash of each source line inside a string or bytes constant or f-string over several lines (a text block, a
    table of implicitly joined literals): clone detection compares such strings line by line, as they read."""
    strings = ((arr[:, 0] == _CONST_KIND) & (arr[:, 11] & F_TEXT != 0)) | (arr[:, 0] == _FSTR_KIND)
    multi = strings & (arr[:, 4] > arr[:, 2])
    if not multi.any():
        return {}
    lines = LINE_BREAK.split(text)
    out = {}
    for first, col, last in arr[multi][:, [2, 3, 4]].tolist():
        joined = _opens_joined(lines[first - 1], col) if first <= len(lines) else False
        for ln in range(first, min(last, len(lines)) + 1):
            line = lines[ln - 1]
            one = JOINED_LITERAL.match(line) if joined else None  # a literal of a joined table: its comment is no text
            out[ln] = text_hash(one.group(1) if one else line)
    return out


def _opens_joined(line: str, col: int) -> bool:
    """Whether the string starting at byte `col` of `line` opens with a single-quoted literal: a string over
    several lines that is not triple-quoted is literals joined implicitly, its `#`s comments."""
    head = line.encode("utf-8", "surrogatepass")[col:col + 8].decode("utf-8", "replace").lstrip("rRbBuUfF")
    return head[:1] in ("'", '"') and head[:3] not in ("'" * 3, '"' * 3)


def text_hash(line: str) -> int:
    """The signed 64-bit hash of a line of text inside a string, runs of blanks as one (a table padded otherwise
    is the same text)."""
    row = " ".join(line.split())
    return int.from_bytes(hashlib.blake2b(row.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little",
                          signed=True)
