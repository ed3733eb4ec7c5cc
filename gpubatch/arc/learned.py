"""Every learned last step of a program by kind: a local rule's table (`rules`) or stamps (`stamps`).

Each learner takes (C, task, targets, demo) and returns (ok, unseen, predicted) for every state of C.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .rules import KINDS as TABLE_KINDS
from .rules import rule_fits
from .stamps import stamp_fits

LEARNERS: dict[str, Callable] = {**{k: partial(rule_fits, kind=k) for k in TABLE_KINDS}, "stamp": stamp_fits}
KINDS = tuple(LEARNERS)
STATE_KINDS = TABLE_KINDS  # learned on the depth-1 states too; stamps on the inputs only (their sort is 8x larger)
