"""Reports written as they are made: the layout reads a generator of records one record at a time, every format's
pieces join to the same text as a whole rendering, and a renderer that fails half-way leaves the earlier output
file as it was (no partial report, no temporary file)."""
import json

import pytest

from gpubatch.analyze.report import CHUNKS, FORMATS
from gpubatch.jsonlayout import chunks, layout
from gpubatch.cli.output import write_output, write_stdout
from tests.analyze.test_analyze import analyze

BAD = "def f(x=[]):\n    return x == None\n\n\ndef g():\n    try:\n        pass\n    except:\n        pass\n"


def test_layout_reads_a_generator_one_record_at_a_time():
    drawn = []

    def records():
        for i in range(1000):
            drawn.append(i)
            yield {"path": f"f{i}.py", "nodes": i}

    pieces = chunks({"summary": {"files": 1000}, "files": records()}, 2)
    head = [next(pieces) for _ in range(6)]
    assert len(drawn) <= 2, "records were drawn ahead of what was written"
    text = "".join(head) + "".join(pieces)
    assert len(drawn) == 1000
    assert json.loads(text)["files"][999] == {"path": "f999.py", "nodes": 999}


@pytest.mark.parametrize("doc", [{}, [], {"a": []}, {"a": {}, "b": [1, {"c": [1, 2]}]}, [1, [2, [3, [4]]]],
                                 {"x": "\u00e9\ud800", "y": None}, {"runs": [{"tool": {"d": [{}]}, "results": []}]}])
def test_layout_of_lists_and_of_generators_is_the_same_json(doc):
    for depth in range(5):
        text = layout(doc, depth)
        if "\ud800" not in text:
            assert json.loads(text) == doc
        lazy = {k: iter(v) if isinstance(v, list) else v for k, v in doc.items()} if isinstance(doc, dict) \
            else iter(doc)
        assert layout(lazy, depth) == text


def test_every_format_streams_the_text_it_renders_whole(tmp_path):
    res = analyze(tmp_path / "src", {"a.py": BAD, "b.py": BAD, "c.py": "x = 1\n"})
    assert res.findings
    for name, fn in CHUNKS.items():
        pieces = list(fn(res, tmp_path))
        assert "".join(pieces) == FORMATS[name](res, tmp_path), name
    assert len(list(CHUNKS["json"](res, tmp_path))) > 3 * len(res.files)  # a piece per file record, at least


def test_a_renderer_failing_half_way_leaves_the_old_output(tmp_path):
    out = tmp_path / "report.json"
    out.write_text("old\n")

    def failing():
        yield "{\n"
        yield "x" * (3 << 20)  # more than the writer's buffer: part of it has reached the temporary file
        raise RuntimeError("renderer bug")

    with pytest.raises(RuntimeError):
        write_output(out, failing())
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_pieces_reach_files_and_stdout_whole(tmp_path, capsysbinary):
    pieces = [f"line {i} caf\udce9\n" for i in range(50_000)]
    write_output(tmp_path / "o.txt", iter(pieces))
    assert (tmp_path / "o.txt").read_bytes() == "".join(pieces).encode("utf-8", "surrogateescape")
    write_stdout(iter(pieces))
    assert capsysbinary.readouterr().out == "".join(pieces).encode("utf-8", "surrogateescape")


def test_json_blocks_encoded_by_hand_are_the_bytes_json_dumps_writes(tmp_path):
    from gpubatch.analyze.halstead import report

    src = ("class Caf\u00e9:\n    def m\u00e9(self, a, b=2):\n        return a * b + 1 if a else -b\n\n"
           "def f(x):\n    def g(y):\n        return y\n    return g(x) / 3\n")
    res = analyze(tmp_path / "src", {"u.py": src, "bad.py": "def (:\n"})
    doc = json.loads(FORMATS["json"](res))
    for r, got in zip(res.files, doc["files"]):
        want = [{k: v for k, v in b._asdict().items() if k != "halstead"} | (
            {"halstead": report(*b.halstead)} if b.halstead else {}) for b in r.blocks]
        assert got["blocks"] == want
        line = next(ln for ln in FORMATS["json"](res).splitlines() if ln.startswith('{"path": ' + json.dumps(r.path)))
        assert line.rstrip(",") == json.dumps({"path": r.path, "error": r.error, "nodes": r.nodes, "raw": r.raw,
                                               **r.metrics, "blocks": want})
    assert any(f["blocks"] for f in doc["files"]) and any(f["error"] for f in doc["files"])
