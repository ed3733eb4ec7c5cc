"""analyze: discovery, tensors, complexity as radon counts it, rules, noqa, cache, bad files, reports, CLI."""
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.cache import TensorCache
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.analyze.report import FORMATS
from gpubatch.analyze.tensorize import tensorize
from gpubatch.cli import app
from gpubatch.engine import BatchExecutor, EngineSettings

runner = CliRunner()
SAMPLE = '''\
import os as o
from subprocess import call


def f(x=[], y=dict(), z=(1,), w=tuple()):
    try:
        if x == None or y == True:
            eval("1")
    except:
        pass
    o.system("ls")
    exec("x")  # noqa: S102
    return call


def g(a, b):
    assert a and b
    for i in range(3):
        while a:
            pass
        else:
            pass
    return [i for i in range(3) if i if a]


class K:
    def m(self):
        if self:
            return 1
        elif self is None:
            return 2
        return 3

    def n(self):
        return lambda q: q or self
'''


def analyze(tmp_path, files: dict, **policy):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text) if isinstance(text, bytes) else p.write_text(text)
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        return run_analyze(discover([tmp_path]), ex, Policy(Thresholds(**policy.pop("th", {})), **policy), jobs=1)


def codes(result):
    return sorted((Path(f.path).name, f.line, f.code) for f in result.findings)


def test_rules_and_noqa(tmp_path):
    res = analyze(tmp_path, {"a.py": SAMPLE}, th={"banned_calls": ("os.system",)})
    # `dict()` makes a mutable value: B006 like `[]` (as ruff has it), not B008
    assert codes(res) == [("a.py", 5, "B006"), ("a.py", 5, "B006"), ("a.py", 7, "E711"), ("a.py", 7, "E712"),
                          ("a.py", 8, "S307"), ("a.py", 9, "E722"), ("a.py", 11, "GB201")]


def test_complexity_matches_radon_rules(tmp_path):
    res = analyze(tmp_path, {"a.py": SAMPLE})
    blocks = {(b.kind, b.name): b.complexity for b in res.files[0].blocks}
    # f: if, or, except -> 4; g: assert, for, while+else, comprehension with two ifs -> 1+1+1+2+3 = 8
    assert blocks[("F", "f")] == 4 and blocks[("F", "g")] == 8
    # methods m: if + elif -> 3; n: lambda's `or` counts in n -> 2; class: (1 + 3 + 2) // 2 + 1 = 4
    assert blocks[("M", "m")] == 3 and blocks[("M", "n")] == 2 and blocks[("C", "K")] == 4


def test_select_ignore_severity_and_thresholds(tmp_path):
    res = analyze(tmp_path, {"a.py": SAMPLE}, select=("E7",), ignore=("E712",))
    assert {f.code for f in res.findings} == {"E711", "E722"}
    res = analyze(tmp_path, {"a.py": SAMPLE}, select=("C901", "GB103"), th={"max_complexity": 5, "max_params": 3})
    assert codes(res) == [("a.py", 5, "GB103"), ("a.py", 16, "C901")]
    res = analyze(tmp_path, {"a.py": SAMPLE}, select=("E722",), severity=(("E722", "error"),))
    assert res.findings[0].severity == "error"


NEWER = {"alias.py": "type Pair = tuple[int, int]\n", "quotes.py": 'x = f"{"a"}"\n', "broken.py": 'x = f"{1 +}"\n',
         "generic.py": "def first[T](xs: list[T]) -> T:\n    return xs[0]\n"}


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 parses this syntax")
def test_newer_syntax_is_named_in_the_syntax_error(tmp_path):
    """Code written for Python 3.12 does not parse under 3.11: the E999 says what looks newer and which parser
    read it; an f-string broken in any version gets no such hint."""
    res = analyze(tmp_path, NEWER)
    msgs = {Path(f.path).name: f.message for f in res.findings}
    assert set(msgs) == set(NEWER) and all(m.startswith("SyntaxError") for m in msgs.values())
    assert "a `type` statement, new in Python 3.12" in msgs["alias.py"]
    assert "type parameters, new in Python 3.12" in msgs["generic.py"]
    assert "its own quote" in msgs["quotes.py"] and "3.11" in msgs["quotes.py"]
    assert "3.12" not in msgs["broken.py"]


@pytest.mark.skipif(sys.version_info < (3, 12), reason="needs Python 3.12's parser")
def test_newer_syntax_parses_on_a_newer_python(tmp_path):
    res = analyze(tmp_path, NEWER)
    assert {Path(f.path).name for f in res.findings if f.code == "E999"} == {"broken.py"}


def test_bad_files_are_findings_not_crashes(tmp_path):
    res = analyze(tmp_path, {"ok.py": "x = 1\n", "bad.py": "def broken(:\n", "enc.py": b'x = "\xff\xfe"\n',
                             "bin.py": b"\x00\x01binary", "deep.py": "x = " + "(" * 300 + ")" * 300 + "\n"})
    found = {Path(f.path).name: f.code for f in res.findings}
    assert found["bad.py"] == "E999" and found["enc.py"] == "E902" and found["bin.py"] == "E902"
    assert found["deep.py"] == "E999" and "ok.py" not in found
    bad = next(f for f in res.findings if f.path.endswith("bad.py"))
    assert (bad.line, bad.col) == (1, 11)


