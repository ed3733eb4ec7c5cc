"""The collector pause: off inside, restored after (errors and nesting included), what a kept block made frozen;
analyze's parent runs under it, and a real tree leaves no cyclic garbage behind."""
import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpubatch.analyze import job
from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings
from gpubatch.engine.gcpause import gc_paused

PACKAGE = Path(__file__).resolve().parents[2] / "gpubatch"


def test_gc_paused_restores_the_collector():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still holds it
    assert gc.isenabled()
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # left off by whoever turned it off
    finally:
        gc.enable()


def test_keep_freezes_what_the_block_made():
    with gc_paused(keep=True):
        made = [[i] for i in range(1000)]
    try:
        assert gc.isenabled() and gc.get_freeze_count() >= len(made)
        young = {id(o) for gen in range(3) for o in gc.get_objects(gen)}
        assert not any(id(x) in young for x in made)
    finally:
        gc.unfreeze()


_NO_CYCLES = """
import gc, sys
from pathlib import Path
from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.clones.search import CloneSettings
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings

if __name__ == "__main__":
    files = list(discover([Path(sys.argv[1])]))
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        gc.collect()
        gc.disable()
        result = run_analyze(files, ex, Policy(Thresholds(), duplicates=CloneSettings()), jobs=2)
        gc.set_debug(gc.DEBUG_SAVEALL)
        left = gc.collect()
    print(len(files), len(result.files), sum(bool(r.error) for r in result.files), len(result.duplicates), left,
          sorted({type(o).__name__ for o in gc.garbage}))
"""


def test_analyze_runs_with_the_collector_paused(monkeypatch):
    seen = []
    real = job._analyze_batch

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(job, "_analyze_batch", spy)
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        result = run_analyze(list(discover([PACKAGE / "engine"])), ex, Policy(Thresholds()), jobs=2)
    assert result.files and seen and not any(seen)
    assert gc.isenabled()


def test_analyze_leaves_no_cyclic_garbage(tmp_path):
    """Why the pause is safe: a real tree (this package) through the parser pool, with duplicate code searched
    for, makes nothing that only the collector could free. In a fresh interpreter, so that no other test's
    threads leave garbage meanwhile."""
    script = tmp_path / "no_cycles.py"
    script.write_text(_NO_CYCLES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, str(script), str(PACKAGE)], capture_output=True, text=True, env=env,
                         timeout=300, check=True).stdout.split(maxsplit=5)
    files, results, errors, groups, left = map(int, out[:5])
    assert files == results > 100 and errors == 0 and groups > 0
    assert left == 0, out[5]
