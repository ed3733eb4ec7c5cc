"""Line copies: pylint's duplicate-code rule (R0801) run on the same features as the node search, for all files
at once on the array module.

pylint compares files line by line: each line stripped of comments and layout, docstrings, imports and function
signatures left out, and a run of more than `min-similarity-lines` (4) equal lines is a copy, however few syntax
nodes it holds (five lines of `name=name,` keyword arguments are 10 nodes, under the node search's `min_nodes`).
Here a *code line* is the run of a file's kept nodes (`features.py`) that start on one source line, keyed by the
hash of their exact keys in order: equal keys are equal code, whatever the comments and spacing, and a line that
keeps no node (a comment, a blank, a closing bracket alone) is no line, as pylint drops its stripped lines, nor is a
blank line inside a string; an `else:` or `finally:` line is one (the features hold a key for it). A def line reads "def" whatever its signature (`ignore_signatures`, as pylint's option):
pylint drops def lines altogether, which makes bodies of `pass` in any number of functions one copy; keeping them
lost none of pylint's copies of the standard library. Copies of more than `min_lines` code lines then come from
the same window search as the nodes' (`detect.find_segments`, with code lines for nodes), go back to node ranges
and grow over equal nodes around them, as the node search's copies grow: each a verbatim segment like any other,
grouped with the rest (`groups.build_groups`).
"""
from __future__ import annotations

import numpy as np

from ..tensorize import text_hash
from .detect import Segments, extend, find_segments, prefix_hashes
from .features import TEXT_WEIGHT, mix, text_keys

# the keys of a blank line inside a string: no line, as pylint drops blank lines
_BLANK_KEYS = text_keys(np.full(TEXT_WEIGHT, text_hash(""), np.int64), np.arange(TEXT_WEIGHT)).tolist()


def code_lines(xp, exact, line, fo):
    """(key, first node, end node, file) per code line of the concatenated features: a run of consecutive kept
    nodes of one file on one source line (but blank text), keyed by a position-free hash of its exact keys."""
    keep = xp.ones(len(exact), dtype=bool)
    for k in _BLANK_KEYS:
        keep &= exact != xp.uint64(k)
    idx = xp.flatnonzero(keep)
    if len(idx) == 0:
        z = xp.zeros(0, xp.int64)
        return xp.zeros(0, xp.uint64), z, z, z
    ln, f = line[idx], fo[idx]
    head = xp.ones(len(idx), dtype=bool)
    head[1:] = (ln[1:] != ln[:-1]) | (f[1:] != f[:-1])
    first = xp.flatnonzero(head)
    stop = xp.concatenate([first[1:], xp.asarray([len(idx)])])
    prefix, ipw = prefix_hashes(xp, exact[idx])
    key = mix((prefix[stop] - prefix[first]) * ipw[first] + (stop - first).astype(xp.uint64))
    # a line's nodes: its first kept node to its last (blank text between two lines lies inside a copy's range)
    return key, idx[first], idx[stop - 1] + 1, f[first]


def _plain(b0, b1, a0, a1) -> Segments:
    """Verbatim segments of host node ranges: every node matched, none renamed, no gap."""
    none = np.zeros(len(b0), np.int64)
    return Segments(b0, b1, a0, a1, np.maximum(b1 - b0, a1 - a0), none, none)


def line_segments(xp, exact, line, fo, starts, ends, min_lines: int, host) -> Segments:
    """Verbatim copies of more than `min_lines` code lines, as node-range segments (host arrays)."""
    key, n0, n1, lfile = code_lines(xp, exact, line, fo)
    empty = np.zeros(0, np.int64)
    width = min_lines + 1  # more than min-similarity-lines, as pylint counts
    if len(key) < 2 * width:
        return _plain(empty, empty, empty, empty)
    files = xp.arange(len(starts))
    lstarts, lends = xp.searchsorted(lfile, files), xp.searchsorted(lfile, files, side="right")
    b0, b1, a0, a1, _ = find_segments(xp, key, key, key, lfile, lstarts, lends, width, host)
    if not len(b0):
        return _plain(empty, empty, empty, empty)
    b0, b1, a0, a1 = (xp.asarray(x) for x in (b0, b1, a0, a1))
    b0, b1, a0, a1 = n0[b0], n1[b1 - 1], n0[a0], n1[a1 - 1]
    # then grown over the nodes around them that are equal too, as the node search grows its copies (the def
    # node before a copied body, part of a line): the same copy found both ways is then the same segment
    prefix, ipw = prefix_hashes(xp, exact)
    b0, b1, a0, a1 = (host(x) for x in extend(xp, prefix, ipw, starts[fo[b0]], ends[fo[b0]], starts[fo[a0]],
                                              ends[fo[a0]], b0, b1, a0, a1))
    # grown, a copy later in its original's file still starts after the original ends: both sides lose the
    # nodes the two would share, at their start, where growing backwards took them in (the statement's end that
    # precedes both copies of a test); cut on one side alone, a copy of two functions after themselves paired
    # two functions with one and joined their groups
    cut = a1 - np.minimum(a1, b0)
    a0, b0 = a0 + cut, b0 + cut
    ok = a1 > a0
    return _plain(b0[ok], b1[ok], a0[ok], a1[ok])
