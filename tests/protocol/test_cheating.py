"""A cheating peer is caught at its first bad entry; the honest peer's log does not change.

Each test brings a real game to a position, lets one player (the cheater)
write an entry that breaks one rule, and hands it to the other. The honest
peer must refuse it with an ``InvalidEntryError`` that names the entry and the
reason and keeps the signed record as evidence (``assert_refused`` also checks
that the head, the next sequence number, the state hash, the rolls and the
entries are as before). Where it helps, the honest version of the same entry
is then accepted, which shows the refusal was for the cheat and nothing else.
"""

from __future__ import annotations

import pytest

from dbnet.engine import ChanceRequest, Decision, Game, GameSetup, Player, SpawnChoice, parse_choice
from dbnet.protocol import dice
from dbnet.protocol.errors import InvalidEntryError, LocalProtocolError
from dbnet.protocol.genesis import RULES_VERSION, game_id_for
from dbnet.protocol.identity import verify
from dbnet.protocol.log import GameLog, Status
from dbnet.protocol.peer import Peer
from dbnet.wire.bodies import (
    AcceptBody,
    Body,
    ClaimBody,
    CosignBody,
    FinalBody,
    OfferBody,
    PlayBody,
    ResignBody,
)
from dbnet.wire.entries import (
    SignedEntry,
    decode_entry,
    decode_signed_entry,
    encode_signed_entry,
    replace,
    signing_message,
)
from dbnet.wire.setup import EncodedSetup, setup_to_wire
from dbnet.wire.values import encode

from .helpers import (
    Chooser,
    Pair,
    assert_refused,
    bot_chooser,
    decode,
    derive,
    forge,
    identity,
    legal,
    owes_decision,
    retouch,
    sign,
    waits_for_dice,
)

SEED = 5


@pytest.fixture
def choose() -> Chooser:
    return bot_chooser(("greedy", "greedy"), SEED)


def owes_link(pair: Pair, rolls: int = 2) -> bool:
    """The next author owes only a link (the engine waits for dice), after ``rolls`` rolls,
    at a roll that is not the first of a chain generation."""
    log = pair.a.log
    return waits_for_dice(log) and len(log.rolls) >= rolls


def link_due(pair: Pair) -> tuple[Peer, Peer, int]:
    """(cheater, honest peer, roll index) when the cheater owes its link for that roll."""
    author = pair.next_author
    assert author is not None
    k = len(pair.a.log.rolls)
    assert len(pair.a.log.links[author]) == k
    return pair.peers[author], pair.peers[author.other], k


def state_with_link(pair: Pair, author: Player, k: int, link: bytes) -> bytes:
    """The state hash after roll ``k`` rolled with ``link`` as ``author``'s link: what a
    self-consistent cheater would sign."""
    log = pair.a.log
    game = log.game.copy()
    pending = game.pending
    assert isinstance(pending, ChanceRequest)
    other = log.links[author.other][k]
    links = (link, other) if author is Player.A else (other, link)
    game.roll(dice.roll_dice(log.game_id, k, links[0], links[1], pending.count))
    return game.state_hash()


def test_a_peer_that_changes_its_secret_mid_game_fails_at_its_next_link(
    setup: GameSetup, choose: Chooser
) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, lambda p: owes_link(p, rolls=3))
    cheater, honest, k = link_due(pair)
    assert k % cheater.chain.length != 0  # the link must hash to the previous link
    # the cheater plays on with a chain from another secret, whose dice it likes better
    swapped = dice.Chain.create(derive(99, "another secret"), cheater.chain.salt, 1024)
    link = swapped.reveal(k)
    body = PlayBody(
        decision=None,
        links=((k, link),),
        anchor=None,
        state=state_with_link(pair, cheater.me, k, link),
    )
    record = forge(honest.log, cheater.identity, cheater.me, body)
    who = cheater.me.name
    assert_refused(
        honest, record, rf"^{who}'s link for roll {k}: .*does not hash to the link for roll {k - 1}"
    )
    # every later link of the swapped chain fails in the same way
    body = PlayBody(None, ((k, swapped.reveal(k + 5)),), None, body.state)
    assert_refused(honest, forge(honest.log, cheater.identity, cheater.me, body), f"roll {k}")
    pair.deliver(cheater, cheater.reveal())  # the true link is accepted
    assert len(honest.log.rolls) == k + 1


