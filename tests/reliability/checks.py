"""The fuzzer's oracles: run a generated input through the CLI and assert what a user is owed.

Every check asserts: no exit 3 and no escaped exception; the right exit code for what was fed in; output files
that are valid (JSON parses, SARIF meets the schema, every GitHub line is one annotation); results equal to a
clean run where the input was valid (warm cache, damaged cache); no worker process left behind.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
from functools import lru_cache
from pathlib import Path
from xml.etree import ElementTree

from .gen import ArcFile, ConfigDoc, KagglePair, SourceFile
from .helpers import ROOT, children_of, cli

ANNOTATION = re.compile(r"^::(error|warning|notice) file=[^,:\n]*,line=\d+,col=\d+(,endLine=\d+)?,title=[^,:\n]*::.*$")


class Failure(AssertionError):
    """An oracle said no; the message names the input's folder and what went wrong."""


def _ok(result, allowed: set[int], where: Path) -> int:
    code = result.exit_code
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        raise Failure(f"{where}: exception escaped: {type(exc).__name__}: {exc}")
    if code == 3 or code not in allowed:
        raise Failure(f"{where}: exit {code} (allowed {sorted(allowed)}): {result.output[-2000:]}")
    if children_of(os.getpid()):
        raise Failure(f"{where}: worker processes left running: {children_of(os.getpid())}")
    return code


@lru_cache(maxsize=1)
def _sarif_validator():
    try:
        import jsonschema
    except ImportError:
        return None
    for cand in (ROOT.parent / "shared" / "sarif", ROOT / ".." / "shared" / "sarif"):
        for f in sorted(Path(cand).glob("*.json")) if Path(cand).is_dir() else ():
            return jsonschema.Draft7Validator(json.loads(f.read_text()))
    return None


def valid_output(fmt: str, blob: bytes, where: Path) -> None:
    """The report is well-formed for its format."""
    if fmt == "junit":
        try:
            ElementTree.fromstring(blob)
        except ElementTree.ParseError as exc:
            raise Failure(f"{where}: invalid JUnit XML: {exc}") from None
    elif fmt in ("json", "sarif", "gitlab"):
        try:
            data = json.loads(blob)
        except ValueError as exc:
            raise Failure(f"{where}: invalid {fmt} output: {exc}") from None
        if fmt == "sarif" and _sarif_validator() is not None:
            errors = list(_sarif_validator().iter_errors(data))
            if errors:
                raise Failure(f"{where}: SARIF fails the schema: {errors[0].message}")
    elif fmt == "github":
        for line in blob.decode("utf-8", "replace").splitlines():
            if not ANNOTATION.match(line):
                raise Failure(f"{where}: not one annotation: {line!r}")


def write_tree(folder: Path, files: list[SourceFile]) -> None:
    for f in files:
        path = folder / f.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.data)


def _damage(cache: Path, rng: random.Random) -> None:
    """Flip bits, truncate, empty or replace by a folder some cache entries (never the .gitignore marker)."""
    entries = [p for p in cache.rglob("*") if p.is_file() and p.name != ".gitignore"]
    for entry in rng.sample(entries, k=min(len(entries), rng.randint(1, 4))):
        blob = bytearray(entry.read_bytes())
        how = rng.randint(0, 3)
        if how == 0 and blob:
            blob[rng.randrange(len(blob))] ^= 1 << rng.randrange(8)
            entry.write_bytes(bytes(blob))
        elif how == 1:
            entry.write_bytes(bytes(blob[:rng.randrange(len(blob) + 1)]))
        elif how == 2:
            entry.write_bytes(b"")
        else:
            entry.unlink()
            entry.mkdir()


def check_analyze(folder: Path, files: list[SourceFile], seed: int) -> int:
    """Cold, then warm (maybe over a damaged cache): exit 0/1, equal findings; then another format, valid."""
    rng = random.Random(seed)
    src = folder / "src"
    write_tree(src, files)
    content = rng.choice(["true", "false"])  # the content caches too, or the stat index alone
    (folder / "gpubatch.toml").write_text(f'[analyze]\ncache_dir = "cache"\ncache_content = {content}\n')
    jobs = rng.choice(["1", "1", "2"])
    base = ["analyze", "src", "--jobs", jobs, "-q"]
    cold = cli(*base, "--format", "json", "-o", "cold.json", cwd=folder)
    code = _ok(cold, {0, 1}, folder)
    valid_output("json", (folder / "cold.json").read_bytes(), folder)
    if rng.random() < 0.3 and (folder / "cache").is_dir():
        _damage(folder / "cache", rng)
    warm = cli(*base, "--format", "json", "-o", "warm.json", cwd=folder)
    if _ok(warm, {0, 1}, folder) != code:
        raise Failure(f"{folder}: warm exit {warm.exit_code} != cold exit {code}")
    a, b = (json.loads((folder / n).read_text())["findings"] for n in ("cold.json", "warm.json"))
    if a != b:
        raise Failure(f"{folder}: warm findings differ from cold ({len(a)} vs {len(b)})")
    if rng.random() < 0.6:  # the other formats on a share of the trees (each is a third run)
        return len(files)
    fmt = rng.choice(["text", "sarif", "github", "gitlab", "junit"])
    other = cli(*base, "--format", fmt, "-o", f"out.{fmt}", "--no-cache", cwd=folder)
    _ok(other, {code}, folder)
    valid_output(fmt, (folder / f"out.{fmt}").read_bytes(), folder)
    return len(files)


