"""Batch sizer growth, memory caps and OOM ceilings; the content-keyed device cache."""
import numpy as np

from gpubatch.engine.memory import DeviceCache
from gpubatch.engine.sizer import BatchSizer


def test_grows_while_throughput_rises_then_settles():
    s = BatchSizer(4, 1, 1024)
    s.observe(4, 1.0)          # 4 items/s
    assert s.next_size() == 8
    s.observe(8, 1.0)          # 8 items/s: better
    assert s.next_size() == 16
    s.observe(16, 4.0)         # 4 items/s: worse -> back to best and stay
    assert s.next_size() == 8
    s.observe(8, 0.01)
    assert s.next_size() == 8


def test_bounds_and_memory_cap():
    s = BatchSizer(5000, 16, 1000)
    assert s.next_size() == 1000
    s.bytes_per_item = 1000
    assert s.next_size(free_bytes=100_000) == 80  # 0.8 of 100 kB / 1 kB
    assert s.next_size(free_bytes=10) == 16      # never below min


def test_oom_caps_below_failed_size():
    s = BatchSizer(64, 1, 1024)
    s.on_oom(64)
    assert s.next_size() == 32
    s.observe(32, 0.001)
    assert s.next_size() == 32


def test_measured_bytes_per_item():
    s = BatchSizer(10, 1, 100)
    s.observe(10, 1.0, bytes_used=5000)
    assert s.bytes_per_item == 500


def test_static_sizer_never_moves():
    s = BatchSizer(7, 1, 100, dynamic=False)
    s.observe(7, 1.0)
    s.observe(7, 0.1)
    assert s.next_size() == 7


def test_cache_hits_by_content_and_evicts_lru():
    uploads = []

    def up(a):
        uploads.append(a)
        return a.copy()

    c = DeviceCache(2)
    a, b, d = np.arange(4), np.arange(5), np.arange(6)
    c.get(a, up)
    c.get(np.arange(4), up)  # same content, another object
    assert len(uploads) == 1 and c.hits == 1
    c.get(b, up)
    c.get(d, up)  # evicts a
    c.get(a, up)
    assert len(uploads) == 4 and len(c) == 2


def test_cache_byte_limit():
    c = DeviceCache(100, max_bytes=100)
    for i in range(10):
        c.get(np.full(5, i, dtype=np.int64), lambda x: x)  # 40 bytes each
    assert c.bytes <= 100 and len(c) == 2


def test_cache_too_large_is_uploaded_unhashed(monkeypatch):
    """An array over the byte limit can never be a hit: it is uploaded without hashing its bytes."""
    import gpubatch.engine.memory as memory

    keyed = []
    monkeypatch.setattr(memory, "content_key", lambda a: keyed.append(a) or (a.tobytes(), a.shape, a.dtype.str))
    c = DeviceCache(100, max_bytes=100)
    big = np.zeros(50, np.int64)  # 400 bytes
    assert c.get(big, lambda x: x.copy()) is not big
    assert keyed == [] and len(c) == 0 and c.misses == 1
    c.get(np.zeros(5, np.int64), lambda x: x)
    assert len(keyed) == 1 and len(c) == 1