@pytest.mark.parametrize("wrong", ["next link", "previous link", "other player's link", "zeros"])
def test_a_wrong_link_is_refused(setup: GameSetup, choose: Chooser, wrong: str) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, owes_link)
    cheater, honest, k = link_due(pair)
    link = {
        "next link": cheater.chain.reveal(k + 1),
        "previous link": cheater.chain.reveal(k - 1),
        "other player's link": honest.chain.reveal(k),
        "zeros": bytes(32),
    }[wrong]
    record = retouch(cheater.reveal(), cheater.identity, links=((k, link),))
    assert_refused(honest, record, rf"^{cheater.me.name}'s link for roll {k}: .*does not hash")


def test_a_link_for_a_roll_not_armed_yet_is_refused(setup: GameSetup, choose: Chooser) -> None:
    """A spawn decision asks for no dice: a link in its entry would let the other player
    know a roll before the decisions it depends on are made."""
    pair = Pair.start(setup, SEED)
    pair.run_until(
        choose,
        lambda p: (
            len(p.a.log.rolls) >= 1
            and (owes_decision(p, Player.A, "spawn") or owes_decision(p, Player.B, "spawn"))
        ),
    )
    author = pair.next_author
    assert author is not None
    cheater, honest = pair.peers[author], pair.peers[author.other]
    view = cheater.view()
    spawn = legal(view, lambda c: isinstance(c, SpawnChoice))[0]
    after = view.copy()
    after.apply(parse_choice(after, spawn))
    assert isinstance(after.pending, Decision)  # the spawn arms no roll
    record = cheater.decide(spawn)
    entry = decode(record)
    assert isinstance(entry.body, PlayBody)
    k = len(honest.log.links[author])  # the cheater's next unrevealed roll
    early = (*entry.body.links, (k, cheater.chain.reveal(k)))
    cheat = retouch(record, cheater.identity, links=early)
    assert_refused(
        honest, cheat, rf"^{author.name}'s link for roll {k} is not due \(before its arming entry"
    )
    pair.deliver(cheater, record)


def test_a_decision_out_of_turn_is_refused(setup: GameSetup, choose: Chooser) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, lambda p: owes_decision(p, Player.A, "spawn"))
    honest, cheater = pair.a, pair.b
    # B decides while A owes the decision: B's entry is refused whatever it says
    body = PlayBody("done", (), None, honest.game.state_hash())
    record = forge(honest.log, cheater.identity, Player.B, body)
    assert_refused(honest, record, "^out of turn: written by B, but A writes next$")
    # nor can B write A's decision in A's name
    mine = retouch(pair.a.decide(legal(pair.a.view())[0]), cheater.identity)
    assert_refused(pair.b, mine, "^bad signature")


def b_owes_a_link_then_a_decides(pair: Pair) -> bool:
    if not owes_link(pair, rolls=1) or pair.next_author is not Player.B:
        return False
    pending = pair.b.view().pending  # B's view: the roll done with B's link
    return isinstance(pending, Decision) and pending.player is Player.A


def test_a_decision_the_other_player_owes_is_refused(setup: GameSetup) -> None:
    """B's entry that completes a roll may carry B's next decision, never A's."""
    # seed 1: the first seed (searched from 1) whose game between the default warbands
    # reaches a roll completed by B's link after which A decides
    pair = Pair.start(setup, 1)
    pair.run_until(bot_chooser(("greedy", "greedy"), 1), b_owes_a_link_then_a_decides)
    cheater, honest = pair.b, pair.a
    decision = legal(cheater.view())[0]
    record = retouch(cheater.reveal(), cheater.identity, decision=decision)
    assert_refused(honest, record, r"^decision '.*' by B, but A owes the \w+ decision$")


