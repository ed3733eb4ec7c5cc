"""Places of clone groups: a group's copies have one extent (a piece of a function is not a member beside the
function's whole copies), a piece is found in every copy of the whole, nested and repeated groups are left out."""
import numpy as np

from gpubatch.analyze.clones.detect import Segments
from gpubatch.analyze.clones.groups import CloneGroup, Member, covering
from gpubatch.analyze.clones.places import _places_at, _project, drop_nested, near
from gpubatch.analyze.clones.trim import same_keys

from .test_duplicates import places, run

HEAD = """    total = 0
    for item in items:
        if item.weight > limit:
            total += item.weight * 2
        else:
            total -= item.weight
"""
PIECE = """    names = sorted(x.name for x in items if x.visible)
    report = {"names": names, "count": len(names), "first": names[0] if names else None}
    log.info("report %s with %d names", report["first"], report["count"])
"""
TAIL = """    while total > 100:
        total = total // 3 + len(items)
        if total % 7 == 0:
            break
    return total, report
"""
WHOLE = "def build(items, limit, log):\n" + HEAD + PIECE + TAIL


def test_a_piece_is_a_group_of_its_own_found_in_every_copy_of_the_whole(tmp_path):
    files = {"a.py": WHOLE, "b.py": "def other(items, log):\n    print(len(items))\n" + PIECE + "    return report\n",
             "c.py": "import os\n\n\n" + WHOLE.replace("build", "make"), "d.py": "\n" + WHOLE.replace("build", "third")}
    whole, piece = run(tmp_path, files).duplicates
    assert places(whole) == [("a.py", 1, 15), ("c.py", 4, 18), ("d.py", 2, 16)]
    # d's copy of the piece lies inside its copy of the whole, matched against a.py as a whole: carried over.
    # The piece's lines exactly: its renamed match, grown back by one name (`item`, `items`) into the line
    # before, does not report that line
    assert places(piece) == [("a.py", 8, 10), ("b.py", 3, 5), ("c.py", 11, 13), ("d.py", 9, 11)]


def test_a_segment_inside_another_of_the_same_two_files_is_dropped():
    seg = Segments(*(np.asarray(x, np.int64) for x in (
        [100, 104, 100, 130], [140, 120, 140, 150], [0, 4, 0, 60], [40, 20, 40, 80], [40, 16, 40, 20],
        [3, 0, 0, 0], [0, 0, 0, 0])))
    file_of = np.repeat([0, 1], 100)
    kept = drop_nested(seg, file_of)
    # the second lies inside the first on both sides; the third repeats it; the fourth is elsewhere
    assert kept.b0.tolist() == [100, 130] and kept.renamed.tolist() == [3, 0]


def test_same_keys_compares_every_pair_of_ranges_at_once():
    key = np.asarray([1, 2, 3, 1, 2, 4, 1, 2, 3], np.uint64)
    same = same_keys(key, np.asarray([0, 0, 0, 2]), np.asarray([6, 3, 3, 2]), np.asarray([3, 3, 2, 0]))
    assert same.tolist() == [True, False, True, True]


def _group(kind, *spans):
    return CloneGroup(kind, 1.0, tuple(Member(p, a, b, 20) for p, a, b in spans))


def test_a_group_held_by_an_at_least_as_exact_one_is_left_out():
    big = _group(2, ("a.py", 1, 9), ("b.py", 1, 9), ("c.py", 5, 13))
    groups = [big, _group(2, ("a.py", 1, 9), ("c.py", 5, 13)), _group(1, ("a.py", 1, 9), ("b.py", 1, 9)),
              _group(3, ("b.py", 1, 9), ("c.py", 5, 13)), _group(2, ("a.py", 1, 9), ("d.py", 1, 9)), big]
    kept = covering(groups)
    # the renamed pair and the near-miss pair say nothing more; the exact pair is more exact; d.py is new
    assert [(g.kind, [m.path for m in g.members]) for g in kept] == [
        (2, ["a.py", "b.py", "c.py"]), (1, ["a.py", "b.py"]), (2, ["a.py", "d.py"])]


def test_a_file_with_a_copy_inside_it_copied_many_times_makes_one_group_of_each(tmp_path):
    module = WHOLE + "\n\ndef again(items, limit):\n" + HEAD + "    return total\n"
    res = run(tmp_path, {f"m{k}.py": module for k in range(8)})
    head, whole = res.duplicates
    assert places(whole) == [(f"m{k}.py", 1, 25) for k in range(8)]
    # each file's two places of the head, in every copy: one group, not one per few neighbouring copies
    assert places(head) == [(f"m{k}.py", a, b) for k in range(8) for a, b in ((1, 7), (18, 24))]


