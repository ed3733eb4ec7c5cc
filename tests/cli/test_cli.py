"""CLI: help for every command, exit codes, config show, CPU fallback without cupy, no animation off a tty."""
import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from gpubatch.cli import app

runner = CliRunner()
COMMANDS = [["analyze"], ["run-batt"], ["bench"], ["config", "show"], ["config", "validate"], ["devices"]]


@pytest.mark.parametrize("cmd", COMMANDS, ids=" ".join)
def test_help(cmd):
    result = runner.invoke(app, [*cmd, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


@pytest.mark.parametrize("cmd", [["analyze", "."], ["run-batt"], ["bench"]], ids=" ".join)
def test_jobs_take_global_options(cmd):
    result = runner.invoke(app, [*cmd, "--help"])
    for flag in ("--config", "--device", "--gpus", "--batch-size", "--stats", "--stats-json", "--progress",
                 "--quiet", "--verbose"):
        assert flag in result.output


def test_bad_option_is_usage_error():
    assert runner.invoke(app, ["run-batt", "--device", "tpu"]).exit_code == 2
    assert runner.invoke(app, ["no-such-command"]).exit_code == 2


def test_empty_task_id_list_is_usage_error():
    """`--task-ids ""` or `,,` (an empty list from a script) is a usage error, not a run of every task."""
    for given in ("", " , ,"):
        result = runner.invoke(app, ["run-batt", "--dataset", "arc1-train", "--task-ids", given, "--device", "cpu"])
        assert result.exit_code == 2 and "no task id given" in result.output


def test_config_error_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[gpu.batch]\nmax_sise = 3\n")
    result = runner.invoke(app, ["config", "validate", str(bad)])
    assert result.exit_code == 2
    assert "did you mean gpu.batch.max_size" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, ["bench", "--config", str(bad), "--device", "cpu"])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_config_validate_ok(tmp_path):
    good = tmp_path / "gpubatch.toml"
    good.write_text("[gpu.batch]\nmax_size = 64\n")
    result = runner.invoke(app, ["config", "validate", str(good)])
    assert result.exit_code == 0 and "ok" in result.output


def test_config_show_json_sources(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gpubatch.toml").write_text("[gpu]\ncount = 2\n")
    monkeypatch.setenv("GPUBATCH_GPU__MEMORY__CACHE_SIZE", "7")
    data = json.loads(runner.invoke(app, ["config", "show", "--json"]).output)
    assert data["gpu.count"] == {"value": 2, "source": str(tmp_path / "gpubatch.toml")}
    assert data["gpu.memory.cache_size"]["source"] == "environment GPUBATCH_GPU__MEMORY__CACHE_SIZE"
    assert data["analyze.max_complexity"] == {"value": 10, "source": "default"}


def test_config_show_table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["config", "show"], env={"COLUMNS": "250"})
    assert result.exit_code == 0 and "gpu.batch.max_size" in result.output


def _run_without_cupy(*args, cwd=None):
    """Run the CLI in a subprocess where `import cupy` fails, as on a machine without it."""
    code = ("import sys; sys.modules['cupy'] = None; from gpubatch.cli import app; "
            f"sys.argv = ['gpubatch', *{list(args)!r}]; app()")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, env=env)


def test_devices_without_cupy():
    proc = _run_without_cupy("devices", "--json")
    data = json.loads(proc.stdout)
    assert data["backend"] == "numpy" and "not installed" in data["reason"]


def test_cuda_without_gpu_exits_2_with_reason(tmp_path):
    proc = _run_without_cupy("bench", "--device", "cuda", cwd=tmp_path)
    assert proc.returncode == 2
    assert "no GPU is usable" in proc.stderr and "Traceback" not in proc.stderr


def test_cpu_never_imports_cupy(tmp_path):
    code = ("import sys; from gpubatch.cli import app; sys.argv=['gpubatch','config','show','--json']\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\nassert 'cupy' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert proc.returncode == 0, proc.stderr


def test_the_readme_counts_the_dsl_as_list_primitives_does():
    """The README's command table names the DSL's size; it must not go stale as primitives are added."""
    import re
    from pathlib import Path

    result = runner.invoke(app, ["run-batt", "--list-primitives"])
    assert result.exit_code == 0, result.output
    families, instances = re.match(r"(\d+) families, (\d+) instances", result.output).groups()
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert f"the grid DSL: {families} families, {instances} instances" in readme
