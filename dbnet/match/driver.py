"""The one driver of a game, sans-IO: what this process owes next, writing it, and the
records of the other side.

A ``Driver`` holds the sides this process writes for (``RemoteGame``: one player's signed
log, chain and records): both players' on one machine (a bot game, hotseat, selfplay),
one player's in a network game. ``due()`` says what this process owes next: a decision of
one of its players (with the game as that player sees it, to decide on), or an entry
that needs no one's decision (a chain link, FINAL, COSIGN); ``write()`` writes it. A
record written by one local side is handed to the other local side at once; over the
network, ``receive()`` takes the peer's records and the transport sends ``records``.

Who decides (a person at a prompt, a bot, the peer across the network) is the front
end's business: the driver never waits and never asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dbnet.engine import Choice, Game, Player
from dbnet.protocol.errors import LocalProtocolError
from dbnet.protocol.log import Decide, GameLog
from dbnet.protocol.remote import RemoteGame
from dbnet.wire.entries import Entry, SignedEntry


@dataclass(frozen=True, slots=True)
class Due:
    """What this process owes next: ``player``'s entry; with ``view`` (the game as that
    player sees it), a decision to make on it, else an entry no one decides."""

    player: Player
    view: Game | None


class Driver:
    """A game written by this process's sides (one or both players)."""

    def __init__(self, sides: Sequence[RemoteGame]) -> None:
        if not 1 <= len(sides) <= 2 or len({side.me for side in sides}) != len(sides):
            raise LocalProtocolError("a game is driven for one player or for both")
        self.sides: dict[Player, RemoteGame] = {side.me: side for side in sides}
        self._first = sides[0]

    @property
    def log(self) -> GameLog:
        """The signed log (every side holds the same one, entry for entry)."""
        return self._first.log

    @property
    def records(self) -> list[bytes]:
        """Every record of the game so far, in order."""
        return self._first.records

    @property
    def next_author(self) -> Player | None:
        """Who writes the next entry (None once the log is closed)."""
        return self.log.expected_author()

    @property
    def is_closed(self) -> bool:
        return self.next_author is None

    def due(self) -> Due | None:
        """What this process owes next, or None (the peer owes it, or the log is closed).

        The view is the player's own copy to think on, anywhere, for as long as it takes
        (``play`` decides at once instead, on the log's own game)."""
        author = self.next_author
        side = self.sides.get(author) if author is not None else None
        if side is None:
            return None
        return Due(side.me, side.decision_view())

    def write(self, decision: str | None = None, choice: Choice | None = None) -> bytes:
        """Write the entry due (``decision`` in notation when a decision is due; ``choice``,
        the same decision parsed on the due view, spares parsing it again) and hand it to
        the other local side, if there is one.

        Raises:
            LocalProtocolError: this process owes nothing now, or ``decision`` is missing
                when a decision is due (or given when none is).
            InvalidEntryError: the decision is illegal (nothing is written).
        """
        side = self._due_side()
        return self._deliver(side, side.write(decision, choice))

    def play(self, decide: Decide) -> bytes:
        """Write the entry due, its decision (if one is due) made by ``decide`` at once on
        the log's own game (``RemoteGame.play``), and hand it to the other local side.

        Raises:
            LocalProtocolError: this process owes nothing now.
            InvalidEntryError: the decision is illegal (nothing is written).
        """
        side = self._due_side()
        return self._deliver(side, side.play(decide))

    def resign(self, player: Player) -> bytes:
        """``player`` resigns in their due decision (after the link they owe first, if
        any); FINAL and COSIGN follow. Returns the last record written.

        Raises:
            LocalProtocolError: ``player`` is not played here, or it is not their entry,
                or the entry due is only a link that hands the turn to the other player.
        """
        side = self.sides.get(player)
        if side is None:
            raise LocalProtocolError(f"{player.name} is not played here")
        held = len(side.records)
        last = side.resign()
        for record in side.records[held:]:
            self._deliver(side, record)
        return last

    def receive(self, record: bytes, decoded: tuple[SignedEntry, Entry] | None = None) -> bool:
        """A record from the peer over the network (see ``RemoteGame.receive``, with the
        peer live; ``decoded``, the record decoded, if the caller has it): True if it was
        new.

        Raises:
            LocalProtocolError: both players are played here: there is no peer.
            InvalidEntryError, EquivocationError: see ``RemoteGame.receive``.
        """
        if len(self.sides) != 1:
            raise LocalProtocolError("both players are played here: there is no peer")
        return self._first.receive(record, live=True, decoded=decoded)

    def _due_side(self) -> RemoteGame:
        author = self.next_author
        if author is None:
            raise LocalProtocolError("the game's log is closed: no entry to write")
        side = self.sides.get(author)
        if side is None:
            raise LocalProtocolError(f"{author.name} writes next, and is not played here")
        return side

    def _deliver(self, author: RemoteGame, record: bytes) -> bytes:
        for side in self.sides.values():
            if side is not author:
                side.receive(record)
        return record
