"""``parse_choice`` gives back the very choice ``legal_choices`` lists for a spawn, a move
or targets, so that ``Game.apply`` need not check it; one that is not listed is still
checked and refused as before. Targets are named by label only where a namesake of the
other player's could be meant."""

from __future__ import annotations

import random

import pytest

from dbnet.bots.random_bot import RandomBot
from dbnet.catalog import load_map
from dbnet.engine import checking
from dbnet.engine.board import ADJACENT, CELL_COUNT, cell_name
from dbnet.engine.choices import (
    ChanceRequest,
    Choice,
    DecisionKind,
    MoveChoice,
    Pending,
    SpawnChoice,
    TargetChoice,
)
from dbnet.engine.game import Game
from dbnet.engine.model import GameSetup, Options
from dbnet.engine.notation import format_choice, parse_choice
from dbnet.errors import IllegalChoiceError

from .ability_warbands import random_warband
from .test_notation import first_decision, short_form, spawn_game


def no_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``checking.checked`` fail the test: ``Game.apply`` must not need it."""

    def checked(game: Game, pending: Pending | None, choice: Choice) -> None:
        raise AssertionError(f"{choice!r} was checked")

    monkeypatch.setattr(checking, "checked", checked)


@pytest.mark.parametrize("kind", [DecisionKind.SPAWN, DecisionKind.SHIFT])
def test_a_parsed_spawn_or_move_is_the_listed_choice(
    kind: DecisionKind, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = spawn_game() if kind is DecisionKind.SPAWN else first_decision(kind)
    listed = [c for c in game.legal_choices() or [] if isinstance(c, (SpawnChoice, MoveChoice))]
    assert listed
    for choice in listed:
        text = format_choice(game, choice)
        short = short_form(game, choice, text)
        assert short is not None
        for spelling in (text, f" {text.upper()}", short):
            assert parse_choice(game, spelling) is choice, spelling
    no_check(monkeypatch)
    game.apply(parse_choice(game, format_choice(game, listed[-1])))


def test_an_illegal_spawn_is_still_checked_and_refused() -> None:
    game = spawn_game()
    before = game.state_hash()
    choice = parse_choice(game, "spawn ash-sentinel#1 c3")  # not the spawn row
    assert isinstance(choice, SpawnChoice)
    assert choice.cell == 12
    assert choice not in (game.legal_choices() or [])
    with pytest.raises(IllegalChoiceError, match="can't be spawned in c3"):
        game.apply(choice)
    assert game.state_hash() == before


def test_an_illegal_move_is_still_checked_and_refused() -> None:
    game = first_decision(DecisionKind.SHIFT)
    mover = next(c for c in game.legal_choices() or [] if isinstance(c, MoveChoice))
    m = game.minis[mover.mini]
    far = next(c for c in range(CELL_COUNT) if c != m.cell and c not in ADJACENT[m.cell])
    choice = parse_choice(game, f"move {m.handle} {cell_name(far)}")
    assert choice == MoveChoice(m.id, far)
    assert choice not in (game.legal_choices() or [])
    before = game.state_hash()
    with pytest.raises(IllegalChoiceError, match=r"802\.1b"):
        game.apply(choice)
    assert game.state_hash() == before


def test_targets_parse_to_the_listed_choice_and_namesakes_by_label() -> None:
    """A mirror match (both players' handles alike): each target choice's notation reads
    back as that very choice, and some name a miniature by its label."""
    warband = random_warband(random.Random("mirror 38"), "m")
    setup = GameSetup(load_map(), (warband, warband), Options(turns_to_win=2))
    game = Game(setup, allow_unimplemented=True)
    rng = random.Random(38)
    bot = RandomBot(random.Random(38))
    labels = checked = 0
    while not game.is_over:
        pending = game.pending
        if isinstance(pending, ChanceRequest):
            game.roll([rng.randint(1, 6) for _ in range(pending.count)])
            continue
        assert pending is not None
        if pending.kind is DecisionKind.TARGET:
            for choice in game.legal_choices() or []:
                assert isinstance(choice, TargetChoice)
                text = format_choice(game, choice)
                labels += ":" in text
                checked += 1
                assert parse_choice(game, text) is choice, text
        game.apply(bot.choose(game))
    assert checked > 0
    assert labels > 0
