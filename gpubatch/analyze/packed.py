"""Many finished reports as columns: the stat index's body. A warm run over a large tree then builds no object
per block: a report's blocks stay rows of the shared columns (`BlockRows`) until something reads them one by
one, and totals (the summary's most complex blocks, xenon's gates) read the columns themselves.

Layout: a JSON header (string table, raw-metric keys, each array's dtype and shape), then the arrays' bytes.
Strings (paths, rule codes, messages, block names) are numbered in the table. A file's Halstead fields and MI
rank are derived again from its four counts and its MI, exactly as the cold run derived them.
"""
from __future__ import annotations

import json
from itertools import chain
from typing import Callable, Iterator

import numpy as np

from .batched import Block
from .halstead import mi_rank, report
from .model import FileReport, Finding
from .tensorize import narrow

_KINDS = ("C", "F", "M")
_NO_HALSTEAD = (0, 0, 0, 0)  # a class's row
_RAW = 12  # the files table's first raw-count column
_BLOCK_FIELDS = ("kind", "name", "line", "col", "end_line", "complexity", "params", "nesting")


class _Strings:
    """A string table under construction: each distinct string numbered once."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, s: str) -> int:
        return self.ids.setdefault(s, len(self.ids))


class BlockRows:
    """A file's blocks as rows [lo, hi) of a `Packed` body; `Block` tuples are built when first iterated. Compares
    equal to the tuple of the same blocks, and pickles as that tuple."""

    __slots__ = ("_packed", "_lo", "_hi", "_rows")

    def __init__(self, packed: "Packed", lo: int, hi: int) -> None:
        self._packed, self._lo, self._hi, self._rows = packed, lo, hi, None

    def _all(self) -> tuple[Block, ...]:
        if self._rows is None:
            self._rows = self._packed.blocks(self._lo, self._hi)
        return self._rows

    def column(self, name: str) -> list:
        """One field of every block, read from the columns (no `Block` built)."""
        return self._packed.block_column(name, self._lo, self._hi)

    def __len__(self) -> int:
        return self._hi - self._lo

    def __iter__(self) -> Iterator[Block]:
        return iter(self._all())

    def __getitem__(self, i):
        return self._all()[i]

    def __bool__(self) -> bool:
        return self._hi > self._lo

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, BlockRows)):
            return self._all() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self):
        return tuple, (self._all(),)


def block_column(blocks, name: str) -> list:
    """One field of a report's blocks: from the columns for a packed report, else from the tuples."""
    if isinstance(blocks, BlockRows):
        return blocks.column(name)
    return [getattr(b, name) for b in blocks]


class _BlockRowsOut:
    """The blocks of many reports gathered in order, converted in bulk: runs of rows from one earlier body are
    taken by index, runs of `Block` tuples column by column (a Python loop per block would cost seconds at
    a large tree's 800k blocks)."""

    def __init__(self, sid: _Strings) -> None:
        self.sid, self.parts, self.run, self.tables = sid, [], None, {}

    def add(self, blocks) -> None:
        source = blocks._packed if isinstance(blocks, BlockRows) else None
        if self.run is None or self.run[0] is not source:
            self.run = (source, [])
            self.parts.append(self.run)
        self.run[1].append(blocks)

    def _from_packed(self, old: "Packed", runs: list) -> np.ndarray:
        lo = np.array([b._lo for b in runs], dtype=np.int64)
        size = np.array([b._hi - b._lo for b in runs], dtype=np.int64)
        idx = np.repeat(lo - np.concatenate([[0], np.cumsum(size)[:-1]]), size) + np.arange(int(size.sum()))
        rows = np.stack([c[idx].astype(np.int64) for c in old.block_columns], axis=1)
        table = self.tables.get(id(old))
        if table is None:
            table = self.tables[id(old)] = np.array([self.sid(s) for s in old.strings] or [0], dtype=np.int64)
        rows[:, 1] = table[rows[:, 1]]
        return rows

    def _from_tuples(self, runs: list) -> np.ndarray:
        blocks = [b for run in runs for b in run]
        n = len(blocks)
        out = np.zeros((n, 12), dtype=np.int64)
        if blocks:
            kind = {k: i for i, k in enumerate(_KINDS)}
            ids = self.sid.ids  # numbered inline, as `sid` does: a call per block costs seconds at 800k blocks
            out[:, 0] = [kind[b[0]] for b in blocks]
            out[:, 1] = [ids.setdefault(b[1], len(ids)) for b in blocks]
            out[:, 2:8] = np.fromiter(chain.from_iterable(b[2:8] for b in blocks), np.int64, 6 * n).reshape(n, 6)
            out[:, 8:] = np.fromiter(chain.from_iterable(b[8] or _NO_HALSTEAD for b in blocks), np.int64,
                                     4 * n).reshape(n, 4)
        return out

    def rows(self) -> np.ndarray:
        """[n, 12] int64 rows: kind, name, line, col, end_line, complexity, params, nesting, h1, h2, N1, N2."""
        parts = [self._from_packed(src, runs) if src is not None else self._from_tuples(runs)
                 for src, runs in self.parts]
        return np.concatenate(parts) if parts else np.zeros((0, 12), np.int64)


