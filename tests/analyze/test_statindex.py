"""The stat index: an unchanged file (same size, mtime and inode) is answered from the index without being
read; a changed one is analysed again; a file changed within two seconds of the run is not indexed; a
damaged index is no index and one warning."""
import os
import time

from gpubatch.analyze import tensorize
from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.analyze.statindex import StatIndex
from gpubatch.engine import BatchExecutor, EngineSettings

from .test_analyze import SAMPLE

POLICY = Policy(Thresholds(max_complexity=3))


def _tree(tmp_path, age: float = 60.0):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    for name, text in (("a.py", SAMPLE), ("b.py", "x = 1\n"), ("bad.py", "def (:\n")):
        (src / name).write_text(text)
        os.utime(src / name, (time.time() - age, time.time() - age))
    return src


def _run(src, cache):
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        return run_analyze(discover([src]), ex, POLICY, jobs=1, cache_dir=str(cache))


def _never_read(monkeypatch):
    def fail(*_):
        raise AssertionError("a source file was read")

    monkeypatch.setattr(tensorize, "read_source", fail)
    monkeypatch.setattr("gpubatch.analyze.parse.read_source", fail)


def test_unchanged_files_are_not_read(tmp_path, monkeypatch):
    src, cache = _tree(tmp_path), tmp_path / "cache"
    cold = _run(src, cache)
    with monkeypatch.context() as m:
        _never_read(m)
        warm = _run(src, cache)
    assert [r.findings for r in warm.files] == [r.findings for r in cold.files]
    assert [r.metrics for r in warm.files] == [r.metrics for r in cold.files]
    assert [r.error for r in warm.files] == [r.error for r in cold.files] and warm.files[-1].error  # bad.py
    assert all(r.cached for r in warm.files) and not warm.warnings


def test_errors_the_bytes_do_not_decide_are_not_indexed(tmp_path):
    """A file over this run's size limit is reported, and looked at again next time (the limit may change)."""
    src, cache = _tree(tmp_path), tmp_path / "cache"
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        first = run_analyze(discover([src]), ex, POLICY, jobs=1, max_bytes=20, cache_dir=str(cache))
    assert first.files[0].error.startswith("file larger")
    warm = _run(src, cache)
    assert not warm.files[0].cached and warm.files[0].error is None and warm.files[1].cached


def test_changed_file_is_analysed_again(tmp_path):
    src, cache = _tree(tmp_path), tmp_path / "cache"
    _run(src, cache)
    (src / "b.py").write_text("eval('1')\n")
    os.utime(src / "b.py", (time.time() - 30, time.time() - 30))
    warm = _run(src, cache)
    assert [f.code for f in warm.files[1].findings] == ["S307"] and not warm.files[1].cached


def test_racily_clean_files_are_not_indexed(tmp_path):
    src, cache = _tree(tmp_path, age=0.0), tmp_path / "cache"
    _run(src, cache)
    from gpubatch.analyze.cache import policy_key

    assert len(StatIndex(str(cache), policy_key(POLICY))) == 0


def test_damaged_index_is_no_index_and_one_warning(tmp_path):
    src, cache = _tree(tmp_path), tmp_path / "cache"
    cold = _run(src, cache)
    index = next(cache.rglob("index/*.idx"))
    blob = bytearray(index.read_bytes())
    blob[len(blob) // 2] ^= 0x20
    index.write_bytes(bytes(blob))
    warm = _run(src, cache)
    assert [r.findings for r in warm.files] == [r.findings for r in cold.files]
    assert len(warm.warnings) == 1 and "damaged" in warm.warnings[0]
    assert not _run(src, cache).warnings  # written again, whole


def test_content_changed_under_the_same_mtime_and_size_is_seen(tmp_path):
    """`cp -p`, or an editor that keeps timestamps: the ctime still moves, and it is part of the key."""
    src, cache = _tree(tmp_path), tmp_path / "cache"
    _run(src, cache)
    st = os.stat(src / "b.py")
    (src / "b.py").write_text("x = 2\n")  # same size as "x = 1\n"
    os.utime(src / "b.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    time.sleep(0.01)
    warm = _run(src, cache)
    assert not warm.files[1].cached


def test_a_changed_file_rewrites_only_its_shard(tmp_path):
    src, cache = _tree(tmp_path), tmp_path / "cache"
    for i in range(40):
        (src / f"m{i}.py").write_text(f"x = {i}\n")
        os.utime(src / f"m{i}.py", (time.time() - 60, time.time() - 60))
    _run(src, cache)
    shards = {p: p.stat().st_mtime_ns for p in cache.rglob("index/*.idx")}
    assert len(shards) > 8  # 43 files spread over the shards
    time.sleep(0.01)
    (src / "m7.py").write_text("x = 70\n")
    os.utime(src / "m7.py", (time.time() - 30, time.time() - 30))
    warm = _run(src, cache)
    rewritten = [p for p, t in shards.items() if p.stat().st_mtime_ns != t]
    assert len(rewritten) == 1 and [r.path for r in warm.files if not r.cached] == [str(src / "m7.py")]
    assert all(r.cached for r in _run(src, cache).files)
