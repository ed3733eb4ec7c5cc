"""`analyze --diff REF`: the files changed against a git ref (committed since it, staged or not) and the
untracked ones git does not ignore, through git's own command line, as absolute real paths."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

TIMEOUT_S = 60


class GitDiffError(Exception):
    """git is missing, the folder is not in a repository, or the ref is unknown: a usage error."""


def _git(args: list[str], where: Path) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(where), *args], capture_output=True, timeout=TIMEOUT_S,
                              start_new_session=True)  # its own group: never left behind by an interrupt
    except FileNotFoundError:
        raise GitDiffError("--diff needs git on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitDiffError(f"git {args[0]} took over {TIMEOUT_S} s") from None
    if proc.returncode != 0:
        why = proc.stderr.decode(errors="replace").strip().splitlines()
        raise GitDiffError(f"git {' '.join(args[:2])}: {why[-1] if why else 'failed'}")
    return os.fsdecode(proc.stdout)


def changed_files(ref: str, where: Path) -> set[str]:
    """Real paths of the files changed against `ref` (deletions left out) and of untracked files, in the
    repository that holds `where`."""
    folder = where if where.is_dir() else where.parent
    top = Path(_git(["rev-parse", "--show-toplevel"], folder).strip())
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], top)
    except GitDiffError:
        raise GitDiffError(f"--diff {ref}: no such commit in {top}") from None
    names = _git(["diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", ref, "--"], top).split("\0")
    names += _git(["ls-files", "-z", "--others", "--exclude-standard"], top).split("\0")
    return {os.path.realpath(top / n) for n in names if n}
