"""`analyze --duplicates` end to end: groups by kind, GB301 findings in every format, noqa, per-file ignores,
the cache, broken files, several roots."""
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.clones.search import CloneSettings
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.analyze.report import FORMATS
from gpubatch.cli import app
from gpubatch.engine import BatchExecutor, EngineSettings

runner = CliRunner()
BODY = '''    """Read a file."""
    with open(path, mode) as fh:
        data = fh.read()
    if not data:
        raise ValueError("empty file: " + path)
    lines = [x.strip() for x in data.splitlines() if x.strip()]
    return {"lines": lines, "count": len(lines), "path": path}
'''
LOAD = 'def load(path, mode="r"):\n' + BODY
RENAMED = LOAD.replace("load", "read_it").replace("path", "name").replace("data", "text").replace("fh", "stream")
NEAR = LOAD.replace("    lines = [", "    print(path)\n    lines = [")
OTHER = "def unrelated(a, b):\n    return a * b + 1\n"


def run(tmp_path, files: dict, **settings):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    policy = Policy(Thresholds(), duplicates=CloneSettings(**{"min_nodes_renamed": 24, **settings}))
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        return run_analyze(discover([tmp_path]), ex, policy, jobs=1)


def places(group):
    return [(Path(m.path).name, m.line, m.end_line) for m in group.members]


def test_exact_renamed_and_near_miss_copies(tmp_path):
    res = run(tmp_path, {"a.py": LOAD, "b.py": "import os\n\n\n" + LOAD, "c.py": OTHER})
    assert [(g.kind_name, places(g)) for g in res.duplicates] == [("exact", [("a.py", 1, 8), ("b.py", 4, 11)])]
    res = run(tmp_path, {"b.py": RENAMED})
    assert [g.kind_name for g in res.duplicates] == ["renamed"]
    res = run(tmp_path / "n", {"a.py": LOAD, "b.py": NEAR})
    (g,) = res.duplicates
    assert g.kind_name == "near-miss" and 0.8 <= g.similarity < 1 and places(g) == [("a.py", 1, 8), ("b.py", 1, 9)]
    assert run(tmp_path / "m", {"a.py": LOAD, "b.py": NEAR}, max_gap=0).duplicates[0].kind_name == "exact"


def test_a_body_copied_under_another_signature_is_a_copy_from_its_decorators(tmp_path):
    # as pylint's ignore-signatures: name, decorators, parameters and sync/async are not compared; the copy
    # still starts where the function does, at its first decorator
    other = "@cache\nasync def fetch(path, mode, *, extra=None) -> dict:\n" + BODY
    res = run(tmp_path, {"a.py": LOAD, "b.py": other})
    assert [(g.kind_name, places(g)) for g in res.duplicates] == [("exact", [("a.py", 1, 8), ("b.py", 1, 9)])]
    res = run(tmp_path, {"a.py": LOAD, "b.py": other}, ignore_signatures=False)  # the bodies alone
    assert [(g.kind_name, places(g)) for g in res.duplicates] == [("exact", [("a.py", 3, 8), ("b.py", 4, 9)])]


def test_a_block_of_text_copied_into_another_string_is_a_copy(tmp_path):
    # each line of a multi-line string after its first weighs 4 nodes: 5 lines of text pass min_nodes (14)
    block = "".join(f"    row {i}: value {i * 7}\n" for i in range(5))
    a = 'A = """first\n' + block + 'end of a"""\n'
    b = 'x = 1\nB = """another start\n' + block + 'another end"""\n'
    res = run(tmp_path, {"a.py": a, "b.py": b})
    assert [places(g) for g in res.duplicates] == [[("a.py", 2, 6), ("b.py", 3, 7)]]
    short = "".join(f"    row {i}: value {i * 7}\n" for i in range(3))  # 3 lines: under min_lines
    assert run(tmp_path / "short", {"a.py": a.replace(block, short), "b.py": b.replace(block, short)}).duplicates == []


