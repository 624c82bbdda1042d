"""How many dice each kind of roll has (docs/dice.md, "How many dice"): the documented
table against the engine's enums, and its formulas against every roll of random games."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from dbnet.engine import procedure
from dbnet.engine.choices import ChanceKind, ChanceRequest, DeathblowChoice, RerollChoice
from dbnet.engine.combat import Purpose
from dbnet.engine.game import Game
from dbnet.engine.limited import PACK_DICE

from .ability_warbands import random_setup
from .conftest import VANILLA_SETUP
from .randomgame import give, random_input

DICE_MD = Path(__file__).resolve().parents[2] / "docs" / "dice.md"


def documented() -> dict[str, tuple[str, str]]:
    """The table: kind to (purpose, the formula's name in backticks)."""
    text = DICE_MD.read_text(encoding="utf-8")
    text = text[text.index("## How many dice") :]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 5:
            kind = cells[0].strip("`")
            formula = re.search(r"`([^`]*)`", cells[3])
            assert formula is not None, line
            rows[kind] = (cells[1], formula.group(1))
    return rows


def test_every_kind_of_roll_is_documented_with_its_purpose() -> None:
    rows = documented()
    assert set(rows) == {kind.value for kind in ChanceKind}
    for purpose in Purpose:
        assert rows[purpose.name.lower()][0] == str(purpose.value)
    assert rows["initiative"][0] == "none"


def expected_count(game: Game, formula: str, last_choice: object, special: int | None) -> int:
    """The documented count of the roll the game waits for."""
    rolling = game.rolling
    if formula == "players":
        return len(game.reroll)
    if formula == "2":
        return 2
    if formula == "48":
        return PACK_DICE
    if formula == "chosen":
        assert isinstance(last_choice, RerollChoice)
        return len(last_choice.dice)
    assert rolling is not None
    if formula == "x + darkheart":
        assert special is not None
        attacker = game.minis[rolling.attacker]
        return special + game.attack_bonus(attacker.owner, attacker.cell)
    combat = game.combat
    assert combat is not None
    if rolling.purpose is Purpose.DEATHBLOW:
        assert isinstance(last_choice, DeathblowChoice)
        attackers, cell = last_choice.attackers, last_choice.cell
    else:
        attackers, cell = combat.attackers, combat.cell
    assert formula == "power + darkheart"
    power = sum(game.power(game.minis[i]) for i in attackers)
    return power + game.attack_bonus(rolling.owner, cell)


def play_and_check(seed: int, formulas: dict[str, str], specials: list[int]) -> set[str]:
    """Play a random game, checking each roll's count; the kinds of roll seen."""
    setup = VANILLA_SETUP if seed == 0 else random_setup(seed, turns_to_win=6)
    game = Game(setup, allow_unimplemented=True)
    rng = random.Random(seed)
    last_choice: object = None
    seen: set[str] = set()
    for _ in range(20_000):
        pending = game.pending
        if pending is None:
            break
        if isinstance(pending, ChanceRequest):
            kind = pending.kind.value
            seen.add(kind)
            special = specials[-1] if specials else None
            assert pending.count > 0, (seed, kind)
            count = expected_count(game, formulas[kind], last_choice, special)
            assert pending.count == count, (seed, kind)
        given = random_input(game, rng)
        if given.choice is not None:
            last_choice = given.choice
        give(game, given)
    return seen


def test_every_roll_has_the_documented_count(monkeypatch: pytest.MonkeyPatch) -> None:
    formulas = {kind: formula for kind, (_, formula) in documented().items()}
    specials: list[int] = []
    start_special = procedure.start_special

    def record(game: Game, attacker: int, power: int, target: int) -> None:
        specials.append(power)  # the X of the special attack starting
        start_special(game, attacker, power, target)

    monkeypatch.setattr(procedure, "start_special", record)
    seen: set[str] = set()
    for seed in range(40):
        seen |= play_and_check(seed, formulas, specials)
    # every kind of roll was checked; the pack roll of a Limited game is checked in
    # tests/catalog/test_limited_game.py (the engine tests do not use the catalog)
    assert seen == {kind.value for kind in ChanceKind} - {ChanceKind.PACKS.value}
    assert formulas[ChanceKind.PACKS.value] == str(PACK_DICE)
