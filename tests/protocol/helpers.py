"""Real peers for the protocol tests: seeded pairs, bot choosers, and forged entries.

``Pair`` is two ``Peer`` objects in one process, like ``LocalMatch``, but with
identities, chain secrets and the nonce derived from a seed, so that every
test walks the same game. ``forge`` and ``retouch`` make the entries a
cheating peer would send: hand-built, encoded with ``encode_entry`` and
signed with ``Identity.sign``, never checked by the cheater's own log.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from dbnet.bots import make_bot
from dbnet.engine import ChanceRequest, Choice, Decision, Game, GameSetup, Player, format_choice
from dbnet.protocol import dice
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog, Status
from dbnet.protocol.peer import Peer
from dbnet.wire.bodies import Body
from dbnet.wire.entries import (
    Entry,
    SignedEntry,
    decode_signed_entry,
    encode_entry,
    encode_signed_entry,
    replace,
    signing_message,
)
from dbnet.wire.versions import PROTOCOL_VERSION

Chooser = Callable[[Game], str]


def derive(seed: int, what: str) -> bytes:
    """32 bytes fixed by ``seed`` and ``what`` (identities, secrets, nonces of test games)."""
    return hashlib.blake2b(f"{seed}:{what}".encode(), digest_size=32, person=b"dbnet-test").digest()


def identity(seed: int, who: str) -> Identity:
    return Identity.from_private_bytes(derive(seed, f"identity {who}"))


def bot_chooser(names: tuple[str, str], seed: int) -> Chooser:
    """A chooser that asks bot ``names[0]`` for A's decisions and ``names[1]`` for B's."""
    bots = (
        make_bot(names[0], random.Random(f"{seed}:A")),
        make_bot(names[1], random.Random(f"{seed}:B")),
    )

    def choose(view: Game) -> str:
        pending = view.pending
        assert isinstance(pending, Decision)
        return format_choice(view, bots[pending.player].choose(view))

    return choose


@dataclass
class Pair:
    """Two peers playing one game in this process; ``records`` is every record in order."""

    peers: tuple[Peer, Peer]
    records: list[bytes]

    @classmethod
    def start(
        cls, setup: GameSetup, seed: int = 1, *, chain_length: int = 1024, game: int = 0
    ) -> Pair:
        """A game between the players of ``seed``; another ``game`` number gives the same
        players another game (another nonce and other secrets)."""
        a, offer = Peer.offer(
            identity(seed, "A"),
            identity(seed, "B").public_key,
            setup,
            chain_length=chain_length,
            secret=derive(seed, f"secret A {game}"),
            nonce=derive(seed, f"nonce {game}"),
            joiner_nonce=derive(seed, f"joiner nonce {game}"),
        )
        b, accept = Peer.accept(identity(seed, "B"), offer, secret=derive(seed, f"secret B {game}"))
        a.receive(accept)
        return cls((a, b), [offer, accept])

    @property
    def a(self) -> Peer:
        return self.peers[Player.A]

    @property
    def b(self) -> Peer:
        return self.peers[Player.B]

    @property
    def next_author(self) -> Player | None:
        return self.a.log.expected_author()

    def write(self, choose: Chooser) -> tuple[Peer, bytes]:
        """The entry the next author writes (asking ``choose`` when they owe a decision),
        not delivered yet."""
        author = self.next_author
        assert author is not None, "the log is closed"
        peer = self.peers[author]
        if peer.log.status in (Status.FINAL_DUE, Status.COSIGN_DUE):
            return peer, peer.finish()
        view = peer.view()
        pending = view.pending
        if isinstance(pending, Decision) and pending.player is author:
            return peer, peer.decide(choose(view))
        return peer, peer.reveal()

    def deliver(self, author: Peer, record: bytes) -> None:
        self.peers[author.me.other].receive(record)
        self.records.append(record)

    def step(self, choose: Chooser) -> bytes:
        author, record = self.write(choose)
        self.deliver(author, record)
        return record

    def run_until(self, choose: Chooser, done: Callable[[Pair], bool], limit: int = 5000) -> None:
        """Step until ``done(self)``; fail if the log closes or ``limit`` entries pass first."""
        for _ in range(limit):
            if done(self):
                return
            assert self.next_author is not None, "the game ended before the wanted position"
            self.step(choose)
        raise AssertionError(f"no wanted position within {limit} entries")

    def run_to_end(self, choose: Chooser) -> None:
        while self.next_author is not None:
            self.step(choose)

    def twin(self, player: Player) -> Peer:
        """A second copy of ``player``'s peer at the last delivered entry: the same key and
        chain, its own log rebuilt from the records (to write a second, different entry)."""
        peer = self.peers[player]
        log = GameLog.start(self.records[0])
        for record in self.records[1:]:
            log.append(record)
        chain = dice.Chain.create(peer.chain.secret, peer.chain.salt, peer.chain.length)
        return Peer(peer.identity, player, log, chain)


def owes_decision(pair: Pair, player: Player, kind: str | None = None) -> bool:
    """Whether ``player`` writes next and owes a decision (of ``kind``) in their view."""
    if pair.next_author is not player or pair.a.log.status is not Status.PLAYING:
        return False
    pending = pair.peers[player].view().pending
    return (
        isinstance(pending, Decision)
        and pending.player is player
        and (kind is None or pending.kind.value == kind)
    )


def waits_for_dice(log: GameLog) -> bool:
    return log.status is Status.PLAYING and isinstance(log.game.pending, ChanceRequest)


def legal(view: Game, keep: Callable[[Choice], bool] = lambda c: True) -> list[str]:
    """The legal choices of the view's pending decision, in notation."""
    choices = view.legal_choices()
    assert choices is not None
    return [format_choice(view, c) for c in choices if keep(c)]


