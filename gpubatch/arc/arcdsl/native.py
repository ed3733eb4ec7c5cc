"""The per-value primitives compiled by Cython, loaded in place of their pure modules (`batt.compiled`).

The battery's lines run arc-dsl's primitives per value on the host, where most of the time is the
interpreter's own dispatch. The same source compiled by Cython makes the same calls in the same order on the
same Python objects (frozensets iterate by the same hashes), only without that dispatch. It is built once per
(sources, Python, Cython) into a checksummed cache folder and put first on this package's path, and the
environment tells the worker processes where it is; the pure modules stay the reference and the fallback.
`prims_func` stays pure: its closures are read back by `values.closure` and its arity by `co_argcount`.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import COMPILED_ENV as ENV  # the folder, for worker processes (read by the package's __init__)

PACKAGE = __name__.rsplit(".", 1)[0]
MODULES = ("prims_base", "prims_grid", "prims_objects", "prims_patch", "shifts", "groups", "setorder", "rects",
           "nearest", "lines", "maps", "interp")


@dataclass(frozen=True)
class Compiled:
    """Whether the compiled primitives are in use, why not where they are not, and whether this call built
    them (the cache lacked them) in how many seconds."""

    used: bool
    reason: str
    folder: str = ""
    built: bool = False
    build_s: float = 0.0


def _sources() -> dict[str, Path]:
    here = Path(__file__).parent
    return {f"{PACKAGE}.{m}": here / f"{m}.py" for m in MODULES}


def cache_key(sources: dict[str, Path], cython_version: str) -> str:
    """The sources' bytes, this Python's build and Cython's version, hashed: a change to any rebuilds."""
    h = hashlib.sha256(f"{sys.version}|{sys.implementation.cache_tag}|{cython_version}".encode())
    for name, path in sorted(sources.items()):
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:20]


def default_dir() -> Path:
    """`$XDG_CACHE_HOME/gpubatch/arcdsl` (~/.cache where unset), beside CuPy's kernel cache in spirit."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "gpubatch" / "arcdsl"


def _is_pure(module) -> bool:
    """Whether `module` (None where not imported: False) was loaded from its .py source."""
    return str(getattr(module, "__file__", "")).endswith(".py")


def _already_pure() -> list[str]:
    return [m for m in MODULES if _is_pure(sys.modules.get(f"{PACKAGE}.{m}"))]


def prepare(mode: str, cache_dir: str = "", jobs: int = 0, announce: Callable[[Path], None] | None = None
            ) -> Compiled:
    """Make the compiled primitives the ones imported from now on (this process and the workers it starts),
    building them where the cache lacks them (`announce(folder)` first); `mode` off: never; auto: where Cython
    and a C compiler are present, else the pure modules with the reason; on: the same, but a missing toolchain
    raises BuildError."""
    from ...engine.cythonize import BuildError, build, load_manifest, toolchain

    if mode == "off":
        return Compiled(False, "batt.compiled = off")
    try:
        version, _ = toolchain()
    except BuildError as exc:
        if mode == "on":
            raise
        return Compiled(False, str(exc))
    pure = _already_pure()
    if pure:
        return Compiled(False, f"the pure modules are already imported ({', '.join(pure)})")
    sources = _sources()
    folder = Path(cache_dir or default_dir()) / cache_key(sources, version)
    t0, warned, built = time.perf_counter(), "", False
    if load_manifest(folder) is None:
        if folder.exists():  # a bad cache is no cache: built again beside it, then swapped in
            warned = f"the compiled primitives' cache {folder} failed its checksums and was rebuilt"
            shutil.rmtree(folder, ignore_errors=True)
        if announce is not None:
            announce(folder)
        try:
            build(sources, folder, jobs)
        except (BuildError, OSError) as exc:
            if mode == "on":
                raise BuildError(str(exc)) from None
            return Compiled(False, f"building them failed: {exc}")
        built = True
    package = sys.modules[PACKAGE]
    if str(folder) not in package.__path__:
        package.__path__.insert(0, str(folder))
    os.environ[ENV] = str(folder)
    return Compiled(True, warned, str(folder), built, round(time.perf_counter() - t0, 3) if built else 0.0)


def in_use() -> bool:
    """Whether the primitives this process imported are the compiled ones."""
    mod = sys.modules.get(f"{PACKAGE}.prims_patch")
    return mod is not None and not _is_pure(mod)
