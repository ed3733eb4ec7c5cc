"""arc-dsl itself, read from ../shared/arc/arc-dsl (never copied into the project): the oracle of the arc-dsl
battery tests. `oracle()` is None where the shared folder is absent; tests then skip with the reason."""
from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path

ORACLE_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "arc" / "arc-dsl"
SOLVERS_FILE = ORACLE_DIR / "solvers.py"
MISSING = f"the arc-dsl oracle is not at {ORACLE_DIR}"


@lru_cache(maxsize=None)
def oracle():
    """(dsl module, solvers module) of arc-dsl, imported from the shared folder, or None."""
    if not SOLVERS_FILE.is_file():
        return None
    saved = {name: sys.modules.pop(name) for name in ("dsl", "constants", "arc_types") if name in sys.modules}
    sys.path.insert(0, str(ORACLE_DIR))
    try:
        spec = importlib.util.spec_from_file_location("arcdsl_oracle_solvers", SOLVERS_FILE)
        solvers = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(solvers)
        dsl = sys.modules["dsl"]
    finally:
        sys.path.remove(str(ORACLE_DIR))
        for name in ("dsl", "constants", "arc_types"):
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return dsl, solvers


def run_oracle(fn, *args):
    """The oracle's value, or the exception it raised (as a value)."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - the oracle raising is an outcome (RecursionError included)
        return exc
