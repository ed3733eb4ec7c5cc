"""analyze --diff REF: the files changed against a ref plus untracked ones, equal to analysing those files
alone; a folder outside git or an unknown ref is a usage error."""
import json
import shutil
import subprocess

import pytest
from typer.testing import CliRunner

from gpubatch.cli import app

runner = CliRunner()
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
BAD = "def f(x):\n    return eval(x)\n"


def _git(where, *args):
    subprocess.run(["git", "-C", str(where), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def _paths(out):
    return sorted({f["path"] for f in json.loads(out.read_text())["findings"]})


def test_diff_analyses_changed_and_untracked_files_only(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    for name in ("same.py", "edited.py", "gone.py"):
        (repo / "pkg" / name).write_text(BAD)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "one")
    (repo / "pkg" / "edited.py").write_text(BAD + "\n\ny = eval('2')\n")
    (repo / "pkg" / "new.py").write_text(BAD)
    (repo / "pkg" / "gone.py").unlink()
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["analyze", str(repo / "pkg"), "--diff", "HEAD", "--no-cache", "--format", "json",
                                 "-o", str(out)])
    assert result.exit_code == 1, result.output
    assert [p.rsplit("/", 1)[1] for p in _paths(out)] == ["edited.py", "new.py"]
    whole = tmp_path / "w.json"
    runner.invoke(app, ["analyze", str(repo / "pkg" / "edited.py"), str(repo / "pkg" / "new.py"), "--no-cache",
                        "--format", "json", "-o", str(whole)])
    assert json.loads(out.read_text())["findings"] == json.loads(whole.read_text())["findings"]


def test_diff_outside_git_or_unknown_ref_is_a_usage_error(tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    result = runner.invoke(app, ["analyze", str(tmp_path), "--diff", "HEAD", "--no-cache"])
    assert result.exit_code == 2 and "git rev-parse" in result.output
    _git(tmp_path, "init", "-q")
    result = runner.invoke(app, ["analyze", str(tmp_path), "--diff", "nope", "--no-cache"])
    assert result.exit_code == 2 and "no such commit" in result.output
