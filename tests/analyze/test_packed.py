"""The stat index's body: reports stored as columns come back equal to the computed ones (findings, blocks,
raw counts, Halstead and MI, clone features, character columns), blocks stay columns until read, and the
summary and gates read the columns to the same totals."""
import os
import pickle
import time
from dataclasses import replace

import pytest

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.clones.search import CloneSettings
from gpubatch.analyze.discover import discover
from gpubatch.analyze.gates import Gates, gate_failures
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.analyze.packed import BlockRows, Packed, block_column, pack
from gpubatch.analyze.report import FORMATS
from gpubatch.analyze.report import columns as columns_mod
from gpubatch.analyze.report.summary import most_complex
from gpubatch.engine import BatchExecutor, EngineSettings

from .test_analyze import SAMPLE

WIDE = 'class K:\n    def m(self, a={}):\n        s = "héllo wörld"; t = eval("1") == None\n        return s\n'
POLICY = Policy(Thresholds(max_complexity=1), duplicates=CloneSettings())


def _stored(reports):
    """The reports as the index receives them: before the clone search adds GB301 (which spans files), and
    marked cached as an answer from the index is."""
    return [replace(r, findings=tuple(f for f in r.findings if f.code != "GB301"), cached=True) for r in reports]


def _reports(tmp_path, policy=POLICY, cache=None):
    src = tmp_path / "src"
    if not src.exists():
        src.mkdir()
        for name, text in (("a.py", SAMPLE), ("b.py", SAMPLE.replace("def g", "def h")), ("wide.py", WIDE),
                           ("empty.py", "")):
            (src / name).write_text(text, encoding="utf-8")
            os.utime(src / name, (time.time() - 60, time.time() - 60))
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        return run_analyze(discover([src]), ex, policy, jobs=1, cache_dir=cache)


def _entries(reports):
    return [(r.path, [i, i + 1, i + 2, i + 3], f"k{i}", r) for i, r in enumerate(reports)]


def test_reports_come_back_equal(tmp_path):
    reports = _stored(_reports(tmp_path).files)
    assert any(r.features is not None for r in reports) and any(r.findings for r in reports)
    packed = Packed(pack(_entries(reports), columns_mod.char_col))
    for i, r in enumerate(reports):
        back = packed.report(packed.index[r.path], r.path)
        assert isinstance(back.blocks, BlockRows) and back.blocks._rows is None
        assert back == r  # findings, blocks (as tuples), raw, nodes, metrics, ascii
        assert back.features.to_bytes() == r.features.to_bytes()
        assert packed.stat(i) == [i, i + 1, i + 2, i + 3] and packed.key(i) == f"k{i}"
    wide = packed.index[str(tmp_path / "src" / "wide.py")]
    cols = {(ln, c): ch for ln, c, ch in packed.char_cols(wide)}
    assert cols and all(ch == columns_mod.char_col(reports[wide].path, ln, c) for (ln, c), ch in cols.items())
    assert any(ch != c + 1 for (_, c), ch in cols.items())  # a column after "é" counts characters, not bytes


def test_packed_again_from_packed_reports(tmp_path):
    reports = _stored(_reports(tmp_path).files)
    first = Packed(pack(_entries(reports), columns_mod.char_col))
    again = [first.report(i, p) for p, i in first.index.items()]

    def no_read(*_):
        raise AssertionError("columns of packed reports are given, not read")

    second = Packed(pack(_entries(again), lambda p, ln, c: dict(
        ((ln2, c2), ch) for ln2, c2, ch in first.char_cols(first.index[p])).get((ln, c)) or no_read()))
    assert [second.report(i, p) for p, i in second.index.items()] == reports


def test_block_rows_behave_as_the_tuple(tmp_path):
    rep = next(r for r in _reports(tmp_path).files if len(r.blocks) > 1)
    rows = Packed(pack(_entries([rep]), columns_mod.char_col)).report(0, rep.path).blocks
    assert len(rows) == len(rep.blocks) and bool(rows)
    assert block_column(rows, "complexity") == block_column(rep.blocks, "complexity")
    assert block_column(rows, "name") == [b.name for b in rep.blocks]
    assert rows._rows is None  # columns read without building blocks
    assert rows[0] == rep.blocks[0] and rows[1:] == rep.blocks[1:]
    assert pickle.loads(pickle.dumps(rows)) == rep.blocks and list(rows) == list(rep.blocks)


def test_a_cut_body_is_refused(tmp_path):
    body = pack(_entries(_reports(tmp_path).files), columns_mod.char_col)
    with pytest.raises(ValueError):
        Packed(body[:-3])


def test_summary_and_gates_read_the_same_from_columns(tmp_path):
    reports = _reports(tmp_path).files
    packed = Packed(pack(_entries(reports), columns_mod.char_col))
    back = [packed.report(packed.index[r.path], r.path) for r in reports]
    blocks = [(r.path, b) for r in reports for b in r.blocks if b.kind != "C"]
    expected = [{"path": p, "name": b.name, "line": b.line, "complexity": b.complexity}
                for p, b in sorted(blocks, key=lambda pb: -pb[1].complexity)[:3]]
    assert most_complex(reports, 3) == most_complex(back, 3) == expected
    gates = Gates("A", "A", "A")
    assert gate_failures(back, gates) == gate_failures(reports, gates) != []


def test_warm_report_columns_need_no_source_read(tmp_path, monkeypatch):
    cache = str(tmp_path / "cache")
    policy = Policy(Thresholds(max_complexity=1))
    cold = FORMATS["text"](_reports(tmp_path, policy, cache))
    assert "wide.py:3:" in cold

    def fail(*_):
        raise AssertionError("a source file was read for its columns")

    monkeypatch.setattr(columns_mod, "_opened", fail)  # every read of a report goes through it
    monkeypatch.setattr(columns_mod, "_KNOWN", {})
    warm = _reports(tmp_path, policy, cache)
    assert all(r.cached for r in warm.files) and FORMATS["text"](warm) == cold
