"""``RemoteGame``: one player's side of a game over a connection that can drop (sans-IO).

Two ``RemoteGame``s play through a lossy "network" of the test's own: records
delivered twice, late or not at all, resent from ``missing_for``; a player
restored from its records half-way; and a peer that equivocates."""

from __future__ import annotations

import pytest

from dbnet.engine import ChanceRequest, Decision, Game, GameSetup, Player, format_choice
from dbnet.protocol.errors import InvalidEntryError, LocalProtocolError
from dbnet.protocol.peer import Peer
from dbnet.protocol.remote import EquivocationError, RemoteGame, chain_secret
from dbnet.wire.bodies import EntryKind
from dbnet.wire.entries import (
    SignedEntry,
    decode_signed_entry,
    encode_signed_entry,
    signing_message,
)

from .helpers import bot_chooser, derive, identity

ALICE = identity(1, "A")
BOB = identity(1, "B")
NONCE = derive(1, "nonce")
JOINER_NONCE = derive(1, "joiner nonce")


class Saved(list[bytes]):
    """A save callback that keeps what it was given (the replay file, in memory)."""

    def __call__(self, record: bytes) -> None:
        self.append(record)


def start(setup: GameSetup) -> tuple[RemoteGame, RemoteGame, Saved, Saved]:
    saved_a, saved_b = Saved(), Saved()
    a = RemoteGame.offer(
        ALICE, BOB.public_key, setup, saved_a, nonce=NONCE, joiner_nonce=JOINER_NONCE
    )
    b = RemoteGame.accept(BOB, a.records[0], saved_b)
    assert a.receive(b.records[1])
    return a, b, saved_a, saved_b


def step(game: RemoteGame, choose: object) -> list[bytes]:
    """The records ``game``'s player writes now (a decision from ``choose`` if owed)."""
    held = len(game.records)
    view = game.decision_view()
    if view is None:
        game.write()
    else:
        game.write(choose(view))  # type: ignore[operator]
    return game.records[held:]


def play_out(a: RemoteGame, b: RemoteGame, choose: object, *, limit: int = 5000) -> None:
    """Play to the end, each record delivered at once."""
    for _ in range(limit):
        if a.is_closed and b.is_closed:
            return
        writer, reader = (a, b) if a.my_turn else (b, a)
        for record in step(writer, choose):
            assert reader.receive(record)
    raise AssertionError("the game did not end")


def test_offer_and_accept_save_their_records_first(setup: GameSetup) -> None:
    a, b, saved_a, saved_b = start(setup)
    assert saved_a == a.records == b.records
    assert saved_b == b.records
    assert [decode_signed_entry(r)[1].kind for r in a.records] == [
        EntryKind.OFFER,
        EntryKind.ACCEPT,
    ]
    assert a.me is Player.A
    assert b.me is Player.B
    assert a.game_id == b.game_id


def test_a_whole_game_with_every_record_delivered_twice(setup: GameSetup) -> None:
    """Records resent after a reconnection are dropped: nothing is applied twice."""
    a, b, saved_a, saved_b = start(setup)
    choose = bot_chooser(("greedy", "greedy"), 1)
    for _ in range(5000):
        if a.is_closed and b.is_closed:
            break
        writer, reader = (a, b) if a.my_turn else (b, a)
        for record in step(writer, choose):
            assert reader.receive(record) is True
            assert reader.receive(record) is False  # the same record again: dropped
    assert a.records == b.records
    assert saved_a == saved_b == a.records  # each record saved exactly once
    assert a.log.game.state_hash() == b.log.game.state_hash()
    assert a.log.game.is_over


def test_missing_for_resends_what_the_peer_lacks(setup: GameSetup) -> None:
    """B goes away after its ACCEPT; A plays on alone as far as it can; B comes back,
    says how many records it holds, and A's resend brings it level."""
    a, b, _, _ = start(setup)
    choose = bot_chooser(("greedy", "greedy"), 2)
    written: list[bytes] = []
    while a.my_turn:
        written += step(a, choose)
    assert written  # A wrote something B has not seen
    assert a.missing_for(len(b.records)) == written
    for record in a.missing_for(len(b.records)):
        assert b.receive(record)
    assert b.records == a.records
    assert a.missing_for(len(b.records)) == []
    assert a.missing_for(0) == a.records


def test_a_record_from_the_future_is_refused(setup: GameSetup) -> None:
    """A record past the next one means some were lost: refused, nothing changes."""
    a, b, _, _ = start(setup)
    play_out(a, b, bot_chooser(("greedy", "greedy"), 3))
    saved = Saved()
    late = RemoteGame.accept(BOB, a.records[0], saved)  # a second B, just accepted
    assert late.records == a.records[:2]
    with pytest.raises(InvalidEntryError, match=r"entry 3: entries 2 to 2 are missing"):
        late.receive(a.records[3])
    assert late.records == a.records[:2]
    assert saved == a.records[:2]


