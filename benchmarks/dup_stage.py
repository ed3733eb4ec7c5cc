"""Time the clone search of `analyze --duplicates` alone, NumPy against CuPy, on a real tree and on a generated
corpus of copied and mutated copies of it (about `--copies` times its functions).

usage: python benchmarks/dup_stage.py [ROOT] [--copies 16 75] [--out F.json]   (default ROOT: this Python's stdlib)

The features come from the analyze job's own batches (parsed once, NumPy). Each copy of the corpus renames 2%
of the names and constants and drops 1% of the nodes at random (seeded), so it holds verbatim, renamed and
near-miss clones. NumPy runs only on corpora of at most --numpy-max-nodes nodes. Timed: the device search
(windows, joins, runs, verification: `find_segments`, both passes, and the line pass) and the whole stage with groups built on the host; best of 3 after one warm-up, with the device synchronised.
"""
from __future__ import annotations

import argparse
import json
import platform
import sysconfig
import time
from datetime import date
from pathlib import Path

import numpy as np

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.clones.detect import find_segments
from gpubatch.analyze.clones.features import Features
from gpubatch.analyze.clones.lines import line_segments
from gpubatch.analyze.clones.search import CloneSettings, find_clones
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, _analyze_batch, prepare_batch
from gpubatch.analyze.parse import parsed
from gpubatch.engine import numpy_backend


def tree_features(root: Path, settings: CloneSettings) -> tuple[list[Features], list[str], int]:
    files = list(parsed(discover([root]), 0, 4_000_000, None))
    feats, paths, functions = [], [], 0
    for k in range(0, len(files), 256):
        batch = files[k:k + 256]
        for r in _analyze_batch(prepare_batch(batch), numpy_backend(), Policy(Thresholds(), duplicates=settings)):
            if r.features is not None:
                feats.append(r.features)
                paths.append(r.path)
                functions += sum(1 for b in r.blocks if b.kind != "C")
    return feats, paths, functions


def mutated(feats: list[Features], copies: int, seed: int = 0) -> list[Features]:
    rng = np.random.default_rng(seed)
    out = list(feats)
    for c in range(1, copies):
        for f in feats:
            keep = rng.random(len(f)) >= 0.01
            exact = f.exact.copy()
            renamed = rng.random(len(f)) < 0.02
            exact[renamed] ^= np.uint64(c * 0x9E3779B97F4A7C15 & (2**64 - 1))
            out.append(Features(f.shape[keep], exact[keep], f.line[keep], f.last[keep], f.quiet))
    return out


def time_search(backend, feats: list[Features], settings: CloneSettings, repeats: int = 3) -> dict:
    counts = np.asarray([len(f) for f in feats])
    ends = np.cumsum(counts)
    shape, exact, line = (backend.asarray(np.concatenate([getattr(f, k) for f in feats]))
                          for k in ("shape", "exact", "line"))
    fo = backend.asarray(np.repeat(np.arange(len(feats)), counts))
    starts, stops = backend.asarray(ends - counts), backend.asarray(ends)

    def search():
        for key, periodic, width in ((exact, False, settings.min_nodes), (shape, True, settings.min_nodes_renamed)):
            find_segments(backend.xp, key, shape, exact, fo, starts, stops, width, backend.asnumpy, periodic)
        if settings.lines:
            line_segments(backend.xp, exact, line, fo, starts, stops, settings.min_lines, backend.asnumpy)
        backend.synchronize()

    def stage():
        find_clones(backend, feats, [str(i) for i in range(len(feats))], settings)
        backend.synchronize()

    out = {}
    steps = (("search_s", search), ("stage_s", stage)) if repeats > 1 else (("search_s", search),)
    for name, fn in steps:
        fn()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        out[name] = round(min(times), 4)
    if repeats > 1:
        out["groups"] = len(find_clones(backend, feats, [str(i) for i in range(len(feats))], settings))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--copies", type=int, nargs="+", default=[16])
    ap.add_argument("--numpy-max-nodes", type=int, default=20_000_000)
    ap.add_argument("--out")
    args = ap.parse_args()
    settings = CloneSettings()
    feats, paths, functions = tree_features(Path(args.root), settings)
    backends = [("numpy", numpy_backend())]
    try:
        from gpubatch.engine.backend import cupy_backend

        backends.append(("cupy", cupy_backend(0)))
        import cupy

        device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception as exc:  # noqa: BLE001 - no GPU: NumPy only
        device = f"none ({type(exc).__name__})"
    doc = {"date": date.today().isoformat(), "host": platform.node(), "gpu": device, "root": args.root,
           "files": len(feats), "functions": functions, "nodes": int(sum(len(f) for f in feats)), "runs": []}
    corpora = [("tree", feats, 1)] + [(f"x{c} mutated", mutated(feats, c), c) for c in args.copies]
    for corpus, fs, copies in corpora:
        nodes = int(sum(len(f) for f in fs))
        for name, be in backends:
            if name == "numpy" and nodes > args.numpy_max_nodes:
                continue
            row = {"corpus": corpus, "backend": name, "files": len(fs), "functions": functions * copies,
                   "nodes": nodes, **time_search(be, fs, settings, 3 if nodes <= args.numpy_max_nodes else 1)}
            print(json.dumps(row), flush=True)
            doc["runs"].append(row)
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
