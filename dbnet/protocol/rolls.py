"""The dice of a log: a roll, and the chain links an entry gives for the rolls the game
waits for (docs/protocol.md, "Dice"): where they come from (the entry, or its author's
own chain) and the check of each against its author's chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from dbnet.engine import Player
from dbnet.errors import DbnetError
from dbnet.protocol import dice
from dbnet.protocol.errors import InvalidEntryError

MAX_DICE = 1000  # no real roll comes near; a hostile setup must not exhaust memory


@dataclass(frozen=True, slots=True)
class Roll:
    """A roll of the game: its index, the engine's purpose and the dice."""

    index: int
    kind: str
    dice: tuple[int, ...]


class LinkSource(Protocol):
    """Where an entry's links come from: the entry itself, or the author's own chain."""

    def take(self, roll: int) -> tuple[bytes, bytes | None] | None:
        """The author's link for ``roll`` and, when it ends a generation, the next anchor;
        None when there is none to give for that roll."""
        ...

    def leftover(self) -> str | None:
        """What the entry holds that was not used (a reason), or None."""
        ...


class EntryLinks:
    """The links (and next anchor) an entry carries, handed out in roll order."""

    __slots__ = ("_anchor", "_length", "_next", "_pairs")

    def __init__(
        self, pairs: Sequence[tuple[int, bytes]], next_anchor: bytes | None, length: int
    ) -> None:
        self._pairs = pairs
        self._next = 0  # the first pair not yet taken
        self._anchor = next_anchor
        self._length = length

    def take(self, roll: int) -> tuple[bytes, bytes | None] | None:
        pairs, i = self._pairs, self._next
        if i == len(pairs) or pairs[i][0] != roll:
            return None
        self._next = i + 1
        link = pairs[i][1]
        if (roll + 1) % self._length:
            return link, None
        anchor, self._anchor = self._anchor, None
        return link, anchor

    def leftover(self) -> str | None:
        if self._next < len(self._pairs):
            roll = self._pairs[self._next][0]
            return f"link for roll {roll} is not due (before its arming entry, or out of order)"
        if self._anchor is not None:
            return "next chain anchor comes without the last link of a generation"
        return None


def check_link(
    chain: dice.ChainVerifier,
    length: int,
    seq: int,
    author: Player,
    k: int,
    given: tuple[bytes, bytes | None],
    record: bytes,
) -> bytes:
    """``author``'s link for roll ``k`` given in entry ``seq`` (and the next anchor, which
    comes with the link for the last roll of each generation of ``length``), checked
    against the author's ``chain``, which takes the anchor: the link."""
    link, next_anchor = given
    try:
        chain.check(k, link)
    except DbnetError as exc:
        raise InvalidEntryError(seq, f"{author.name}'s link for roll {k}: {exc}", record) from exc
    ends_generation = (k + 1) % length == 0
    if ends_generation != (next_anchor is not None):
        need = "must" if ends_generation else "may only"
        raise InvalidEntryError(
            seq, f"{author.name}'s next chain anchor {need} come with the link for the "
            "last roll of a generation", record
        )  # fmt: skip
    if next_anchor is not None:
        try:
            chain.add_anchor((k + 1) // length, next_anchor)
        except DbnetError as exc:
            raise InvalidEntryError(seq, f"{author.name}'s next anchor: {exc}", record) from exc
    return link