def test_a_table_of_joined_literals_compares_without_its_comments(tmp_path):
    # each line one literal of a string joined implicitly, its comment naming the entry: a comment is no text,
    # so the tables are copies as pylint and jscpd find them; a comment inside a triple-quoted string is text
    rows = [f"\\x{i:02x}" for i in range(8)]
    a = "TABLE = (\n" + "".join(f"    '{r}'  # 0x{i:04x} entry {i}\n" for i, r in enumerate(rows)) + ")\n"
    b = "x = 1\nTABLE = (\n" + "".join(f"    '{r}'  # 0x{i:02x} ENTRY\n" for i, r in enumerate(rows)) + ")\n"
    assert [places(g) for g in run(tmp_path, {"a.py": a, "b.py": b}).duplicates] == [[("a.py", 1, 9), ("b.py", 2, 10)]]
    text = [f"    '{r}'  # note {i}\n" for i, r in enumerate(rows)]
    c = 'DOC = """\n' + "".join(text) + '"""\n'
    d = 'x = 1\nDOC = """\n' + "".join(t.replace("note", "other") for t in text) + '"""\n'
    assert run(tmp_path / "doc", {"c.py": c, "d.py": d}).duplicates == []


def test_a_table_copied_without_its_first_row_is_a_copy_from_its_second(tmp_path):
    # joined literals in brackets, each row on its own line: the rows are text, the first one too, so a table
    # copied from its second row on (another first row) is a copy of every row it shares, its first included
    rows = [f"    b'{i:02x}" + "ab" * 12 + "'\n" for i in range(10)]
    a = "A = (\n    b'head'\n" + "".join(rows) + "    b'tail'\n)\n"
    b = "x = 1\nB = (\n" + "".join(rows) + "    b'end'\n)\n"
    (g,) = run(tmp_path, {"a.py": a, "b.py": b}).duplicates
    assert g.kind_name == "exact" and places(g) == [("a.py", 3, 12), ("b.py", 3, 12)]


