"""The text board: tokens in the right cells, reserves with spawn costs, 80 columns."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from dbnet.bots import GreedyBot, RandomBot
from dbnet.bots.match import roll_dice
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import (
    AbilityDef,
    Activation,
    Aspect,
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
    Placement,
    Player,
    Position,
    Stage,
    Warband,
    Zone,
    format_choice,
    game_at,
    parse_choice,
)
from dbnet.engine.board import parse_cell
from dbnet.match.render import (
    WIDTH,
    ability_heading,
    ability_name,
    describe_mini,
    describe_pending,
    explain_pending,
    pending_help,
    render_board,
    render_position,
    render_reserves,
    short_name,
)
from dbnet.match.story import describe_roll

V, M, F = Aspect.VALOR, Aspect.MADNESS, Aspect.FEAR
STANDARD = {"b4": 2, "c4": 3, "d4": 2, "b3": 1, "c3": 5, "d3": 1, "b2": 2, "c2": 3, "d2": 2}


def creature(
    slug: str, cost: int, aspects: tuple[Aspect, ...], p: int, d: int, li: int
) -> MiniatureDef:
    return MiniatureDef(slug, slug.title(), MiniKind.CREATURE, cost, aspects, p, d, li)


TEMPLE_LION = creature("temple-lion", 3, (V,), 2, 3, 4)
SIR_GLORIOUS = creature("sir-glorious", 6, (V, V), 3, 5, 7)
MOON_SHRINE = MiniatureDef("moon-shrine", "Moon Shrine", MiniKind.LOCATION, 2, (V,))
LOCKJAW = creature("lockjaw", 4, (M,), 3, 3, 5)
PIT_BEAST = creature("pit-beast", 5, (F,), 3, 4, 6)
BIG_ONE = creature("big-one", 8, (M, M, M), 4, 6, 9)
MAD_HAT = creature("mad-hat", 2, (M,), 1, 2, 3)


def cell(name: str) -> int:
    found = parse_cell(name)
    assert found is not None
    return found


def at(name: str, damage: int = 0) -> Placement:
    return Placement(Zone.DREAMSCAPE, cell(name), damage)


def sample_game(**position: object) -> Game:
    values = [0] * 25
    for name, value in STANDARD.items():
        values[cell(name)] = value
    setup = GameSetup(
        MapDef("test", tuple(values)),
        (
            Warband("a", (TEMPLE_LION, TEMPLE_LION, SIR_GLORIOUS, MOON_SHRINE)),
            Warband("b", (LOCKJAW, PIT_BEAST, BIG_ONE, MAD_HAT)),
        ),
    )
    placements = (
        at("c3", damage=2),  # A temple-lion#1
        Placement(),  # A temple-lion#2, in reserves
        at("c4"),  # A sir-glorious
        at("c3"),  # A moon-shrine (a location)
        at("c3"),  # B lockjaw
        Placement(Zone.GRAVEYARD),  # B pit-beast
        Placement(),  # B big-one
        Placement(),  # B mad-hat
    )
    return game_at(setup, Position(placements=placements, **position))  # type: ignore[arg-type]


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


def test_damage_explanation_with_two_targets() -> None:
    values = [0] * 25
    setup = GameSetup(
        MapDef("test", tuple(values)),
        (Warband("a", (SIR_GLORIOUS,)), Warband("b", (LOCKJAW, PIT_BEAST))),
    )
    game = game_at(
        setup,
        Position(stage=Stage.STRIKE, placements=(at("c3"), at("c3", damage=1), at("c3"))),
    )
    game.apply(AttackChoice(cell("c3"), (0,)))
    game.roll([3, 2, 5])
    pending = game.pending
    assert isinstance(pending, Decision)
    assert pending.kind is DecisionKind.DAMAGE
    lines = explain_pending(game)
    assert lines[1] == "Assign exactly 5 damage; targets:"
    assert "lockjaw (B:lockjaw): defense 3, life 5, damage taken 1" in lines[2]
    assert "pit-beast (B:pit-beast): defense 4, life 6, damage taken 0" in lines[3]
    game.check_choice(parse_choice(game, lines[4].removeprefix("Example: ")))


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


HOSTILE = "Evil\nA> resign\r\x1b[2J\x85\u202eX\u2066"
SHOWN = "Evil\\nA> resign\\r\\x1b[2J\\x85\\u202eX\\u2066"


def hostile_game() -> Game:
    """A game whose warbands, map and a miniature (its name, its set, an ability's keyword,
    modifier and text) are named with control, bidi and isolate characters, as the other
    peer may send them."""
    odd = AbilityDef(f"Wyrd{HOSTILE}", modifier=HOSTILE, text=HOSTILE)
    mini = MiniatureDef(
        "hostile", HOSTILE, MiniKind.CREATURE, 2, (V,), 2, 2, 2, set_name=HOSTILE,
        abilities=(odd,),
    )  # fmt: skip
    setup = GameSetup(
        MapDef(HOSTILE, (0,) * 25), (Warband(HOSTILE, (mini,)), Warband(HOSTILE, (LOCKJAW,)))
    )
    return Game(setup, allow_unimplemented=True)


def assert_printable(lines: list[str]) -> None:
    for line in lines:
        assert line.isprintable(), f"a raw control or format character in {line!r}"


def test_a_miniature_s_card_escapes_what_its_warband_chose() -> None:
    game = hostile_game()
    card = describe_mini(game, game.minis[0])
    assert_printable(card)
    assert card[0] == f"A:hostile: {SHOWN} (creature, {SHOWN}, designed for dbnet)"
    text = " ".join(" ".join(card).split())  # undo the wrapping
    assert f"Wyrd{SHOWN} {SHOWN}" in text  # the keyword and its modifier
    assert f"Not played by dbnet: {SHOWN}" in text


def test_ability_names_and_the_help_escape_what_the_warband_chose() -> None:
    game = hostile_game()
    ability = game.minis[0].defn.abilities[0]
    assert ability_name(ability) == f"Wyrd{SHOWN} {SHOWN}"
    assert ability_heading(ability).isprintable()
    assert_printable(pending_help(game))
    assert_printable(render_position(game).splitlines())
    assert_printable(explain_pending(game))


def test_help_leads_with_words_and_gives_rule_numbers_only_at_the_end() -> None:
    """Each step's help (the full screen's F1 and the line interface's 'help'): no rule
    number before the last parenthesis, which holds them all."""
    import re

    from dbnet.engine import DecisionKind
    from dbnet.match.render import DECISION_HELP

    for kind in DecisionKind:
        text = DECISION_HELP[kind]
        body, _, last = text.rpartition(" (")
        assert re.search(r"\d|FAQ", last), kind  # the rules, at the end
        assert last.endswith(")"), kind
        assert not re.search(r"\b\d{3}(\.\d+)?\b", body), (kind, body)
        assert text.split()[0][0].isupper(), kind  # words first


EXAMPLE_WARBANDS = Path(__file__).resolve().parents[2] / "examples" / "warbands"


def help_setups() -> list[GameSetup]:
    """The shipped warbands, and pairs of the example warbands (their abilities bring
    blades, targets, rerolls, simultaneous effects and deathblows)."""
    catalog = load_catalog()
    # every example but the one with an ability the engine does not know
    names = sorted(p.stem for p in EXAMPLE_WARBANDS.glob("*.toml"))
    names.remove("madness-and-valor-real")
    bands = [load_warband(EXAMPLE_WARBANDS / f"{name}.toml", catalog) for name in names]
    pairs = [(bands[i], bands[(i + 1) % len(bands)]) for i in range(len(bands))]
    return [GameSetup(load_map(), default_warbands(catalog))] + [
        GameSetup(load_map(), pair) for pair in pairs
    ]


def test_help_answers_at_every_kind_of_step_reached() -> None:
    """``help`` (the line interface) and F1 (the full screen) read ``pending_help``: it
    answers at every step of seeded games between random bots, dice and decisions alike,
    among them the place/bury step after a combat that once failed."""
    reached: dict[DecisionKind | ChanceKind | None, int] = {}
    for number, setup in enumerate(help_setups()):
        for seed in range(3):
            game = Game(setup)
            rng = random.Random(number * 100 + seed)
            bots = (RandomBot(random.Random(seed)), RandomBot(random.Random(-seed - 1)))
            while True:
                pending = game.pending
                kind = pending.kind if pending is not None else None
                text = pending_help(game)
                assert text, kind
                assert all(paragraph.strip() for paragraph in text), kind
                reached[kind] = reached.get(kind, 0) + 1
                if pending is None:
                    break
                if isinstance(pending, ChanceRequest):
                    game.roll(roll_dice(rng, pending.count))
                else:
                    game.apply(bots[pending.player].choose(game))
    wanted = set(DecisionKind) - {DecisionKind.COMMIT, DecisionKind.REVEAL}  # Limited
    assert wanted <= set(reached), sorted(str(k) for k in wanted - set(reached))
    assert None in reached  # the end of the game, too


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
