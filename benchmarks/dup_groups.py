"""Time the whole clone stage of `analyze --duplicates` (`find_clones`) and its group building (`build_groups`)
on CuPy and on NumPy, over verbatim copies of a tree (the 25k-file run's case: every function has `--copies - 1`
copies, a worst case for the group building), and check that both give the same groups.

usage: python benchmarks/dup_groups.py [ROOT] [--copies 44] [--repeats 3] [--json F.json]

The features come from the analyze job's own batches (`dup_stage.tree_features`); the copies are the same
arrays under other paths. CuPy runs `--repeats` times (the first one compiles its kernels), NumPy once.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sysconfig
import time
from datetime import date
from pathlib import Path

import gpubatch.analyze.clones.search as search
from dup_stage import tree_features
from gpubatch.analyze.clones.search import CloneSettings, find_clones
from gpubatch.engine import numpy_backend


def _timed_groups(spent: dict):
    """`build_groups` with its seconds written to `spent` (patched into the search module)."""
    build = search.build_groups

    def timed(*args, **kw):
        t = time.perf_counter()
        out = build(*args, **kw)
        spent["build_groups_s"] = time.perf_counter() - t
        return out
    return timed


def _digest(groups) -> str:
    return hashlib.sha256(repr([(g.kind, g.similarity, g.members) for g in groups]).encode()).hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--copies", type=int, default=44)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    settings = CloneSettings()
    feats, paths, _ = tree_features(Path(a.root), settings)
    feats = [f for _ in range(a.copies) for f in feats]
    paths = [f"copy{c}/{p}" for c in range(a.copies) for p in paths]
    spent: dict = {}
    search.build_groups = _timed_groups(spent)
    backends = []
    try:
        import cupy

        from gpubatch.engine.backend import cupy_backend

        card = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
        backends += [("cupy", cupy_backend(0))] * a.repeats
    except Exception as exc:  # no GPU here: NumPy alone
        card = f"none ({type(exc).__name__})"
    backends.append(("numpy", numpy_backend()))
    runs = []
    for name, backend in backends:
        t = time.perf_counter()
        groups = find_clones(backend, feats, paths, settings)
        runs.append({"backend": name, "find_clones_s": round(time.perf_counter() - t, 3),
                     "build_groups_s": round(spent["build_groups_s"], 3), "groups": len(groups),
                     "copies": sum(len(g.members) for g in groups), "digest": _digest(groups)})
        print(runs[-1], flush=True)
    out = {"date": date.today().isoformat(), "card": card, "root": a.root, "copies": a.copies,
           "files": len(feats), "nodes": sum(len(f) for f in feats), "runs": runs,
           "same_groups": len({r["digest"] for r in runs}) == 1}
    print("same groups on every run:", out["same_groups"])
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
