"""File discovery: paths, include/exclude globs, .gitignore (pathspec), ruff-like default excludes.

Files are yielded one at a time as they are found; symlinks are never followed out of the given roots.
"""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Iterable, Iterator

DEFAULT_EXCLUDES = (".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache",
                    ".pytest_cache", "__pycache__", "build", "dist", "node_modules", "site-packages",
                    ".gpubatch_cache", "__pypackages__", ".eggs")


def _gitignore(root: Path):
    """A matcher for the .gitignore files from `root` down (None when pathspec or the files are missing)."""
    try:
        import pathspec
    except ImportError:
        return None
    specs = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in DEFAULT_EXCLUDES]
        if ".gitignore" in filenames:
            base = Path(dirpath)
            try:
                lines = (base / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            specs.append((base, pathspec.GitIgnoreSpec.from_lines(lines)))
    if not specs:
        return None

    def ignored(path: Path, is_dir: bool) -> bool:
        for base, spec in specs:
            try:
                rel = path.relative_to(base).as_posix()
            except ValueError:
                continue
            if spec.match_file(rel + ("/" if is_dir else "")):
                return True
        return False
    return ignored


def _matches(rel: str, globs: Iterable[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) or rel.startswith(g.rstrip("/") + "/")
               for g in globs)


def discover(paths: Iterable[str | os.PathLike], include: Iterable[str] = (), exclude: Iterable[str] = (),
             gitignore: bool = True, default_excludes: bool = True) -> Iterator[Path]:
    """Python files under `paths` (a file given explicitly is always analysed)."""
    include, exclude = list(include), list(exclude)
    for top in paths:
        top = Path(top)
        if top.is_file():
            yield top
            continue
        if not top.is_dir():
            continue
        root = top.resolve()
        ignored = _gitignore(root) if gitignore else None
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            here = Path(dirpath)
            keep = []
            for d in sorted(dirnames):
                full = here / d
                rel = full.relative_to(top).as_posix()
                if default_excludes and d in DEFAULT_EXCLUDES or _matches(rel, exclude):
                    continue
                if full.is_symlink() or ignored and ignored(full.resolve(), True):
                    continue
                keep.append(d)
            dirnames[:] = keep
            for f in sorted(filenames):
                if not f.endswith((".py", ".pyi")):
                    continue
                full = here / f
                rel = full.relative_to(top).as_posix()
                if full.is_symlink() and not _inside(full, root):
                    continue
                if _matches(rel, exclude) or include and not _matches(rel, include):
                    continue
                if ignored and ignored(full.resolve(), False):
                    continue
                yield full


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
        return True
    except ValueError:
        return False
