"""The CLI keeps the ecosystem's habits: global options before the command, --version, -h."""
import json

from typer.testing import CliRunner

from gpubatch import __version__
from gpubatch.cli import app

runner = CliRunner()


def test_version_and_short_help():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"gpubatch {__version__}"
    for cmd in ([], ["analyze"], ["run-batt"], ["config", "show"], ["diff"]):
        result = runner.invoke(app, [*cmd, "-h"])
        assert result.exit_code == 0 and "Usage" in result.output, (cmd, result.output)


def test_global_options_before_the_command(tmp_path):
    (tmp_path / "a.py").write_text("eval(input())\n")
    stats = tmp_path / "s.json"
    result = runner.invoke(app, ["--device", "cpu", "--stats-json", str(stats), "-q", "analyze", str(tmp_path),
                                 "--no-cache", "--format", "json"])
    assert result.exit_code == 1, result.output  # the S307 finding (an error)
    assert json.loads(stats.read_text())["ops"][0]["device"] == "cpu"


def test_option_after_the_command_wins(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    result = runner.invoke(app, ["--device", "cuda", "analyze", str(tmp_path), "--device", "cpu", "--no-cache"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["--device", "cuda", "analyze", str(tmp_path), "--no-cache"])
    assert result.exit_code == 2 or "cuda" not in result.output  # before the command, it applies (no GPU here)


def test_config_before_config_show(tmp_path):
    cfg = tmp_path / "c.toml"
    cfg.write_text("[gpu.batch]\nmax_size = 77\n")
    result = runner.invoke(app, ["--config", str(cfg), "config", "show", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output)["gpu.batch.max_size"]["value"] == 77


def test_commands_that_cannot_honour_a_global_option_refuse_it():
    result = runner.invoke(app, ["--device", "cpu", "devices"])
    assert result.exit_code == 2 and "does not take --device" in result.output
    result = runner.invoke(app, ["--stats", "diff", "a.json", "b.json"])
    assert result.exit_code == 2
    result = runner.invoke(app, ["bench", "--batch-size", "4"])
    assert result.exit_code == 2 and "cannot honour --batch-size" in result.output


def test_run_batt_json_without_list_primitives_is_refused():
    result = runner.invoke(app, ["run-batt", "--json", "--device", "cpu"])
    assert result.exit_code == 2 and "--list-primitives" in result.output
