"""The text board: tokens in the right cells, reserves with spawn costs, 80 columns."""

from __future__ import annotations

import random
import re

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.bots.match import roll_dice
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import (
    AbilityDef,
    Activation,
    AttackChoice,
    ChanceKind,
    ChanceRequest,
    Decision,
    DecisionKind,
    Game,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    Player,
    Position,
    Stage,
    Warband,
    Zone,
    format_choice,
    game_at,
    parse_choice,
)
from dbnet.match.decision_help import explain_pending
from dbnet.match.render import (
    WIDTH,
    describe_pending,
    render_board,
    render_position,
    render_reserves,
    short_name,
)
from dbnet.match.story import describe_roll

from .positions import BIG_ONE, LOCKJAW, at, cell, sample_game


def board_cells(lines: list[str]) -> dict[str, list[str]]:
    """Read the drawn board back: cell name -> the non-empty texts in that cell."""
    cells: dict[str, list[str]] = {}
    row = 0
    for line in lines:
        label = re.match(r"^ ([1-5]) \|", line)
        if label:
            row = int(label[1])
        elif not line.startswith("   |"):
            continue
        parts = line[3:].split("|")[1:-1]
        assert len(parts) == 5, line
        for column, text in zip("abcde", parts, strict=True):
            if text.strip():
                cells.setdefault(f"{column}{row}", []).append(text.strip())
    return cells


def test_short_names_are_readable_abbreviations() -> None:
    assert short_name("lockjaw") == "lockjaw"
    assert short_name("temple-lion") == "t-lion"
    assert short_name("screambent-lunatic") == "s-lunati"
    assert all(len(short_name(s)) <= 8 for s in ("a-very-long-creature-name", "x" * 20))


def test_board_shows_each_token_in_its_cell() -> None:
    game = sample_game(stage=Stage.ACTION)
    cells = board_cells(render_board(game))
    # the location first, under the cell's mark, then creatures: A's, then B's
    assert cells["c3"] == ["5 pts A+B", "A@m-shrine", "A:t-lion#1*2", "B:lockjaw"]
    assert cells["c4"] == ["3 pts A", "A:s-glorio"]
    assert cells["e1"] == ["A portal"]
    assert cells["a5"] == ["B portal"]
    for column in "abcd":
        assert cells[f"{column}1"] == ["A spawn"]
    for column in "bcde":
        assert cells[f"{column}5"] == ["B spawn"]
    assert cells["b2"] == ["2 pts B"]
    assert cells["b3"] == ["1 pt A+B"]
    # every miniature in the dreamscape appears exactly once
    tokens = [t for texts in cells.values() for t in texts if t[1] in ":@"]
    assert len(tokens) == sum(1 for m in game.minis if m.zone is Zone.DREAMSCAPE)
    # the column letters head the board, row 5 is drawn first
    lines = render_board(game)
    assert lines[0].split() == list("abcde")
    assert lines[2].startswith(" 5 |")


def test_status_shows_phase_conquest_victory_and_graveyards() -> None:
    game = sample_game(stage=Stage.ACTION, turn=4, turns_won=(2, 1), kills=(1, 0))
    text = render_position(game)
    assert "Turn 4, action phase 1 of 4 (A), A went first." in text
    assert "Victory track: A 2/6, B 1/6." in text
    # A claims c4 (3 points, 803.1) and destroyed one creature (803.2); c3 is contested
    assert game.claimed_points(Player.A) == 3
    assert "Conquest this turn: A 4 (cells 3, kills 1); B 0 (cells 0, kills 0)." in text
    assert re.search(r"B graveyard:\n  pit-beast\n", text)
    assert "A graveyard: (none)" in text
    assert text.splitlines()[-1] == "A to choose for action phase 1: 'shift' or 'strike'."


def test_reserves_show_spawn_cost_with_aspect_shortfall_and_affordability() -> None:
    game = sample_game(stage=Stage.SPAWN, active=Player.B, initiative=(3, 4), spawn_points=9)
    big = game.minis[6]
    # 801.4: three Madness symbols, one Madness miniature in play: two points more
    assert game.spawn_cost(big) == BIG_ONE.spawn_cost + 2
    b_lines = " ".join(render_reserves(game, Player.B))
    assert "big-one 10(8+2)" in b_lines
    assert "big-one 10(8+2)*" not in b_lines  # 10 > 9: not affordable
    assert "* = affordable (9 points)" in b_lines
    assert "mad-hat 2*" in b_lines
    a_lines = " ".join(render_reserves(game, Player.A))
    assert "temple-lion#2 3" in a_lines
    assert "*" not in a_lines  # not A's spawn phase
    game = sample_game(stage=Stage.SPAWN, active=Player.B, initiative=(5, 5), spawn_points=10)
    assert "big-one 10(8+2)*" in " ".join(render_reserves(game, Player.B))


def listed(lines: list[str]) -> list[str]:
    header = next(i for i, line in enumerate(lines) if line.startswith("Legal choices ("))
    return [c.strip() for c in " ".join(lines[header + 1 :]).split("|") if c.strip()]


@pytest.mark.parametrize("seed", [1, 2])
def test_every_rendering_fits_80_columns_and_lists_the_legal_choices(seed: int) -> None:
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    game = Game(setup)
    bots = (GreedyBot(random.Random(seed)), RandomBot(random.Random(seed)))
    dice = random.Random(seed)
    checked = 0
    while not game.is_over:
        pending = game.pending
        for line in render_position(game).splitlines() + explain_pending(game):
            assert len(line) <= WIDTH, line
        if isinstance(pending, ChanceRequest):
            game.roll(roll_dice(dice, pending.count))
            continue
        assert isinstance(pending, Decision)
        legal = game.legal_choices()
        if legal is not None:
            shown = listed(explain_pending(game))
            assert shown == [format_choice(game, c) for c in legal]
            assert [parse_choice(game, text) for text in shown] == legal
            checked += 1
        game.apply(bots[pending.player].choose(game))
    assert checked > 50
    assert render_position(game).splitlines()[-1].startswith("The game is over.")


def test_a_wail_roll_is_announced_and_told() -> None:
    screamer = MiniatureDef(
        "screamer", "Screamer", MiniKind.CREATURE, 9, (), 1, 7, 9,
        abilities=(AbilityDef("Wail", Activation.BLADE),),
    )  # fmt: skip
    setup = GameSetup(
        MapDef("test", (0,) * 25), (Warband("a", (screamer,)), Warband("b", (LOCKJAW,)))
    )
    game = game_at(setup, Position(stage=Stage.STRIKE, placements=(at("c3"), at("c3"))))
    game.apply(AttackChoice(cell("c3"), (0,)))
    game.roll([6])  # a blade: the only blade ability takes it
    request = game.pending
    assert isinstance(request, ChanceRequest)
    assert request.kind is ChanceKind.WAIL
    assert describe_pending(game) == "A rolls two initiative dice for A:screamer's Wail."
    assert describe_roll(game, request, [3, 1]) == (
        "A:screamer wails: 3 + 1 = 4; every creature of spawn cost 4 is banished."
    )


def test_one_spawn_point_is_singular() -> None:
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    game = Game(setup)
    while isinstance(game.pending, ChanceRequest):
        game.roll([4, 3] if game.pending.count == 2 else [4])
    assert isinstance(game.pending, Decision)
    assert game.pending.kind is DecisionKind.SPAWN
    game.spawn_points = 1
    assert "(1 spawn point left)" in describe_pending(game)
    assert "Spawn points: 1 spawn point left for " in render_position(game)
    game.spawn_points = 2
    assert "(2 spawn points left)" in describe_pending(game)
