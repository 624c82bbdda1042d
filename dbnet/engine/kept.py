"""A small memo of the last few values made, shared between threads."""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The last ``size`` values put, by key; the oldest goes first. Reads take no lock (a
    dict lookup is atomic); puts do, since games may start in several threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: dict[K, V] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        return self._values.get(key)

    def put(self, key: K, value: V) -> None:
        with self._lock:
            if len(self._values) >= self.size:
                del self._values[next(iter(self._values))]  # dicts keep insertion order
            self._values[key] = value

    def __len__(self) -> int:
        return len(self._values)
