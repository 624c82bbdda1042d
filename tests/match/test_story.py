"""The story of a game (``match.story``): what each decision and roll did, in words.

Checked against a second copy of each game, re-played from the notation lines alone:
every miniature that left the dreamscape, was disrupted or came back is told, and
nothing else; a strike with nothing engaged says so; blades are never written ``B``.
"""

from __future__ import annotations

import random

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import Game, GameSetup, parse_choice, parse_dice
from dbnet.engine.board import cell_name
from dbnet.engine.choices import PlaceChoice, StrikeChoice
from dbnet.engine.game import Zone
from dbnet.match.keys import MatchKeys
from dbnet.match.local import LocalGame
from dbnet.match.seats import BotSeat
from dbnet.match.story import IDLE_STRIKE, EventKind, Narrator, faces_in_words
from dbnet.protocol.rolls import Roll


@pytest.fixture(scope="module")
def setup() -> GameSetup:
    return GameSetup(load_map(), default_warbands(load_catalog()))


def told_game(setup: GameSetup, seed: int) -> LocalGame:
    bots = (BotSeat(GreedyBot(random.Random(seed))), BotSeat(RandomBot(random.Random(seed + 100))))
    local = LocalGame(setup, bots, MatchKeys.from_seed(f"test-story:{seed}".encode()))
    local.advance()
    assert local.is_closed
    return local


def expected_outcome(before: Game, after: Game, notation: str) -> list[str]:
    """The outcome sentences the story owes for one step, worked out from two positions."""
    choice = None if notation.startswith("roll") else parse_choice(before, notation)
    sentences = []
    for old, new in zip(before.minis, after.minis, strict=True):
        if (old.zone, old.cell) == (new.zone, new.cell):
            continue
        own = getattr(choice, "mini", None) == new.id and not isinstance(choice, PlaceChoice)
        if own and new.zone is Zone.DREAMSCAPE:
            continue  # a spawn or move says it itself
        if new.zone is Zone.GRAVEYARD and old.zone is Zone.DREAMSCAPE:
            sentences.append(f"{new.label} is destroyed.")
        elif isinstance(choice, PlaceChoice):
            sentences.append(f"{new.label} is disrupted to {cell_name(new.cell)}.")
        else:
            sentences.append(new.label)  # any other change: at least the name is told
    return sentences


@pytest.mark.parametrize("seed", range(4))
def test_every_change_of_place_is_told_with_the_step_that_made_it(
    setup: GameSetup, seed: int
) -> None:
    local = told_game(setup, seed)
    game = Game(setup)
    destroyed = disrupted = idle = strikes = 0
    for event in local.log:
        if event.kind is EventKind.TURN:
            continue
        if event.kind is EventKind.RESIGN:
            break
        before = game.copy()
        if event.kind is EventKind.ROLL:
            game.roll(parse_dice(event.notation))
        else:
            choice = parse_choice(game, event.notation)
            if isinstance(choice, StrikeChoice):
                strikes += 1
                cells = before.creature_cells
                nothing_engaged = cells[0] & cells[1] == 0
                assert (event.outcome == IDLE_STRIKE) is nothing_engaged, event.words
                idle += nothing_engaged
                game.apply(choice)
                continue
            game.apply(choice)
        wanted = expected_outcome(before, game, event.notation)
        for sentence in wanted:
            assert sentence in event.outcome, (event.words, wanted)
        assert len(wanted) == event.outcome.count("."), event  # and nothing else is told
        assert event.outcome in event.words
        destroyed += sum("is destroyed" in s for s in wanted)
        disrupted += sum("is disrupted" in s for s in wanted)
    assert game.state_hash() == local.game.state_hash()
    assert destroyed > 0  # the games do tell of destruction
    assert strikes > 0


def test_disruption_and_idle_strikes_are_told_somewhere(setup: GameSetup) -> None:
    words = " ".join(e.words for seed in range(4) for e in told_game(setup, seed).log)
    assert "is disrupted to " in words
    assert IDLE_STRIKE in words


def test_blades_are_written_as_a_word_never_as_b(setup: GameSetup) -> None:
    assert faces_in_words((1, 2, 3, 4, 5, 6)) == "[1 2 3 - - blade]"
    rolls = [e for e in told_game(setup, 1).log if e.kind is EventKind.ROLL and e.faces]
    assert rolls
    for event in rolls:
        assert event.faces == faces_in_words(event.dice)
        assert "B]" not in event.words
        assert " B " not in event.faces


def test_labels_call_the_players_in_choices_resignations_and_the_result(
    setup: GameSetup,
) -> None:
    """A spectator's narrator calls the players by the names they signed (``alice (A)``),
    escaped; the result line too."""
    from dbnet.engine import Player
    from dbnet.match.render import describe_result
    from dbnet.match.story import Narrator

    narrator = Narrator(setup, labels=("alice (A)", "b\x1bob (B)"))
    assert narrator.labels == ("alice (A)", "b\\x1bob (B)")
    [event] = narrator.resign(Player.B)
    assert event.words == "b\\x1bob (B) resigns."
    game = narrator.game
    assert describe_result(game) == "A wins: B resigned."
    assert describe_result(game, narrator.labels) == "alice (A) wins: b\\x1bob (B) resigned."
    plain = Narrator(setup)
    assert plain.resign(Player.A)[0].words == "A resigns."


@pytest.mark.parametrize(
    ("rolls", "why"),
    [
        ([(6, 1)], "B rolled a 1 on the first turn: it is rerolled (700.1)."),
        ([(1, 1)], "A and B rolled 1s on the first turn: they are rerolled (700.1)."),
        ([(3, 3)], "A tie on the first turn: both reroll (700.1)."),
    ],
)
def test_an_initiative_reroll_says_why(rolls: list[tuple[int, ...]], why: str) -> None:
    narrator = Narrator(GameSetup(load_map(), default_warbands(load_catalog())), ("A", "B"))
    [event, *_] = narrator.roll(Roll(0, "initiative", rolls[0]))
    assert event.words.endswith(f"{why}"), event.words
    assert "Reroll (700.1, 800)" not in event.words
