"""Peak memory of cold `gpubatch analyze` runs over the whole process tree (RSS and PSS, as
`analyze_vs_ruff.py` measures it), under several configs given as TOML snippets, in turn on the same tree: which
setting holds how much (issue 16: under 1 GB on a 25k-file tree).

    python benchmarks/analyze_memory.py --tree /usr/lib/python3.12 --copies 44 \
        --set default= --set prefetch1='[gpu.performance]\\nprefetch = 1' --repeats 1 --json out/mem.json
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyze_vs_ruff import bytecode, measure  # noqa: E402
from auto_vs_devices import scratch_tree  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], help="NAME=TOML (\\n for new lines); repeatable")
    ap.add_argument("--jobs", type=int, default=0, help="parser processes (0: analyze's default)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json")
    a = ap.parse_args()
    bytecode()
    with scratch_tree(Path(a.tree), a.copies, "analyze-mem-") as (work, tree, files):  # cold runs: no settling
        rows = []
        for rep in range(a.repeats):
            for spec in a.set or ["default="]:
                name, _, toml = spec.partition("=")
                cfg = work / f"{name}.toml"
                cfg.write_text(toml.replace("\\n", "\n") + "\n")
                cmd = [sys.executable, "-m", "gpubatch", "analyze", str(tree), "--no-cache", "--device", "cpu",
                       "--config", str(cfg), "--no-progress", "-q", "--fail-on", "never"]
                if a.jobs:
                    cmd += ["--jobs", str(a.jobs)]
                row = {"setting": name, "repeat": rep, "files": files, **measure(cmd, work)}
                rows.append(row)
                print(f"{files:>6} files  {name:<12} {row['seconds']:7.2f} s  {row['peak_mb']:7.1f} MB RSS  "
                      f"{row['peak_pss_mb']:7.1f} MB PSS", flush=True)
        if a.json:
            Path(a.json).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