def check_config(folder: Path, doc: ConfigDoc) -> int:
    """`config validate` says 0 or 2 (0 when valid by construction); analyze agrees with it."""
    path = folder / doc.name
    path.write_bytes(doc.data)
    (folder / "a.py").write_text("x = 1\n")
    code = _ok(cli("config", "validate", path), {0, 2}, folder)
    if doc.valid and code != 0:
        raise Failure(f"{folder}: a valid config was refused: {doc.data!r}")
    run = cli("analyze", "a.py", "--jobs", "1", "-q", "--no-cache", cwd=folder)
    got = _ok(run, {0, 1, 2}, folder)
    # a pyproject.toml is found by discovery; one that does not parse is ours to refuse only if it names us
    ours = doc.name != "pyproject.toml" or b"gpubatch" in doc.data
    if (got == 2) != (code == 2 and ours):
        raise Failure(f"{folder}: validate exit {code} but analyze exit {got}: {run.output[-500:]}")
    return 1


def _submission(folder: Path, result, allowed: set[int]) -> dict | None:
    code = _ok(result, allowed, folder)
    sub = folder / "sub.json"
    if code == 2:
        if sub.exists():
            raise Failure(f"{folder}: usage error but a submission was written")
        return None
    try:
        data = json.loads(sub.read_text())
        json.loads((folder / "res.json").read_text())
    except (OSError, ValueError) as exc:
        raise Failure(f"{folder}: output files missing or invalid: {exc}") from None
    return data


def _batt(folder: Path, source: Path):
    return cli("run-batt", "--dataset", source, "--depth", "0", "--no-progress", "-q", "--submission",
               folder / "sub.json", "--results", folder / "res.json")


def check_arc(folder: Path, files: list[ArcFile]) -> int:
    """Valid tasks all run and are in the submission with one entry per test input; the rest are skipped and in it
    too, with placeholder attempts."""
    tasks = folder / "tasks"
    tasks.mkdir()
    for f in files:
        (tasks / f"{f.id}.json").write_bytes(f.data)
    valid = {f.id: f.tests for f in files if f.valid}
    sub = _submission(folder, _batt(folder, tasks), {0, 1} if valid else {1, 2})
    if sub is None:
        if valid:
            raise Failure(f"{folder}: valid tasks but a usage error")
        return len(files)
    if set(sub) != {f.id for f in files} or any(len(sub[k]) != n for k, n in valid.items()):
        raise Failure(f"{folder}: submission holds {sorted(sub)}, the tasks are {sorted(f.id for f in files)}, "
                      f"valid {sorted(valid)}")
    _attempts_are_grids(folder, sub)
    return len(files)


def _attempts_are_grids(folder: Path, sub: dict) -> None:
    """Every task's entries (at least one) hold two attempts, each a grid of colours."""
    for tid, entries in sub.items():
        if not entries or any(set(e) != {"attempt_1", "attempt_2"} for e in entries):
            raise Failure(f"{folder}: submission entry of {tid} is {entries!r:.200}")
        for g in (e[k] for e in entries for k in e):
            if not g or any(not row or len(row) != len(g[0]) or any(c not in range(10) for c in row) for row in g):
                raise Failure(f"{folder}: an attempt of {tid} is not a grid: {g!r:.200}")


def check_kaggle(folder: Path, pair: KagglePair) -> int:
    """A usable challenges file runs every valid task (a bad solutions file only unscores); else exit 2."""
    (folder / "x_challenges.json").write_bytes(pair.challenges)
    if pair.solutions is not None:
        (folder / "x_solutions.json").write_bytes(pair.solutions)
    allowed = {0, 1} if pair.usable and pair.valid_ids else ({1, 2} if pair.usable else {2})
    sub = _submission(folder, _batt(folder, folder / "x_challenges.json"), allowed)
    if sub is not None and set(sub) != pair.ids:  # ARC Prize's scoring needs every task, the skipped ones too
        raise Failure(f"{folder}: submission holds {sorted(sub)}, the tasks are {sorted(pair.ids)}")
    if sub is not None:
        _attempts_are_grids(folder, sub)
    return 1


def fresh(root: Path, n: int) -> Path:
    folder = root / f"case{n}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder
