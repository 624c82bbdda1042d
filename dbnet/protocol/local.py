"""Two peers in one process: how local games (against a bot, hotseat, selfplay) run
through the same signed log as network games, so every game leaves a verifiable replay."""

from __future__ import annotations

from collections.abc import Callable

from dbnet import dice
from dbnet.engine import Decision, Game, GameSetup, Player
from dbnet.identity import Identity
from dbnet.protocol.log import Status
from dbnet.protocol.peer import Peer

Chooser = Callable[[Game], str]
"""Given the deciding player's view of the game, a decision in notation."""

RecordSink = Callable[[bytes], None]


class LocalMatch:
    """A game between two in-process peers; ``step`` writes and delivers one entry."""

    def __init__(
        self,
        setup: GameSetup,
        identities: tuple[Identity, Identity],
        *,
        chain_length: int | None = None,
        on_record: RecordSink | None = None,
    ) -> None:
        a, offer = Peer.offer(
            identities[0],
            identities[1].public_key,
            setup,
            chain_length=dice.DEFAULT_CHAIN_LENGTH if chain_length is None else chain_length,
        )
        b, accept = Peer.accept(identities[1], offer)
        a.receive(accept)
        self.peers = (a, b)
        self.records = [offer, accept]
        self._on_record = on_record
        if on_record is not None:
            on_record(offer)
            on_record(accept)

    @property
    def next_author(self) -> Player | None:
        return self.peers[Player.A].log.expected_author()

    @property
    def is_closed(self) -> bool:
        return self.next_author is None

    def view(self, player: Player) -> Game:
        return self.peers[player].view()

    def step(self, choose: Chooser) -> bytes:
        """Let the player who writes next write one entry (asking ``choose`` for a decision
        when they owe one) and deliver it to the other peer."""
        author = self.next_author
        if author is None:
            raise ValueError("the game's log is closed")
        peer, other = self.peers[author], self.peers[author.other]
        if peer.log.status in (Status.FINAL_DUE, Status.COSIGN_DUE):
            record = peer.finish()
        else:
            view = peer.view()
            pending = view.pending
            if isinstance(pending, Decision) and pending.player is author:
                record = peer.decide(choose(view))
            else:
                record = peer.reveal()
        other.receive(record)
        self.records.append(record)
        if self._on_record is not None:
            self._on_record(record)
        return record
