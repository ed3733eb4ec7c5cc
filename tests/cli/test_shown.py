"""Names from outside reach stderr as one line of literal text: no markup, no control characters."""
import json

from typer.testing import CliRunner

from gpubatch.cli import app
from gpubatch.cli.shown import shown

runner = CliRunner()
NAME = "x\x1b[2J\nfake.py:1:1: E999 [red]y[/red]\t\x7f"


def test_shown_escapes_markup_and_writes_control_characters_as_c_escapes():
    assert shown("plain name.py") == "plain name.py"
    assert shown(NAME) == "x\\x1b[2J\\nfake.py:1:1: E999 \\[red]y\\[/red]\\t\\x7f"


def test_an_error_naming_a_path_with_control_characters_stays_one_line(tmp_path):
    result = runner.invoke(app, ["analyze", str(tmp_path / NAME), "--device", "cpu"])
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert len(lines) == 1 and "\x1b" not in result.output
    assert "x\\x1b[2J\\nfake.py:1:1: E999 [red]y[/red]\\t\\x7f" in lines[0]


def test_a_skipped_task_with_control_characters_in_its_id_is_noted_on_one_line(tmp_path):
    bad = {"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": [{"input": [[2]]}]}
    ok = {"train": [{"input": [[1]], "output": [[1]]}], "test": [{"input": [[2]]}]}
    (tmp_path / "c_challenges.json").write_text(json.dumps({NAME: bad, "ok": ok}))
    result = runner.invoke(app, ["run-batt", "--dataset", str(tmp_path / "c_challenges.json"), "--depth", "1",
                                 "--device", "cpu", "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\nfake.py" not in result.output
    assert "skipped task x\\x1b[2J\\nfake.py:1:1: E999 [red]y[/red]\\t\\x7f:" in result.output
