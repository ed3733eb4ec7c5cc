"""`gpubatch analyze --device cuda` with CuPy's kernel cache empty, as on a GPU runner lent fresh, then again on
the cache it left: whole-command seconds, the per-op seconds and run phases from `--stats-json`, and how many
modules each run compiled (CuPy's cache files). Each setup gets its own empty cache folder.

usage: python benchmarks/cold_analyze.py TREE [TREE...] [--extra=--duplicates] [--out F.json]

A TREE may be made with `benchmarks/auto_vs_devices.py`'s `make_tree` (copies of a standard library).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(tree: str, cache: Path, extra: list[str], stats: Path) -> dict:
    """One command; its seconds, exit status, the cache's module count after it and what its stats say."""
    cmd = [sys.executable, "-m", "gpubatch", "analyze", tree, *extra, "--no-cache", "--device", "cuda",
           "--format", "text", "-o", os.devnull, "--no-progress", "--stats-json", str(stats)]
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, env={**os.environ, "CUPY_CACHE_DIR": str(cache)}, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, check=False).returncode
    seconds = time.perf_counter() - t0
    doc = json.loads(stats.read_text()) if stats.exists() else {}
    return {"rc": rc, "seconds": round(seconds, 2), "modules": sum(1 for _ in cache.glob("*.cubin")),
            "ops": {o["op"]: round(o["seconds"], 2) for o in doc.get("ops", [])},
            "phases": {p["phase"]: p["at_s"] for p in doc.get("phases", [])}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--extra", action="append", default=[], help="more analyze options (--extra=--duplicates)")
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="cold-analyze-") as tmp:
        for k, tree in enumerate(args.trees):
            cache = Path(tmp) / f"cache{k}"
            cache.mkdir()
            for state in ("cold", "warm"):
                row = {"tree": tree, "extra": args.extra, "cache": state,
                       **run(tree, cache, args.extra, Path(tmp) / f"st{k}{state}.json")}
                print(json.dumps(row), flush=True)
                rows.append(row)
    if args.out:
        Path(args.out).write_text(json.dumps({"argv": sys.argv[1:], "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
