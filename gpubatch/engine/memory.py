"""Device memory manager: a content-keyed LRU cache of device arrays.

Data used by several ops in one run (task grids, AST arrays) is copied to the GPU once: the key is a hash of
the host array's bytes, shape and dtype, so equal content shares one device copy.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Callable

import numpy as np


def content_key(a: np.ndarray) -> tuple:
    """Key of an array by value: blake2b of its bytes, with shape and dtype."""
    digest = hashlib.blake2b(np.ascontiguousarray(a).data, digest_size=16).digest()
    return (digest, a.shape, a.dtype.str)


class DeviceCache:
    """LRU of device arrays, bounded by entry count and by bytes."""

    def __init__(self, max_entries: int, max_bytes: int | None = None) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple, Any] = OrderedDict()
        self.bytes = 0
        self.hits = 0
        self.misses = 0

    def get(self, host: np.ndarray, upload: Callable[[np.ndarray], Any]) -> Any:
        """The device copy of `host`, uploading it on a miss and evicting least-recently used entries. An array
        too large to keep is never in the cache: it is uploaded without hashing its bytes."""
        if self.max_bytes is not None and host.nbytes > self.max_bytes:
            self.misses += 1
            return upload(host)
        key = content_key(host)
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
            self.hits += 1
            return found
        self.misses += 1
        dev = upload(host)
        self._items[key] = dev
        self.bytes += host.nbytes
        while len(self._items) > self.max_entries or (self.max_bytes is not None and self.bytes > self.max_bytes):
            _, old = self._items.popitem(last=False)
            self.bytes -= old.nbytes
        return dev

    def clear(self) -> None:
        self._items.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)
