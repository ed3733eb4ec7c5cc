"""analyze --stdin-filename NAME -: standard input analysed as NAME (rules, per-file ignores, noqa, columns
from the text given, not from the disk), for editors and hooks; misuse is a usage error."""
import json

from typer.testing import CliRunner

from gpubatch.cli import app

runner = CliRunner()
SOURCE = 'é = 1\ndef f(x=[]):\n    return "ü" + eval(x)\nexec(x)  # noqa: S102\n'


def _findings(tmp_path, *extra, config=""):
    cfg = tmp_path / "gpubatch.toml"
    cfg.write_text(config)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["--config", str(cfg), "analyze", "--stdin-filename", "pkg/mod.py", "-", "--format",
                                 "json", "-o", str(out), *extra], input=SOURCE.encode())
    assert result.exit_code in (0, 1), result.output
    return [(f["path"], f["line"], f["col"], f["code"]) for f in json.loads(out.read_text())["findings"]]


def test_stdin_is_analysed_under_its_name(tmp_path):
    assert _findings(tmp_path) == [("pkg/mod.py", 2, 8, "B006"), ("pkg/mod.py", 3, 18, "S307")]
    text = runner.invoke(app, ["analyze", "--stdin-filename", "pkg/mod.py", "-", "--format", "text"],
                          input=SOURCE.encode())
    assert "pkg/mod.py:3:18: S307" in text.stdout  # a character column (byte 18), from the text given
    ignored = _findings(tmp_path, config='[analyze.per_file_ignores]\n"pkg/*" = ["S307"]\n')
    assert [c for *_, c in ignored] == ["B006"]


def test_stdin_filename_needs_dash_alone(tmp_path):
    result = runner.invoke(app, ["analyze", "--stdin-filename", "a.py", str(tmp_path)], input=b"x = 1\n")
    assert result.exit_code == 2 and "give - as the only PATH" in result.output


def test_a_lone_dash_reads_standard_input_reported_as_dash(tmp_path):
    result = runner.invoke(app, ["analyze", "-", "--no-cache"], input=SOURCE.encode())
    assert result.exit_code == 1, result.output
    assert [line.split(" ")[0] for line in result.stdout.splitlines()] == ["-:2:9:", "-:3:18:"]
    assert runner.invoke(app, ["analyze", "-"], input=b"x = 1\n").exit_code == 0
