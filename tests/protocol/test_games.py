"""Whole bot games through the protocol: two real peers, one log, the same dice on both sides."""

from __future__ import annotations

import dataclasses

import pytest

from dbnet.engine import ChanceRequest, Game, GameSetup, Player, parse_choice
from dbnet.match.peers import LocalMatch
from dbnet.protocol import dice
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog, Status
from dbnet.wire.bodies import CosignBody, EntryKind, FinalBody, PlayBody
from dbnet.wire.entries import encode_signed_entry, entry_hash

from .helpers import Pair, bot_chooser, decode

GAMES = [
    # (A's bot, B's bot, seed, chain length, short game)
    (("random", "greedy"), 1, None, False),
    (("greedy", "random"), 2, None, False),
    (("greedy", "greedy"), 3, None, False),
    (("random", "random"), 4, 4, False),
    (("greedy", "greedy"), 5, 4, False),
    (("greedy", "random"), 6, 4, True),
    (("random", "greedy"), 7, None, True),
]


def replay_with_fresh_engine(setup: GameSetup, log: GameLog) -> Game:
    """Play the log's decisions and its dice, recomputed from the links alone, into a new
    engine: what any verifier can do with the entries."""
    game = Game(setup)
    rolls = iter(range(len(log.rolls)))

    def roll_due() -> None:
        while isinstance(game.pending, ChanceRequest):
            k = next(rolls, None)
            if k is None or len(log.links[0]) <= k or len(log.links[1]) <= k:
                return
            count = game.pending.count
            game.roll(dice.roll_dice(log.game_id, k, log.links[0][k], log.links[1][k], count))

    for entry in log.decoded:
        roll_due()
        if isinstance(entry.body, PlayBody) and entry.body.decision is not None:
            game.apply(parse_choice(game, entry.body.decision))
        elif entry.kind is EntryKind.RESIGN:
            game.resign(Player(entry.author))
        roll_due()
    return game


@pytest.mark.parametrize(("bots", "seed", "chain_length", "short"), GAMES)
def test_a_bot_game_ends_complete_and_identical_on_both_sides(
    setup: GameSetup,
    short_setup: GameSetup,
    bots: tuple[str, str],
    seed: int,
    chain_length: int | None,
    short: bool,
) -> None:
    played = short_setup if short else setup
    match = LocalMatch(
        played, (Identity.generate(), Identity.generate()), chain_length=chain_length
    )
    choose = bot_chooser(bots, seed)
    a, b = match.peers
    while not match.is_closed:
        match.step(choose)
        # after every entry both peers hold the same log and have seen the same dice
        assert a.log.head == b.log.head
        assert a.log.rolls == b.log.rolls
        assert a.game.state_hash() == b.game.state_hash()

    assert a.log.entries == b.log.entries  # byte for byte: signed bytes and signatures
    assert [encode_signed_entry(e) for e in a.log.entries] == match.records
    assert a.log.status is b.log.status is Status.COMPLETE
    assert a.log.expected_author() is None

    winner = a.game.winner
    assert winner is not None
    assert b.game.winner is winner
    final, cosign = decode(match.records[-2]), decode(match.records[-1])
    assert isinstance(final.body, FinalBody)
    assert isinstance(cosign.body, CosignBody)
    assert final.body.winner == cosign.body.winner == winner
    assert final.body.reason == "victory"
    assert list(final.body.turns) == a.game.conquest_history
    assert cosign.author != final.author
    assert cosign.body.head == entry_hash(a.log.entries[-2].signed)
    assert max(a.game.turns_won) == played.options.turns_to_win

    # the dice follow from the two chains alone, and a fresh engine agrees on everything
    log = a.log
    for roll in log.rolls:
        both = (log.links[0][roll.index], log.links[1][roll.index])
        assert both == (a.chain.reveal(roll.index), b.chain.reveal(roll.index))
        assert roll.dice == dice.roll_dice(log.game_id, roll.index, *both, len(roll.dice))
    again = replay_with_fresh_engine(played, log)
    assert again.winner is winner
    assert again.state_hash() == a.game.state_hash()

    # a third party rebuilding the log from the records reaches the same verdict
    third = GameLog.start(match.records[0])
    for record in match.records[1:]:
        third.append(record)
    assert third.status is Status.COMPLETE
    assert third.head == log.head
    assert third.rolls == log.rolls


@pytest.mark.parametrize("seed", [1, 2])
def test_short_chains_refill_with_each_generation(setup: GameSetup, seed: int) -> None:
    """With N = 4 each player publishes the next anchor with the last link of a generation,
    in the entry that reveals it and in no other."""
    pair = Pair.start(setup, seed, chain_length=4)
    pair.run_to_end(bot_chooser(("greedy", "greedy"), seed))
    log = pair.a.log
    assert log.status is Status.COMPLETE
    rolls = len(log.rolls)
    assert rolls > 12, "the game must use several generations"
    for player in (Player.A, Player.B):
        peer = pair.peers[player]
        anchors_seen = []
        for entry in log.decoded:
            if entry.author != player or not isinstance(entry.body, PlayBody):
                continue
            ends = [r for r, _ in entry.body.links if (r + 1) % 4 == 0]
            if entry.body.anchor is None:
                assert not ends
            else:
                assert len(ends) == 1
                generation = (ends[0] + 1) // 4
                assert entry.body.anchor == peer.chain.anchor(generation)
                anchors_seen.append(generation)
        revealed = len(log.links[player])
        assert anchors_seen == list(range(1, revealed // 4 + 1))
        verifier = log.chains[player]
        assert verifier is not None
        assert verifier.generations == revealed // 4 + 1
        assert log.links[player] == [peer.chain.reveal(r) for r in range(revealed)]


def test_a_resignation_ends_complete_with_the_other_player_winning(setup: GameSetup) -> None:
    pair = Pair.start(setup, 8)
    choose = bot_chooser(("greedy", "random"), 8)
    pair.run_until(choose, lambda p: p.next_author is Player.B and len(p.a.log.rolls) >= 3)
    resign = pair.b.resign()
    pair.deliver(pair.b, resign)
    pair.run_to_end(choose)
    a, b = pair.peers
    assert a.log.entries == b.log.entries
    assert a.log.status is b.log.status is Status.COMPLETE
    kinds = [e.kind for e in a.log.decoded[-3:]]
    assert kinds == [EntryKind.RESIGN, EntryKind.FINAL, EntryKind.COSIGN]
    final = a.log.decoded[-2]
    assert final.author == Player.B  # the resigning entry's author writes FINAL
    assert isinstance(final.body, FinalBody)
    assert (final.body.winner, final.body.reason) == (Player.A, "resignation")
    assert a.game.winner is b.game.winner is Player.A


def test_games_of_equal_setups_share_their_rules(setup: GameSetup, short_setup: GameSetup) -> None:
    """B reads its setup from the OFFER: the games of equal setups (other objects, other
    players, other nonces) give B one setup, and so one ``Rules``; a setup that differs in
    one field has its own."""
    first = Pair.start(setup, seed=1)
    twin = dataclasses.replace(setup, options=dataclasses.replace(setup.options))
    second = Pair.start(twin, seed=2)
    assert second.b.game.setup is first.b.game.setup
    assert second.b.game.rules is first.b.game.rules
    other = Pair.start(short_setup, seed=3)
    assert other.b.game.rules is not first.b.game.rules
    assert other.b.game.setup.options == short_setup.options
    assert other.b.game.state_hash() == other.a.game.state_hash()
