"""Line and column lookups of the reports: lines numbered as the parser numbers them."""
import json
import os
from pathlib import Path

from gpubatch.analyze.report import FORMATS
from gpubatch.analyze.report.columns import some_lines, source_lines
from gpubatch.analyze.report.fingerprint import relative_posix

from .test_analyze import analyze


def test_lines_break_only_where_the_parser_breaks_them():
    assert source_lines(b"import os\n\x0c\ndef f(x=[]):\n") == ("import os", "\x0c", "def f(x=[]):")
    assert source_lines("a = 1  # \u2028 b\nc\n".encode()) == ("a = 1  # \u2028 b", "c")
    assert source_lines(b"a\r\nb\rc\n\n") == ("a", "b", "c", "")
    assert source_lines(b"") == () and source_lines(b"a") == ("a",)


SOURCES = [b"", b"a", b"a\n", b"a\n\n", b"\n\nx = 1", b"import os\n\x0c\ndef f(x=[]):\n",
           "a = 1  # \u2028 b\nc\x85d\n".encode(), b"a\r\nb\rc\n\n", b"\xef\xbb\xbfx = 1\ny\n",
           b"bad \xe9\xff\nnext \xc3\n\xa9 end", "é\n\tü = [1]\n".encode() * 3]


def test_some_lines_are_the_lines_of_the_whole_file(tmp_path):
    # SARIF's fingerprints decode only the lines with findings; they must read as the whole file's lines do
    for i, data in enumerate(SOURCES):
        path = tmp_path / f"f{i}.py"
        path.write_bytes(data)
        whole = source_lines(data)
        wanted = range(-1, len(whole) + 3)
        assert some_lines(str(path), wanted) == {n: whole[n - 1] if 0 < n <= len(whole) else "" for n in wanted}
    assert some_lines(str(tmp_path / "absent.py"), [1, 2]) == {1: "", 2: ""}


def test_a_form_feed_line_does_not_shift_later_columns_or_fingerprints(tmp_path):
    # a form feed on a line of its own (as in many stdlib modules): str.splitlines broke the file there, so the
    # finding's line was read one line too early, its column and fingerprint taken from the wrong text
    body = 'name = "é"\n\x0c\ndef f(é, x=[]):\n    return x\n'
    res = analyze(tmp_path / "ff", {"a.py": body})
    plain = analyze(tmp_path / "nl", {"a.py": body.replace("\x0c", "")})
    (b006,) = [f for f in res.findings if f.code == "B006"]
    assert b006.line == 3
    sarif, sarif_plain = (json.loads(FORMATS["sarif"](r, root=tmp_path / d)) for r, d in ((res, "ff"), (plain, "nl")))
    (hit,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "B006"]
    (hit_plain,) = [r for r in sarif_plain["runs"][0]["results"] if r["ruleId"] == "B006"]
    assert hit["locations"][0]["physicalLocation"]["region"]["startColumn"] == 12  # character, not byte
    assert hit["partialFingerprints"] == hit_plain["partialFingerprints"]


def test_paths_relative_to_the_root_are_pathlibs(tmp_path, monkeypatch):
    # SARIF's URIs and GitLab's paths are cut by string prefix, not PurePath.relative_to (slow on 3.12)
    monkeypatch.chdir(tmp_path)
    cases = [("/a/b/c.py", "/a"), ("/a/b/c.py", "/a/b"), ("/a/bc/d.py", "/a/b"), ("/a", "/a"), ("/x.py", "/"),
             ("/a/b/../c.py", "/a"), ("rel/x.py", str(tmp_path)), ("/a//b.py", "/a"), ("/ab", "/a"), ("/a/b/", "/a")]
    for path, root in cases:
        try:
            expected = Path(os.path.abspath(path)).relative_to(root).as_posix()
        except ValueError:
            expected = None
        assert relative_posix(path, Path(root)) == expected, (path, root)
