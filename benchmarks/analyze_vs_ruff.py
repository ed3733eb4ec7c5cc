"""`gpubatch analyze` against `ruff check` with the same codes, cold and warm, side by side in one run, with
the peak memory of each command's whole process tree; on trees of several sizes (copies of a tree, each file
made unique) to see how time grows.

    python benchmarks/analyze_vs_ruff.py --tree /usr/lib/python3.12 --copies 11,44 --ruff ruff \
        --devices cpu,auto --repeats 2 --json out/vs_ruff.json

Targets (issue 16): cold at most 3x ruff's cold time, warm at most 1.5x (2 cores) or 2x (16 cores) ruff's warm
time, peak memory under 1 GB, `--device auto` never slower than `--device cpu`, 4x the files in at most 4.4x
the time.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from auto_vs_devices import make_tree  # noqa: E402

CODES = "E722,B006,B008,S307,S102,E711,E712,C901"
PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree_memory(root: int) -> tuple[int, int]:
    """Bytes resident in the process `root` and all its descendants (Linux /proc; a worker pool's processes
    put themselves in groups of their own, so the process group would miss them): the sum of their RSS, which
    counts a page shared by forked workers (and shared libraries) once per process, and the sum of their PSS,
    which splits each shared page between its sharers (0 where smaps_rollup is missing)."""
    parent: dict[int, int] = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    parent[int(pid)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    tree, grew = {root}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in tree and p not in tree}
        tree |= more
        grew = bool(more)
    rss = pss = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/statm") as fh:
                rss += int(fh.read().split()[1]) * PAGE
            with open(f"/proc/{pid}/smaps_rollup") as fh:
                pss += next((int(ln.split()[1]) * 1024 for ln in fh if ln.startswith("Pss:")), 0)
        except (OSError, ValueError, IndexError):
            continue
    return rss, pss


def measure(cmd: list[str], cwd: Path) -> dict:
    """Wall time and peak resident memory of the command's process group (sampled every 20 ms)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    peak = peak_pss = 0
    while proc.poll() is None:
        rss, pss = _tree_memory(proc.pid)
        peak, peak_pss = max(peak, rss), max(peak_pss, pss)
        time.sleep(0.02)
    seconds = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    out = {"seconds": round(seconds, 3), "peak_mb": round(peak / 2**20, 1), "peak_pss_mb": round(peak_pss / 2**20, 1),
           "exit": proc.returncode}
    if proc.returncode not in (0, 1):
        out["stderr"] = err[-1500:]
    return out


PARSE_ONLY = """
import ast, os, sys
from concurrent.futures import ProcessPoolExecutor

def parse(path):
    with open(path, "rb") as fh:
        try:
            ast.parse(fh.read())
        except (SyntaxError, ValueError):
            pass

files = [os.path.join(d, f) for d, _, names in os.walk(sys.argv[1]) for f in names if f.endswith(".py")]
with ProcessPoolExecutor(os.cpu_count()) as pool:
    list(pool.map(parse, files, chunksize=64))
"""


def floors(tree: Path, cwd: Path, repeats: int) -> list[dict]:
    """What no run of an `ast`-based tool goes below: CPython's parser alone over the tree in a pool of every
    core, and the CLI's own start (`gpubatch --version`)."""
    return [{"tool": "ast.parse only", "phase": "cold", **best([sys.executable, "-c", PARSE_ONLY, str(tree)], cwd,
                                                                repeats)},
            {"tool": "gpubatch --version", "phase": "start", **best([sys.executable, "-m", "gpubatch", "--version"],
                                                                    cwd, repeats)}]