def pack(entries: list[tuple[str, list[int], str, FileReport]], char_col: Callable[[str, int, int], int]) -> bytes:
    """(path, stat, path key, report) of every file as one body. `char_col` gives a finding's 1-based character
    column, kept so that a warm run's report reads no source file."""
    sid = _Strings()
    raw_keys = sorted({k for *_, rep in entries for k in rep.raw})
    files, hal, mi, findings, feats = [], [], [], [], []
    blocks = _BlockRowsOut(sid)
    for path, st, key, rep in entries:
        feat = rep.features.to_bytes() if rep.features is not None else None
        # path, key, 4 stat, nodes, ascii, features' size, findings, blocks, error, then the raw counts
        files.append([sid(path), sid(key), *st, rep.nodes, rep.ascii, -1 if feat is None else len(feat),
                      len(rep.findings), len(rep.blocks), -1 if rep.error is None else sid(rep.error),
                      *[rep.raw.get(k, -1) for k in raw_keys]])
        if feat:
            feats.append(feat)
        h = rep.metrics.get("halstead")  # none for a file that does not parse
        hal.append((h["h1"], h["h2"], h["N1"], h["N2"]) if h else (0, 0, 0, 0))
        mi.append(rep.metrics.get("mi", 0.0))
        findings += [(f.line, f.col, f.end_line, f.end_col, sid(f.code), sid(f.message), sid(f.severity),
                      f.col + 1 if rep.ascii else char_col(path, f.line, f.col)) for f in rep.findings]
        blocks.add(rep.blocks)
    rows = blocks.rows()
    arrays = {"files": np.array(files, dtype=np.int64).reshape(-1, _RAW + len(raw_keys)),
              "hal": narrow(np.array(hal, dtype=np.int64).reshape(-1, 4)), "mi": np.array(mi, dtype=np.float64),
              "findings": narrow(np.array(findings, dtype=np.int64).reshape(-1, 8)),
              **{f"blocks{k}": narrow(rows[:, k]) for k in range(12)},
              "features": np.frombuffer(b"".join(feats), dtype=np.uint8)}
    header = {"strings": list(sid.ids), "raw_keys": raw_keys,
              "arrays": [[name, a.dtype.str, list(a.shape)] for name, a in arrays.items()]}
    head = json.dumps(header, separators=(",", ":")).encode("ascii")  # lone surrogates escaped
    parts = [len(head).to_bytes(8, "little"), head]
    for a in arrays.values():
        parts += [np.ascontiguousarray(a).tobytes()]
    return b"".join(parts)


