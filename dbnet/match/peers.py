"""Both players on one machine: how local games (against a bot, hotseat, selfplay) run
through the same signed log, and the same driver, as network games, so every game leaves
a verifiable replay."""

from __future__ import annotations

import secrets as random_bytes
from collections.abc import Callable
from typing import Self

from dbnet.engine import Choice, Game, GameSetup, Player, format_choice
from dbnet.match.driver import Driver
from dbnet.protocol import dice
from dbnet.protocol.errors import LocalProtocolError
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog
from dbnet.protocol.peer import Peer
from dbnet.protocol.remote import RemoteGame
from dbnet.wire.setup import EncodedSetup

Chooser = Callable[[Game], str | Choice]
"""Given the deciding player's view of the game, a decision: in notation, or a choice
(the match writes its notation, and the log applies the choice without parsing it)."""

RecordSink = Callable[[bytes], None]
Attach = Callable[[GameLog], None]
"""Given A's log before its entries are applied: sets its teller (``match.story``)."""


def _keep_nothing(record: bytes) -> None:
    """B's copy of each record: the replay file holds A's, which is the same."""


class LocalMatch(Driver):
    """A game between two sides in this process: every record one side writes is checked
    by the other at once; ``on_record`` receives each record once, in order (to save the
    replay)."""

    def __init__(
        self,
        setup: GameSetup | EncodedSetup,
        identities: tuple[Identity, Identity],
        *,
        secrets: tuple[bytes, bytes] | None = None,
        nonce: bytes | None = None,
        joiner_nonce: bytes | None = None,
        chain_length: int | None = None,
        on_record: RecordSink | None = None,
        names: tuple[str, str] = ("A", "B"),
        attach: Attach | None = None,
    ) -> None:
        """``secrets`` (the players' chain secrets) and the nonces (A's and B's) fix the dice
        and the game id; fresh random ones are drawn when they are not given. ``names``
        (A's, B's) are signed in the OFFER and the ACCEPT. ``attach`` is called with A's
        log (``log``) before anything but the OFFER is applied to it: to set its teller."""
        if secrets is None:
            secrets = (random_bytes.token_bytes(32), random_bytes.token_bytes(32))
        a = RemoteGame.offer(
            identities[0],
            identities[1].public_key,
            setup,
            on_record or _keep_nothing,
            nonce=random_bytes.token_bytes(32) if nonce is None else nonce,
            joiner_nonce=random_bytes.token_bytes(32) if joiner_nonce is None else joiner_nonce,
            chain_length=dice.DEFAULT_CHAIN_LENGTH if chain_length is None else chain_length,
            secret=secrets[0],
            name=names[0],
        )
        if attach is not None:
            attach(a.log)
        b = RemoteGame.accept(
            identities[1], a.records[0], _keep_nothing, secret=secrets[1], name=names[1]
        )
        a.receive(b.records[1])
        super().__init__((a, b))

    @classmethod
    def restore(
        cls,
        identities: tuple[Identity, Identity],
        secrets: tuple[bytes, bytes],
        records: list[bytes],
        *,
        on_record: RecordSink | None = None,
        attach: Attach | None = None,
        names: tuple[str, str],
    ) -> Self:
        """The match of a replay's ``records`` (its OFFER first), to go on with: each side
        checks every record again, and ``on_record`` gets only what is written from here
        (an ACCEPT that never made it to the file first, signing B's name in ``names``, as
        a new match would). ``attach`` is called with A's log before the records after the
        OFFER are applied to it (to tell them as they are).

        Raises:
            DbnetError: a record is invalid, or the identities and secrets are not the
                ones the game was started with.
        """
        if not records:
            raise LocalProtocolError("the replay holds no entries: there is no game to resume")
        sink = on_record or _keep_nothing
        a = RemoteGame.restore(
            identities[0],
            list(records),
            sink,
            secret=secrets[0],
            attach=None if attach is None else lambda log, me: attach(log),
        )
        b = RemoteGame.restore(
            identities[1], list(records), _keep_nothing, secret=secrets[1], name=names[1]
        )
        if len(b.records) > len(a.records):  # the file ended before B's ACCEPT: B accepted
            a.receive(b.records[-1])
        match = cls.__new__(cls)
        Driver.__init__(match, (a, b))
        return match

    @property
    def peers(self) -> tuple[Peer, Peer]:
        """Both players' peers (A's, B's)."""
        return self.sides[Player.A].peer, self.sides[Player.B].peer

    def view(self, player: Player) -> Game:
        """The game as ``player`` sees it (the dice their own due links complete rolled)."""
        return self.sides[player].peer.view()

    def step(self, choose: Chooser) -> bytes:
        """Write the entry due, asking ``choose`` for the decision when one is due, on the
        log's own game once the author's due links are in (``Driver.play``): ``choose``
        must decide at once and change nothing."""
        author = self.next_author
        if author is None:
            raise LocalProtocolError("the game's log is closed")

        def decide(view: Game) -> tuple[str, Choice | None]:
            decision = choose(view)
            if isinstance(decision, str):
                return decision, None
            return format_choice(view, decision), decision

        side = self.sides[author]  # both players are played here
        return self._deliver(side, side.play(decide))