@pytest.mark.parametrize("decision", ["fly away", "spawn {mini} c3", "move {mini} a1"])
def test_an_illegal_decision_is_refused(setup: GameSetup, choose: Chooser, decision: str) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(
        choose, lambda p: len(p.a.log.rolls) >= 1 and owes_decision(p, Player.A, "spawn")
    )
    cheater, honest = pair.a, pair.b
    mini = cheater.game.minis_of(Player.A)[0].handle
    record = retouch(cheater.decide("done"), cheater.identity, decision=decision.format(mini=mini))
    assert_refused(honest, record, r"^illegal decision '")


def test_an_entry_from_another_game_is_refused(setup: GameSetup, choose: Chooser) -> None:
    """The same two players, another game: a validly signed entry at the right place in the
    sequence is still refused, because it carries the other game's id."""
    here = Pair.start(setup, SEED)
    there = Pair.start(setup, SEED, game=1)
    assert here.a.log.keys == there.a.log.keys
    assert here.a.log.game_id != there.a.log.game_id
    other_choose = bot_chooser(("greedy", "greedy"), SEED)
    here.run_until(choose, lambda p: len(p.records) >= 12)
    there.run_until(other_choose, lambda p: len(p.records) >= 12)
    author = here.next_author
    assert author is not None
    there.run_until(other_choose, lambda p: p.next_author is author and len(p.records) >= 12)
    foreign, record = there.write(other_choose)
    signed, entry = decode_signed_entry(record)
    assert verify(here.a.log.keys[author], signed.signature, signing_message(signed.signed))
    # re-sequenced and re-chained by its author to fit this game's log: still another game's
    fitted = sign(
        foreign.identity,
        replace(entry, seq=here.a.log.next_seq, prev_hash=here.a.log.head),
    )
    honest = here.peers[author.other]
    assert_refused(honest, fitted, r"^it belongs to another game \(game id differs\)$")
    # a record replayed from earlier in this very game is out of sequence
    assert_refused(
        honest, here.records[5], rf"^out of order: sequence number 5, expected {len(here.records)}$"
    )


def test_an_entry_signed_with_another_key_is_refused(setup: GameSetup, choose: Chooser) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, lambda p: len(p.records) >= 8)
    author, record = pair.write(choose)
    honest = pair.peers[author.me.other]
    stranger = identity(77, "stranger")
    for signer in (stranger, honest.identity):
        assert_refused(
            honest,
            retouch(record, signer),
            rf"^bad signature: not signed by {author.me.name}'s key$",
        )
    # a flipped bit in the signature of the true record is caught too
    signed = decode_signed_entry(record)[0]
    broken = SignedEntry(signed.signed, bytes([signed.signature[0] ^ 1]) + signed.signature[1:])
    assert_refused(honest, encode_signed_entry(broken), "^bad signature")
    pair.deliver(author, record)


def test_equivocation_is_refused_and_both_records_are_signed_evidence(
    setup: GameSetup, choose: Chooser
) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, lambda p: len(p.records) >= 6 and owes_decision(p, Player.A, "spawn"))
    twin = pair.twin(Player.A)  # the cheater's second copy of its own state
    seq = pair.a.log.next_seq
    choices = legal(pair.a.view())
    assert len(choices) >= 2
    first = pair.a.decide(choices[0])
    second = twin.decide(choices[1])
    assert first != second
    pair.deliver(pair.a, first)
    error = assert_refused(
        pair.b, second, rf"^out of order: sequence number {seq}, expected {seq + 1}$"
    )
    # the two records: the same author and sequence number, different bytes, and both
    # carry a valid signature by the cheater's key, so together they prove equivocation
    key = pair.b.log.keys[Player.A]
    evidence = [pair.b.log.entries[seq], decode_signed_entry(error.evidence)[0]]
    entries = [decode_entry(s.signed) for s in evidence]
    assert [(e.seq, e.author) for e in entries] == [(seq, Player.A), (seq, Player.A)]
    assert evidence[0].signed != evidence[1].signed
    for signed in evidence:
        assert verify(key, signed.signature, signing_message(signed.signed))
    assert encode_signed_entry(evidence[0]) == first


def test_a_false_state_hash_is_refused(setup: GameSetup, choose: Chooser) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, lambda p: len(p.records) >= 20)
    author, record = pair.write(choose)
    honest = pair.peers[author.me.other]
    before = honest.game.state_hash()
    for lie in (bytes(32), before):  # any other hash, or the state before the entry
        assert_refused(
            honest,
            retouch(record, author.identity, state=lie),
            r"^its author's state hash differs from the state after it \(desync\)$",
        )
    pair.deliver(author, record)