def test_each_copy_is_a_finding_naming_the_others(tmp_path):
    res = run(tmp_path, {"a.py": LOAD, "b.py": LOAD, "c.py": LOAD})
    found = sorted((Path(f.path).name, f.line, f.end_line, len(f.related)) for f in res.findings)
    assert found == [("a.py", 1, 8, 2), ("b.py", 1, 8, 2), ("c.py", 1, 8, 2)]
    assert "exact, 3 copies, 8 lines): also at" in res.findings[0].message
    data = json.loads(FORMATS["json"](res))
    assert data["summary"]["duplicates"] == {"groups": 1, "by_kind": {"exact": 1}, "copies": 3,
                                             "duplicated_lines": 16}
    assert data["duplicates"][0]["kind"] == "exact" and len(data["duplicates"][0]["members"]) == 3
    assert data["summary"]["by_rule"] == {"GB301": 3}
    sarif = json.loads(FORMATS["sarif"](res, root=tmp_path))["runs"][0]["results"]
    assert [len(r["relatedLocations"]) for r in sarif] == [2, 2, 2]
    assert sarif[0]["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "b.py"
    assert FORMATS["text"](res).count(": GB301 ") == 3 and FORMATS["github"](res).count("::warning ") == 3


def test_sarif_with_related_locations_validates(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = Path(__file__).resolve().parents[4] / "shared" / "sarif" / "sarif-schema-2.1.0.json"
    if not schema.is_file():
        pytest.skip(f"SARIF schema not found at {schema}")
    res = run(tmp_path, {"a.py": LOAD, "b.py": LOAD})
    jsonschema.validate(json.loads(FORMATS["sarif"](res, root=tmp_path)), json.loads(schema.read_text()))


def test_noqa_and_per_file_ignores_silence_one_copy(tmp_path):
    quiet = LOAD.replace('mode="r"):', 'mode="r"):  # noqa: GB301')
    res = run(tmp_path, {"a.py": LOAD, "b.py": quiet})
    assert len(res.duplicates) == 1 and [Path(f.path).name for f in res.findings] == ["a.py"]
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(discover([tmp_path]), ex, Policy(Thresholds(), per_file_ignores=(("*a.py", ("GB3",)),),
                                                           duplicates=CloneSettings()), jobs=1)
    assert res.findings == []
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(discover([tmp_path]), ex, Policy(Thresholds(), ignore=("GB301",),
                                                           duplicates=CloneSettings()), jobs=1)
    assert res.findings == [] and len(res.duplicates) == 1  # found, not reported


def test_docstrings_and_imports_are_ignored_unless_asked(tmp_path):
    doc = '"""' + "\n".join(f"line {i} of a long text" for i in range(12)) + '\n"""\n'
    imports = "".join(f"import mod{i}\n" for i in range(12))
    files = {"a.py": doc + imports + OTHER, "b.py": doc + imports}
    assert run(tmp_path, files).duplicates == []
    kept = run(tmp_path, files, ignore_docstrings=False, ignore_imports=False).duplicates
    assert places(kept[0])[:2] == [("a.py", 1, 25), ("b.py", 1, 25)]


def test_cached_run_equals_cold_run_and_broken_files_are_skipped(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name, text in {"a.py": LOAD, "b.py": NEAR, "bad.py": "def (:\n", "c.py": "import os\n" + LOAD}.items():
        (src / name).write_text(text)
        os.utime(src / name, (time.time() - 60, time.time() - 60))  # served by the stat index on the second run
    out = []
    for _ in range(2):
        r = runner.invoke(app, ["analyze", str(src), "--duplicates", "--format", "json", "--device", "cpu", "-q",
                                "--config", str(_config(tmp_path))])
        assert r.exit_code == 1, r.output  # E999 is an error
        out.append(json.loads(r.stdout))
    assert out[0]["timings"]["cached_files"] == 0 and out[1]["timings"]["cached_files"] == 4  # the syntax error too
    assert out[0]["duplicates"] == out[1]["duplicates"] and out[0]["findings"] == out[1]["findings"]
    assert {m["path"].rsplit("/", 1)[1] for g in out[0]["duplicates"] for m in g["members"]} == {"a.py", "b.py", "c.py"}
    assert any(f["code"] == "E999" for f in out[0]["findings"])


def test_several_roots_and_the_flag_against_the_config(tmp_path):
    for root, text in (("one", LOAD), ("two", LOAD)):
        (tmp_path / root).mkdir()
        (tmp_path / root / "m.py").write_text(text)
    args = ["analyze", str(tmp_path / "one"), str(tmp_path / "two"), "--format", "json", "--device", "cpu", "-q",
            "--no-cache"]
    assert "duplicates" not in json.loads(runner.invoke(app, args).stdout)
    groups = json.loads(runner.invoke(app, args + ["--duplicates"]).stdout)["duplicates"]
    assert [len(g["members"]) for g in groups] == [2]
    on = tmp_path / "on.toml"
    on.write_text("[analyze.duplicates]\nenabled = true\n")
    assert "duplicates" in json.loads(runner.invoke(app, args + ["--config", str(on)]).stdout)
    assert "duplicates" not in json.loads(runner.invoke(app, args + ["--config", str(on), "--no-duplicates"]).stdout)


def _config(tmp_path) -> Path:
    path = tmp_path / "c.toml"
    path.write_text(f'[analyze]\ncache_dir = "{tmp_path / "cache"}"\n')
    return path


def test_strings_over_several_lines_are_compared_line_by_line(tmp_path):
    table = "\n".join(f"    'entry {i}'  # code {i}" for i in range(60))
    a = f"TABLE = (\n{table}\n)\n"
    b = a.replace("'entry 30'", "'changed'")
    (g,) = run(tmp_path, {"a.py": a, "b.py": b}).duplicates  # one string: as a whole, the two differ
    assert g.kind_name == "near-miss" and places(g) == [("a.py", 1, 61), ("b.py", 1, 61)]


def test_a_stretch_repeated_in_one_file_is_one_group_of_its_copies(tmp_path):
    method = ('    def {name}(self):\n        if self._is_special:\n            if self.is_nan():\n'
              '                raise ValueError("cannot round a NaN")\n            else:\n'
              '                raise OverflowError("cannot round an infinity")\n'
              '        return int(self._rescale(0, {mode}))\n\n')
    body = "class D:\n" + "".join(method.format(name=n, mode=m) for n, m in
                                  (("floor", "DOWN"), ("ceil", "UP"), ("trunc", "ZERO")))
    (g,) = run(tmp_path, {"d.py": body}).duplicates
    assert g.kind_name == "renamed" and places(g) == [("d.py", 2, 8), ("d.py", 10, 16), ("d.py", 18, 24)]


BLOCK = "    a = make([0, 1])\n    del a[-2:-1]\n    self.assertEqual(a, make([1]))\n\n"


def test_a_block_repeated_with_the_next_ones_first_statement_overlaps_it(tmp_path):
    # three lines repeated, each time followed by the same first statement of the next block: jscpd's token
    # match reports the four lines twice, sharing that statement; cut where the copy starts, they were two
    # copies of three lines, under min_lines, and nothing was reported
    src = "def test_delslice(self):\n" + BLOCK * 2 + "    a = make([0, 1])\n    del a[1:]\n    del a[:1]\n"
    (g,) = run(tmp_path, {"l.py": src}).duplicates
    assert g.kind_name == "exact" and places(g) == [("l.py", 2, 6), ("l.py", 6, 10)]
    # repeated more often, the copies would overlap by more than a third: cut where the copy starts, as before
    (g,) = run(tmp_path / "p", {"l.py": "def test_delslice(self):\n" + BLOCK * 4}).duplicates
    assert [m[1:] for m in places(g)] == [(2, 8), (10, 16)]


def _find(root: list, x: int) -> int:
    while root[x] != x:
        x = root[x]
    return x


def test_components_join_chains():
    import numpy as np

    from gpubatch.analyze.clones.groups import components

    label = components(7, np.asarray([0, 2, 3, 5]), np.asarray([1, 1, 4, 6]))
    assert label.tolist() == [0, 0, 0, 3, 3, 5, 5]
    rng = np.random.default_rng(0)
    for _ in range(50):  # against a plain union-find
        n = int(rng.integers(1, 200))
        left, right = rng.integers(0, n, (2, int(rng.integers(0, 300))))
        root = list(range(n))
        for a, b in zip(left.tolist(), right.tolist()):
            ra, rb = _find(root, a), _find(root, b)
            root[max(ra, rb)] = min(ra, rb)
        assert components(n, left, right).tolist() == [_find(root, x) for x in range(n)]
    perm = rng.permutation(5000)  # a long chain in random order: one component
    assert (components(5000, perm[:-1], perm[1:]) == 0).all()


def test_order_by_sorts_by_two_keys_with_one_key_or_a_lexsort():
    import numpy as np

    from gpubatch.analyze.clones.detect import order_by

    major, minor = np.asarray([3, 1, 3, 0, 1]), np.asarray([5, 9, 2, 7, 1])
    assert order_by(np, major, minor).tolist() == [3, 4, 1, 2, 0]
    assert order_by(np, major << 40, minor << 30).tolist() == [3, 4, 1, 2, 0]  # 70 bits: the lexsort


def test_a_large_group_names_at_most_ten_other_copies_per_finding(tmp_path):
    res = run(tmp_path, {f"m{i:02d}.py": LOAD for i in range(14)})
    (g,) = res.duplicates
    assert len(g.members) == 14 and len(res.findings) == 14
    assert {len(f.related) for f in res.findings} == {10}
    assert "and 10 more" in res.findings[0].message  # the message shows 3 and counts the rest


def test_an_f_string_block_is_compared_line_by_line_and_ends_where_it_ends(tmp_path):
    text = "".join(f'            f"step {i}: {{name}} moved to {{place}} ({i} of {{count}})\\n"\n' for i in range(12))
    a = f"def report(name, place, count):\n    return (\n{text}    )\n\n\nDONE = 1\n"
    b = f"class Log:\n    def write(self, name, place, count):\n        out = (\n{text}        )\n" \
        "        self.lines.append(out)\n"
    (g,) = run(tmp_path, {"a.py": a, "b.py": b}).duplicates
    assert g.kind_name == "exact" and places(g) == [("a.py", 3, 14), ("b.py", 4, 15)]


def test_a_table_of_literals_padded_otherwise_is_a_copy(tmp_path):
    rows = [(f"'{chr(97 + i)}'", f"#  0x{97 + i:02X} -> LETTER {chr(65 + i)}") for i in range(8)]
    a = "TABLE = (\n" + "".join(f"    {lit}   {note}\n" for lit, note in rows) + ")\n"
    b = "TABLE = (\n" + "".join(f"    {lit}         {note}\n" for lit, note in rows) + ")\n"
    (g,) = run(tmp_path, {"a.py": a, "b.py": b}).duplicates  # each line keyed by its text, blanks collapsed
    assert g.kind_name == "exact" and places(g) == [("a.py", 1, 9), ("b.py", 1, 9)]


def test_a_copy_inside_a_formatted_string_ends_where_the_copied_lines_end(tmp_path):
    shared = "".join(f"    step {i}: move the block to {i * 3}\n" for i in range(6))
    a = 'SCRIPT = """\n' + shared + "".join(f"    only here {i}\n" for i in range(20)) + '""".format(1)\n'
    b = 'OTHER = """\n' + shared + '"""\n'
    (g,) = run(tmp_path, {"a.py": a, "b.py": b}).duplicates  # not to line 28, where `.format` ends
    assert places(g) == [("a.py", 2, 7), ("b.py", 2, 7)]  # line 1 differs but for its `"""`: not copied


def test_a_copied_literal_ends_at_its_closing_bracket(tmp_path):
    rows = "".join(f"    'key{i}': ('value {i}', {i}),\n" for i in range(8))
    a = "TABLE = {\n" + rows + "}\n\n\ndef f():\n    return 1\n"
    b = "OTHER = {\n" + rows + "}\nprint(OTHER)\n"
    (g,) = run(tmp_path, {"a.py": a, "b.py": b}).duplicates  # the `}` line is part of the copy
    assert places(g) == [("a.py", 1, 10), ("b.py", 1, 10)]


def test_duplicated_lines_count_each_line_once():
    from gpubatch.analyze.clones.groups import CloneGroup, Member
    from gpubatch.analyze.report.summary import duplicates_summary

    def group(*spans):
        return CloneGroup(1, 1.0, tuple(Member(p, a, b, 20) for p, a, b in spans))
    # b.py 1-20 copies a.py 1-20, and its piece 5-9 is also a group with c.py: lines 5-9 of b.py count once
    groups = [group(("a.py", 1, 20), ("b.py", 1, 20)), group(("a.py", 5, 9), ("b.py", 5, 9), ("c.py", 1, 5)),
              group(("a.py", 30, 33), ("b.py", 18, 21))]
    assert duplicates_summary(groups)["duplicated_lines"] == 21 + 5


def test_covered_lines_equal_a_count_of_distinct_lines():
    """The running-maximum count of lines under unions of ranges equals counting each (file, line) once."""
    from gpubatch.analyze.report.summary import covered_lines

    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(0, 30))
        rows = [(int(f), int(a), int(a + rng.integers(0, 12))) for f, a in
                zip(rng.integers(0, 4, n), rng.integers(1, 40, n))]
        assert covered_lines(rows) == len({(f, x) for f, a, b in rows for x in range(a, b + 1)})


def test_window_pairs_pair_each_window_with_the_first_and_the_previous_of_its_hash():
    from itertools import pairwise

    import numpy as np

    from gpubatch.analyze.clones.detect import window_pairs

    rng = np.random.default_rng(1)
    n, width = 3000, 5
    h = rng.integers(0, 400, n).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    alone = rng.random(n) < 0.5  # half the windows have a hash of their own
    h[alone] = rng.integers(1 << 40, 1 << 62, int(alone.sum())).astype(np.uint64)
    file_of = np.sort(rng.integers(0, 40, n))
    for periodic in (False, True):
        by_hash: dict[int, list[int]] = {}
        for p, x in enumerate(h.tolist()):
            by_hash.setdefault(x, []).append(p)
        want = set()
        for ps in by_hash.values():
            if periodic:  # windows equal to a near one of their file are left out
                near = {q for a, b in pairwise(ps) if file_of[a] == file_of[b] and b - a < width for q in (a, b)}
                ps = [p for p in ps if p not in near]
            for i, b in enumerate(ps[1:], 1):
                for a in {ps[0], ps[i - 1]}:
                    if file_of[a] != file_of[b] or b - a >= width:
                        want.add((b, a))
        b, a = window_pairs(np, np.arange(n), h, file_of, width, periodic)
        assert sorted(zip(b.tolist(), a.tolist())) == sorted(want)


def test_a_copy_that_ends_one_call_into_a_statement_does_not_report_that_line(tmp_path):
    shared = "".join(f"    v{i} = compute(v{i - 1}, {i}, scale={i * 2})\n" for i in range(1, 6))
    a = "def f(v0):\n" + shared + "    log.info(v5)\n"
    b = "def g(v0):\n" + shared + "    log.warning('done', v5, v4, v3, v2)\n"
    (g,) = run(tmp_path, {"a.py": a, "b.py": b}).duplicates  # `log.` matches too: line 7 is not copied
    assert places(g) == [("a.py", 1, 6), ("b.py", 1, 6)]  # from the def (signatures are not compared)


def test_a_generated_table_is_no_copy_of_itself_but_its_copy_elsewhere_is(tmp_path):
    table = "a = 1\n" * 50_000  # every window alike: pairing them all used to ask for tens of GB
    assert run(tmp_path / "one", {"t.py": table}).duplicates == []
    res = run(tmp_path / "two", {"t.py": table, "u.py": table})
    assert [places(g) for g in res.duplicates] == [[("t.py", 1, 50_000), ("u.py", 1, 50_000)]]


_TWINS = {  # twin: (the function's body with {a} where the twin differs, the twin's fill, its def, lines)
    "async": ("    try:\n        {a}with opened(path) as f:\n            {a}for row in f.rows():\n"
              "                total += row.size\n                seen.append(row.name)\n"
              "    except OSError as e:\n        frames = extract(e.__traceback__)\n        report(frames, total)\n"
              "    return total, seen\n", "async ", "async def", 10),
    "except*": ("    hit_except = False\n    hit_finally = False\n    try:\n        handle(path, total)\n"
                "        seen.append(path.name)\n    except{a} OSError as e:\n"
                "        frames = extract(e.__traceback__)\n        report(frames, total)\n        hit_except = True\n"
                "    finally:\n        hit_finally = True\n    return hit_except, hit_finally\n", "*", "def", 13),
}


@pytest.mark.parametrize("twin", sorted(_TWINS))
def test_code_copied_into_its_twin_is_a_renamed_copy(tmp_path, twin):
    """`async with` / `async for` / `try: ... except*` read as `with` / `for` / `try: ... except` in the shape
    keys, not in the exact ones."""
    if twin == "except*" and sys.version_info < (3, 11):
        pytest.skip("except* is Python 3.11 syntax")
    body, fill, head, n = _TWINS[twin]
    plain = "def scan(path, total, seen):\n" + body.format(a="")
    (g,) = run(tmp_path, {"a.py": plain, "b.py": f"{head} scan(path, total, seen):\n" + body.format(a=fill),
                          "c.py": plain}).duplicates
    assert g.kind_name == "renamed" and places(g) == [("a.py", 1, n), ("b.py", 1, n), ("c.py", 1, n)]
    (g,) = run(tmp_path / "plain", {"a.py": plain, "c.py": plain}).duplicates
    assert g.kind_name == "exact"


def test_a_gpu_out_of_memory_searches_on_the_cpu_with_one_warning(tmp_path, monkeypatch):
    """The device cannot hold the search: the same groups from NumPy, one warning, a CPU fallback counted."""
    import types

    import gpubatch.analyze.duplicates as dup
    from gpubatch.engine.stats import StatsCollector

    result = run(tmp_path, {"a.py": LOAD, "b.py": RENAMED, "c.py": NEAR})
    want = list(result.duplicates)
    assert want and not result.warnings
    result.duplicates = []
    released = []
    gpu = types.SimpleNamespace(is_gpu=True, release=lambda: released.append(True))
    real = dup.find_clones

    def search(backend, *args):
        if backend is gpu:
            raise MemoryError("Out of memory allocating 1,000,000,000 bytes")
        return real(backend, *args)

    monkeypatch.setattr(dup, "find_clones", search)
    stats = StatsCollector()
    policy = Policy(Thresholds(), duplicates=CloneSettings(min_nodes_renamed=24))
    dup.add_duplicates(result, types.SimpleNamespace(backend=gpu, stats=stats), policy)
    assert result.duplicates == want and released == [True]
    assert len(result.warnings) == 1 and "out of memory" in result.warnings[0]
    assert stats.for_op("duplicates", "cpu").cpu_fallbacks == 1
