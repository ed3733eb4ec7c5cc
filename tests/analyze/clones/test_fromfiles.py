"""Clone features made in chunks by the parser workers equal those the analyze op makes for a whole batch, and
a run whose workers make them finds the same groups as one that parses in its own process."""
from pathlib import Path

import numpy as np

from gpubatch.analyze.batched import Thresholds, concat
from gpubatch.analyze.clones.fromfiles import add_features, files_features
from gpubatch.analyze.clones.search import CloneSettings
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.analyze.parse import parsed
from gpubatch.engine import BatchExecutor, EngineSettings

PACKAGE = Path(__file__).resolve().parents[3] / "gpubatch"


def _same(a, b) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("shape", "exact", "line", "last", "quiet"))


def test_chunked_features_equal_the_whole_batch():
    files = [ft for ft in parsed(discover([PACKAGE / "analyze"]), 0, 4_000_000, None) if ft.error is None]
    assert len(files) > 20
    settings = CloneSettings()
    whole = files_features(files, concat(files)[0], settings)
    for k in range(0, len(files), 7):  # chunks of 7, as a worker's chunk of files
        add_features(files[k:k + 7], settings)
    assert all(_same(ft.features, w) for ft, w in zip(files, whole))


def test_worker_features_give_the_same_groups(tmp_path, monkeypatch):
    body = ("def scaled(items, offset):\n    total, seen = 0, set()\n    for item in items:\n"
            "        if item in seen:\n            continue\n        seen.add(item)\n"
            "        total += item * offset - len(seen)\n    while total > 100:\n        total //= 2\n"
            "    return {'total': total, 'seen': sorted(seen)}\n")
    for n in range(40):  # enough files for the parser pool
        (tmp_path / f"m{n}.py").write_text(f"VALUE = {n}\n\n\n{body}")
    policy = Policy(Thresholds(), duplicates=CloneSettings())

    def groups(jobs):
        with BatchExecutor(EngineSettings(device="cpu")) as ex:
            res = run_analyze(sorted(tmp_path.glob("*.py")), ex, policy, jobs=jobs)
        return [(g.kind, [(Path(m.path).name, m.line, m.end_line) for m in g.members]) for g in res.duplicates]

    from gpubatch.analyze.clones import fromfiles

    made_here = []
    real = fromfiles.files_features
    monkeypatch.setattr(fromfiles, "files_features", lambda files, *a: made_here.append(len(files)) or real(files, *a))
    one = groups(1)
    assert sum(made_here) == 40  # in this process, by the analyze op
    made_here.clear()
    pool = groups(2)
    assert made_here == []  # by the workers
    assert one == pool and len(one) == 1 and len(one[0][1]) == 40
