"""The configuration schema: every key's type, default, allowed range and a one-line description.

Keys are dotted paths (`gpu.batch.max_size`); a TOML table `[gpu.batch]` with `max_size = 64` maps to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Key:
    """One configuration key: name, type, default and the constraints validation enforces."""

    name: str
    type: type
    default: Any
    doc: str
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] | None = None
    item_type: Any = None  # element type of a list key; value type of a dict key (`[str]`: list of strings)
    item_doc: str = ""  # the value type of a dict key, in words
    pattern: str | None = None  # a string key's values (a regular expression, whole value)
    pattern_doc: str = ""  # the same, in words

    @property
    def type_name(self) -> str:
        if self.type is list:
            return f"list of {self.item_type.__name__ if self.item_type else 'values'}"
        if self.type is dict and self.item_doc:
            return f"table whose values are each {self.item_doc}"
        return {bool: "boolean", int: "integer", float: "number", str: "string", dict: "table"}[self.type]


def _k(name, type_, default, doc, **kw) -> Key:
    return Key(name, type_, default, doc, **kw)


_FAIL_LEVELS = ("never", "info", "warning", "error")
_RANK_GATES = ("", "A", "B", "C", "D", "E", "F")

KEYS: tuple[Key, ...] = (
    # engine
    _k("gpu.device", str, "auto", "Device: auto (GPU when usable, else CPU), cpu, or cuda (GPU required).",
       choices=("auto", "cpu", "cuda")),
    _k("gpu.enabled", bool, True, "Allow the GPU at all; false forces the NumPy backend."),
    _k("gpu.count", int, 1, "Number of GPUs (one worker process each); on CPU, number of worker processes.",
       min=1, max=64),
    _k("gpu.memory.max_fraction", float, 0.8, "Largest fraction of free device memory one batch may use.",
       min=0.1, max=1.0),
    _k("gpu.memory.cache_size", int, 64, "Entries in the content-keyed device-array cache of tables every "
       "batch uses (analyze's rule and metric tables: uploaded once a run, not once a batch); 0 disables it.",
       min=0, max=1_000_000),
    _k("gpu.memory.keep_in_vram", bool, True, "run-batt: keep each search level's grids on the device (up to "
       "1 GiB) for the next level; false recomputes them from the inputs (less memory, more time)."),
    _k("gpu.batch.enabled", bool, True, "Batch items; false runs one item per call (for debugging)."),
    _k("gpu.batch.initial_size", int, 1024, "Items in the first batch.", min=1, max=1 << 31),
    _k("gpu.batch.min_size", int, 1, "Smallest batch; an out-of-memory batch this small runs on the CPU.",
       min=1, max=1 << 31),
    _k("gpu.batch.max_size", int, 1 << 20, "Largest batch.", min=1, max=1 << 31),
    _k("gpu.batch.dynamic_sizing", bool, True, "Grow or shrink batches by free memory and measured throughput."),
    _k("gpu.performance.dynamic_dispatch", bool, True, "On --device auto, choose NumPy or the GPU per batch by "
       "its work and each device's measured cost (CuPy is started only when the work asks for it)."),
    _k("gpu.performance.cpu_threshold", int, 0, "Work below which a batch runs on NumPy under auto, in the op's "
       "units (analyze: AST nodes; run-batt: grid cells x primitives); 0: each op's measured seed.",
       min=0, max=1 << 62),
    _k("gpu.performance.prefetch", int, 4, "Batches whose host work (analyze: joining the files' arrays) is "
       "prepared ahead of the device.", min=1, max=1024),
    # cluster (the dask runner)
    _k("cluster.address", str, "", "Dask cluster: a scheduler (tcp://host:8786) or local:N (N worker processes "
       "here, each pinned to one GPU on a GPU run); empty: no cluster.",
       pattern=r"|local(:\d+)?|([a-z][a-z0-9+.-]*://)?[^\s/]+:\d+",
       pattern_doc="a scheduler address with its port (tcp://host:8786), local or local:N, or empty"),
    _k("cluster.workers", int, 0, "Workers of a `local` cluster without :N (0: one per GPU, else 2).", min=0,
       max=4096),
    _k("cluster.retries", int, 2, "Times a batch whose worker died is submitted again before it runs on NumPy "
       "here.", min=0, max=100),
    # analyze
    _k("analyze.jobs", int, 0, "Parser processes; 0 means the CPU count.", min=0, max=1024),
    _k("analyze.max_file_bytes", int, 4_000_000, "Files larger than this are reported (E902) and skipped.",
       min=1, max=1 << 40),
    _k("analyze.max_complexity", int, 10, "C901 threshold: cyclomatic complexity above this is a finding.",
       min=1, max=10_000),
    _k("analyze.complexity", str, "radon", "C901's definition: radon (radon cc: boolean operators, "
       "if-expressions, comprehensions and asserts count) or mccabe (ruff's and flake8's C901: statements only, "
       "nested functions included).", choices=("radon", "mccabe")),
    _k("analyze.max_absolute", str, "", "xenon's gate: exit 1 when a block's complexity rank (A-F, radon's) is "
       "above this letter; empty: no gate.", choices=_RANK_GATES),
    _k("analyze.max_modules", str, "", "xenon's gate: exit 1 when a module's average complexity rank is above "
       "this letter; empty: no gate.", choices=_RANK_GATES),
    _k("analyze.max_average", str, "", "xenon's gate: exit 1 when the average complexity of all blocks ranks "
       "above this letter; empty: no gate.", choices=_RANK_GATES),
    _k("analyze.max_function_lines", int, 100, "GB101 threshold: longest function body in lines.", min=1,
       max=1_000_000),
    _k("analyze.max_nesting", int, 5, "GB102 threshold: deepest block nesting inside a function.", min=1, max=1000),
    _k("analyze.max_params", int, 8, "GB103 threshold: most parameters of a function.", min=1, max=1000),
    _k("analyze.max_batch_files", int, 128, "Files per batch at most (and gpu.batch.max_size): a batch holds "
       "about 100 bytes per AST node; --batch-size sets it too. 128 rather than 256 keeps a cold 25k-file run "
       "165 MB lower at the same speed.", min=1, max=1 << 20),
    _k("analyze.cache", bool, True, "Keep finished reports in an index keyed by each file's size, mtime and "
       "inode: an unchanged file is not read again."),
    _k("analyze.cache_content", bool, False, "Also keep parsed tensors and reports by file content: a run under "
       "another policy, or over touched but unchanged files, parses nothing (several times the sources' size on "
       "disk)."),
    _k("analyze.cache_dir", str, ".gpubatch_cache", "Directory of the tensor cache."),
    _k("analyze.respect_gitignore", bool, True, "Skip files that .gitignore excludes."),
    _k("analyze.default_excludes", bool, True, "Skip .git, .venv, venv, __pycache__, build, dist, node_modules..."),
    _k("analyze.include", list, [], "Globs a file must match to be analysed (empty: all *.py).", item_type=str),
    _k("analyze.exclude", list, [], "Globs of files and directories to skip.", item_type=str),
    _k("analyze.select", list, [], "Rule codes or prefixes to enable (empty: all built-in rules).", item_type=str),
    _k("analyze.ignore", list, [], "Rule codes or prefixes to disable.", item_type=str),
    _k("analyze.fail_on", str, "error", "Lowest severity that makes the exit code 1.", choices=_FAIL_LEVELS),
    _k("analyze.severity", dict, {}, "Per-rule severity overrides, e.g. {E722 = \"warning\"}.", item_type=str,
       item_doc="a string"),
    _k("analyze.per_file_ignores", dict, {}, "Glob -> list of rule codes ignored in matching files.",
       item_type=[str], item_doc="a list of rule codes (strings)"),
    _k("analyze.rules.banned_calls", list, [], "Fully qualified calls to report (GB201), e.g. os.system.",
       item_type=str),
    _k("analyze.rules.banned_imports", list, [], "Modules whose import is reported (GB202).", item_type=str),
    _k("analyze.duplicates.enabled", bool, False, "Search for duplicate code (GB301), as --duplicates does."),
    _k("analyze.duplicates.min_lines", int, 4, "Shortest copy reported, in lines (on both sides).", min=1,
       max=100_000),
    _k("analyze.duplicates.min_nodes", int, 14, "Shortest copy reported, in syntax nodes (names, calls, "
       "operators...): verbatim copies and near-misses.", min=4, max=100_000),
    _k("analyze.duplicates.min_nodes_renamed", int, 40, "Shortest copy with renamed names or changed constants "
       "reported, in syntax nodes.", min=4, max=100_000),
    _k("analyze.duplicates.min_similarity", float, 0.8, "Near-miss copies: least share of the longer side that "
       "must match.", min=0.0, max=1.0),
    _k("analyze.duplicates.max_gap", int, 12, "Near-miss copies: most syntax nodes inserted, deleted or changed "
       "between two matching stretches (0: no near-misses).", min=0, max=100_000),
    _k("analyze.duplicates.ignore_docstrings", bool, True, "Leave docstrings (and other lone string statements) "
       "out of the comparison."),
    _k("analyze.duplicates.ignore_imports", bool, True, "Leave import statements out of the comparison."),
    _k("analyze.duplicates.ignore_signatures", bool, True, "Compare a def or class without its name, decorators, "
       "parameters or bases (pylint's ignore-signatures): a body copied under another signature is a copy."),
    _k("analyze.duplicates.lines", bool, True, "Also report copies of more than min_lines equal code lines, however "
       "few syntax nodes they hold (pylint's duplicate-code rule: five lines of keyword arguments)."),
    # run-batt
    _k("batt.dataset", str, "arc1-train", "Task source: arc1-train, arc1-eval, arc2-train, arc2-eval, or a path."),
    _k("batt.tasks", int, 0, "Number of tasks to load, first in a stable order (0: all).", min=0, max=1_000_000),
    _k("batt.depth", int, 3, "Longest program in the built-in enumeration.", min=0, max=8),
    _k("batt.max_states", int, 2_000_000, "Search states explored per task before it stops.", min=1, max=1 << 40),
    _k("batt.deep_states", int, 2_000_000, "Search states explored per task at each level past the third (depth 4 "
       "and more), the most promising kept: beside batt.max_states, which levels 1-3 spend.", min=0, max=1 << 40),
    _k("batt.partial_fits", int, 8, "Partial fits kept per task (programs that reproduce some demo outputs and "
       "give test outputs of the predicted size), tried after every fit; 0: none.", min=0, max=1000),
    _k("batt.overlays", int, 16, "Bases and layers of each kind kept per task for overlays (outputs stacked from "
       "several programs' grids), tried after every fit and before partial fits; 0: none.", min=0, max=1000),
    _k("batt.colour_norm", bool, True, "Also search each task's colour-normalised copy (every grid pair's colours "
       "renamed by their roles in its input) where the pairs' renamings differ; its answers are mapped back."),
    _k("batt.colour_norm_shallower", int, 1, "Levels fewer than the depth that colour-normalised copies are "
       "searched to (at least depth 1).", min=0, max=8),
    _k("batt.time_budget_s", float, 600.0, "Seconds of search per run before tasks stop expanding.",
       min=0.0, max=1e7),
    _k("batt.compiled", str, "auto", "arc-dsl solvers (--solvers): run the per-value primitives compiled by Cython "
       "(built once, cached): auto where Cython and a C compiler are present, on (exit 2 without them), off.",
       choices=("auto", "on", "off")),
    _k("batt.compiled_dir", str, "", "Cache folder of the compiled primitives; empty: $XDG_CACHE_HOME/gpubatch/"
       "arcdsl (~/.cache where unset)."),
    # bench
    _k("bench.suite", str, "quick", "Benchmark suite: quick, full, or batt (run-batt on 10/50/200 tasks).",
       choices=("quick", "full", "batt")),
    _k("bench.repeats", int, 0, "Timed repeats per measurement (median, min and max are reported); 0: the "
       "suite's own (quick 3; full 10 on a GPU, 3 on the CPU; batt 1).", min=0, max=100_000),
    _k("bench.warmup", int, 2, "Untimed runs before timing (batt: untimed searches before each device's first).",
       min=0, max=1000),
)

SCHEMA: dict[str, Key] = {k.name: k for k in KEYS}
DICT_KEYS = frozenset(k.name for k in KEYS if k.type is dict)


def defaults() -> dict[str, Any]:
    """Built-in default of every key (fresh copies of mutable values)."""
    return {k.name: (type(k.default)(k.default) if isinstance(k.default, (list, dict)) else k.default)
            for k in KEYS}
