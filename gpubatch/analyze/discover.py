"""File discovery: paths, include/exclude globs, .gitignore (pathspec), ruff-like default excludes.

Files are yielded one at a time as they are found, each real file once; symlinks are never followed out of
the given roots, and a FIFO or device under a root is skipped, never read. A file link that leads nowhere
(dangling, or a loop) is listed: reading it fails at once and reports why (E902), as ruff does.
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


def _pathspec():
    try:
        import pathspec
    except ImportError:
        return None
    return pathspec


def _read_gitignore(pathspec, folder: str):
    """The folder's .gitignore as a spec, or None."""
    try:
        with open(os.path.join(folder, ".gitignore"), encoding="utf-8", errors="replace") as fh:
            return _spec(pathspec, fh.read().splitlines())
    except OSError:
        return None


def _ignored(specs: list, real: str, is_dir: bool) -> bool:
    """Whether a .gitignore of a folder above `real` (its real path) ignores it."""
    for base, spec in specs:
        rel = real[len(base) + 1:] if real.startswith(base + os.sep) else None
        if rel and spec.match_file(rel.replace(os.sep, "/") + ("/" if is_dir else "")):
            return True
    return False


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
    """`discover_paths` as `Path` objects."""
    return map(Path, discover_paths(paths, include, exclude, gitignore, default_excludes))


def discover_paths(paths: Iterable[str | os.PathLike], include: Iterable[str] = (), exclude: Iterable[str] = (),
                   gitignore: bool = True, default_excludes: bool = True) -> Iterator[str]:
    """Python files under `paths`, each real file once (a path given twice, overlapping roots, links to one
    file). A file given explicitly is always analysed, even when it is not a regular file (reading it then
    reports E902); under a directory, only regular files are listed (a FIFO or device never blocks the run),
    directory links are not followed and a directory reached twice is walked once. Paths as strings (a large
    tree's `Path` objects cost more than the walk's system calls). One walk: excluded and
    ignored folders are pruned before they are listed, and .gitignore files are read as the walk meets them."""
    walk = _Walk(list(include), list(exclude), _pathspec() if gitignore else None, default_excludes)
    for top in paths:
        top = Path(top)
        st = _stat(top)
        if st is None or not stat.S_ISDIR(st.st_mode):
            if st is None or _first(st, walk.seen_files):
                yield str(top)  # missing, a link loop or not regular: reading it reports why
            continue
        walk.root = os.path.realpath(top)
        yield from walk.tree(str(top))


class _Walk:
    """One directory walk's settings and what it has met (real files and folders, by device and inode)."""

    def __init__(self, include: list[str], exclude: list[str], pathspec, default_excludes: bool) -> None:
        self.include, self.exclude, self.pathspec = include, exclude, pathspec
        self.default_excludes = default_excludes
        self.seen_files: set[tuple[int, int]] = set()
        self.seen_dirs: set[tuple[int, int]] = set()
        self.seen_real: set[str] = set()
        self.root = ""

    def tree(self, top: str) -> Iterator[str]:
        """The tree's Python files: a folder's own (sorted), then each subfolder's in order. An explicit stack,
        not nested generators: each file is handed up once, however deep it lies."""
        stack = [(top, "", self.root, [])]
        while stack:
            files, subdirs = self.folder(*stack.pop())
            yield from files
            stack += reversed(subdirs)

    def folder(self, here: str, rel: str, real: str, specs: list) -> tuple[list[str], list[tuple]]:
        """The folder's Python files and its subfolders to walk; `rel` is its path under the root with a trailing
        slash, `real` its real path, `specs` the .gitignore specs above it."""
        dst = _stat(here)
        if dst is None or not _first(dst, self.seen_dirs):
            return [], []
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return [], []
        if self.pathspec is not None and any(e.name == ".gitignore" for e in entries):
            spec = _read_gitignore(self.pathspec, here)
            if spec is not None:
                specs = specs + [(real, spec)]
        here = "" if here == os.curdir else here if here.endswith(os.sep) else here + os.sep  # as `Path` joins
        real = real if real.endswith(os.sep) else real + os.sep
        exclude, include = self.exclude, self.include
        files, subdirs = [], []
        for e in entries:
            name = e.name
            try:
                link = e.is_symlink()
            except OSError:
                continue
            try:
                is_dir = e.is_dir()
            except OSError:  # a link loop: not a folder to walk
                is_dir = False
            if is_dir:
                if self.default_excludes and name in DEFAULT_EXCLUDES or link or exclude and _matches(rel + name,
                                                                                                    exclude):
                    continue
                if specs and _ignored(specs, real + name, True):
                    continue
                subdirs.append((here + name, rel + name + "/", real + name, specs))
                continue
            if not name.endswith((".py", ".pyi")):
                continue
            full = here + name
            broken = link and _stat(full) is None  # dangling, or a loop: nothing to read anywhere
            file_real = os.path.realpath(full) if link and not broken else real + name
            if link and not broken and not _inside(file_real, self.root):
                continue
            if exclude and _matches(rel + name, exclude) or include and not _matches(rel + name, include):
                continue
            if specs and _ignored(specs, file_real, False):
                continue
            if broken:  # reading it fails at once and says why (E902), as ruff reports such links
                files.append(full)
                continue
            if file_real in self.seen_real:  # a link met the file first, or the file a link's target
                continue
            if link or not e.is_file(follow_symlinks=False):
                fst = _stat(full)
                if fst is None or not stat.S_ISREG(fst.st_mode) or not _first(fst, self.seen_files):
                    continue
            elif (dst.st_dev, e.inode()) in self.seen_files:  # a hard link already met (no stat: readdir's inode)
                continue
            else:
                self.seen_files.add((dst.st_dev, e.inode()))
            self.seen_real.add(file_real)
            files.append(full)
        return files, subdirs


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


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)
