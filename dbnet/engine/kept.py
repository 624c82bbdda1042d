"""A small memo of the last few values made, shared between threads."""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


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


class KeptFor(Generic[T, V]):
    """The values made for the last ``size`` objects (each with a key beside it), by the
    object's identity: for immutable objects that are costly to hash or compare, such as a
    game's setup. Each entry holds its object, so that its id is not reused while it is
    kept, and an equal but distinct object finds nothing."""

    def __init__(self, size: int) -> None:
        self._kept = Kept[tuple[int, Hashable], tuple[T, V]](size)

    def get(self, obj: T, key: Hashable = None) -> V | None:
        kept = self._kept.get((id(obj), key))
        return kept[1] if kept is not None and kept[0] is obj else None

    def put(self, obj: T, value: V, key: Hashable = None) -> None:
        self._kept.put((id(obj), key), (obj, value))

    def __len__(self) -> int:
        return len(self._kept)
