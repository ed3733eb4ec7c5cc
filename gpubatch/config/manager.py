"""GPUConfigManager: merge defaults, packaged TOML, project TOML, --config, environment and flags; validate.

Precedence, lowest to highest: built-in defaults < packaged default.toml < nearest gpubatch.toml or
pyproject.toml [tool.gpubatch] (searched upward from the working directory) < --config FILE <
GPUBATCH_* environment variables < command-line flags. Nothing is read at import time.
"""
from __future__ import annotations

import difflib
import os
import re
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from .schema import DICT_KEYS, SCHEMA, Key, defaults

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

ENV_PREFIX = "GPUBATCH_"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ConfigError(Exception):
    """A configuration problem a user can fix; the CLI prints it as one line and exits 2."""


@dataclass(frozen=True)
class Setting:
    """The effective value of one key and where it came from."""

    key: str
    value: Any
    source: str
    doc: str


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict) and key not in DICT_KEYS:
            out.update(_flatten(value, key + "."))
        else:
            out[key] = value
    return out


def _read_toml(path: Path) -> dict[str, Any]:
    """A TOML file as a table; every way it can be unreadable is a ConfigError naming the file."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML in {path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"invalid TOML in {path}: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise ConfigError(f"invalid TOML in {path}: nested too deeply") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from None


def _table_of(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The gpubatch table of a file: [tool.gpubatch] for pyproject.toml, the whole file otherwise."""
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: 'tool' is a {type(tool).__name__}, expected a table")
    table = tool.get("gpubatch", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: 'tool.gpubatch' is a {type(table).__name__}, expected a table")
    return table


def _mentions_us(path: Path) -> bool:
    """Whether a pyproject.toml that does not parse looks like it holds a gpubatch table."""
    try:
        return b"gpubatch" in path.read_bytes()
    except OSError:
        return False


def find_project_config(start: Path) -> Path | None:
    """Nearest gpubatch.toml, or pyproject.toml with a [tool.gpubatch] table, from start upward. A broken
    pyproject.toml that holds such a table is an error (its settings would be silently lost); one without
    is not ours to report."""
    for folder in (start, *start.parents):
        candidate = folder / "gpubatch.toml"
        if candidate.is_file():
            return candidate
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = _read_toml(candidate)
            except ConfigError:
                if _mentions_us(candidate):
                    raise
                continue
            tool = data.get("tool")
            if isinstance(tool, dict) and "gpubatch" in tool:
                return candidate
    return None


def _expected(key: Key) -> str:
    if key.choices:
        return "one of " + ", ".join(key.choices)
    if key.pattern_doc:
        return key.pattern_doc
    text = key.type_name
    if key.min is not None and key.max is not None:
        shown = "{:,}" if key.type is int else "{:g}"  # an int bound as written, not 1.09951e+12
        text += f" from {shown.format(key.min)} to {shown.format(key.max)}"
    return text


def _check_value(key: Key, value: Any, source: str) -> Any:
    """Type-, range- and choice-check one value; int is accepted where a number is expected."""
    def bad(why: str = "") -> ConfigError:
        return ConfigError(f"{key.name} = {value!r} ({source}): expected {_expected(key)}{why}")

    if key.type is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if key.type is int and isinstance(value, bool) or not isinstance(value, key.type):
        raise bad()
    if key.type is list and key.item_type and not all(isinstance(v, key.item_type) for v in value):
        raise bad()
    if key.type is dict and key.item_type is not None:
        for name, item in value.items():
            if not _is(item, key.item_type):
                raise ConfigError(f"{key.name}.{name} = {item!r} ({source}): expected {key.item_doc}")
    if key.choices and value not in key.choices:
        raise bad()
    if key.pattern is not None and not re.fullmatch(key.pattern, value):
        raise bad()
    if key.type is float and value != value:  # NaN: every comparison with it is false, so no range holds it
        raise bad()
    if key.min is not None and value < key.min or key.max is not None and value > key.max:
        raise bad()
    return value


def _is(value: Any, spec: Any) -> bool:
    """`value` matches a type spec: a type, or a one-element list `[type]` for a list of that type."""
    if isinstance(spec, list):
        return isinstance(value, list) and all(_is(v, spec[0]) for v in value)
    return isinstance(value, spec) and not (spec is int and isinstance(value, bool))


def _parse_env(key: Key, text: str, source: str) -> Any:
    """Turn an environment string into the key's type (TOML literal syntax for lists and tables)."""
    raw = text.strip()
    try:
        if key.type is bool:
            low = raw.lower()
            if low in _TRUE or low in _FALSE:
                return low in _TRUE
            raise ValueError
        if key.type is int:
            return int(raw.replace("_", ""))
        if key.type is float:
            return float(raw)
        if key.type is str:
            return raw
        if key.type is list and not raw.startswith("["):
            return [part.strip() for part in raw.split(",") if part.strip()]
        return tomllib.loads(f"v = {raw}")["v"]
    except (ValueError, tomllib.TOMLDecodeError):
        raise ConfigError(f"{key.name} = {text!r} ({source}): expected {_expected(key)}") from None


class GPUConfigManager:
    """Loads, merges and validates configuration; `get(key)` reads the effective value."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = defaults()
        self._sources: dict[str, str] = {name: "default" for name in self._values}
        self.files: list[Path] = []

    # -- loading -------------------------------------------------------------------------------
    @classmethod
    def load(cls, config_file: str | os.PathLike | None = None, *, cwd: str | os.PathLike | None = None,
             env: Mapping[str, str] | None = None, overrides: Mapping[str, Any] | None = None,
             discover: bool = True) -> "GPUConfigManager":
        """Build the effective configuration from every source in precedence order, then validate."""
        mgr = cls()
        packaged = resources.files("gpubatch.config").joinpath("default.toml")
        mgr.apply(_flatten(tomllib.loads(packaged.read_text(encoding="utf-8"))), "package default.toml")
        if discover:
            found = find_project_config(Path(cwd or os.getcwd()).resolve())
            if found is not None:
                mgr.apply_file(found)
        if config_file is not None:
            path = Path(config_file)
            if not path.is_file():
                raise ConfigError(f"config file not found: {path}")
            mgr.apply_file(path)
        mgr.apply_env(os.environ if env is None else env)
        if overrides:
            mgr.apply({k: v for k, v in overrides.items() if v is not None}, "command line")
        mgr.validate()
        return mgr

    def apply_file(self, path: Path) -> None:
        self.files.append(path)
        self.apply(_flatten(_table_of(path, _read_toml(path))), str(path))

    def apply_env(self, env: Mapping[str, str]) -> None:
        for var, text in sorted(env.items()):
            if not var.startswith(ENV_PREFIX):
                continue
            name = var[len(ENV_PREFIX):].lower().replace("__", ".")
            key = self._key(name, f"environment {var}")
            self.apply({name: _parse_env(key, text, f"environment {var}")}, f"environment {var}")

    def apply(self, values: Mapping[str, Any], source: str) -> None:
        """Set values from one source; each is checked against the schema as it arrives."""
        for name, value in values.items():
            key = self._key(name, source)
            self._values[name] = _check_value(key, value, source)
            self._sources[name] = source

    @staticmethod
    def _key(name: str, source: str) -> Key:
        if name in SCHEMA:
            return SCHEMA[name]
        close = difflib.get_close_matches(name, list(SCHEMA), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise ConfigError(f"unknown config key {name!r} ({source}){hint}")

    def validate(self) -> None:
        """Cross-key checks that no single value can make."""
        lo, hi = self.get("gpu.batch.min_size"), self.get("gpu.batch.max_size")
        if lo > hi:
            raise ConfigError(
                f"gpu.batch.min_size = {lo} ({self.source('gpu.batch.min_size')}) is larger than "
                f"gpu.batch.max_size = {hi} ({self.source('gpu.batch.max_size')})")
        for level in self.get("analyze.severity").values():
            if level not in ("info", "warning", "error"):
                raise ConfigError(f"analyze.severity value {level!r} ({self.source('analyze.severity')}): "
                                  "expected info, warning or error")

    # -- reading -------------------------------------------------------------------------------
    def get(self, name: str) -> Any:
        return self._values[name]

    def source(self, name: str) -> str:
        return self._sources[name]

    def section(self, prefix: str) -> dict[str, Any]:
        """All keys under a prefix, with the prefix stripped: section('gpu.batch')['max_size']."""
        dot = prefix + "."
        return {k[len(dot):]: v for k, v in self._values.items() if k.startswith(dot)}

    def settings(self) -> list[Setting]:
        return [Setting(k, self._values[k], self._sources[k], SCHEMA[k].doc) for k in SCHEMA]

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)