def test_a_segment_inside_another_on_another_diagonal_stays():
    # files 0 and 1: the whole of 0 copied in 1 (diagonal 100), and 0's nodes 10-30 again at 1's 60-80
    seg = Segments(*(np.asarray(x, np.int64) for x in (
        [100, 160, 110], [200, 180, 130], [0, 10, 10], [100, 30, 30], [100, 20, 20], [0, 0, 0], [0, 0, 0])))
    kept = drop_nested(seg, np.repeat([0, 1], 100))
    assert kept.b0.tolist() == [100, 160]


def test_places_of_one_stretch_inside_a_longer_place_are_one_copy():
    # places 1 and 2 are the same stretch (of two segments), both inside place 0; place 3 overlaps them little
    n0, n1 = np.asarray([0, 10, 10, 15]), np.asarray([100, 30, 30, 40])
    a, b = near(n0, n1, np.zeros(100, np.int64))
    assert sorted(zip(a.tolist(), b.tolist())) == [(2, 1)]


def test_a_piece_is_carried_through_the_aligned_copy_around_it_not_a_near_miss_reaching_further():
    # segments, copy side first (place k and k + 3): 0 a near-miss [0, 100) of file A with [1000, 1100); 1 a
    # verbatim [20, 40) of A with [2000, 2020); 2 a piece [25, 30) of A with [3000, 3005)
    n0 = np.array([1000, 2000, 3000, 0, 20, 25])
    n1 = np.array([1100, 2020, 3005, 100, 40, 30])
    seg_of = np.array([0, 1, 2, 0, 1, 2])
    plain = np.array([False, True, True])
    p0, p1, src, through, off = _project(n0, n1, plain[seg_of], seg_of, np.array([3, 4, 5, 0, 1, 2]), np.arange(6))
    # the piece goes to the verbatim copy's other place, at its offset there; nothing goes through the near-miss
    assert (p0.tolist(), p1.tolist(), src.tolist(), through.tolist(), off.tolist()) == ([2005], [2010], [5], [1], [5])


CODEC_TAIL = """        encode=Codec().encode,
        decode=Codec().decode,
        incrementalencoder=IncrementalEncoder,
        incrementaldecoder=IncrementalDecoder,
        streamreader=StreamReader,
        streamwriter=StreamWriter,
    )
"""
MULTIBYTE = """import codecs
codec = codecs.lookup('a{k}')


class Reader(codecs.StreamReader):
    size = {k}

    def read(self, data, final=False):
        return self.codec.decode(data, {k}, final)[0]


def getregentry():
    return codecs.CodecInfo(
        name='a{k}',
""" + CODEC_TAIL
CHARMAP = """import codecs


def table(n):
    rows = []
    for i in range(n):
        rows.append(i * 2 + {k})
{extra}    return dict(enumerate(rows))


def getregentry():
    return codecs.CodecInfo(
        name='b{k}',
""" + CODEC_TAIL


def test_a_piece_of_a_hub_copy_and_of_near_misses_is_found_in_every_copy(tmp_path):
    # the a files are renamed copies of a0 (each matched against it, the first of its windows), the b files
    # near-misses of one another (every other one has a line more); both end in the same verbatim call,
    # which pylint reports between any a and any b (as in CPython's encodings/)
    files = {f"a{k}.py": MULTIBYTE.format(k=k) for k in range(8)}
    files.update({f"b{k}.py": CHARMAP.format(k=k, extra="    rows.sort()\n" * (k % 2)) for k in range(8)})
    groups = run(tmp_path, files).duplicates
    (tail,) = [g for g in groups if ("a5.py", 15, 21) in places(g)]
    assert tail.kind_name == "exact" and places(tail) == [(f"a{k}.py", 15, 21) for k in range(8)] + [
        (f"b{k}.py", 14 + k % 2, 20 + k % 2) for k in range(8)]


TABLE = ["    rows = []", "    for i in range(n):", "        rows.append(i * 2)", "    rows.sort()",
         "    total = sum(rows) + len(rows)", "    rows.insert(0, total)", "    seen = set(rows)",
         "    rows = [r for r in rows if r % 3]", "    return dict(enumerate(rows)), seen"]


def test_a_piece_inside_near_misses_is_carried_through_their_aligned_pieces(tmp_path):
    # c0..c5 are near-misses of one another (each lacks another line of its table), so their own copies of
    # the call are pieces of those near-misses; d.py's call matches c0's: every c file's copy is in its group
    head = "import codecs\n\n\ndef table(n):\n"
    call = "\n\n\ndef getregentry():\n    return codecs.CodecInfo(\n        name='x',\n" + CODEC_TAIL
    files = {f"c{k}.py": head + "\n".join(t for i, t in enumerate(TABLE) if i != 3 + k % 5) + call for k in range(6)}
    files["d.py"] = "import codecs\n\n\ndef other():\n    print('other')\n    return codecs.CodecInfo(\n" \
        "        name='d',\n" + CODEC_TAIL
    (tail,) = [g for g in run(tmp_path, files).duplicates if ("d.py", 8, 14) in places(g)]
    assert places(tail) == [(f"c{k}.py", 18, 24) for k in range(6)] + [("d.py", 8, 14)]