def test_malformed_bytes_are_refused_without_change(setup: GameSetup) -> None:
    _a, b, _, saved_b = start(setup)
    with pytest.raises(InvalidEntryError, match=r"entry 2: malformed"):
        b.receive(b"\x92\xc4\x01x\xc4\x01y")
    assert len(b.records) == len(saved_b) == 2


def test_two_signed_accepts_prove_equivocation(setup: GameSetup) -> None:
    a, _b, _, _ = start(setup)
    _, other = Peer.accept(BOB, a.records[0], secret=bytes(range(32)))
    assert other != a.records[1]
    with pytest.raises(EquivocationError) as caught:
        a.receive(other)
    assert caught.value.seq == 1
    assert caught.value.evidence == (a.records[1], other)
    assert "equivocation" in str(caught.value)
    assert len(a.records) == 2


def test_a_different_copy_signed_by_someone_else_is_only_invalid(setup: GameSetup) -> None:
    """Not equivocation: the player never signed it."""
    a, _b, _, _ = start(setup)
    _, forged = Peer.accept(BOB, a.records[0], secret=bytes(range(32)))
    signed, _entry = decode_signed_entry(forged)
    mallory = identity(9, "M")
    bad_signature = mallory.sign(signing_message(signed.signed))
    record = encode_signed_entry(SignedEntry(signed.signed, bad_signature))
    with pytest.raises(InvalidEntryError, match=r"entry 1: a different copy of an entry we hold"):
        a.receive(record)


def test_a_player_restored_from_its_records_goes_on_with_the_same_game(
    setup: GameSetup,
) -> None:
    """B crashes half-way; restored from its replay (records and identity only, the chain
    secret derived again), it writes exactly what it would have written."""
    a, b, _, saved_b = start(setup)
    choose = bot_chooser(("greedy", "greedy"), 4)
    for _ in range(60):
        writer, reader = (a, b) if a.my_turn else (b, a)
        for record in step(writer, choose):
            reader.receive(record)
    restored = RemoteGame.restore(BOB, list(saved_b), Saved())
    assert restored.records == b.records
    assert restored.me is Player.B
    # both copies of B now play the same decisions: they write the same bytes
    original = RemoteGame(b.peer, list(b.records), Saved())
    for _ in range(40):
        if a.is_closed:
            break
        if a.my_turn:
            for record in step(a, choose):
                assert original.receive(record)
                assert restored.receive(record)
        else:
            view = original.decision_view()
            decision = None if view is None else choose(view)
            one = original.write(decision) if decision else original.write()
            two = restored.write(decision) if decision else restored.write()
            assert one == two
            a.receive(one)


def test_restore_refuses_a_stranger_and_an_empty_file(setup: GameSetup) -> None:
    a, _, _, _ = start(setup)
    with pytest.raises(LocalProtocolError, match="neither player"):
        RemoteGame.restore(identity(9, "M"), a.records, Saved())
    with pytest.raises(LocalProtocolError, match="no entries"):
        RemoteGame.restore(ALICE, [], Saved())


def test_a_joiner_that_saved_only_the_offer_resumes_with_the_accept_it_owed(
    setup: GameSetup,
) -> None:
    """Issue 19: a joiner killed after saving the host's OFFER and before writing its
    ACCEPT used to stop at once with an AssertionError. Restored from that one record it
    writes (and saves) the very ACCEPT a fresh accept writes, and the game goes on."""
    a, b, _, _ = start(setup)
    saved = Saved()
    with pytest.raises(LocalProtocolError, match="the name it signs is needed"):
        RemoteGame.restore(BOB, [a.records[0]], saved)  # no placeholder name is signed
    assert saved == []
    again = RemoteGame.restore(BOB, [a.records[0]], saved, name="B")  # as start's ACCEPT
    assert again.records == b.records[:2]
    assert saved == [b.records[1]]  # saved to the replay before it is sent
    assert again.missing_for(1) == [b.records[1]]
    assert a.receive(again.records[1]) is False  # the host holds it already: the same bytes
    play_out(a, again, lambda view: legal_first(view))
    assert a.records == again.records


def legal_first(view: object) -> str:
    assert isinstance(view, Game)
    choices = view.legal_choices()
    assert choices
    return format_choice(view, choices[0])