# --- forged entries -----------------------------------------------------------------------


def sign(identity: Identity, entry: Entry) -> bytes:
    """The record of ``entry`` signed by ``identity``, without any protocol check."""
    signed = encode_entry(entry)
    signature = identity.sign(signing_message(signed))
    return encode_signed_entry(SignedEntry(signed, signature))


def forge(
    log: GameLog,
    signer: Identity,
    author: Player,
    body: Body,
    *,
    seq: int | None = None,
    prev_hash: bytes | None = None,
    game_id: bytes | None = None,
) -> bytes:
    """An entry of ``body``'s kind that fits ``log`` as its next entry unless told otherwise."""
    entry = Entry(
        version=PROTOCOL_VERSION,
        game_id=log.game_id if game_id is None else game_id,
        seq=log.next_seq if seq is None else seq,
        author=int(author),
        prev_hash=log.head if prev_hash is None else prev_hash,
        kind=body.KIND,
        body=body,
    )
    return sign(signer, entry)


def decode(record: bytes) -> Entry:
    return decode_signed_entry(record)[1]


def retouch(record: bytes, signer: Identity, **changes: object) -> bytes:
    """``record`` with its body's fields changed, signed again by ``signer``."""
    entry = decode(record)
    body = replace(entry.body, **changes)
    return sign(signer, replace(entry, body=body))


# --- refusals --------------------------------------------------------------------------------


def snapshot(log: GameLog) -> tuple[object, ...]:
    """What must not change when an entry is refused."""
    return (
        log.head,
        log.next_seq,
        log.game.state_hash(),
        log.status,
        tuple(log.rolls),
        (len(log.links[0]), len(log.links[1])),
        tuple(bytes(e.signed) for e in log.entries),
    )


def assert_refused(peer: Peer, record: bytes, reason: str) -> InvalidEntryError:
    """``peer`` refuses ``record`` as its next entry for ``reason`` (a regex), naming the entry,
    keeping the record as evidence and leaving its log unchanged."""
    before = snapshot(peer.log)
    seq = peer.log.next_seq
    with pytest.raises(InvalidEntryError) as caught:
        peer.receive(record)
    error = caught.value
    assert snapshot(peer.log) == before
    assert error.seq == seq
    assert str(error).startswith(f"entry {seq}: ")
    assert re.search(reason, error.reason), error.reason
    assert error.evidence == record
    return error
