"""Agreement of `gpubatch analyze`'s Halstead counts and maintainability index with `radon hal` and `radon mi`
(multi-line strings as comments, radon's default) on a tree, file by file and function by function.

usage: python benchmarks/agree_radon_metrics.py [ROOT] [--json OUT]   (default ROOT: this Python's stdlib)
A file radon cannot read as UTF-8, or takes over 5 s on (its raw-metrics pass never ends on some), is counted
apart.
"""
import argparse
import json
import signal
import sys
import sysconfig
from datetime import date
from pathlib import Path

import radon
from radon.metrics import h_visit, mi_visit

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings


def _radon(path: str):
    """(h_visit, mi) of a file, or None when radon fails or runs over 5 s."""
    def _stop(*_):
        raise TimeoutError

    signal.signal(signal.SIGALRM, _stop)
    signal.alarm(5)
    try:
        code = Path(path).read_text(encoding="utf-8")
        return h_visit(code), mi_visit(code, True)
    except Exception:  # noqa: BLE001 - radon's failure is counted, not ours
        return None
    finally:
        signal.alarm(0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--json")
    args = ap.parse_args()
    files = [p for p in discover([args.root]) if "site-packages" in args.root or "site-packages" not in str(p)]
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(files, ex, Policy(Thresholds()), jobs=2)
    n = {"files": 0, "halstead_equal": 0, "mi_equal": 0, "functions": 0, "functions_equal": 0, "radon_failed": 0}
    differ = []
    for rep in res.files:
        if rep.error:
            continue
        theirs = _radon(rep.path)
        if theirs is None:
            n["radon_failed"] += 1
            continue
        h, mi = theirs
        n["files"] += 1
        ours = rep.metrics["halstead"]
        if (h.total.h1, h.total.h2, h.total.N1, h.total.N2) == tuple(ours[k] for k in ("h1", "h2", "N1", "N2")):
            n["halstead_equal"] += 1
        else:
            differ.append([rep.path, "halstead"])
        if abs(mi - rep.metrics["mi"]) <= 1e-9:
            n["mi_equal"] += 1
        else:
            differ.append([rep.path, "mi", mi, rep.metrics["mi"]])
        functions = {(name, r.h1, r.h2, r.N1, r.N2) for name, r in h.functions}
        for b in rep.blocks:
            if b.kind != "C":
                n["functions"] += 1
                if (b.name, *b.halstead) in functions:
                    n["functions_equal"] += 1
                else:
                    differ.append([rep.path, "function", b.name, b.line])
    print(", ".join(f"{k} {v}" for k, v in n.items()))
    for d in differ[:10]:
        print("  differs:", *d)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"date": date.today().isoformat(), "root": args.root, "radon": radon.__version__,
                       "python": sys.version.split()[0], **n, "differences": differ}, fh, indent=1)


if __name__ == "__main__":
    main()
