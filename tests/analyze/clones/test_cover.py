"""`clones.cover`: the array test of which groups another covers equals the one-group-at-a-time rule it
replaced (a group is dropped when a group kept before it, at least as exact, holds all its copies)."""
import numpy as np

from gpubatch.analyze.clones import cover
from gpubatch.analyze.clones.cover import covered, ids


def _sequential(groups: list[tuple[int, frozenset]]) -> list[bool]:
    """The rule as a loop: groups by more copies, then more exact; each checked against those kept so far."""
    out = [False] * len(groups)
    kept: list[tuple[int, frozenset]] = []
    for k in sorted(range(len(groups)), key=lambda k: (-len(groups[k][1]), groups[k][0])):
        kind, mine = groups[k]
        if any(kk <= kind and mine <= theirs for kk, theirs in kept):
            out[k] = True
        else:
            kept.append((kind, mine))
    return out


def _arrays(groups):
    group_of = np.asarray([k for k, (_, p) in enumerate(groups) for _ in p], np.int64)
    place = np.asarray([x for _, p in groups for x in sorted(p)], np.int64)
    return group_of, place, np.asarray([kind for kind, _ in groups], np.int64)


def test_covered_equals_the_sequential_rule_on_random_families(monkeypatch):
    monkeypatch.setattr(cover, "CHUNK", 7)  # many chunks of pairs
    rng = np.random.default_rng(5)
    for _ in range(300):
        universe = int(rng.integers(2, 12))
        groups = []
        for _ in range(int(rng.integers(1, 14))):
            size = int(rng.integers(2, universe + 1))
            groups.append((int(rng.integers(1, 4)), frozenset(rng.choice(universe, size, replace=False).tolist())))
        if rng.random() < 0.3:  # a repeated group: the later one goes
            groups.append(groups[int(rng.integers(len(groups)))])
        assert covered(*_arrays(groups)).tolist() == _sequential(groups)


def test_a_less_exact_group_does_not_cover_a_more_exact_one():
    groups = [(2, frozenset({0, 1, 2})), (1, frozenset({0, 1})), (3, frozenset({1, 2}))]
    assert covered(*_arrays(groups)).tolist() == [False, False, True]


def test_ids_number_distinct_rows_in_sorted_order():
    a, b = np.asarray([3, 1, 3, 1, 2]), np.asarray([0, 5, 0, 4, 9])
    assert ids(a, b).tolist() == [3, 1, 3, 0, 2]
    assert ids(np.zeros(0, np.int64)).tolist() == []