def test_discovery_excludes_and_gitignore(tmp_path):
    for rel in ("pkg/a.py", "pkg/b.txt", ".venv/x.py", "build/y.py", "gen/z.py", "keep/k.py", "node_modules/m.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    (tmp_path / ".gitignore").write_text("gen/\n")
    (tmp_path / "outside.py").write_text("x = 1\n")
    (tmp_path / "pkg" / "link.py").symlink_to(tmp_path / "outside.py")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], exclude=["keep"]))
    assert found == ["outside.py", "pkg/a.py"]  # the link reaches outside.py, already listed: one report a file
    alone = sorted(p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], exclude=["keep", "outside.py"]))
    assert alone == ["pkg/a.py", "pkg/link.py"]
    assert "gen/z.py" in [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path], gitignore=False)]


def test_cache_hit_and_corrupt_entry(tmp_path):
    src = tmp_path / "a.py"
    src.write_text(SAMPLE)
    cache = TensorCache(tmp_path / "cache")
    ft = tensorize(str(src))
    cache.store(ft)
    hit = cache.lookup(str(src), 10**6)
    assert hit is not None and hit.cached and (hit.table == ft.table).all() and hit.blocks == ft.blocks
    entry = next((tmp_path / "cache").rglob("*.bin"))
    entry.write_bytes(b"garbage")
    assert cache.lookup(str(src), 10**6) is None and not entry.exists()


def test_formats(tmp_path):
    res = analyze(tmp_path, {"a.py": SAMPLE})
    text = FORMATS["text"](res)
    assert f"{tmp_path / 'a.py'}:9:5: E722 Do not use bare `except`" in text
    data = json.loads(FORMATS["json"](res))
    assert data["summary"]["findings"] == len(res.findings) and data["files"][0]["blocks"]
    assert "::warning file=" in FORMATS["github"](res)


def test_sarif_validates_against_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema_file = Path(__file__).resolve().parents[3] / "shared" / "sarif" / "sarif-schema-2.1.0.json"
    if not schema_file.is_file():
        pytest.skip(f"SARIF schema not found at {schema_file}")
    res = analyze(tmp_path, {"a.py": SAMPLE, "bad.py": "def (:\n"})
    doc = json.loads(FORMATS["sarif"](res, root=tmp_path))
    jsonschema.validate(doc, json.loads(schema_file.read_text()))
    run = doc["runs"][0]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] in ("a.py", "bad.py")
               for r in run["results"])
    assert all(r["partialFingerprints"]["primaryLocationLineHash"] for r in run["results"])
    assert all(rule["help"]["text"] and rule["shortDescription"]["text"] for rule in run["tool"]["driver"]["rules"])


def test_cli_exit_codes_and_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(SAMPLE)
    out = tmp_path / "r.sarif"
    r = runner.invoke(app, ["analyze", "a.py", "--format", "sarif", "-o", str(out), "--device", "cpu", "--no-cache"])
    assert r.exit_code == 1 and json.loads(out.read_text())["version"] == "2.1.0"  # S307 is an error
    r = runner.invoke(app, ["analyze", "a.py", "--fail-on", "never", "--device", "cpu"])
    assert r.exit_code == 0 and "E722" in r.output
    r = runner.invoke(app, ["analyze", "a.py", "--select", "E711", "--device", "cpu"])
    assert r.exit_code == 0  # a warning does not reach the default fail-on (error)
    assert runner.invoke(app, ["analyze", "missing/", "--device", "cpu"]).exit_code == 2
    assert runner.invoke(app, ["analyze", "a.py", "--format", "xml", "--device", "cpu"]).exit_code == 2
    assert (tmp_path / ".gpubatch_cache").is_dir()


def test_cli_stats_json_says_where_the_time_went(tmp_path, monkeypatch):
    # the phases, in order: the rendering of a report is what lies between "analysis done" and "report written"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(SAMPLE)
    st = tmp_path / "stats.json"
    r = runner.invoke(app, ["analyze", "a.py", "--format", "sarif", "-o", str(tmp_path / "r.sarif"), "--device",
                            "cpu", "--no-cache", "--stats-json", str(st)])
    assert r.exit_code == 1, r.output
    phases = json.loads(st.read_text())["phases"]
    assert [p["phase"] for p in phases] == ["files found", "analysis done", "report written"]
    assert [p["at_s"] for p in phases] == sorted(p["at_s"] for p in phases)


def test_never_imports_the_analysed_code(tmp_path):
    (tmp_path / "boom.py").write_text("raise SystemExit('imported!')\nopen('/tmp/should-not-exist', 'w')\n")
    res = analyze(tmp_path, {})
    assert res.files and not res.findings and not Path("/tmp/should-not-exist").exists()


def test_large_generated_file(tmp_path):
    body = "".join(f"def f{i}(a):\n    if a:\n        return {i}\n    return a\n" for i in range(12500))
    (tmp_path / "big.py").write_text(body)  # 50,000 lines; its timing is in docs/benchmarks.md
    res = analyze(tmp_path, {})
    assert len(res.files[0].blocks) == 12500 and all(b.complexity == 2 for b in res.files[0].blocks)


