"""Pure-Python modules compiled by Cython into a checksummed cache folder, for host code that runs per value.

`build(sources, folder)` turns each `{full module name: .py file}` into an extension module of the same name
(the same source, no annotations: Cython only removes the interpreter's dispatch), written into `folder` with a
manifest of every file's SHA-256; `load_manifest(folder)` gives the manifest back only where every file is
still what it says. The compiler runs as child processes in their own process group, at most `jobs` at a
time, all ended on any exit (a Ctrl-C included). The folder appears whole or not at all (built beside it,
then renamed), so runs that race each build and one of them wins.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

MANIFEST = "manifest.json"


class BuildError(RuntimeError):
    """Cython or the C compiler is missing, or one of them failed (the message says which and why)."""


def toolchain() -> tuple[str, list[str]]:
    """(Cython's version, the C compiler's command) for this Python, or BuildError naming what is missing."""
    try:
        import Cython
    except ImportError:
        raise BuildError("Cython is not installed (pip install 'gpubatch[compiled]')") from None
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    if not shutil.which(cc[0]):
        raise BuildError(f"no C compiler: {cc[0]} is not on PATH")
    if not Path(sysconfig.get_paths()["include"], "Python.h").is_file():
        raise BuildError(f"no Python headers in {sysconfig.get_paths()['include']}")
    return Cython.__version__, cc


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run_all(commands: list[list[str]], jobs: int, cwd: Path) -> None:
    """Run every command, at most `jobs` at a time, each in its own process group with its output in a file (a
    pipe read only at the end could fill and stall it); the first failure (or any exception here) ends the rest."""
    waiting, running = list(commands), []
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                cmd = waiting.pop(0)
                log = tempfile.TemporaryFile(dir=cwd)
                running.append((cmd, log, subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                                           start_new_session=True)))
            done = next((item for item in running if item[2].poll() is not None), None)
            if done is None:
                time.sleep(0.02)
                continue
            running.remove(done)
            cmd, log, proc = done
            with log:
                log.seek(0)
                out = log.read().decode(errors="replace")
            if proc.returncode != 0:
                raise BuildError(f"{Path(cmd[0]).name} failed ({' '.join(cmd[-3:])}): {out.strip()[-600:]}")
    finally:
        for _, log, proc in running:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            proc.wait()
            log.close()


def _cc_command(cc: list[str], stage: Path, name: str, opt: str) -> list[str]:
    """The C compiler's command for one generated module, with this Python's flags, headers and link options."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    flags = shlex.split(sysconfig.get_config_var("CFLAGS") or "") + [opt, "-fPIC", "-shared", "-w"]
    link = [a for a in shlex.split(sysconfig.get_config_var("LDSHARED") or "")[1:] if a.startswith(("-L", "-Wl"))]
    return [*cc, *flags, "-I" + sysconfig.get_paths()["include"], str(stage / f"{name}.c"), "-o",
            str(stage / (name.rsplit(".", 1)[-1] + suffix)), *link]


def build(sources: dict[str, Path], folder: Path, jobs: int = 0, opt: str = "-O2") -> dict:
    """Compile `sources` ({module name: .py path}) into `folder` (which must not exist yet) and return its
    manifest; BuildError where the toolchain is missing or a step fails (nothing is left behind then). `opt`:
    the C compiler's optimisation (tests build with -O0, the same code in a third of the time)."""
    version, cc = toolchain()
    jobs = jobs or os.cpu_count() or 1
    folder.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        _run_all([[sys.executable, "-m", "cython", "-3", "--module-name", name, "-o", str(stage / f"{name}.c"),
                   str(src)] for name, src in sources.items()], jobs, stage)
        _run_all([_cc_command(cc, stage, name, opt) for name in sources], jobs, stage)
        for c in stage.glob("*.c"):
            c.unlink()
        files = {p.name: _sha(p) for p in sorted(stage.iterdir())}
        manifest = {"cython": version, "python": sys.version, "modules": sorted(sources), "files": files}
        (stage / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        try:
            os.rename(stage, folder)  # whole or not at all
        except OSError:
            theirs = load_manifest(folder)  # another run built it first: theirs serves, ours goes
            if theirs is None:
                raise
            shutil.rmtree(stage, ignore_errors=True)
            return theirs
        return manifest
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise


def load_manifest(folder: Path) -> dict | None:
    """The folder's manifest where every file it lists has its checksum, else None (a bad or partial cache)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
        files = manifest["files"]
        ok = all(_sha(folder / name) == digest for name, digest in files.items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return manifest if ok and files else None
