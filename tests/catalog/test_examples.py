"""The example warbands: legal, honest headers, every keyword between them, and they play.

Each one plays whole games with the random bot against a default warband, in both
seats; the file with a miniature dbnet can't play is played as its header says.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from dbnet.bots import make_bot
from dbnet.bots.base import Bot
from dbnet.bots.match import DEFAULT_MAX_TURNS, play_match, roll_dice
from dbnet.catalog import Catalog, default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import ChanceRequest, EndReason, Game, GameSetup, Player, Warband
from dbnet.engine.keywords import CUSTOM, KEYWORDS, check_ability
from dbnet.errors import DataError

from .helpers import EXAMPLE_WARBANDS

SEEDS = (0, 1)


def example_files() -> list[Path]:
    return sorted(EXAMPLE_WARBANDS.glob("*.toml"))


def header(path: Path) -> str:
    """The comment lines before the first field: what the file says about itself."""
    return path.read_text(encoding="utf-8").split("\nname")[0]


def unplayable(warband: Warband) -> list[str]:
    return sorted({m.name for m in warband.minis if any(check_ability(a) for a in m.abilities)})


def keywords_of(warband: Warband) -> set[str]:
    return {a.keyword for m in warband.minis for a in m.abilities if a.keyword in KEYWORDS}


def test_at_least_six_example_warbands_with_abilities(catalog: Catalog) -> None:
    with_abilities = [
        p for p in example_files() if any(m.abilities for m in load_warband(p, catalog).minis)
    ]
    assert len(with_abilities) >= 6


def test_together_they_use_every_keyword(catalog: Catalog) -> None:
    used: set[str] = set()
    for path in example_files():
        used |= keywords_of(load_warband(path, catalog))
    assert used == set(KEYWORDS)


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_example_is_legal_and_its_header_says_its_idea(catalog: Catalog, path: Path) -> None:
    """Rule 600: at most 16 miniatures, at most three copies; the header comment names
    every keyword the warband uses."""
    warband = load_warband(path, catalog)
    assert 1 <= len(warband.minis) <= 16
    assert max(Counter(m.slug for m in warband.minis).values()) <= 3
    lines = header(path).splitlines()
    assert len(lines) >= 2
    assert all(line.startswith("#") or not line.strip() for line in lines)
    for keyword in keywords_of(warband):
        assert keyword in header(path), keyword
    for name in {a.keyword for m in warband.minis for a in m.abilities} & set(CUSTOM):
        assert name in header(path), name


def full_example_files() -> list[Path]:
    """The examples with 16 miniatures (600.4's advice is for full warbands)."""
    return [p for p in example_files() if len(load_warband(p, load_catalog()).minis) == 16]


def test_most_examples_are_full_warbands() -> None:
    assert len(full_example_files()) >= 6


@pytest.mark.parametrize("path", full_example_files(), ids=lambda p: p.name)
def test_full_warbands_can_spend_every_spawn_total(catalog: Catalog, path: Path) -> None:
    """600.4: any total from 4 to 12 is the cost of one miniature or of two."""
    costs = [m.spawn_cost for m in load_warband(path, catalog).minis]
    spendable = set(costs) | {
        costs[i] + costs[j] for i in range(len(costs)) for j in range(i + 1, len(costs))
    }
    assert set(range(4, 13)) <= spendable


@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_a_game_refuses_it_only_as_its_header_says(catalog: Catalog, path: Path) -> None:
    warband = load_warband(path, catalog)
    setup = GameSetup(load_map(), (warband, default_warbands(catalog)[1]))
    names = unplayable(warband)
    if not names:
        assert Game(setup).pending is not None
        return
    text = header(path)
    assert "allow_unimplemented=True" in text
    for name in names:
        assert name in text
    with pytest.raises(DataError, match="can't be played"):
        Game(setup)
    assert Game(setup, allow_unimplemented=True).pending is not None


def play(setup: GameSetup, bots: tuple[Bot, Bot], dice: random.Random, allow: bool) -> Game:
    """A whole game as ``play_match`` plays it, with ``allow_unimplemented`` as given."""
    game = Game(setup, allow_unimplemented=allow)
    while not game.is_over and game.turn <= DEFAULT_MAX_TURNS:
        pending = game.pending
        if isinstance(pending, ChanceRequest):
            game.roll(roll_dice(dice, pending.count))
        else:
            assert pending is not None
            game.apply(bots[pending.player].choose(game))
    return game


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("seat", [Player.A, Player.B], ids=["as-A", "as-B"])
@pytest.mark.parametrize("path", example_files(), ids=lambda p: p.name)
def test_example_plays_a_whole_game_with_the_random_bot(
    catalog: Catalog, path: Path, seat: Player, seed: int
) -> None:
    warband = load_warband(path, catalog)
    default = default_warbands(catalog)[seat.other]
    warbands = (warband, default) if seat is Player.A else (default, warband)
    setup = GameSetup(load_map(), warbands)
    bots = (make_bot("random", random.Random(seed)), make_bot("random", random.Random(seed + 1)))
    dice = random.Random(1000 + seed)
    if unplayable(warband):
        game = play(setup, bots, dice, allow=True)
        winner, reason, turns_won = game.winner, game.end_reason, tuple(game.turns_won)
    else:
        result = play_match(setup, bots, dice)
        winner, reason, turns_won = result.winner, result.end_reason, tuple(result.turns_won)
    assert reason is EndReason.VICTORY
    assert winner is not None
    assert turns_won[winner] == 6  # rule 1: six turns win the game
