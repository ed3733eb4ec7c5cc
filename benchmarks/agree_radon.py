"""Agreement of `gpubatch analyze` complexity with `radon cc` on a tree (default: this Python's stdlib).

usage: python benchmarks/agree_radon.py [ROOT]   (needs radon installed)
"""
import collections
import sys
import sysconfig
from pathlib import Path

from radon.complexity import cc_visit

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings


def main(root: str) -> None:
    files = [p for p in discover([root], default_excludes=True) if "site-packages" not in str(p)]
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(files, ex, Policy(Thresholds()), jobs=2)
    ours = {}
    for rep in res.files:
        for b in rep.blocks:
            ours[(rep.path, b.name, b.line, b.kind)] = b.complexity
    theirs, failed = {}, 0
    for path in files:
        try:
            blocks = cc_visit(Path(path).read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 - radon cannot read some files we report as E999/E902
            failed += 1
            continue
        for b in blocks:
            kind = "C" if b.letter == "C" else ("M" if b.is_method else "F")
            theirs[(str(path), b.name, b.lineno, kind)] = b.complexity
    common = set(ours) & set(theirs)
    same = sum(ours[k] == theirs[k] for k in common)
    print(f"files {len(files)}, radon failed on {failed}; blocks: ours {len(ours)}, radon {len(theirs)}, "
          f"common {len(common)}; equal complexity {same}/{len(common)} = {100 * same / max(1, len(common)):.2f}%")
    diffs = collections.Counter(k[3] for k in common if ours[k] != theirs[k])
    print("differences by block kind:", dict(diffs))
    for k in sorted(k for k in common if ours[k] != theirs[k])[:15]:
        print("  ", k, "ours", ours[k], "radon", theirs[k])
    only = collections.Counter(k[3] for k in set(theirs) - set(ours))
    print("blocks only radon lists:", dict(only), "only we list:", dict(collections.Counter(k[3] for k in set(ours) - set(theirs))))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else sysconfig.get_paths()["stdlib"])
