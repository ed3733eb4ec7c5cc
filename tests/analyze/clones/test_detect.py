"""The clone search on key sequences made by hand: windows, joins, runs, verification and chaining."""
import numpy as np

from gpubatch.analyze.clones.detect import chain, find_segments, prefix_hashes, shifted_runs, verify, window_hashes
from gpubatch.analyze.clones.features import mix

W = 4


def keys(*files):
    """Concatenated uint64 keys of several files (lists of ints), with file ids and bounds."""
    counts = np.asarray([len(f) for f in files])
    flat = mix(np.concatenate([np.asarray(f, np.uint64) for f in files]))
    ends = np.cumsum(counts)
    return flat, np.repeat(np.arange(len(files)), counts), ends - counts, ends


def segments(files, exact=None, periodic=False):
    shape, fo, starts, ends = keys(*files)
    ex = shape if exact is None else keys(*exact)[0]
    return find_segments(np, ex if exact is not None and not periodic else shape, shape, ex, fo, starts, ends, W,
                         np.asarray, periodic)


def test_window_hashes_depend_on_content_not_position():
    shape, _, starts, ends = keys([1, 2, 3, 4, 5, 1, 2, 3, 4], [9, 9])
    pos, h = window_hashes(np, *prefix_hashes(np, shape), starts, ends, W)
    assert pos.tolist() == [0, 1, 2, 3, 4, 5]  # the second file is shorter than a window
    assert h[0] == h[5] and len(set(h[:5].tolist())) == 5


def test_a_copy_is_one_segment_with_its_original():
    a = list(range(100, 120))
    b0, b1, a0, a1, renamed = segments([a, [7, 8] + a[3:15] + [9]])
    assert (b0.tolist(), b1.tolist(), a0.tolist(), a1.tolist(), renamed.tolist()) == ([22], [34], [3], [15], [0])


def test_a_long_copy_stays_whole_where_a_piece_of_it_is_copied_elsewhere_too():
    # a piece p of the long copy also occurs on its own, before each long copy: the windows of p in the second
    # long copy pair with those single copies, which used to split the long copy in two overlapping pieces;
    # grown along their diagonal, the pieces are the whole copy again
    p = list(range(500, 510))
    long = list(range(100, 130)) + p + list(range(200, 230))
    b0, b1, a0, a1, _ = segments([p + [1], long, p + [2], [7] + long])
    rows = list(zip(b0.tolist(), b1.tolist(), a0.tolist(), a1.tolist()))
    assert (93, 163, 11, 81) in rows
    assert not [r for r in rows if r[0] >= 93 and r[2] >= 11 and r[3] <= 81 and r != (93, 163, 11, 81)]


def test_renamed_copy_is_found_by_shape_and_counted():
    a = list(range(100, 120))
    exact_a, exact_b = [x * 10 for x in a], [x * 10 + (1 if i % 5 == 0 else 0) for i, x in enumerate(a)]
    b0, b1, a0, a1, renamed = segments([a, a], exact=[exact_a, exact_b], periodic=True)
    assert (b0.tolist(), a0.tolist(), (b1 - b0).tolist(), renamed.tolist()) == ([20], [0], [20], [4])


def test_runs_of_alike_statements_are_not_copies_of_themselves():
    rep = [1, 2, 3] * 10
    b0, _, a0, _, _ = segments([rep])
    assert len(b0) and ((b0 - a0) >= W).all()  # never a window paired with one it overlaps
    assert len(segments([rep, rep], periodic=True)[0]) == 0  # by shape, a periodic stretch matches nothing


def test_copy_with_an_insertion_chains_into_a_near_miss():
    a = list(range(100, 140))
    b = a[:20] + [1, 2] + a[20:]
    b0, b1, a0, a1, renamed = segments([a, b])
    assert len(b0) == 2
    fo = np.asarray([0] * 40 + [1] * 42)
    near, _ = chain(b0, b1, a0, a1, renamed, fo[b0], fo[a0], max_gap=4, min_similarity=0.8, width=W)
    assert (near.b0.tolist(), near.b1.tolist(), near.a0.tolist(), near.a1.tolist()) == ([40], [82], [0], [40])
    assert near.gaps.tolist() == [1] and near.matched.tolist() == [40]
    apart, _ = chain(b0, b1, a0, a1, renamed, fo[b0], fo[a0], max_gap=1, min_similarity=0.8, width=W)
    assert len(apart) == 2 and apart.gaps.tolist() == [0, 0]
    strict, _ = chain(b0, b1, a0, a1, renamed, fo[b0], fo[a0], max_gap=4, min_similarity=0.99, width=W)
    assert len(strict) == 2


def test_hash_collisions_are_dropped_by_verification(monkeypatch):
    import gpubatch.analyze.clones.detect as d

    def colliding(xp, prefix, ipw, starts, ends, width):
        pos, h = window_hashes(xp, prefix, ipw, starts, ends, width)
        return pos, np.zeros_like(h)  # every window "equal"

    monkeypatch.setattr(d, "window_hashes", colliding)
    assert len(segments([list(range(10)), list(range(50, 60))])[0]) == 0


def test_long_families_of_shifted_segments_thin_to_one_copy_or_none():
    # segments (b0, b1, a0, a1), each a shift of the one before by 3 nodes: 12 in one file, 12 across two files,
    # and 3 in one file (a stretch copied three times in a row stays)
    fo = np.repeat(np.arange(4), 1000)
    one = [(100 + 3 * k, 400, 100, 400 - 3 * k) for k in range(1, 13)]
    two = [(1000 + 3 * k, 1400, 2000, 2400 - 3 * k) for k in range(12)]
    few = [(3100 + 3 * k, 3400, 3100, 3400 - 3 * k) for k in range(1, 4)]
    b0, b1, a0, a1 = (np.asarray(x) for x in zip(*(one + two + few)))
    drop = shifted_runs(np, fo, b0, b1, a0, a1)
    assert drop[:12].all() and drop[12:24].tolist() == [False] + [True] * 11 and not drop[24:].any()


def test_a_run_of_one_statement_is_no_copy_of_itself_and_stays_cheap():
    rep = [1, 2, 3] * 20_000  # 60,000 nodes: compared pair by pair its shifted copies would be ~6e8 nodes
    b0, b1, _, _, _ = segments([rep])
    assert len(b0) <= 1 and (b1 - b0 < 3 * 3).all()  # at most the first shift, a copy under 3 periods long
    b0, b1, a0, a1, _ = segments([rep, [9] + rep])  # in two files: the run's one copy, and short shifts
    rows = list(zip(b0.tolist(), b1.tolist(), a0.tolist(), a1.tolist()))
    assert (60_001, 120_001, 0, 60_000) in rows and all(r[1] - r[0] < 9 for r in rows if r[0] != 60_001 or r[2])


def test_verify_in_slices_equals_one_pass(monkeypatch):
    import gpubatch.analyze.clones.detect as d

    shape, exact = np.arange(1000) % 7, np.arange(1000) % 5
    b0 = np.arange(0, 600, 37)
    b1 = b0 + np.arange(len(b0)) % 9 + 20
    a0 = b0 + 35
    whole = verify(np, shape, exact, b0, b1, a0)
    monkeypatch.setattr(d, "CHUNK", 50)
    sliced = verify(np, shape, exact, b0, b1, a0)
    assert all(np.array_equal(x, y) for x, y in zip(whole, sliced))
