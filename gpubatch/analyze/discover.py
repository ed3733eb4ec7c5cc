"""File discovery: paths, include/exclude globs, .gitignore (pathspec), ruff-like default excludes.

Files are yielded one at a time as they are found, each real file once; symlinks are never followed out of
the given roots, and a link loop, FIFO or device under a root is skipped, never read.
"""
from __future__ import annotations

import fnmatch
import os
import stat
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
            specs.append((base, _spec(pathspec, lines)))
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


def _spec(pathspec, lines: list[str]):
    """A .gitignore's patterns; a line git would not understand (`!`, a lone backslash, `[z-a]`) is skipped, as
    git skips it, instead of failing the run."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # noqa: BLE001 - pathspec raises several kinds for a bad pattern
        good = []
        for line in lines:
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
                good.append(line)
            except Exception:  # noqa: BLE001
                continue
        return pathspec.GitIgnoreSpec.from_lines(good)


def _matches(rel: str, globs: Iterable[str]) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(name, g) or rel.startswith(g.rstrip("/") + "/")
               for g in globs)


def discover(paths: Iterable[str | os.PathLike], include: Iterable[str] = (), exclude: Iterable[str] = (),
             gitignore: bool = True, default_excludes: bool = True) -> Iterator[Path]:
    """Python files under `paths`, each real file once (a path given twice, overlapping roots, links to one
    file). A file given explicitly is always analysed, even when it is not a regular file (reading it then
    reports E902); under a directory, only regular files are listed (a FIFO or device never blocks the run),
    directory links are not followed and a directory reached twice is walked once."""
    include, exclude = list(include), list(exclude)
    seen_files: set[tuple[int, int]] = set()
    seen_dirs: set[tuple[int, int]] = set()
    for top in paths:
        top = Path(top)
        st = _stat(top)
        if st is None or not stat.S_ISDIR(st.st_mode):
            if st is None or _first(st, seen_files):
                yield top  # missing, a link loop or not regular: reading it reports why
            continue
        root = Path(os.path.realpath(top))
        ignored = _gitignore(root) if gitignore else None
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            here = Path(dirpath)
            dst = _stat(here)
            if dst is None or not _first(dst, seen_dirs):
                dirnames[:] = []
                continue
            keep = []
            for d in sorted(dirnames):
                full = here / d
                rel = full.relative_to(top).as_posix()
                if default_excludes and d in DEFAULT_EXCLUDES or _matches(rel, exclude):
                    continue
                if full.is_symlink() or ignored and ignored(Path(os.path.realpath(full)), True):
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
                if ignored and ignored(Path(os.path.realpath(full)), False):
                    continue
                fst = _stat(full)
                if fst is None or not stat.S_ISREG(fst.st_mode) or not _first(fst, seen_files):
                    continue
                yield full


def _stat(path: Path) -> os.stat_result | None:
    """`os.stat` following links; None for a missing file, a dangling link or a link loop."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _first(st: os.stat_result, seen: set[tuple[int, int]]) -> bool:
    """True the first time this real file or directory (device, inode) is met."""
    key = (st.st_dev, st.st_ino)
    if key in seen:
        return False
    seen.add(key)
    return True


def _inside(path: Path, root: Path) -> bool:
    try:
        Path(os.path.realpath(path)).relative_to(root)
        return True
    except ValueError:
        return False
