"""How a peer writes: each entry signed once by its author and verified once by the other
peer, applied once on each side, and undone exactly when it is refused.

The author's log applies its own entry once and does not verify its own signature
(``GameLog.write``); a refused entry is undone from the log's last checkpoint by
applying again the entries accepted since (``GameLog._undo``), so these tests refuse
entries far from a checkpoint and check that the log is then exactly the log rebuilt
from the records, and that the game goes on to its end.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dbnet.engine import ChanceRequest, Decision, GameSetup, Player
from dbnet.match.story import Narrator
from dbnet.protocol.errors import InvalidEntryError, LocalProtocolError
from dbnet.protocol.identity import Identity
from dbnet.protocol.identity import verifier as real_verifier
from dbnet.protocol.identity import verify as real_verify
from dbnet.protocol.log import CHECKPOINT_EVERY, GameLog, Status
from dbnet.protocol.peer import Peer
from dbnet.wire.bodies import PlayBody
from dbnet.wire.entries import encode_entry, encode_signed_entry

from .helpers import (
    Chooser,
    Pair,
    assert_refused,
    bot_chooser,
    decode,
    derive,
    identity,
    retouch,
    snapshot,
)

SEED = 7


@pytest.fixture
def choose() -> Chooser:
    return bot_chooser(("random", "random"), SEED)


def rebuilt(records: list[bytes]) -> GameLog:
    """A fresh log of ``records``, as a verifier builds it."""
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    return log


def rolls_past_checkpoint(pair: Pair) -> bool:
    """Dice are due a few entries past a checkpoint (a refusal there is undone far from
    it)."""
    return pair.a.log.next_seq > CHECKPOINT_EVERY + 3 and isinstance(
        pair.a.log.game.pending, ChanceRequest
    )


def same_log(log: GameLog, other: GameLog) -> None:
    """``log`` is in exactly ``other``'s state, chains included."""
    assert snapshot(log) == snapshot(other)
    assert log.anchors == other.anchors
    assert log.links == other.links
    assert log.final_author == other.final_author
    for chain, twin in zip(log.chains, other.chains, strict=True):
        assert chain is not None
        assert twin is not None
        assert chain.mark() == twin.mark()


def test_each_signature_is_made_once_and_verified_once(
    setup: GameSetup, choose: Chooser, monkeypatch: pytest.MonkeyPatch
) -> None:
    signed: list[bytes] = []
    verified: list[bytes] = []
    real_sign = Identity.sign

    def sign(identity: Identity, message: bytes) -> bytes:
        signed.append(message)
        return real_sign(identity, message)

    def verify(key: bytes, signature: bytes, message: bytes) -> bool:
        verified.append(message)
        return real_verify(key, signature, message)

    def verifier(key: bytes) -> Callable[[bytes, bytes], bool]:
        check = real_verifier(key)

        def counted(signature: bytes, message: bytes) -> bool:
            verified.append(message)
            return check(signature, message)

        return counted

    monkeypatch.setattr(Identity, "sign", sign)
    monkeypatch.setattr("dbnet.protocol.log.verify", verify)  # the OFFER's
    monkeypatch.setattr("dbnet.protocol.log.verifier", verifier)  # each key's, for the rest
    pair = Pair.start(setup, SEED)
    pair.run_to_end(choose)
    assert pair.a.log.status is Status.COMPLETE
    # every entry signed by its author, and verified by the other peer, once
    assert len(signed) == len(verified) == len(pair.records)
    assert sorted(signed) == sorted(verified)


def test_a_refused_entry_far_from_a_checkpoint_is_undone_exactly(
    setup: GameSetup, choose: Chooser
) -> None:
    pair = Pair.start(setup, SEED)
    # past two checkpoints, and several entries after the last one
    pair.run_until(choose, lambda p: p.a.log.next_seq >= 2 * CHECKPOINT_EVERY + 9)
    author, record = pair.write(choose)
    reader = pair.peers[author.me.other]
    forged = retouch(record, author.identity, state=bytes(32))  # a desync, validly signed
    assert_refused(reader, forged, "state hash differs")
    same_log(reader.log, rebuilt(pair.records))
    pair.deliver(author, record)  # the honest entry is still accepted, and the game goes on
    pair.run_to_end(choose)
    same_log(pair.a.log, pair.b.log)
    same_log(pair.b.log, rebuilt(pair.records))


def test_a_refused_entry_after_its_rolls_is_undone_exactly(
    setup: GameSetup, choose: Chooser
) -> None:
    """An entry whose links roll dice, refused after the roll (at its state hash)."""
    pair = Pair.start(setup, SEED)

    pair.run_until(choose, rolls_past_checkpoint)
    author, record = pair.write(choose)
    reader = pair.peers[author.me.other]
    entry = decode(record)
    assert isinstance(entry.body, PlayBody)
    assert entry.body.links
    rolls = len(reader.log.rolls)
    forged = retouch(record, author.identity, state=bytes(32))
    assert_refused(reader, forged, "state hash differs")
    assert len(reader.log.rolls) == rolls
    same_log(reader.log, rebuilt(pair.records))
    pair.deliver(author, record)
    assert len(reader.log.rolls) > rolls
    pair.run_to_end(choose)
    same_log(pair.b.log, rebuilt(pair.records))


