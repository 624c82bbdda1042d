"""One player's side of a game: it writes and signs its own entries and checks the
other player's, all through the same ``GameLog``. Sans-IO: records (bytes) in and
out, no sockets, no clock; the caller moves the bytes and saves them.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from dbnet.engine import ChanceRequest, Choice, EndReason, Game, GameSetup, Player
from dbnet.protocol import dice
from dbnet.protocol.errors import LocalProtocolError
from dbnet.protocol.genesis import RULES_VERSION as RULES_VERSION  # re-exported (net/)
from dbnet.protocol.genesis import game_id_for
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import Decide, GameLog, Status
from dbnet.wire.bodies import (
    AcceptBody,
    Body,
    ClaimBody,
    CosignBody,
    DisputeBody,
    EntryKind,
    FinalBody,
    OfferBody,
    PlayBody,
    ResignBody,
)
from dbnet.wire.entries import ZERO_HASH, Entry, SignedEntry
from dbnet.wire.setup import EncodedSetup
from dbnet.wire.versions import DISPUTE_VERSION, PROTOCOL_VERSION


class OwnLinks:
    """A LinkSource that hands out the writer's own chain links as rolls fall due."""

    def __init__(self, chain: dice.Chain, length: int) -> None:
        self._chain = chain
        self._length = length
        self.links: list[tuple[int, bytes]] = []
        self.anchor: bytes | None = None

    def take(self, roll: int) -> tuple[bytes, bytes | None] | None:
        link = self._chain.reveal(roll)
        self.links.append((roll, link))
        if (roll + 1) % self._length:
            return link, None
        self.anchor = self._chain.anchor((roll + 1) // self._length)
        return link, self.anchor

    def leftover(self) -> str | None:
        return None


class Peer:
    """A player in one game. Create with ``Peer.offer`` (A) or ``Peer.accept`` (B)."""

    def __init__(self, identity: Identity, me: Player, log: GameLog, chain: dice.Chain) -> None:
        """Raises LocalProtocolError if ``identity`` is not ``me``'s key in the game: the
        log does not check the signatures of the entries this peer writes."""
        if log.keys[me] != identity.public_key:
            raise LocalProtocolError(f"this identity is not {me.name}'s key in the game")
        self.identity = identity
        self.me = me
        self.log = log
        self.chain = chain
        self.reading: Callable[[], tuple[int, int]] | None = None
        """In a game with a clock: this player's reading of both clocks now, ``(A, B)`` in
        ms, which every entry it writes carries (the caller keeps time: ``dbnet.protocol.
        clock``)."""

    # --- genesis ------------------------------------------------------------------

    @classmethod
    def offer(
        cls,
        identity: Identity,
        peer_key: bytes,
        setup: GameSetup | EncodedSetup,
        *,
        chain_length: int = dice.DEFAULT_CHAIN_LENGTH,
        secret: bytes | None = None,
        nonce: bytes | None = None,
        joiner_nonce: bytes | None = None,
        rules: str = RULES_VERSION,
        name: str = "A",
        clock: tuple[int, int] | None = None,
    ) -> tuple[Peer, bytes]:
        """A, offering a game to the holder of ``peer_key``: the peer and the OFFER record.

        ``nonce`` is A's and ``joiner_nonce`` B's (each fresh from ``secrets`` when not
        given): over the network B sends its own in HELLO and checks it in the OFFER.
        ``name`` is A's name, signed in the OFFER (``wire.schema.NAME_PATTERN``); ``clock`` the
        game's clock, ``(base, increment)`` in ms, or None (an ``EncodedSetup`` holds its
        own clock and bytes, which go into the game id and the OFFER as they are)."""
        if chain_length < 2:
            raise LocalProtocolError(f"chains have at least 2 links, not {chain_length}")
        keys = (identity.public_key, peer_key)
        nonce = nonce if nonce is not None else secrets.token_bytes(32)
        joiner_nonce = joiner_nonce if joiner_nonce is not None else secrets.token_bytes(32)
        offered = EncodedSetup.of(setup, clock)
        game_id = game_id_for(rules, keys, nonce, offered.data, joiner_nonce)
        chain = dice.Chain.create(
            secret if secret is not None else secrets.token_bytes(32),
            dice.chain_salt(game_id, identity.public_key),
            chain_length,
        )
        body = OfferBody(
            rules=rules,
            keys=keys,
            nonce=nonce,
            offered=offered,
            chain=chain_length,
            anchor=chain.anchor(0),
            state=ZERO_HASH,  # the log fills in the initial state's hash
            joiner_nonce=joiner_nonce,
            name=name,
        )
        entry = Entry(
            # a game with a clock is written in the version with disputes (docs/entries.md 7)
            version=PROTOCOL_VERSION if offered.clock is None else DISPUTE_VERSION,
            game_id=game_id,
            seq=0,
            author=int(Player.A),
            prev_hash=ZERO_HASH,
            kind=EntryKind.OFFER,
            body=body,
        )
        log, record = GameLog.offer(entry, identity.sign)
        return cls(identity, Player.A, log, chain), record

    @classmethod
    def accept(
        cls,
        identity: Identity,
        offer_record: bytes,
        *,
        secret: bytes | None = None,
        name: str = "B",
    ) -> tuple[Peer, bytes]:
        """B, accepting an OFFER made to its key: the peer and the ACCEPT record, which
        carries ``name`` (B's, signed) in a game of protocol version 3 or later."""
        log = GameLog.start(offer_record)
        if log.keys[Player.B] != identity.public_key:
            raise LocalProtocolError("this offer is made to another player's key")
        chain = dice.Chain.create(
            secret if secret is not None else secrets.token_bytes(32),
            dice.chain_salt(log.game_id, identity.public_key),
            log.chain_length,
        )
        peer = cls(identity, Player.B, log, chain)
        return peer, peer._write_accept(name if log.version >= 3 else None)

    @classmethod
    def restore(cls, identity: Identity, log: GameLog, secret: bytes) -> Peer:
        """The peer of ``identity`` in the game of ``log`` (its entries so far, checked),
        to go on with: its chain is made again from ``secret``.

        Raises:
            LocalProtocolError: the identity is neither player of the game, or its chain
                from ``secret`` does not match the anchor it committed to.
        """
        if identity.public_key not in log.keys:
            raise LocalProtocolError("this identity is neither player of the game in the replay")
        me = Player(log.keys.index(identity.public_key))
        chain = dice.Chain.create(
            secret, dice.chain_salt(log.game_id, identity.public_key), log.chain_length
        )
        if me < len(log.anchors) and log.anchors[me] != chain.anchor(0):
            raise LocalProtocolError(
                f"{me.name}'s chain does not match the anchor it committed to: these are not "
                "the keys the game was started with"
            )
        return cls(identity, me, log, chain)

    # --- the game ---------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.log.game

    @property
    def my_turn(self) -> bool:
        return self.log.expected_author() is self.me

    def view(self) -> Game:
        """The game as this player sees it: with the dice our due links complete rolled
        (a copy). Decide on this view, then ``decide`` sends the links and the decision
        in one entry: a roll costs no extra message. (``play`` decides on the log's own
        game instead, without a copy.)"""
        log = self.log
        if not isinstance(log.game.pending, ChanceRequest):
            return log.game.copy()  # no dice due: nothing to roll
        saved, teller = log._save(), log.teller
        log.teller = None  # a view is no entry: its rolls are told when an entry rolls them
        try:
            log._resolve(log.next_seq, self.me, OwnLinks(self.chain, log.chain_length), b"")
            return log.game
        finally:
            log._restore(saved)
            log.teller = teller

    def receive(self, record: bytes, decoded: tuple[SignedEntry, Entry] | None = None) -> Entry:
        """Check and add the other player's next entry (InvalidEntryError: nothing changed);
        ``decoded`` is the record decoded already, if the caller has it."""
        return self.log.append(record, decoded=decoded)

    def decide(self, decision: str, choice: Choice | None = None) -> bytes:
        """Our decision in notation, with the links it must carry: the record to send.
        ``choice`` is the decision already parsed on our view, if the caller has it."""
        self._require_turn()
        return self._write_play(decision, choice=choice)

    def play(self, decide: Decide) -> bytes:
        """Our next PLAY entry: the links that fall due and, if we then owe the decision,
        the one ``decide`` makes at once on the log's own game, changing nothing (see
        ``GameLog.write``); the record to send. For a decider that needs no view of its
        own (a bot, a choice already made): no copy of the game, each roll rolled once."""
        self._require_turn()
        return self._write_play(None, decide=decide)

    def reveal(self) -> bytes:
        """Our link for the roll the engine waits for (and any decision-free follow-ups)."""
        self._require_turn()
        if not isinstance(self.game.pending, ChanceRequest):
            raise LocalProtocolError("no roll is waiting for our link")
        return self._write_play(None)

    def resign(self) -> bytes:
        self._require_turn()
        clock = self._reading()
        return self._write(
            ResignBody(state=ZERO_HASH, clock=clock),
            complete=lambda state: ResignBody(state, clock),
        )

    def finish(self) -> bytes:
        """FINAL (if the game ended with our entry) or COSIGN (if the other wrote FINAL)."""
        self._require_turn()
        game = self.game
        assert game.winner is not None
        if self.log.status is Status.FINAL_DUE:
            reason = "victory" if game.end_reason is EndReason.VICTORY else "resignation"
            body: FinalBody | CosignBody = FinalBody(
                winner=int(game.winner),
                reason=reason,
                turns=tuple((a, b) for a, b in game.conquest_history),
                state=game.state_hash(),
                clock=self._reading(),
            )
            return self._write(body)
        if self.log.status is Status.COSIGN_DUE:
            return self._write(
                CosignBody(head=self.log.head, winner=int(game.winner), clock=self._reading())
            )
        raise LocalProtocolError(f"nothing to finish: the log is {self.log.status.value}")

    def claim_timeout(self) -> bytes:
        """A signed, clearly unilateral claim that the other player stopped answering."""
        if self.my_turn or self.log.expected_author() is None:
            raise LocalProtocolError("a timeout can be claimed only while waiting for the other")
        return self._write(
            ClaimBody(reason="timeout", waiting_for=self.log.next_seq, clock=self._reading())
        )

    def claim_on_time(self, reading: tuple[int, int], waiting_for: int | None = None) -> bytes:
        """A signed clock claim: by ``reading`` (this player's, ``(A, B)`` in ms) the other
        player's clock ran out before its entry ``waiting_for`` came (default: the entry
        due now, which it owes). The log checks it (``claims.check_clock_claim``)."""
        if self.log.clock is None:
            raise LocalProtocolError("this game has no clock")
        if self.log.expected_author() is None:
            raise LocalProtocolError("the log is closed: nothing may follow")
        waited = self.log.next_seq if waiting_for is None else waiting_for
        return self._write(ClaimBody(reason="clock", waiting_for=waited, clock=reading))

    def dispute(self, reading: tuple[int, int]) -> bytes:
        """A signed dispute of the other player's clock claim, which closed the log just
        before: by ``reading`` (this player's, ``(A, B)`` in ms, when the claim came) this
        player's own clock had time left (protocol version 4; the log checks it,
        ``claims.check_dispute``)."""
        return self._write(DisputeBody(clock=reading))

    def _reading(self) -> tuple[int, int] | None:
        """This player's clock reading for its next entry (None in a game without a clock)."""
        clock = self.log.clock
        if clock is None:
            return None
        if self.log.next_seq == 1:  # the ACCEPT: no clock has run yet
            return clock[0], clock[0]
        if self.reading is None:
            raise LocalProtocolError("the game has a clock, and this player keeps no time")
        return self.reading()

    # --- writing ------------------------------------------------------------------------

    def _require_turn(self) -> None:
        expected = self.log.expected_author()
        if expected is not self.me:
            who = "nobody" if expected is None else expected.name
            raise LocalProtocolError(f"not {self.me.name}'s entry to write: {who} writes next")

    def _write_accept(self, name: str | None) -> bytes:
        """Our ACCEPT: our anchor, our links for any roll already due, and our name."""
        links = OwnLinks(self.chain, self.log.chain_length)
        clock = self._reading()
        anchor = self.chain.anchor(0)

        def accepted(state: bytes) -> Body:
            return AcceptBody(anchor, tuple(links.links), state, name, clock)

        draft = AcceptBody(anchor=anchor, links=(), state=ZERO_HASH, name=name, clock=clock)
        return self._write(draft, links=links, complete=accepted)

    def _write_play(
        self, decision: str | None, *, choice: Choice | None = None, decide: Decide | None = None
    ) -> bytes:
        """Our PLAY entry: the log applies it, taking our links as the rolls fall due (and
        asking ``decide`` for the decision, if given), and then it carries those links, the
        decision and the state after it."""
        links = OwnLinks(self.chain, self.log.chain_length)
        clock = self._reading()
        made = decision

        def deciding(game: Game) -> tuple[str, Choice | None]:
            nonlocal made
            assert decide is not None
            made, parsed = decide(game)
            return made, parsed

        def played(state: bytes) -> Body:
            return PlayBody(made, tuple(links.links), links.anchor, state, clock)

        draft: Body = PlayBody(
            decision=decision, links=(), anchor=None, state=ZERO_HASH, clock=clock
        )
        return self._write(
            draft,
            links=links,
            complete=played,
            choice=choice,
            decide=None if decide is None else deciding,
        )

    def _write(
        self,
        body: Body,
        *,
        links: OwnLinks | None = None,
        complete: Callable[[bytes], Body] | None = None,
        choice: Choice | None = None,
        decide: Decide | None = None,
    ) -> bytes:
        """Our next entry, of ``body``'s kind, signed and added to the log (see
        ``GameLog.write`` for ``links``, ``complete``, ``choice`` and ``decide``): the
        record to send."""
        return self.log.write(
            self.me,
            body,
            self.identity.sign,
            links=links,
            complete=complete,
            choice=choice,
            decide=decide,
        )
