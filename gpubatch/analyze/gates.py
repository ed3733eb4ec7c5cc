"""xenon's complexity gates over an analyze result: a block, a module's average or the whole run's average
ranked above a letter (radon's ranks A-F) fails the run. Each failure is one line, said as xenon says it."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .packed import block_column

RANKS = "ABCDEF"


@dataclass(frozen=True)
class Gates:
    """The highest rank allowed ("" for no gate): of any block, of any module's average, of the average."""

    max_absolute: str = ""
    max_modules: str = ""
    max_average: str = ""

    def __bool__(self) -> bool:
        return bool(self.max_absolute or self.max_modules or self.max_average)


def cc_rank(complexity: float) -> str:
    """radon's rank: A up to 5, B up to 10, C 20, D 30, E 40, F above (averages ranked the same way)."""
    return "A" if complexity <= 5 else RANKS[min(math.ceil(complexity / 10.0), 5)]


def _over(rank: str, limit: str) -> bool:
    return bool(limit) and rank > limit


def gate_failures(files, gates: Gates) -> list[str]:
    """Every block, module and the overall average over its gate, in the order of the files (a file that
    could not be read has no blocks and takes no part, as in xenon)."""
    out, total, count = [], 0.0, 0
    for rep in files:
        if rep.error:
            continue
        cx = block_column(rep.blocks, "complexity")  # the columns: no block object built on a warm run
        module = sum(cx)
        if cx and _over(cc_rank(max(cx)), gates.max_absolute):
            for b in rep.blocks:
                rank = cc_rank(b.complexity)
                if _over(rank, gates.max_absolute):
                    out.append(f'block "{rep.path}:{b.line} {b.name}" has a rank of {rank}')
        avg = module / len(cx) if cx else 0.0
        if _over(cc_rank(avg), gates.max_modules):
            out.append(f"module {rep.path!r} has a rank of {cc_rank(avg)}")
        total, count = total + module, count + len(cx)
    overall = total / count if count else 0.0
    if _over(cc_rank(overall), gates.max_average):
        out.append(f"average complexity is ranked {cc_rank(overall)}")
    return out
