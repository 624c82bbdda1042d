"""The local game driver: seats, dice, and a log that replays to the same game."""

from __future__ import annotations

import random
import secrets

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import (
    ChanceRequest,
    Decision,
    Game,
    GameSetup,
    Player,
    format_choice,
    parse_choice,
    parse_dice,
)
from dbnet.engine.notation import format_attack_dice
from dbnet.errors import DbnetError, IllegalChoiceError
from dbnet.localplay import EventKind, Human, LocalGame


@pytest.fixture(scope="module")
def setup() -> GameSetup:
    return GameSetup(load_map(), default_warbands(load_catalog()))


def bot_game(setup: GameSetup, seed: int) -> LocalGame:
    seats = (GreedyBot(random.Random(seed)), RandomBot(random.Random(seed + 1)))
    local = LocalGame(setup, seats, random.Random(seed + 2))
    assert local.advance()  # bots only: runs to the end
    assert local.game.is_over
    return local


def replay(setup: GameSetup, lines: list[str]) -> Game:
    game = Game(setup)
    for line in lines:
        if line.startswith("roll"):
            game.roll(parse_dice(line))
        else:
            game.apply(parse_choice(game, line))
    return game


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_notation_log_replays_to_the_same_game(setup: GameSetup, seed: int) -> None:
    local = bot_game(setup, seed)
    again = replay(setup, local.notation())
    assert again.state_hash() == local.game.state_hash()
    assert again.winner is local.game.winner


def test_same_seeds_give_the_same_log(setup: GameSetup) -> None:
    assert bot_game(setup, 5).notation() == bot_game(setup, 5).notation()
    assert bot_game(setup, 5).notation() != bot_game(setup, 6).notation()


def test_attack_rolls_show_faces_and_turns_are_reported(setup: GameSetup) -> None:
    local = bot_game(setup, 1)
    attack_rolls = [e for e in local.log if e.kind is EventKind.ROLL and e.faces]
    assert attack_rolls, "a greedy game has combat"
    for event in attack_rolls:
        values = parse_dice(event.notation)
        assert event.faces == format_attack_dice(values)
        assert event.faces in event.words
    transcript = "\n".join(local.transcript())
    assert all(e.faces in transcript for e in attack_rolls)
    turns = [e for e in local.log if e.kind is EventKind.TURN]
    assert len(turns) == len(local.game.conquest_history)
    a, b = local.game.conquest_history[-1]
    assert f"A {a}, B {b} conquest points" in turns[-1].words


def test_a_person_is_asked_and_illegal_entries_change_nothing(setup: GameSetup) -> None:
    local = LocalGame(setup, (Human(), RandomBot(random.Random(0))), random.Random(0))
    local.advance()
    assert local.human_to_decide() is Player.A
    pending = local.game.pending
    assert isinstance(pending, Decision)
    assert pending.player is Player.A
    before, logged = local.game.state_hash(), len(local.log)
    for bad in ("spawn nobody e1", "move x c3", "", "attack z9"):
        with pytest.raises(DbnetError):
            local.play(bad)
    assert local.game.state_hash() == before
    assert len(local.log) == logged
    legal = local.game.legal_choices()
    assert legal is not None
    text = format_choice(local.game, legal[0])
    events = local.play(text)
    assert events[0].notation == text
    assert events[0].player is Player.A
    assert local.log[logged] == events[0]


def test_play_refuses_when_no_person_is_to_decide(setup: GameSetup) -> None:
    local = LocalGame(setup, (Human(), Human()), random.Random(0))
    assert isinstance(local.game.pending, ChanceRequest)
    with pytest.raises(IllegalChoiceError, match="no decision is waiting for a person"):
        local.play("done")


def test_resigning_ends_the_game_and_is_logged(setup: GameSetup) -> None:
    local = LocalGame(setup, (Human(), RandomBot(random.Random(0))), random.Random(0))
    local.advance()
    event = local.resign(Player.A)
    assert local.game.winner is Player.B
    assert local.notation()[-1] == event.notation == "resign"


def test_dice_default_to_the_system_csprng(setup: GameSetup) -> None:
    local = LocalGame(setup, (Human(), Human()))
    assert isinstance(local.dice, secrets.SystemRandom)