def test_chain_secrets_belong_to_one_key_and_one_game() -> None:
    game_1, game_2 = derive(1, "game 1"), derive(1, "game 2")
    assert chain_secret(ALICE, game_1) == chain_secret(ALICE, game_1)
    assert chain_secret(ALICE, game_1) != chain_secret(ALICE, game_2)
    assert chain_secret(ALICE, game_1) != chain_secret(BOB, game_1)
    assert len(chain_secret(ALICE, game_1)) == 32


def test_writing_out_of_turn_is_a_local_error(setup: GameSetup) -> None:
    a, b, _, _ = start(setup)
    waiting = b if a.my_turn else a
    assert waiting.decision_view() is None
    with pytest.raises(LocalProtocolError, match=r"owes no decision|not B's entry|not A's"):
        waiting.write()
    with pytest.raises(LocalProtocolError, match="resigns in their own entry"):
        waiting.resign()


def test_resigning_reveals_the_links_owed_first(setup: GameSetup) -> None:
    """At a roll whose last link is this player's and whose next decision is theirs too,
    resigning first gives the link: every roll the player saw stays in the log."""
    a, b, _, _ = start(setup)
    choose = bot_chooser(("greedy", "greedy"), 7)
    for _ in range(2000):
        writer, reader = (a, b) if a.my_turn else (b, a)
        if isinstance(writer.log.game.pending, ChanceRequest) and writer.decision_view():
            break
        for record in step(writer, choose):
            reader.receive(record)
    else:
        raise AssertionError("no roll followed by the same player's decision")
    held = len(writer.records)
    writer.resign()
    kinds = [decode_signed_entry(r)[1].kind for r in writer.records[held:]]
    assert kinds == [EntryKind.PLAY, EntryKind.RESIGN]
    for record in writer.records[held:]:
        assert reader.receive(record)
    assert reader.log.game.winner is reader.me


def test_resigning_when_only_a_link_is_due_writes_nothing(setup: GameSetup) -> None:
    """A link that hands the turn to the peer is no place to resign: refused, and no
    link is given away."""
    a, b, _, _saved = start(setup)
    choose = bot_chooser(("greedy", "greedy"), 8)
    for _ in range(2000):
        writer, reader = (a, b) if a.my_turn else (b, a)
        pending = writer.log.game.pending
        if isinstance(pending, ChanceRequest) and writer.decision_view() is None:
            break
        for record in step(writer, choose):
            reader.receive(record)
    else:
        raise AssertionError("no link-only entry")
    held = list(writer.records)
    with pytest.raises(LocalProtocolError, match="resign at your next decision"):
        writer.resign()
    assert writer.records == held


def test_a_decision_is_owed_only_to_its_player(setup: GameSetup) -> None:
    a, b, _, _ = start(setup)
    choose = bot_chooser(("greedy", "greedy"), 5)
    for _ in range(100):
        writer, reader = (a, b) if a.my_turn else (b, a)
        assert reader.decision_view() is None
        view = writer.decision_view()
        if view is not None:
            assert isinstance(view.pending, Decision)
            assert view.pending.player is writer.me
            with pytest.raises(LocalProtocolError, match="owes a decision"):
                writer.write()
        for record in step(writer, choose):
            reader.receive(record)


def test_a_whole_game_ends_closed_and_the_same_on_both_sides(setup: GameSetup) -> None:
    a, b, _, _ = start(setup)
    assert a.log.keys == (ALICE.public_key, BOB.public_key)
    play_out(a, b, bot_chooser(("greedy", "greedy"), 6))
    assert a.is_closed
    assert b.is_closed
    assert a.records == b.records
    assert decode_signed_entry(a.records[-1])[1].kind is EntryKind.COSIGN


def test_records_received_go_to_save_received(setup: GameSetup) -> None:
    """The peer's records may be saved without waiting for the disk (``save_received``);
    this player's own always go through ``save``, before they can be sent."""
    saved_a, saved_b = Saved(), Saved()
    a = RemoteGame.offer(
        ALICE, BOB.public_key, setup, saved_a, nonce=NONCE, joiner_nonce=JOINER_NONCE
    )
    b = RemoteGame.accept(BOB, a.records[0], saved_b)
    received_a, received_b = Saved(), Saved()
    a.save_received, b.save_received = received_a, received_b
    assert a.receive(b.records[1])
    assert received_a == [b.records[1]]
    play_out(a, b, bot_chooser(("greedy", "greedy"), 9))
    authors = [decode_signed_entry(r)[1].author for r in a.records]
    assert saved_a == [r for r, who in zip(a.records, authors, strict=True) if who == 0]
    assert received_a == [r for r, who in zip(a.records, authors, strict=True) if who == 1]
    assert saved_b[1:] == [r for r, who in zip(b.records, authors, strict=True) if who == 1]
    assert saved_b[0] == a.records[0]  # the OFFER B accepted, saved with its ACCEPT
