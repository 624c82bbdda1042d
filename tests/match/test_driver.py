"""The one driver (``match.driver``): what is due, writing it, and handing records on."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from dbnet.bots import RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import Choice, Game, GameSetup, Player, format_choice, parse_choice
from dbnet.errors import DbnetError
from dbnet.match.driver import Driver
from dbnet.match.local import bots_in_place
from dbnet.match.peers import LocalMatch
from dbnet.protocol import log as log_module
from dbnet.protocol.errors import LocalProtocolError
from dbnet.protocol.identity import Identity
from dbnet.protocol.remote import RemoteGame
from dbnet.wire.bodies import PlayBody


@pytest.fixture(scope="module")
def setup() -> GameSetup:
    return GameSetup(load_map(), default_warbands(load_catalog()))


def test_a_decision_chosen_as_a_value_is_parsed_once_by_the_receiver_only(
    setup: GameSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot's decision goes to the log as the parsed value: the author's log applies it
    without parsing its notation; only the receiving side parses it, once."""
    parses: list[str] = []

    def counting(game: Game, text: str) -> Choice:
        parses.append(text)
        return parse_choice(game, text)

    monkeypatch.setattr(log_module, "parse_choice", counting)
    match = LocalMatch(setup, (Identity.generate(), Identity.generate()))
    choose = bots_in_place((RandomBot(random.Random(1)), RandomBot(random.Random(2))))
    while not match.is_closed and len(match.records) < 300:
        match.step(choose)
    decisions = [
        e.body.decision
        for e in match.log.decoded
        if isinstance(e.body, PlayBody) and e.body.decision is not None
    ]
    assert len(decisions) > 50
    assert parses == decisions  # each decision parsed once: by the side that received it
    assert match.sides[Player.A].log.head == match.sides[Player.B].log.head


def test_a_bot_decides_on_the_log_s_game_each_roll_rolled_once_per_log(
    setup: GameSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``LocalMatch.step`` decides on the log's own game once the author's due links are
    in (``Driver.play``): each roll is rolled once by each side's log, and no game is
    copied but the log's checkpoints (one per side every CHECKPOINT_EVERY entries)."""
    rolled: list[tuple[int, ...]] = []
    copies: list[int] = []
    roll, copy = Game.roll, Game.copy

    def counting_roll(game: Game, values: Sequence[int]) -> None:
        rolled.append(tuple(values))
        roll(game, values)

    def counting_copy(game: Game) -> Game:
        copies.append(1)
        return copy(game)

    monkeypatch.setattr(Game, "roll", counting_roll)
    monkeypatch.setattr(Game, "copy", counting_copy)
    match = LocalMatch(setup, (Identity.generate(), Identity.generate()))
    choose = bots_in_place((RandomBot(random.Random(5)), RandomBot(random.Random(6))))
    while not match.is_closed and len(match.records) < 300:
        match.step(choose)
    rolls = [r.dice for r in match.log.rolls]
    assert len(rolls) > 5
    assert sorted(rolled) == sorted(rolls + rolls)  # once by each side's log
    checkpoints = 2 * -(-(len(match.records) - 1) // log_module.CHECKPOINT_EVERY)
    assert len(copies) <= checkpoints


def test_a_chooser_that_fails_leaves_both_logs_as_they_were(setup: GameSetup) -> None:
    """The decision is made inside the author's entry: if the chooser raises, the entry
    is undone (the dice its links rolled too) and the same step can be taken again."""
    match = LocalMatch(setup, (Identity.generate(), Identity.generate()))
    choose = bots_in_place((RandomBot(random.Random(7)), RandomBot(random.Random(8))))
    failed = 0
    while not match.is_closed and len(match.records) < 120:
        author = match.next_author
        assert author is not None
        log = match.sides[author].log
        held, head, rolls = list(match.records), log.head, len(log.rolls)
        state = log.game.state_hash()

        def fail(view: Game) -> Choice:
            raise RuntimeError("the bot crashed")

        try:
            match.step(fail)
        except RuntimeError:
            failed += 1
            assert match.records == held
            assert (log.head, len(log.rolls), log.game.state_hash()) == (head, rolls, state)
        else:  # no decision was due: the entry was a link, FINAL or COSIGN
            continue
        match.step(choose)
    assert failed > 20
    assert match.sides[Player.A].log.head == match.sides[Player.B].log.head


def test_what_is_due_and_who_may_write(setup: GameSetup) -> None:
    match = LocalMatch(setup, (Identity.generate(), Identity.generate()))
    due = match.due()
    assert due is not None
    assert due.player is match.next_author
    alone = Driver((match.sides[Player.A],))
    if due.player is Player.B:
        assert alone.due() is None  # the peer owes it
        with pytest.raises(LocalProtocolError, match="not played here"):
            alone.write()
    with pytest.raises(LocalProtocolError, match="there is no peer"):
        match.receive(match.records[-1])
    with pytest.raises(LocalProtocolError, match="not played here"):
        alone.resign(Player.B)
    with pytest.raises(LocalProtocolError, match="one player or for both"):
        Driver((match.sides[Player.A], match.sides[Player.A]))


def test_a_decision_where_none_is_due_writes_nothing(setup: GameSetup) -> None:
    match = LocalMatch(setup, (Identity.generate(), Identity.generate()))
    while (due := match.due()) is not None and due.view is not None:
        match.step(bots_in_place((RandomBot(random.Random(3)), RandomBot(random.Random(4)))))
    held = list(match.records)
    with pytest.raises(DbnetError):
        match.write("done")  # a link is due, not a decision
    assert match.records == held


def test_one_side_receives_the_other_s_records_over_the_network(setup: GameSetup) -> None:
    """Two drivers of one side each, records passed by hand as a transport would: the
    same game as one driver of both sides."""
    ids = (Identity.generate(), Identity.generate())
    saved: list[bytes] = []
    host = RemoteGame.offer(
        ids[0], ids[1].public_key, setup, saved.append, nonce=bytes(32), joiner_nonce=b"\1" * 32
    )
    guest = RemoteGame.accept(ids[1], host.records[0], lambda record: None)
    drivers = {Player.A: Driver((host,)), Player.B: Driver((guest,))}
    assert drivers[Player.A].receive(guest.records[1])
    bots = bots_in_place((RandomBot(random.Random(5)), RandomBot(random.Random(6))))
    for _ in range(200):
        author = drivers[Player.A].next_author
        if author is None:
            break
        due = drivers[author].due()
        assert due is not None
        decision = None if due.view is None else format_choice(due.view, bots(due.view))
        record = drivers[author].write(decision)
        assert drivers[author.other].receive(record)
        assert not drivers[author.other].receive(record)  # a record held is dropped
    assert host.log.head == guest.log.head
    assert saved == host.records
