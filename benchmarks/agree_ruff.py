"""Agreement of `gpubatch analyze` findings with `ruff check` on the rules both implement, C901 included
(gpubatch under `analyze.complexity = "mccabe"`, both at max complexity 10).

usage: python benchmarks/agree_ruff.py [ROOT] [--ruff EXE] [--json OUT]
       (default ROOT: this Python's stdlib; default EXE: `python -m ruff`)
"""
import argparse
import collections
import json
import shlex
import subprocess
import sys
import sysconfig
from datetime import date

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings

CODES = ("E722", "B006", "B008", "S307", "S102", "E711", "E712", "C901")


def ruff_findings(ruff: list[str], files: list[str]) -> collections.Counter:
    """(path, line, code) of ruff's findings on the codes, with the same C901 threshold."""
    out = subprocess.run([*ruff, "check", "--no-cache", "--isolated", "--output-format", "json", "--select",
                          ",".join(CODES), "--config", "lint.mccabe.max-complexity=10", *files],
                         capture_output=True, text=True)
    return collections.Counter((d["filename"], d["location"]["row"], d["code"]) for d in json.loads(out.stdout)
                               if d["code"] in CODES)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--ruff", default=f"{sys.executable} -m ruff")
    ap.add_argument("--json")
    args = ap.parse_args()
    files = [str(p) for p in discover([args.root])
             if "site-packages" in args.root or "site-packages" not in str(p)]  # the stdlib without add-ons
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(files, ex, Policy(Thresholds(complexity="mccabe"), select=CODES), jobs=2)
    ours = collections.Counter((f.path, f.line, f.code) for f in res.findings if f.code in CODES)
    ruff = shlex.split(args.ruff)
    theirs = ruff_findings(ruff, files)
    version = subprocess.run([*ruff, "--version"], capture_output=True, text=True).stdout.strip()
    rows = {}
    for code in CODES:
        mine = collections.Counter({k: v for k, v in ours.items() if k[2] == code})
        other = collections.Counter({k: v for k, v in theirs.items() if k[2] == code})
        rows[code] = {"ours": sum(mine.values()), "ruff": sum(other.values()),
                      "only_ours": sum((mine - other).values()), "only_ruff": sum((other - mine).values())}
        print(f"{code}: " + ", ".join(f"{k} {v}" for k, v in rows[code].items()))
    for k in sorted(ours - theirs)[:8]:
        print("  only ours", k)
    for k in sorted(theirs - ours)[:8]:
        print("  only ruff", k)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"date": date.today().isoformat(), "root": args.root, "files": len(files), "ruff": version,
                       "python": sys.version.split()[0], "codes": rows,
                       "differences": [list(k) + ["ours"] for k in sorted(ours - theirs)]
                       + [list(k) + ["ruff"] for k in sorted(theirs - ours)]}, fh, indent=1)


if __name__ == "__main__":
    main()
