"""Regressions: tree walking (link loops, FIFOs, paths given twice) and cache integrity (damage, path-dependent
policy, unusable cache directories). Each failed on main before the reliability work."""
import json
import os
import signal
import time
from pathlib import Path

import pytest

from .helpers import cli

BAD = "def f(x=[]):\n    try:\n        pass\n    except:\n        pass\n    return x == None\n"


def _findings(result) -> list:
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["findings"]


def test_file_links_to_nowhere_are_reported_and_directory_loops_skipped(tmp_path):
    """A file link in a loop or dangling is an E902 finding with the reason, as ruff reports it (nothing is read
    through it); a directory loop is not walked."""
    (tmp_path / "ok.py").write_text(BAD)
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path)  # a directory loop
    (tmp_path / "sub" / "self").symlink_to(tmp_path / "sub" / "self")  # a link to itself, not a .py name
    for jobs in ("1", "2"):
        res = cli("analyze", tmp_path, "--format", "json", "--no-cache", "--jobs", jobs)
        unreadable = {f["path"]: f["message"] for f in _findings(res) if f["code"] == "E902"}
        assert res.exit_code == 1
        assert {f["path"] for f in _findings(res)} == {str(tmp_path / n) for n in ("ok.py", "a.py", "b.py", "gone.py")}
        assert unreadable[str(tmp_path / "a.py")].endswith("Too many levels of symbolic links")
        assert unreadable[str(tmp_path / "gone.py")].endswith("No such file or directory")
        assert str(tmp_path / "ok.py") not in unreadable


@pytest.fixture
def deadline():
    """Fail (instead of hanging CI) when the test body blocks for 60 s."""
    def expire(signum, frame):
        raise TimeoutError("blocked for 60 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_fifo_in_tree_is_skipped_and_given_fifo_is_reported(tmp_path, deadline):
    (tmp_path / "ok.py").write_text(BAD)
    os.mkfifo(tmp_path / "pipe.py")
    res = cli("analyze", tmp_path, "--format", "json", "--no-cache", "--jobs", "1")
    assert {f["path"] for f in _findings(res)} == {str(tmp_path / "ok.py")}
    res = cli("analyze", tmp_path / "pipe.py", "--format", "text", "--no-cache", "--jobs", "1")
    assert res.exit_code == 1 and "E902" in res.stdout and "not a regular file" in res.stdout


def test_same_file_given_twice_reports_once(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(BAD)
    once = _findings(cli("analyze", tmp_path, "--format", "json", "--no-cache", "--jobs", "1"))
    twice = _findings(cli("analyze", tmp_path, tmp_path, tmp_path / "pkg", tmp_path / "pkg" / "a.py",
                          "--format", "json", "--no-cache", "--jobs", "1"))
    assert len(once) == 3 and twice == once


def _entries(cache: Path, suffix: str) -> list[Path]:
    return sorted(p for p in cache.rglob(f"*{suffix}") if p.is_file())


@pytest.mark.parametrize("byte", [100, -40, -1])
def test_flipped_bit_in_cache_is_a_miss_with_one_warning(tmp_path, byte):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(BAD)
    cache = tmp_path / "cache"
    env = ["--format", "json", "--jobs", "1"]
    (tmp_path / "gpubatch.toml").write_text(f'[analyze]\ncache_dir = "{cache}"\ncache_content = true\n')
    os.utime(src / "a.py", (time.time() - 60, time.time() - 60))  # old enough for the stat index too
    clean = _findings(cli("analyze", src, *env, cwd=tmp_path))
    assert _entries(cache, ".idx") and _entries(cache, ".bin") and _entries(cache, ".json")
    for suffix in (".bin", ".json", ".idx"):
        for entry in _entries(cache, suffix):
            blob = bytearray(entry.read_bytes())
            blob[byte] ^= 0x10
            entry.write_bytes(bytes(blob))
    res = cli("analyze", src, *env, cwd=tmp_path)
    assert _findings(res) == clean
    assert res.stderr.count("damaged cache entries") == 1
    assert _findings(cli("analyze", src, *env, cwd=tmp_path)) == clean  # rebuilt


def test_result_cache_respects_per_file_ignores(tmp_path):
    for name in ("keep.py", "quiet.py"):
        (tmp_path / name).write_text(BAD)
        os.utime(tmp_path / name, (time.time() - 60, time.time() - 60))  # indexed by stat too
    (tmp_path / "gpubatch.toml").write_text('[analyze]\ncache_content = true\n'
                                            '[analyze.per_file_ignores]\n"*quiet.py" = ["E7", "B006"]\n')
    args = ["analyze", ".", "--format", "json", "--jobs", "1"]
    cold = cli(*args, cwd=tmp_path)
    warm = cli(*args, cwd=tmp_path)
    assert _findings(warm) == _findings(cold) and len(_findings(cold)) == 3
    assert {f["path"] for f in _findings(warm)} == {"keep.py"}
    (tmp_path / "gpubatch.toml").write_text('[analyze]\ncache_content = true\n'
                                            '[analyze.per_file_ignores]\n"*keep.py" = ["E7", "B006"]\n')
    assert {f["path"] for f in _findings(cli(*args, cwd=tmp_path))} == {"quiet.py"}


def test_cache_dir_blocked_by_a_file_means_no_cache(tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "blocker").write_text("not a folder")
    (tmp_path / "gpubatch.toml").write_text('[analyze]\ncache_dir = "blocker/cache"\n')
    res = cli("analyze", "a.py", "--format", "json", "--jobs", "1", cwd=tmp_path)
    assert len(_findings(res)) == 3 and res.stderr.count("cache disabled") == 1


def test_bad_entry_that_cannot_be_removed_is_ignored(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "gpubatch.toml").write_text('[analyze]\ncache_content = true\n')
    args = ["analyze", "a.py", "--format", "json", "--jobs", "1"]
    clean = _findings(cli(*args, cwd=tmp_path))
    for entry in _entries(tmp_path / ".gpubatch_cache", ".json") + _entries(tmp_path / ".gpubatch_cache", ".bin"):
        entry.write_bytes(b"junk")

    def refuse(self, missing_ok=False):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "unlink", refuse)
    res = cli(*args, cwd=tmp_path)
    assert res.exit_code == 0 and _findings(res) == clean  # warnings only: exit 0, as a clean run


def test_cache_is_ignored_by_git(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    assert cli("analyze", "a.py", "--jobs", "1", cwd=tmp_path).exit_code == 0
    assert (tmp_path / ".gpubatch_cache" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_gitignore_lines_git_would_skip_do_not_fail_the_run(tmp_path):
    (tmp_path / ".gitignore").write_text("!\n\\\n[z-a]\ngen/\n")
    for rel in ("a.py", "gen/b.py"):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(BAD)
    res = cli("analyze", ".", "--format", "json", "--no-cache", "--jobs", "1", cwd=tmp_path)
    assert {f["path"] for f in _findings(res)} == {"a.py"}  # the good pattern still applies


def test_cache_marker_never_hides_a_folder_of_other_files(tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    for cache_dir in (".", "", "src"):
        (tmp_path / "gpubatch.toml").write_text(f'[analyze]\ncache_dir = "{cache_dir}"\n')
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / "keep.txt").write_text("x")
        res = cli("analyze", "a.py", "--format", "json", "--jobs", "1", cwd=tmp_path)
        assert len(_findings(res)) == 3
        assert not (tmp_path / ".gitignore").exists() and not (tmp_path / "src" / ".gitignore").exists()
