"""Columns as characters: the syntax tree counts UTF-8 bytes, people and SARIF count characters."""
import os
from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from ..tensorize import LINE_BREAK, read_regular

# what str.splitlines breaks at besides \n and \r, as UTF-8 (bytes scans are fast; most files hold none)
_OTHER_BREAKS = tuple(c.encode() for c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


def source_lines(data: bytes) -> tuple[str, ...]:
    """The text's lines as the parser numbers them: broken at \\n, \\r\\n and \\r only. str.splitlines also
    breaks at form feeds and other separators, which would shift every later line by one."""
    text = data.decode("utf-8", errors="replace")
    if not any(b in data for b in _OTHER_BREAKS):
        return tuple(text.splitlines())
    lines = LINE_BREAK.split(text)
    return tuple(lines[:-1] if lines[-1] == "" else lines)


_GIVEN: dict[str, tuple[str, ...]] = {}  # files whose text came from elsewhere (stdin): path -> lines
_ASCII: set[str] = set()  # files the run found pure ASCII: a column needs no read


_KNOWN: dict[tuple[str, int, int], tuple[int, tuple]] = {}  # (path, line, byte column) -> (column, stamp)


def _stamp(path: str) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return st.st_size, st.st_mtime_ns, st.st_ino


def known_columns(columns: dict[tuple[str, int, int], int], stats: dict) -> None:
    """Character columns the stat index kept for findings in files that are not pure ASCII, each valid while the
    file keeps the stat (size, mtime, inode) it was indexed under."""
    for (path, line, col), char in columns.items():
        st = stats.get(path)
        if st:
            _KNOWN[path, line, col] = (char, tuple(st[:3]))


def known_ascii(paths) -> None:
    """These files were pure ASCII when analysed: their byte columns are their character columns."""
    _ASCII.update(paths)


def given(path: str, data: bytes) -> None:
    """Report on `path` from this text, not from the disk (`--stdin-filename`)."""
    _GIVEN[path] = source_lines(data)


@lru_cache(maxsize=4)
def _opened(path: str, stamp: tuple) -> tuple[bytes, np.ndarray | None, tuple[str, ...] | None]:
    """A file read for a report, while it keeps `stamp`: its bytes and where its lines end, `(data, ends, None)`,
    where no \\r is in it; else its lines, `(b"", None, lines)` (\\r and \\r\\n break lines too)."""
    try:  # a regular file only: a FIFO given as a path must not block the report
        data = read_regular(path, 1 << 26)
    except (OSError, ValueError):
        return b"", None, ()
    if b"\r" in data:
        return b"", None, source_lines(data)
    return data, np.flatnonzero(np.frombuffer(data, np.uint8) == 10), None


def _pick(lines: tuple[str, ...], numbers: set[int]) -> dict[int, str]:
    return {n: lines[n - 1] if 0 < n <= len(lines) else "" for n in numbers}


def some_lines(path: str, numbers: Iterable[int]) -> dict[int, str]:
    """The text of these 1-based lines as the parser numbers them (\"\" past the end, or for a file that cannot
    be read), read once while the file is unchanged; where it has no \\r only these lines are decoded (splitting
    a large tree's every file into line strings was most of SARIF's rendering)."""
    numbers = set(numbers)
    if path in _GIVEN:
        return _pick(_GIVEN[path], numbers)
    stamp = _stamp(path)
    data, ends, lines = _opened(path, stamp) if stamp else (b"", None, ())
    if lines is not None:
        return _pick(lines, numbers)
    count = len(ends) + (0 if not data or data.endswith(b"\n") else 1)
    out = {}
    for n in numbers:
        if not 0 < n <= count:
            out[n] = ""
            continue
        start = int(ends[n - 2]) + 1 if n > 1 else 0
        stop = int(ends[n - 1]) if n <= len(ends) else len(data)
        out[n] = data[start:stop].decode("utf-8", errors="replace")
    return out


def line_text(path: str, line: int) -> str:
    return some_lines(path, (line,))[line]


def char_col(path: str, line: int, byte_col: int) -> int:
    """1-based character column of a 0-based UTF-8 byte offset on that line."""
    if path in _ASCII:
        return byte_col + 1
    known = _KNOWN.get((path, line, byte_col))
    if known is not None and known[1] == _stamp(path):
        return known[0]
    text = line_text(path, line)
    if text.isascii():
        return byte_col + 1
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore")) + 1
