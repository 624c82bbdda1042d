"""Helping a player decide: the legal choices with what they do, the help of every step
(words first, rule numbers last), a miniature's card, all escaped."""

from __future__ import annotations

import random
import re
from pathlib import Path

from dbnet.bots import RandomBot
from dbnet.bots.match import roll_dice
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import (
    AttackChoice,
    ChanceKind,
    ChanceRequest,
    Decision,
    DecisionKind,
    Game,
    GameSetup,
    MapDef,
    Position,
    Stage,
    Warband,
    game_at,
    parse_choice,
)
from dbnet.match.decision_help import describe_mini, explain_pending, pending_help

from .positions import (
    LOCKJAW,
    PIT_BEAST,
    SHOWN,
    SIR_GLORIOUS,
    assert_printable,
    at,
    cell,
    hostile_game,
)


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


def test_a_miniature_s_card_escapes_what_its_warband_chose() -> None:
    game = hostile_game()
    card = describe_mini(game, game.minis[0])
    assert_printable(card)
    assert card[0] == f"A:hostile: {SHOWN} (creature, {SHOWN}, designed for dbnet)"
    text = " ".join(" ".join(card).split())  # undo the wrapping
    assert f"Wyrd{SHOWN} {SHOWN}" in text  # the keyword and its modifier
    assert f"Not played by dbnet: {SHOWN}" in text


def test_help_leads_with_words_and_gives_rule_numbers_only_at_the_end() -> None:
    """Each step's help (the full screen's F1 and the line interface's 'help'): no rule
    number before the last parenthesis, which holds them all."""

    from dbnet.engine import DecisionKind
    from dbnet.match.decision_help import DECISION_HELP

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