def test_a_resignation_with_a_false_state_hash_is_refused(
    setup: GameSetup, choose: Chooser
) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, lambda p: len(p.records) >= 10)
    author = pair.next_author
    assert author is not None
    cheater = pair.peers[author]
    record = forge(pair.a.log, cheater.identity, author, ResignBody(cheater.game.state_hash()))
    assert_refused(pair.peers[author.other], record, r"\(desync\)$")


def test_a_claim_by_the_player_whose_turn_it_is_is_refused(
    setup: GameSetup, choose: Chooser
) -> None:
    pair = Pair.start(setup, SEED)
    pair.run_until(choose, lambda p: len(p.records) >= 9)
    due = pair.next_author
    assert due is not None
    writer, waiter = pair.peers[due], pair.peers[due.other]
    seq = waiter.log.next_seq
    claim = forge(waiter.log, writer.identity, due, ClaimBody("timeout", seq))
    assert_refused(waiter, claim, f"^{due.name} claims a timeout while it is {due.name}'s turn$")
    with pytest.raises(LocalProtocolError):
        writer.claim_timeout()
    # the waiting player's claim must name the entry it waits for
    wrong = forge(writer.log, waiter.identity, due.other, ClaimBody("timeout", seq + 1))
    assert_refused(writer, wrong, f"waits for entry {seq + 1}, but entry {seq} is due")
    # and then it is accepted and closes the log as a claim
    writer.receive(waiter.claim_timeout())
    assert writer.log.status is waiter.log.status is Status.CLAIMED
    assert writer.log.expected_author() is None


def short_game_to(short_setup: GameSetup, status: Status) -> Pair:
    pair = Pair.start(short_setup, SEED)
    pair.run_until(bot_chooser(("greedy", "random"), SEED), lambda p: p.a.log.status is status)
    return pair


def test_nothing_may_follow_the_cosign(short_setup: GameSetup) -> None:
    pair = short_game_to(short_setup, Status.COMPLETE)
    a, b = pair.peers
    state = a.game.state_hash()
    winner = a.game.winner
    assert winner is not None
    bodies: list[Body] = [
        PlayBody("done", (), None, state),
        ResignBody(state),
        ClaimBody("timeout", a.log.next_seq),
        CosignBody(a.log.head, int(winner)),
        FinalBody(int(winner), "victory", tuple(a.game.conquest_history), state),
    ]
    for body in bodies:
        for writer, reader in ((a, b), (b, a)):
            record = forge(reader.log, writer.identity, writer.me, body)
            assert_refused(reader, record, r"^the log is closed \(complete\); nothing may follow$")


@pytest.mark.parametrize("lie", ["winner", "reason", "turn score", "turns dropped", "turn added"])
def test_a_final_that_misstates_the_result_is_refused(short_setup: GameSetup, lie: str) -> None:
    pair = short_game_to(short_setup, Status.FINAL_DUE)
    author = pair.next_author
    assert author is not None
    writer, reader = pair.peers[author], pair.peers[author.other]
    record = writer.finish()
    body = decode(record).body
    assert isinstance(body, FinalBody)
    turns = list(body.turns)
    changes: dict[str, dict[str, object]] = {
        "winner": {"winner": 1 - body.winner},
        "reason": {"reason": "resignation"},
        "turn score": {"turns": (*turns[:-1], (turns[-1][0] + 1, turns[-1][1]))},
        "turns dropped": {"turns": tuple(turns[:-1])},
        "turn added": {"turns": (*turns, (0, 0))},
    }
    reason = "^FINAL says" if lie in ("winner", "reason") else "^FINAL's score by turn differs"
    assert_refused(reader, retouch(record, writer.identity, **changes[lie]), reason)
    pair.deliver(writer, record)
    # the counter-signature must be over that FINAL and agree on its winner
    cosign = reader.finish()
    body_c = decode(cosign).body
    assert isinstance(body_c, CosignBody)
    for wrong, why in (
        ({"head": bytes(32)}, "not over the FINAL entry's hash"),
        ({"winner": 1 - body_c.winner}, "winner differs from the game's"),
    ):
        assert_refused(writer, retouch(cosign, reader.identity, **wrong), why)
    pair.deliver(reader, cosign)
    assert writer.log.status is Status.COMPLETE