def pairs(ruff_cmd: list[str], ours: list[str], cwd: Path, n: int) -> dict:
    """Warm runs of ruff and of gpubatch alternated `n` times (both caches already warm): on a loaded machine
    the median of the pairs says more than each tool's best."""
    ruff_s, ours_s = [], []
    for _ in range(n):
        ruff_s.append(measure(ruff_cmd, cwd)["seconds"])
        ours_s.append(measure(ours, cwd)["seconds"])
    ratios = sorted(o / r for o, r in zip(ours_s, ruff_s))
    return {"ruff_seconds": ruff_s, "ours_seconds": ours_s, "median_ratio": round(ratios[len(ratios) // 2], 3)}


def best(cmd: list[str], cwd: Path, repeats: int) -> dict:
    runs = [measure(cmd, cwd) for _ in range(repeats)]
    top = min(runs, key=lambda r: r["seconds"])
    return {**top, "all_seconds": [r["seconds"] for r in runs]}


def bytecode() -> int:
    """Compile the package's modules to bytecode first, as installing it does: a checkout run with
    PYTHONDONTWRITEBYTECODE set (or from a read-only tree) would otherwise compile every module it imports on every
    run (0.14 s of each warm run on CPU2). Returns compileall's exit status."""
    import importlib.util

    package = Path(importlib.util.find_spec("gpubatch").origin).parent
    return subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=False).returncode


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tree", default=str(Path(os.__file__).parent))
    ap.add_argument("--copies", default="1")
    ap.add_argument("--ruff", default="ruff")
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--floor", action="store_true", help="also time ast.parse alone and the CLI's start")
    ap.add_argument("--pairs", type=int, default=0, help="also alternate N warm runs of ruff and gpubatch")
    args = ap.parse_args()
    ruff = shlex.split(args.ruff)
    if bytecode():
        print("warning: could not compile the package to bytecode; warm runs include compiling it", flush=True)
    rows: list[dict] = []
    work = Path(tempfile.mkdtemp(prefix="vs-ruff-"))
    try:
        for copies in (int(c) for c in args.copies.split(",")):
            tree = work / f"tree{copies}"
            files = make_tree(Path(args.tree), copies, tree)
            time.sleep(2.5)  # no file of the tree is "racily clean" for the warm runs
            base = {"copies": copies, "files": files}
            ruff_cmd = [*ruff, "check", "--isolated", "--select", CODES, "--exit-zero", "-q", str(tree)]
            cache = work / f"ruff-cache{copies}"
            rows.append({**base, "tool": "ruff", "phase": "cold",
                         **best([*ruff_cmd, "--no-cache"], work, args.repeats)})
            measure([*ruff_cmd, "--cache-dir", str(cache)], work)
            rows.append({**base, "tool": "ruff", "phase": "warm",
                         **best([*ruff_cmd, "--cache-dir", str(cache)], work, args.repeats)})
            for device in args.devices.split(","):
                cfg = work / f"cfg{copies}{device}.toml"
                cfg.write_text(f'[analyze]\ncache_dir = "{work / f"gb-cache{copies}{device}"}"\n'
                               f'select = {json.dumps(CODES.split(","))}\ncomplexity = "mccabe"\n')
                ours = [sys.executable, "-m", "gpubatch", "analyze", str(tree), "--device", device, "--config",
                        str(cfg), "--no-progress", "-q", "--fail-on", "never"]
                rows.append({**base, "tool": f"gpubatch {device}", "phase": "cold",
                             **best([*ours, "--no-cache"], work, args.repeats)})
                measure(ours, work)
                rows.append({**base, "tool": f"gpubatch {device}", "phase": "warm", **best(ours, work, args.repeats)})
                if args.pairs:
                    rows[-1]["pairs"] = pairs([*ruff_cmd, "--cache-dir", str(cache)], ours, work, args.pairs)
                    print(f"{files:>6} files  {device} warm / ruff warm, median of {args.pairs} interleaved pairs: "
                          f"{rows[-1]['pairs']['median_ratio']:.2f}x", flush=True)
            if args.floor:
                rows += [{**base, **r} for r in floors(tree, work, args.repeats)]
            shown = 2 + 2 * len(args.devices.split(",")) + 2 * args.floor
            for r in rows[-shown:]:
                print(f"{r['files']:>6} files  {r['tool']:<15} {r['phase']:<5} {r['seconds']:8.2f} s "
                      f"{r['peak_mb']:8.1f} MB (PSS {r['peak_pss_mb']:.1f} MB)", flush=True)
            shutil.rmtree(tree, ignore_errors=True)
            save(args.json, ruff, rows)  # after each size: a run cut short keeps what it measured
    finally:
        shutil.rmtree(work, ignore_errors=True)


def save(path: str | None, ruff: list[str], rows: list[dict]) -> None:
    if not path:
        return
    version = subprocess.run([*ruff, "--version"], capture_output=True, text=True).stdout.strip()
    doc = {"date": date.today().isoformat(), "host": platform.node(), "cpus": os.cpu_count(),
           "python": sys.version.split()[0], "ruff": version, "bytecode": "compiled before the runs", "codes": CODES, "rows": rows}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
