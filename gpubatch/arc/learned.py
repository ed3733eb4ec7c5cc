"""Every learned last step of a program by name: a local rule's table (`rules`), the same table with unseen
cells given their majority colour (`nbhd_major`), or stamps (`stamps`) from the cells around (`stamp`) or
from the first other colour in each direction (`raystamp`), or from those colours up and down, and left and
right, as pairs (`raypair`), or a colour-free table (`anycolour`: `anyparity`).

A learner takes (C, task, targets, demo) and returns (ok, unseen, {name: predicted}) for every state of C:
one call gives every name it learns, so the search fits a table once for both of its predictions.
"""
from __future__ import annotations

from collections.abc import Callable

from .anycolour import KINDS as ANY_KINDS
from .anycolour import anycolour_fits
from .rules import KINDS as TABLE_KINDS
from .rules import rule_fits_both
from .stamps import stamp_fits

MAJOR = "_major"  # suffix of a table rule whose unseen cells take their majority colour


def _table(kind: str) -> Callable:
    def learn(C, task, targets, demo):
        ok, unseen, keep, major = rule_fits_both(C, task, targets, demo, kind)
        return ok, unseen, {kind: keep, kind + MAJOR: major}
    return learn


def _anycolour(kind: str) -> Callable:
    def learn(C, task, targets, demo):
        ok, unseen, pred = anycolour_fits(C, task, targets, demo, kind)
        return ok, unseen, {kind: pred}
    return learn


def _stamps(name: str, sources: str) -> Callable:
    def learn(C, task, targets, demo):
        ok, unseen, pred = stamp_fits(C, task, targets, demo, sources)
        return ok, unseen, {name: pred}
    return learn


LEARNERS: dict[str, Callable] = {**{k: _table(k) for k in TABLE_KINDS}, "stamp": _stamps("stamp", "cells"),
                                 "raystamp": _stamps("raystamp", "rays"), "raypair": _stamps("raypair", "raypairs"),
                                 **{k: _anycolour(k) for k in ANY_KINDS}}
NAMES = {**{k: k for k in LEARNERS}, **{k + MAJOR: k for k in TABLE_KINDS}}  # every rule name -> its learner
KINDS = tuple(NAMES)  # the rules the search fits on the inputs
# tables fitted on the inputs only: the region kinds label every colour's regions (10 passes on NumPy),
# `nearest` scans 120 lines a grid, `inbox` takes 10 colours' boxes, `half` sums rows and columns per object and
# `shape` sums over each region's places:
# costly over every depth-1 state; on the inputs they find what they find; so are the colour-free tables
INPUT_TABLES = frozenset({"region", "extreme", "holes", "nearest", "inbox", "touch", "half", "shape", *ANY_KINDS})
STATE_KINDS = tuple(n for n in NAMES if NAMES[n] in TABLE_KINDS and NAMES[n] not in INPUT_TABLES)  # and on the
# depth-1 states (not stamps)
# learners whose context is wide enough to fit demos by chance: their fits rank with the colour maps, after every
# exact fit and every other rule fit (`ranking.rank_key`)
LAST = frozenset({"raypair"})
