"""`gpubatch diff`: outcomes compared by record identity, timings and run settings left out."""
import copy
import json

import pytest
from typer.testing import CliRunner

from gpubatch.cli import app
from gpubatch.diff import DiffError, compare

runner = CliRunner()
BATT = {"summary": {"tasks": 2, "test_correct": 1},
        "tasks": [{"id": "a", "fits": [{"program": "rot90", "length": 1, "votes": 1}], "correct": [True]},
                  {"id": "b", "fits": [], "correct": [False]}],
        "timings": {"seconds": 1.0}, "run": {"device": "numpy"}}


def test_timings_and_run_are_not_outcomes():
    other = copy.deepcopy(BATT)
    other["timings"]["seconds"] = 9.0
    other["run"]["device"] = "cupy"
    other["tasks"].reverse()  # records are matched by id, not position
    assert compare(BATT, other) == []


def test_differences_name_the_task():
    other = copy.deepcopy(BATT)
    other["tasks"][1]["correct"] = [True]
    other["tasks"][0]["fits"] = []
    found = [d.line() for d in compare(BATT, other)]
    assert "tasks[b].correct: [false] != [true]" in found
    assert any(line.startswith("tasks[a].fits[rot90]") for line in found)


def test_analyze_findings_compared_as_sets():
    doc = {"summary": {"findings": 2}, "files": [{"path": "x.py"}],
           "findings": [{"path": "x.py", "line": 1, "col": 0, "code": "E722"},
                        {"path": "x.py", "line": 5, "col": 0, "code": "B006"}]}
    other = copy.deepcopy(doc)
    other["findings"][1]["line"] = 6
    found = [d.line() for d in compare(doc, other)]
    assert found == ['findings[x.py:5:0:B006]: {"path":"x.py","line":5,"col":0,"code":"B006"} != (absent)',
                     'findings[x.py:6:0:B006]: (absent) != {"path":"x.py","line":6,"col":0,"code":"B006"}']


def test_different_jobs_refused():
    with pytest.raises(DiffError):
        compare(BATT, {"summary": {}, "files": []})


def test_cli_exit_codes(tmp_path):
    a, b, bad = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "bad.json"
    a.write_text(json.dumps(BATT))
    other = copy.deepcopy(BATT)
    other["summary"]["test_correct"] = 2
    b.write_text(json.dumps(other))
    bad.write_text("[1, 2]")
    same = runner.invoke(app, ["diff", str(a), str(a)])
    assert same.exit_code == 0 and "no differences" in same.output
    differ = runner.invoke(app, ["diff", str(a), str(b)])
    assert differ.exit_code == 1 and "summary.test_correct: 1 != 2" in differ.output
    assert runner.invoke(app, ["diff", str(a), str(bad)]).exit_code == 2
    assert runner.invoke(app, ["diff", str(a), str(tmp_path / "missing.json")]).exit_code == 2


def test_two_cpu_runs_agree_and_compare_flag(tmp_path):
    """The seeds' check in one command: the same run-batt work twice gives identical outcomes."""
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["run-batt", "--device", "cpu", "--tasks", "3", "--depth", "1", "--compare", "cpu",
                                 "--results", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "identical outcomes" in result.output
    doc = json.loads(out.read_text())
    assert "seconds" not in doc["summary"] and all("seconds" not in t for t in doc["tasks"])
    assert set(doc["timings"]["tasks"]) == {t["id"] for t in doc["tasks"]}
