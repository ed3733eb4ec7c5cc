"""Agreement of `gpubatch analyze` findings with `ruff check` on the rules both implement.

usage: python benchmarks/agree_ruff.py [ROOT]   (default: this Python's stdlib; needs ruff installed)
"""
import collections
import json
import subprocess
import sys
import sysconfig

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings

CODES = ("E722", "B006", "B008", "S307", "S102", "E711", "E712")


def main(root: str) -> None:
    files = [str(p) for p in discover([root]) if "site-packages" not in str(p)]
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(files, ex, Policy(Thresholds(), select=CODES), jobs=2)
    ours = collections.Counter((f.path, f.line, f.code) for f in res.findings if f.code in CODES)
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "--output-format",
                          "json", "--select", ",".join(CODES), *files], capture_output=True, text=True)
    theirs = collections.Counter((d["filename"], d["location"]["row"], d["code"]) for d in json.loads(out.stdout)
                                 if d["code"] in CODES)
    for code in CODES:
        o = sum(v for k, v in ours.items() if k[2] == code)
        t = sum(v for k, v in theirs.items() if k[2] == code)
        only_o = sum(((ours - theirs) & collections.Counter({k: v for k, v in ours.items() if k[2] == code})).values())
        only_t = sum(((theirs - ours) & collections.Counter({k: v for k, v in theirs.items() if k[2] == code})).values())
        print(f"{code}: ours {o}, ruff {t}, only ours {only_o}, only ruff {only_t}")
    for k in list((ours - theirs))[:8]:
        print("  only ours", k)
    for k in list((theirs - ours))[:8]:
        print("  only ruff", k)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else sysconfig.get_paths()["stdlib"])