def test_a_game_that_is_over_needs_final_before_anything_else(short_setup: GameSetup) -> None:
    pair = short_game_to(short_setup, Status.FINAL_DUE)
    author = pair.next_author
    assert author is not None
    writer, reader = pair.peers[author], pair.peers[author.other]
    state = writer.game.state_hash()
    record = forge(reader.log, writer.identity, author, PlayBody("done", (), None, state))
    assert_refused(reader, record, "^the game is over: .* must write FINAL, not PLAY$")


def test_identical_chain_anchors_in_accept_are_refused(setup: GameSetup) -> None:
    a, offer = Peer.offer(identity(1, "A"), identity(1, "B").public_key, setup)
    b_identity = identity(1, "B")
    log = a.log
    copied = log.anchors[Player.A]
    body = AcceptBody(copied, ((0, bytes(32)),), log.game.state_hash(), name="B")
    record = forge(log, b_identity, Player.B, body)
    before = (log.head, log.next_seq, log.game.state_hash(), list(log.anchors))
    with pytest.raises(InvalidEntryError) as caught:
        a.receive(record)
    assert caught.value.seq == 1
    assert caught.value.reason == "B's chain anchor equals A's (identical anchors are refused)"
    assert caught.value.evidence == record
    assert (log.head, log.next_seq, log.game.state_hash(), list(log.anchors)) == before
    b, accept = Peer.accept(b_identity, offer)
    a.receive(accept)
    assert a.log.entries == b.log.entries


@pytest.mark.parametrize("change", ["nonce", "options", "key", "rules"])
def test_an_offer_whose_game_id_does_not_match_its_contents_is_refused(
    setup: GameSetup, short_setup: GameSetup, change: str
) -> None:
    a_identity, b_identity = identity(2, "A"), identity(2, "B")
    _, offer = Peer.offer(a_identity, b_identity.public_key, setup)
    body = decode(offer).body
    assert isinstance(body, OfferBody)
    changes: dict[str, dict[str, object]] = {
        "nonce": {"nonce": derive(2, "another nonce")},
        "options": {
            "offered": EncodedSetup.of(short_setup),
            "state": Game(short_setup).state_hash(),
        },
        "key": {"keys": (body.keys[0], identity(3, "B").public_key)},
        "rules": {"rules": "dbnet-rules-0"},
    }
    record = retouch(offer, a_identity, **changes[change])
    for start in (GameLog.start, lambda r: Peer.accept(b_identity, r)):
        with pytest.raises(InvalidEntryError) as caught:
            start(record)
        assert caught.value.seq == 0
        assert caught.value.reason == "the game id does not match the offer's contents"
        assert caught.value.evidence == record


def test_a_game_played_under_other_rules_is_refused_by_name(setup: GameSetup) -> None:
    """A genuine OFFER (its game id computed from its contents) of another rules version:
    this engine can't re-simulate it, and says so rather than report a desync."""
    a_identity, b_identity = identity(2, "A"), identity(2, "B")
    _, offer = Peer.offer(a_identity, b_identity.public_key, setup)
    entry = decode(offer)
    body = entry.body
    assert isinstance(body, OfferBody)
    old = replace(body, rules="dbnet-rules-1")
    setup_bytes = encode(setup_to_wire(old.setup))
    keys = (old.keys[0], old.keys[1])
    game_id = game_id_for(old.rules, keys, old.nonce, setup_bytes, old.joiner_nonce)
    record = sign(a_identity, replace(entry, game_id=game_id, body=old))
    with pytest.raises(InvalidEntryError) as caught:
        GameLog.start(record)
    assert caught.value.seq == 0
    assert caught.value.reason == (
        f"the game was played under rules 'dbnet-rules-1'; this dbnet plays "
        f"{RULES_VERSION!r} and can't re-simulate it"
    )
