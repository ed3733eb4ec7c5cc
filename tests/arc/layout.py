"""What the array forms' tests compare: a value equal to the reference's and laid out alike, since a set's
layout shows in the order it iterates in (and so in `first`, `last` and ties further down a solver)."""
from __future__ import annotations


def same_layout(a, b) -> bool:
    """Equal, iterating alike, and every inner set iterating alike."""
    return a == b and list(a) == list(b) and all(
        list(x) == list(y) for x, y in zip(a, b) if isinstance(x, frozenset))
