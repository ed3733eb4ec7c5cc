"""Device time of the connected-component labelling (`gpubatch/arc/labels.py`) on every grid of ARC-AGI-1
training and evaluation, tiled into one large batch, for each of the search's eight labellings; with
`--compare FILE`, the same for the `label` of another copy of that module (an older kernel), and whether
both give the same labels.

usage: python benchmarks/label_kernel.py [--batch 200000] [--repeats 5] [--compare old_labels.py] [--out F.json]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import tempfile
from datetime import date
from pathlib import Path

import numpy as np


def _grids():
    from gpubatch.arc.tasks import load_tasks

    grids = []
    for source in ("arc1-train", "arc1-eval"):
        for t in load_tasks(source)[0]:
            for a, b in t.train:
                grids += [a, b]
            grids += list(t.test_inputs)
    return grids


def _module(path: str):
    """That copy of labels.py as a module beside gpubatch.arc's; its kernel renamed, since compiled kernels
    are memoized by name."""
    with open(path) as f:
        text = f.read().replace("label_grids", "label_grids_compared")
    renamed = Path(tempfile.mkdtemp()) / "labels_compared.py"
    renamed.write_text(text)
    spec = importlib.util.spec_from_file_location("gpubatch.arc._labels_compared", renamed)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _time(cupy, fn, repeats: int) -> float:
    """Best device seconds of `repeats` calls, after one call that compiles the kernel."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return best


def main() -> None:
    import cupy

    from gpubatch.arc import labels
    from gpubatch.arc.grids import GridBatch
    from gpubatch.arc.kernels import background

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--compare", default=None, help="another labels.py whose `label` is timed beside")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    grids = _grids()
    host = GridBatch.from_lists([[list(r) for r in g] for g in grids])
    reps = -(-args.batch // len(host))
    idx = np.tile(np.arange(len(host)), reps)[: args.batch]
    dev = GridBatch(host.data[idx], host.h[idx], host.w[idx]).to(cupy)
    other = _module(args.compare) if args.compare else None
    rows = []
    for conn8 in (False, True):
        for univalued in (True, False):
            for bg in (False, True):
                excl = cupy.full(len(dev), -1, cupy.int32) if bg else background(dev)

                def run(mod, excl=excl, conn8=conn8, univalued=univalued):
                    return mod.label(dev, excl, conn8, univalued)

                row = {"conn": 8 if conn8 else 4, "multi": not univalued, "bg": bg,
                       "seconds": _time(cupy, lambda run=run: run(labels), args.repeats)}
                if other is not None:
                    row["compared_seconds"] = _time(cupy, lambda run=run: run(other), args.repeats)
                    row["same"] = bool((run(labels) == run(other)).all())
                rows.append(row)
                print(json.dumps(row))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    report = {"date": date.today().isoformat(), "commit": commit or None,
              "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
              "grids": len(grids), "batch": len(dev), "repeats": args.repeats, "compare": args.compare,
              "seconds": sum(r["seconds"] for r in rows),
              "compared_seconds": sum(r.get("compared_seconds", 0.0) for r in rows) if other else None,
              "labellings": rows}
    print(json.dumps({k: v for k, v in report.items() if k != "labellings"}))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
