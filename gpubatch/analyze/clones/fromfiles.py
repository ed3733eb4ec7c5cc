"""Clone features of parsed files, where they are made: in the parser workers under `--duplicates` (a cold
run's parent process takes files in slower than its workers parse them, so work moved to the workers is work
off the run's critical path), else by the analyze op for its whole batch."""
from __future__ import annotations

from ..batched import concat
from ..model import noqa_allows
from ..tensorize import FileTensors
from .features import Features, batch_features


def files_features(files: list[FileTensors], nodes: dict, settings) -> list[Features]:
    """Features of `files` (parsed without error) from their concatenated node columns (`batched.concat`);
    `settings` is `CloneSettings`. A `noqa` for GB301 (or for everything) keeps a line out of every copy."""
    return batch_features(nodes, len(files), settings.ignore_docstrings, settings.ignore_imports,
                          [[ln for ln in ft.noqa if not noqa_allows(ft.noqa, ln, "GB301")] for ft in files],
                          [ft.string_lines for ft in files], settings.ignore_signatures)


def add_features(files: list[FileTensors], settings) -> None:
    """Worker side: each file still to be analysed (parsed without error, no finished report cached) gets its
    features, the chunk's files in one batch."""
    todo = [ft for ft in files if ft.error is None and ft.result is None]
    if todo:
        for ft, f in zip(todo, files_features(todo, concat(todo)[0], settings)):
            ft.features = f