class Packed:
    """A body read back: `index` maps each path to its row; `report(i)` builds that file's report."""

    def __init__(self, body: bytes | memoryview) -> None:
        size = int.from_bytes(body[:8], "little")
        header = json.loads(bytes(body[8:8 + size]).decode("ascii"))
        self.strings: list[str] = header["strings"]
        self.raw_keys: list[str] = header["raw_keys"]
        self.arrays: dict[str, np.ndarray] = {}
        at = 8 + size
        for name, dtype, shape in header["arrays"]:
            dt = np.dtype(dtype)
            count = int(np.prod(shape)) if shape else 1
            self.arrays[name] = np.frombuffer(body, dtype=dt, count=count, offset=at).reshape(shape)
            at += count * dt.itemsize
        if at != len(body):
            raise ValueError("packed body has trailing or missing bytes")
        files = self.arrays["files"]
        self.rows: list[list[int]] = files.tolist()
        s = self.strings
        self.index: dict[str, int] = {s[r[0]]: i for i, r in enumerate(self.rows)}
        self._first_finding = np.concatenate([[0], np.cumsum(files[:, 9])]).tolist()
        self._first_block = np.concatenate([[0], np.cumsum(files[:, 10])]).tolist()
        sizes = np.maximum(files[:, 8], 0)
        self._first_feature = np.concatenate([[0], np.cumsum(sizes)]).tolist()
        self._findings = self.arrays["findings"].tolist()
        self._hal = self.arrays["hal"].tolist()
        self._mi = self.arrays["mi"].tolist()
        self.block_columns = [self.arrays[f"blocks{k}"] for k in range(12)]
        self._columns: dict[str, list] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def stat(self, i: int) -> list[int]:
        return self.rows[i][2:6]

    def key(self, i: int) -> str:
        return self.strings[self.rows[i][1]]

    def char_cols(self, i: int) -> Iterator[tuple[int, int, int]]:
        """(line, byte column, character column) of the file's findings."""
        for f in self._findings[self._first_finding[i]:self._first_finding[i + 1]]:
            yield f[0], f[1], f[7]

    def report(self, i: int, path: str) -> FileReport:
        row, s = self.rows[i], self.strings
        findings = tuple(Finding(path, f[0], f[1], s[f[4]], s[f[5]], s[f[6]], f[2], f[3])
                         for f in self._findings[self._first_finding[i]:self._first_finding[i + 1]])
        if row[11] >= 0:  # a file that does not parse: its error and the finding that says so
            return FileReport(path, findings, (), {}, row[6], s[row[11]], True)
        values = row[_RAW:]
        raw = dict(zip(self.raw_keys, values)) if -1 not in values else {
            k: v for k, v in zip(self.raw_keys, values) if v != -1}
        features = None
        if row[8] >= 0:
            from .clones.features import Features

            lo = self._first_feature[i]
            features = Features.from_bytes(self.arrays["features"][lo:lo + row[8]].tobytes())
        m = self._mi[i]
        metrics = {"halstead": report(*self._hal[i]), "mi": m, "mi_rank": mi_rank(m)}
        return FileReport(path, findings, BlockRows(self, self._first_block[i], self._first_block[i + 1]), raw,
                          row[6], None, True, features, metrics, bool(row[7]))

    def blocks(self, lo: int, hi: int) -> tuple[Block, ...]:
        s = self.strings
        cols = [c[lo:hi].tolist() for c in self.block_columns]
        return tuple(Block(_KINDS[k], s[n], *r, () if k == 0 else h)
                     for k, n, *r, h in zip(*cols[:8], zip(*cols[8:])))

    def block_column(self, name: str, lo: int, hi: int) -> list:
        col = self._columns.get(name)
        if col is None:
            k = _BLOCK_FIELDS.index(name)
            col = self.block_columns[k].tolist()
            if name in ("kind", "name"):
                table = _KINDS if name == "kind" else self.strings
                col = [table[c] for c in col]
            self._columns[name] = col
        return col[lo:hi]