def test_sarif_multitool_validate(tmp_path):
    """`sarif-multitool validate` (npm @microsoft/sarif-multitool) reports nothing, when it is installed."""
    import shutil
    import subprocess

    tool = shutil.which("sarif-multitool")
    if tool is None:
        pytest.skip("sarif-multitool not on PATH (npm install -g @microsoft/sarif-multitool)")
    res = analyze(tmp_path, {"a.py": SAMPLE, "bad.py": "def (:\n"})
    sarif, out = tmp_path / "r.sarif", tmp_path / "v.sarif"
    sarif.write_text(FORMATS["sarif"](res, root=tmp_path))
    subprocess.run([tool, "validate", str(sarif), "--output", str(out), "--log", "ForceOverwrite"], check=True,
                   capture_output=True, timeout=300)
    assert json.loads(out.read_text())["runs"][0]["results"] == []


def test_warm_run_reads_reports_and_equals_cold(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(SAMPLE)
    (src / "bad.py").write_text("def (:\n")
    cache = str(tmp_path / "cache")
    policy = Policy(Thresholds(max_complexity=3))
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        cold = run_analyze(discover([src]), ex, policy, jobs=1, cache_dir=cache)
        warm = run_analyze(discover([src]), ex, policy, jobs=1, cache_dir=cache)
        other = run_analyze(discover([src]), ex, Policy(Thresholds(max_complexity=50)), jobs=1, cache_dir=cache)
    assert [r.findings for r in cold.files] == [r.findings for r in warm.files]
    assert [r.blocks for r in cold.files] == [r.blocks for r in warm.files]
    assert [r.cached for r in warm.files] == [True, False]  # a.py read back, bad.py reported again
    assert not any(f.code == "C901" for f in other.findings)  # another policy is not served stale reports


def test_gitlab_and_junit_formats(tmp_path):
    import xml.etree.ElementTree as ET

    (tmp_path / ".git").mkdir()
    res = analyze(tmp_path, {"a.py": SAMPLE, "b.py": SAMPLE})
    issues = json.loads(FORMATS["gitlab"](res, root=tmp_path))
    assert len(issues) == len(res.findings)
    assert {i["location"]["path"] for i in issues} == {"a.py", "b.py"}  # relative to the repository root
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # unique, though a.py and b.py are alike
    sev = {(i["check_name"], i["location"]["lines"]["begin"]): i["severity"] for i in issues}
    assert sev[("E722", 9)] == "minor" and sev[("S307", 8)] == "major"  # warning and error
    suites = ET.fromstring(FORMATS["junit"](res))
    assert suites.get("failures") == str(len(res.findings)) and len(suites) == 2
    case = next(c for c in suites.iter("testcase") if c.get("name") == "gpubatch.E722")
    assert case.get("line") == "9" and case.find("failure").get("type") == "E722"
    clean = ET.fromstring(FORMATS["junit"](analyze(tmp_path / "clean", {"c.py": "x = 1\n"})))
    assert clean.get("failures") == "0" and len(list(clean.iter("testcase"))) == 1


def test_parsing_prints_no_warnings_of_the_analysed_code(tmp_path):
    """An invalid escape in analysed code (SyntaxWarning from 3.12, DeprecationWarning before) is not ours to
    print: a stub or old file would fill stderr with the parser's warnings."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = analyze(tmp_path, {"a.py": 'import re\nPAT = re.compile("\\d+")\n'})
    assert not seen and not res.files[0].error


def test_tensors_cross_the_pipe_narrow_and_stay_narrow_until_concat(tmp_path):
    """A worker's tensors pickle each column in its narrowest type and the parent keeps them so; every column,
    the whole table and a batch's concatenated columns come out equal, int64, to the worker's."""
    import pickle

    import numpy as np

    f = tmp_path / "a.py"
    f.write_text(SAMPLE + "x = 2 ** 40\nclass C:\n    big = 10 ** 30\n")
    ft = tensorize(str(f))
    back = pickle.loads(pickle.dumps(ft))
    assert isinstance(back.table, list) and back.node_count == ft.node_count == len(ft.table)
    assert sum(c.nbytes for c in back.table) < ft.table.nbytes / 2
    assert back.wide().dtype == np.int64 and np.array_equal(back.wide(), ft.table)
    assert all(np.array_equal(back.nodes[c], ft.nodes[c]) for c in ft.nodes)
    assert all(np.array_equal(back.column(k), ft.column(k)) for k in range(ft.table.shape[1]))
    assert len(pickle.dumps(ft)) < ft.table.nbytes / 2
    again = pickle.loads(pickle.dumps(back))  # narrow tensors pickle again as they are
    assert np.array_equal(again.wide(), ft.table)
    from gpubatch.analyze.batched import concat

    mixed, whole = concat([back, ft, again]), concat([ft, ft, ft])
    assert all(mixed[0][c].dtype == np.int64 and np.array_equal(mixed[0][c], whole[0][c]) for c in whole[0])
