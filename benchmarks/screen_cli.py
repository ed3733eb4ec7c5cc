"""The command line that the copy screens share (`piece_starts.py`, `dihedral_copies.py`): `make SOURCE DIR`
writes the copies of the unsolved tasks as a dataset, `score DIR RESULTS` reads run-batt's results on them."""
from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def main(doc: str, make: Callable[[str, Path, str], None], score: Callable[[Path, str], None]) -> None:
    """Parse `make`/`score` and their two arguments (and `--dataset`), then call the one asked for."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("what", choices=("make", "score"))
    ap.add_argument("args", nargs=2)
    ap.add_argument("--dataset", default="arc1-train")
    a = ap.parse_args()
    if a.what == "make":
        make(a.args[0], Path(a.args[1]), a.dataset)
    else:
        score(Path(a.args[0]), a.args[1])
