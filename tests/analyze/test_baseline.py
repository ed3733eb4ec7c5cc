"""analyze --baseline: written when absent; later runs report and fail only on new findings, survive lines
moving, count entries gone, and refuse a file that is not a baseline."""
import json

from typer.testing import CliRunner

from gpubatch.cli import app

runner = CliRunner()
OLD = "def f(x):\n    return eval(x)\n\n\ndef g(y):\n    return eval(y)\n"


def _run(*extra):
    result = runner.invoke(app, ["analyze", "src", "--no-cache", "--format", "json", "-o", "out.json",
                                 "--baseline", "base.json", *extra])
    return result, json.loads(open("out.json").read()) if result.exit_code in (0, 1) else None


def test_baseline_accepts_old_findings_and_fails_on_new_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(OLD)
    first, report = _run()
    assert first.exit_code == 0 and report["summary"]["findings"] == 2  # written, every finding accepted
    assert len(json.loads((tmp_path / "base.json").read_text())["findings"]) == 2
    again, report = _run()
    assert again.exit_code == 0 and report["summary"]["findings"] == 0 and "2 findings not reported" in again.output
    (src / "a.py").write_text("import os\n\n\n" + OLD + "\n\ndef h(z):\n    return eval(z)\n")  # lines move
    moved, report = _run()
    assert moved.exit_code == 1 and [f["line"] for f in report["findings"]] == [13]
    assert "0 entries gone" in moved.output
    (src / "a.py").write_text("def f(x):\n    return eval(x)\n")
    fixed, report = _run()
    assert fixed.exit_code == 0 and "1 entries gone" in fixed.output


def test_a_file_that_is_not_a_baseline_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(OLD)
    (tmp_path / "base.json").write_text('{"findings": []}')
    result = runner.invoke(app, ["analyze", "src", "--no-cache", "--baseline", "base.json"])
    assert result.exit_code == 2 and "not a gpubatch-baseline file" in result.output
