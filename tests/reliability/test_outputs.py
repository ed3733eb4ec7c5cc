"""Regressions: output paths checked before the work, written atomically and through links, never over an input;
one escaping layer per format (non-UTF-8 names, SARIF URIs, GitHub properties); limits said on the console."""
import json
import os
import threading
import time
from pathlib import Path
from xml.etree import ElementTree

import pytest

from .helpers import cli, task, write_tasks

BAD = "def f(x=[]):\n    return x == None\n"


@pytest.mark.parametrize("option", ["--results", "--submission", "--stats-json"])
def test_run_batt_output_in_missing_folder_fails_before_the_search(tmp_path, option):
    folder = write_tasks(tmp_path / "t", {"a": task(1)})
    t0 = time.perf_counter()
    res = cli("run-batt", "--dataset", folder, "--depth", "2", "--no-progress", option, tmp_path / "no" / "r.json")
    assert res.exit_code == 2 and "does not exist" in res.output and "run-batt" not in res.stdout
    assert time.perf_counter() - t0 < 10


def test_bench_plot_into_missing_folder_is_exit_2(tmp_path):
    res = cli("bench", "--cases", "arc_replace", "--plot", tmp_path / "no" / "p.png")
    assert res.exit_code == 2 and "does not exist" in res.output


def test_non_utf8_file_name_in_every_format(tmp_path):
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_text(BAD)
    for fmt in ("text", "github", "json", "sarif", "gitlab", "junit"):
        res = cli("analyze", tmp_path, "--format", fmt, "--no-cache", "--jobs", "1")
        assert res.exit_code == 0 and res.stdout_bytes, (fmt, res.output)
        out = tmp_path / f"o.{fmt}"
        assert cli("analyze", tmp_path, "--format", fmt, "--no-cache", "--jobs", "1", "-o", out).exit_code == 0
        if fmt in ("json", "sarif", "gitlab"):
            json.loads(out.read_text())
        if fmt == "junit":
            ElementTree.fromstring(out.read_bytes())
    assert b"caf\xe9.py" in (tmp_path / "o.text").read_bytes()  # the name as it is on disk
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_sarif_uris_are_percent_encoded_and_repository_relative(tmp_path):
    (tmp_path / ".git").mkdir()
    src = tmp_path / "my src" / "ü#1.py"
    src.parent.mkdir()
    src.write_text(BAD)
    res = cli("analyze", "ü#1.py", "--format", "sarif", "--no-cache", "--jobs", "1", cwd=src.parent)
    loc = json.loads(res.stdout)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc == {"uri": "my%20src/%C3%BC%231.py", "uriBaseId": "%SRCROOT%"}


def test_github_annotation_properties_are_escaped(tmp_path):
    evil = tmp_path / "a,line=1::x.py"
    evil.write_text(BAD)
    res = cli("analyze", evil, "--format", "github", "--no-cache", "--jobs", "1")
    lines = res.stdout.splitlines()
    assert len(lines) == 2 and all(line.count("::") == 2 for line in lines)
    assert "a%2Cline=1%3A%3Ax.py" in lines[0]


def test_text_report_quotes_a_name_with_control_characters_one_finding_a_line(tmp_path):
    (tmp_path / "plain\\x.py").write_text(BAD)
    (tmp_path / 'fake.py:1:1: E999 "x\n\x1b[31mred.py').write_text(BAD)
    res = cli("analyze", tmp_path, "--no-cache", "--jobs", "1")
    lines = res.stdout_bytes.decode().splitlines()
    assert len(lines) == 4 and "\x1b" not in res.stdout_bytes.decode()
    quoted = [line for line in lines if line.startswith('"')]
    assert len(quoted) == 2 and all('fake.py:1:1: E999 \\"x\\n\\x1b[31mred.py":' in q for q in quoted)
    assert sum(line.startswith(f"{tmp_path}/plain\\x.py:") for line in lines) == 2  # no control character: as is


def test_output_through_a_symlink_keeps_the_link(tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    real = tmp_path / "reports" / "r.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    assert cli("analyze", tmp_path / "a.py", "--format", "json", "-o", link, "--no-cache").exit_code == 0
    assert link.is_symlink() and json.loads(real.read_text())["findings"]


def test_output_into_a_fifo_is_written_through(tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(Path(fifo).read_text()))
    reader.start()
    res = cli("analyze", tmp_path / "a.py", "--format", "text", "-o", fifo, "--no-cache")
    reader.join(30)
    assert res.exit_code == 0 and "B006" in got[0] and fifo.exists() and not fifo.is_file()


def test_output_never_overwrites_an_analysed_file(tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    for target in ("a.py", str(tmp_path / "a.py")):
        res = cli("analyze", ".", "-o", target, cwd=tmp_path)
        assert res.exit_code == 2 and "refusing" in res.output
    assert (tmp_path / "a.py").read_text() == BAD


def test_time_budget_is_kept_and_said(tmp_path):
    folder = write_tasks(tmp_path / "t", {f"t{i}": task(i, demos=3, size=8) for i in range(4)})
    (tmp_path / "gpubatch.toml").write_text("[batt]\ntime_budget_s = 1.0\n")
    t0 = time.perf_counter()
    res = cli("run-batt", "--dataset", folder, "--depth", "3", "--no-progress", cwd=tmp_path)
    assert time.perf_counter() - t0 < 12
    assert "tasks stopped early: time budget (batt.time_budget_s = 1 s)" in res.stderr
