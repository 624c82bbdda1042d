"""Copying the engine's mutable records field by field, as a table says.

Each record that a copy of a game must not share (the state, a combat, a roll)
names every one of its fields in a table with the way it is copied, and takes
its ``__slots__`` from that table: a field cannot exist without a rule, so a
new one can't be silently shared between a copy and its original.
``tests/engine/test_copy.py`` checks that no copy shares anything mutable.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping


class Copy(enum.Enum):
    """How a field is copied."""

    SHARE = enum.auto()
    """Never changed in place (an int, enum, bool, tuple, frozen record, None): shared."""
    LIST = enum.auto()
    """A list (or array) of immutable items: a shallow copy."""
    ROWS = enum.auto()
    """A list of lists of immutable items: each inner list copied."""
    DICT = enum.auto()
    """A dict of immutable keys and values: a shallow copy."""
    CLONE = enum.auto()
    """None, or a record with a ``clone`` method: cloned."""
    CLONES = enum.auto()
    """A list of records with a ``clone`` method: each cloned."""
    CACHE = enum.auto()
    """Worked out from the rest on demand: the copy starts without it (None)."""
    DERIVED = enum.auto()
    """Made again from the copied fields by the record itself, after ``CopyPlan.copy``."""


class CopyPlan:
    """A record's fields grouped by how they are copied, one loop per way."""

    __slots__ = ("cache", "clone", "clones", "dicts", "lists", "rows", "share")

    def __init__(self, fields: Mapping[str, Copy]) -> None:
        def named(how: Copy) -> tuple[str, ...]:
            return tuple(name for name, rule in fields.items() if rule is how)

        self.share = named(Copy.SHARE)
        self.lists = named(Copy.LIST)
        self.rows = named(Copy.ROWS)
        self.dicts = named(Copy.DICT)
        self.clone = named(Copy.CLONE)
        self.clones = named(Copy.CLONES)
        self.cache = named(Copy.CACHE)

    def copy(self, source: object, target: object) -> None:
        """Set every field of ``target`` but the derived ones from ``source``."""
        for name in self.share:
            setattr(target, name, getattr(source, name))
        for name in self.lists:
            setattr(target, name, getattr(source, name)[:])
        for name in self.rows:
            setattr(target, name, [row[:] for row in getattr(source, name)])
        for name in self.dicts:
            setattr(target, name, getattr(source, name).copy())
        for name in self.clone:
            value = getattr(source, name)
            setattr(target, name, None if value is None else value.clone())
        for name in self.clones:
            setattr(target, name, [item.clone() for item in getattr(source, name)])
        for name in self.cache:
            setattr(target, name, None)