def test_an_illegal_decision_of_our_own_changes_nothing(setup: GameSetup, choose: Chooser) -> None:
    """Our own entry is refused before it is signed, after our link rolled the dice it
    waited for: the roll is undone too."""
    pair = Pair.start(setup, SEED)

    def we_roll_then_decide(p: Pair) -> bool:
        author = p.next_author
        if author is None or p.a.log.next_seq <= CHECKPOINT_EVERY + 3:
            return False
        if not isinstance(p.a.log.game.pending, ChanceRequest):
            return False
        pending = p.peers[author].view().pending
        return isinstance(pending, Decision) and pending.player is author

    pair.run_until(choose, we_roll_then_decide)
    author = pair.next_author
    assert author is not None
    writer = pair.peers[author]
    before = snapshot(writer.log)
    with pytest.raises(InvalidEntryError, match="illegal decision"):
        writer.decide("spawn nobody a1")
    assert snapshot(writer.log) == before
    same_log(writer.log, rebuilt(pair.records))
    pair.run_to_end(choose)
    same_log(pair.a.log, pair.b.log)


def test_a_peer_whose_identity_is_not_its_key_in_the_game_is_refused(
    setup: GameSetup,
) -> None:
    pair = Pair.start(setup, SEED)
    peer = pair.a
    with pytest.raises(LocalProtocolError, match="not B's key"):
        Peer(peer.identity, Player.B, peer.log, peer.chain)


def test_our_own_offer_starts_the_log_the_other_peer_starts(setup: GameSetup) -> None:
    peer, offer = Peer.offer(
        identity(SEED, "A"),
        identity(SEED, "B").public_key,
        setup,
        secret=derive(SEED, "secret A"),
        nonce=derive(SEED, "nonce"),
        joiner_nonce=derive(SEED, "joiner nonce"),
    )
    started = GameLog.start(offer)
    assert peer.log.entries == started.entries
    assert [encode_entry(e) for e in peer.log.decoded] == [
        encode_entry(e) for e in started.decoded
    ]  # the same on the wire (A's own setup keeps its map's note, which is not sent)
    assert peer.log.head == started.head
    assert peer.log.game.state_hash() == started.game.state_hash()


def told(log: GameLog, narrator: Narrator) -> list[tuple[str, str]]:
    """What ``narrator`` told of ``log`` (it is attached to it): every event's notation and
    words, checked against a narrator that told a log rebuilt from the same records."""
    assert narrator.log is log
    records = [encode_signed_entry(signed) for signed in log.entries]
    fresh = GameLog.start(records[0])
    again = Narrator(fresh.game.setup)
    again.attach(fresh)
    for record in records[1:]:
        fresh.append(record)
    assert narrator.events == again.events
    assert narrator.rolls_told == len(log.rolls)
    assert narrator.told_at == again.told_at
    assert {turn: game.state_hash() for turn, game in narrator.turn_starts.items()} == {
        turn: game.state_hash() for turn, game in again.turn_starts.items()
    }
    return [(event.notation, event.words) for event in narrator.events]


def test_a_narrator_tells_each_accepted_entry_once_and_no_refused_one(
    setup: GameSetup, choose: Chooser
) -> None:
    """Narrators attached to both logs (``GameLog.teller``) while entries are refused and
    undone, received and our own, after rolls and far from a checkpoint, and while views
    are peeked at: each tells exactly what a narrator of the accepted records alone
    tells, and the two peers tell the same story."""
    pair = Pair.start(setup, SEED)
    narrators = (Narrator(setup), Narrator(setup))
    for peer, narrator in zip(pair.peers, narrators, strict=True):
        narrator.attach(peer.log)

    pair.run_until(choose, rolls_past_checkpoint)
    author, record = pair.write(choose)
    reader = pair.peers[author.me.other]
    told_before = len(narrators[reader.me].events)
    assert_refused(reader, retouch(record, author.identity, state=bytes(32)), "state hash")
    assert len(narrators[reader.me].events) == told_before
    pair.deliver(author, record)
    assert len(narrators[reader.me].events) > told_before  # the honest entry rolled

    def we_roll_then_decide(p: Pair) -> bool:
        writer = p.next_author
        if writer is None or not isinstance(p.a.log.game.pending, ChanceRequest):
            return False
        pending = p.peers[writer].view().pending
        assert narrators[writer].rolls_told == len(p.a.log.rolls)  # a view tells nothing
        return isinstance(pending, Decision) and pending.player is writer

    pair.run_until(choose, we_roll_then_decide)
    writer = pair.peers[pair.next_author or Player.A]
    told_before = len(narrators[writer.me].events)
    with pytest.raises(InvalidEntryError, match="illegal decision"):
        writer.decide("spawn nobody a1")  # after our link rolled the dice
    assert len(narrators[writer.me].events) == told_before
    pair.run_to_end(choose)
    story = told(pair.a.log, narrators[Player.A])
    assert story == told(pair.b.log, narrators[Player.B])
    assert any(notation.startswith("roll") for notation, _ in story)
