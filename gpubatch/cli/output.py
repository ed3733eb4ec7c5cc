"""Output files: checked before any work starts, written atomically, through links, never over an input.

`check_output` runs when a command starts, so a typo in `--results` or `-o` costs nothing; `write_output`
writes through a symlink to its target (temporary file beside the target, then rename, keeping the target's
permissions), straight into a FIFO or device (`/dev/stdout`), and leaves no temporary file behind whatever
fails. Text is encoded as UTF-8 with `surrogateescape`, so a file name that is not valid UTF-8 comes out as
the bytes it has on disk instead of crashing the writer. Both writers take a report's pieces as they are made
(an iterable of text), so a large report is never one string.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterable


class OutputError(Exception):
    """An output path that cannot be written: the CLI reports it as a usage error (exit 2)."""


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


_BUFFER = 1 << 20  # bytes gathered before each write: few system calls for a report of many small pieces


def _write_all(fh, data: str | bytes | Iterable[str]) -> None:
    """`data` (text, bytes, or pieces of text) encoded into the binary file `fh`."""
    if isinstance(data, (str, bytes)):
        fh.write(encode(data) if isinstance(data, str) else data)
        return
    part: list[str] = []
    size = 0
    for piece in data:
        part.append(piece)
        size += len(piece)
        if size >= _BUFFER:
            fh.write(encode("".join(part)))
            part, size = [], 0
    if part:
        fh.write(encode("".join(part)))


def _target(path: Path) -> Path:
    """The file a write to `path` reaches: symlinks resolved (a dangling link names the file to create)."""
    return Path(os.path.realpath(path))


def check_output(path: Path, option: str, inputs: Iterable[Path] = ()) -> None:
    """Fail now, before the work, if `path` cannot take the output or would overwrite one of `inputs`."""
    path = Path(path)
    target = _target(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{option} {path}: {exc.strerror or exc}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{option} {path}: is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        if not os.access(target, os.W_OK):
            raise OutputError(f"{option} {path}: not writable")
        return  # a FIFO or a device: written straight through
    folder = target.parent
    if not folder.is_dir():
        raise OutputError(f"{option} {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {path}: folder {folder} is not writable")
    if st is not None:
        for inp in inputs:
            try:
                ist = os.stat(inp)
            except OSError:
                continue
            if (ist.st_dev, ist.st_ino) == (st.st_dev, st.st_ino):
                raise OutputError(f"{option} {path}: is one of the files being analysed; refusing to overwrite it")


def write_output(path: Path, data: str | bytes | Iterable[str]) -> None:
    """Write `data` (text, bytes or pieces of text) to `path` atomically (see the module docstring); OutputError
    when it cannot."""
    target = _target(Path(path))
    try:
        st = os.stat(target)
    except OSError:
        st = None
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(target, "wb") as fh:  # FIFO, terminal, /dev/stdout: no rename possible
                _write_all(fh, data)
            return
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                _write_all(fh, data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def write_stdout(text: str | Iterable[str]) -> None:
    """Text (or pieces of text) to standard output with the same encoding rule as files (a non-UTF-8 name never
    crashes it)."""
    out = sys.stdout
    buf = getattr(out, "buffer", None)
    if buf is None:  # a captured stream (tests): text only
        for piece in [text] if isinstance(text, str) else text:
            out.write(piece.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))
        out.flush()
        return
    out.flush()
    _write_all(buf, text)
    buf.flush()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
