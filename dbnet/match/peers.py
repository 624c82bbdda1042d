"""Two peers in one process: how local games (against a bot, hotseat, selfplay) run
through the same signed log as network games, so every game leaves a verifiable replay."""

from __future__ import annotations

from collections.abc import Callable

from dbnet.engine import ChanceRequest, Decision, Game, GameSetup, Player
from dbnet.protocol import dice
from dbnet.protocol.errors import LocalProtocolError
from dbnet.protocol.identity import Identity
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
        secrets: tuple[bytes, bytes] | None = None,
        nonce: bytes | None = None,
        joiner_nonce: bytes | None = None,
        chain_length: int | None = None,
        on_record: RecordSink | None = None,
    ) -> None:
        """``secrets`` (the players' chain secrets) and the nonces (A's and B's) fix the dice
        and the game id; fresh random ones are drawn when they are not given."""
        a, offer = Peer.offer(
            identities[0],
            identities[1].public_key,
            setup,
            chain_length=dice.DEFAULT_CHAIN_LENGTH if chain_length is None else chain_length,
            secret=None if secrets is None else secrets[0],
            nonce=nonce,
            joiner_nonce=joiner_nonce,
        )
        b, accept = Peer.accept(
            identities[1], offer, secret=None if secrets is None else secrets[1]
        )
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
            raise LocalProtocolError("the game's log is closed")
        peer = self.peers[author]
        if peer.log.status in (Status.FINAL_DUE, Status.COSIGN_DUE):
            return self._deliver(author, peer.finish())
        view = peer.view(copy=False)  # ``choose`` decides on it before anything changes
        pending = view.pending
        if isinstance(pending, Decision) and pending.player is author:
            return self._deliver(author, peer.decide(choose(view)))
        return self._deliver(author, peer.reveal())

    def resign(self, player: Player) -> bytes:
        """``player`` resigns in their due entry, after writing the links they owe, so that
        every roll they saw is in the log. The peers then owe FINAL and COSIGN."""
        peer = self.peers[player]
        if self.next_author is not player:
            raise LocalProtocolError(f"{player.name} cannot resign now: it is not their entry")
        if isinstance(peer.log.game.pending, ChanceRequest):
            self._deliver(player, peer.reveal())
        return self._deliver(player, peer.resign())

    def _deliver(self, author: Player, record: bytes) -> bytes:
        self.peers[author.other].receive(record)
        self.records.append(record)
        if self._on_record is not None:
            self._on_record(record)
        return record
