"""The floor under a cold `analyze --duplicates` run: jscpd's whole run against CPython's parser alone.

Issue #17 asks for a cold `--duplicates` run over a tree faster than jscpd on the same machine. Every analysis
of `gpubatch analyze` starts from `ast.parse`, so this times, in turn on one machine, (1) `ast.parse` of every
`.py` file of the tree and nothing else, in as many processes as the machine has cores, (2) jscpd over the tree
and (3) the cold `gpubatch analyze --duplicates` run; when (1) alone takes longer than (2), no tool built on
CPython's parser meets the target there.

    python benchmarks/dup_floor.py --tree /tmp/std/python3.11 --repeats 3 --json out/dup_floor.json
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def _parse_all(paths: list[str]) -> int:
    """Parse each file with CPython's parser (what every analysis starts from); the count that parsed."""
    n = 0
    for p in paths:
        try:
            ast.parse(Path(p).read_bytes())
            n += 1
        except (SyntaxError, ValueError, OSError):
            pass
    return n


def parse_floor(tree: str, workers: int) -> tuple[float, int, int]:
    """Seconds to parse every `.py` file under `tree` in `workers` processes, started inside the timing."""
    t = time.perf_counter()
    files = sorted(str(p) for p in Path(tree).rglob("*.py"))
    with ProcessPoolExecutor(workers) as ex:
        parsed = sum(ex.map(_parse_all, [files[i::workers] for i in range(workers)]))
    return time.perf_counter() - t, len(files), parsed


def timed(cmd: list[str]) -> float:
    """Wall seconds of one command, its output thrown away; a failure stops the benchmark."""
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--jscpd", default="jscpd")
    ap.add_argument("--json", required=True)
    args = ap.parse_args()
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {
            "jscpd": [args.jscpd, args.tree, "--format", "python", "--silent", "--reporters", "json", "--output", tmp],
            "gpubatch": [sys.executable, "-m", "gpubatch", "analyze", args.tree, "--duplicates", "--select", "GB301",
                         "--no-cache", "--device", "cpu", "--no-progress", "--format", "json",
                         "-o", str(Path(tmp) / "ours.json")],
        }
        rows: dict[str, list[float]] = {"ast.parse alone": [], **{k: [] for k in runs}}
        files = parsed = 0
        for _ in range(args.repeats):
            s, files, parsed = parse_floor(args.tree, args.workers)
            rows["ast.parse alone"].append(round(s, 2))
            for name, cmd in runs.items():
                rows[name].append(round(timed(cmd), 2))
    doc = {"tree": args.tree, "files": files, "parsed": parsed, "workers": args.workers, "repeats": args.repeats,
           "python": platform.python_version(), "date": time.strftime("%Y-%m-%d"), "seconds": rows,
           "commands": {k: " ".join(v) for k, v in runs.items()}}
    tmp_out = out.with_suffix(".tmp")
    tmp_out.write_text(json.dumps(doc, indent=1) + "\n")
    tmp_out.replace(out)
    for name, secs in rows.items():
        print(f"{name:16s} " + "  ".join(f"{s:6.2f}" for s in secs))


if __name__ == "__main__":
    main()