LOG_PIECE = """    names = sorted(x.name for x in items if x.visible)
    report = {"names": names, "count": len(names)}
    log.info("report %s", report["count"])
    log.debug("names %s", names)
    report["more"] = names[1:]
"""


def test_a_piece_carried_through_a_renamed_copy_is_a_renamed_copy_only_when_long_enough(tmp_path):
    x = "def build(items, limit, log):\n" + HEAD + LOG_PIECE + TAIL
    y = x.replace("names", "labels").replace("report", "summary").replace("build", "other")
    z = "def other(items, log):\n    print(len(items))\n" + LOG_PIECE + "    return report\n"
    files = {"x.py": x, "y.py": y, "z.py": z}
    whole = ("renamed", [("x.py", 1, 17), ("y.py", 1, 17)])
    # the piece (42 nodes) in y, its names renamed, is a renamed copy where 24 nodes make one
    assert [(g.kind_name, places(g)) for g in run(tmp_path / "a", files).duplicates] == [
        whole, ("renamed", [("x.py", 8, 12), ("y.py", 8, 12), ("z.py", 3, 7)])]
    # and not where a renamed copy needs 60: x's and z's verbatim piece is a group of its own
    assert [(g.kind_name, places(g)) for g in run(tmp_path / "b", files, min_nodes_renamed=60).duplicates] == [
        whole, ("exact", [("x.py", 8, 12), ("z.py", 3, 7)])]


def test_a_carried_place_already_there_is_that_place():
    n0, n1 = np.array([0, 50, 10]), np.array([20, 70, 15])
    dest, made = _places_at(n0, n1, np.array([50, 30, 10, 30, 40]), np.array([70, 35, 15, 35, 45]))
    # [30, 35) carried twice is one new place; [50, 70) and [10, 15) are places 1 and 2
    assert dest.tolist() == [1, 3, 2, 3, 4] and made.tolist() == [1, 4]


CHECKS = """def check_{name}(self, ndarray, flags):
    nd = ndarray({shape})
    mv = memoryview(nd)
    self.assertEqual(mv, nd)
    self.assertEqual(mv.nbytes, nd.nbytes * mv.itemsize)
    self.assertEqual(mv.ndim, len(nd.shape) + flags.extra)
    self.assertEqual(mv.readonly, not flags.writable)
    self.assertEqual(nd.tolist(), {items})
    return mv
"""


def test_a_copy_reports_the_same_lines_in_both_files(tmp_path):
    """The copy ends one node into a line that differs after it (`[]` against `[1, 1, 1]`): in the first file
    that line holds only copied nodes, in the other it does not, so both copies end on the line before, where
    their statements end alike (before, the first reported lines 3-8, the other 3-7)."""
    files = {"a.py": CHECKS.format(name="empty", shape="[1, 2, 3], shape=[0]", items="[]"),
             "b.py": CHECKS.format(name="ones", shape="[1], shape=[3], strides=[0]", items="[1, 1, 1]")}
    (group,) = run(tmp_path, files).duplicates
    assert places(group) == [("a.py", 3, 7), ("b.py", 3, 7)]
    assert [m.nodes for m in group.members] == [48, 48]


RECV = """def {name}(self, sock, size):
    self.serv_sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVHOPLIMIT, 1)
    self.serv_sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVTCLASS, 1)
    self.misc_event.set()
    self.check_flags(flags, eor=True, checkset=socket.MSG_CTRUNC)
    self.assertEqual(len(self.ancdata), self.expected_count + len(self.extra))
{tail}    return msg
"""


def test_a_copy_into_lines_broken_elsewhere_reports_the_same_lines(tmp_path):
    """The last statement's first arguments are copied, but its lines break in other places: both copies end
    with its first line (before, one ended with its first two: 1-7 against 1-8)."""
    files = {"a.py": RECV.format(name="first", tail="    msg, ancdata, flags, addr = self.doRecvmsg(self.serv_sock,\n"
                                                       "                                               len(MSG), size)\n"),
             "b.py": RECV.format(name="second", tail="    msg, ancdata, flags, addr = self.doRecvmsg(\n"
                                                        "        self.serv_sock, len(MSG),\n"
                                                        "        socket.CMSG_SPACE(SIZEOF_INT) - 1)\n")}
    (group,) = run(tmp_path, files).duplicates
    assert places(group) == [("a.py", 1, 7), ("b.py", 1, 7)]
