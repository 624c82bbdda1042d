"""Ability decisions in both interfaces: a spawn ability, targets, a granted blade, the order
of simultaneous effects and Fortunate's rerolls, each reached in a real game.

Each position comes from a hotseat game (both seats at this keyboard) whose decisions two
seeded random bots type until the decision wanted is pending; the seeds are the first
(searched from 1) that reach it. The full-screen client must say in words what is being
decided, offer the choices by Tab (with what each does) and by the arrow keys, explain
them in help, and play one; the line interface (``dbnet play --plain``, the same words
from ``dbnet.match.render`` and ``decision_help``) must say the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from dbnet.console.launch import default_setup
from dbnet.console.session import LocalSession, LogKind
from dbnet.engine import (
    ActivateChoice,
    BladeChoice,
    Decision,
    DecisionKind,
    Game,
    GameSetup,
    format_choice,
)
from dbnet.engine.keywords import explain
from dbnet.engine.notation import format_attack_dice
from dbnet.match.ability_words import ability_name, waiting_effects
from dbnet.match.decision_help import (
    MEANINGS_LISTED,
    choice_lines,
    choice_meaning,
    describe_mini,
    pending_help,
)
from dbnet.match.render import describe_pending

from .helpers import DOWN, ENTER, F1, TAB, example_setup, hotseat_at, running


def spawn_ability(game: Game) -> bool:
    pending = game.pending
    return (
        isinstance(pending, Decision)
        and pending.kind is DecisionKind.SPAWN
        and any(isinstance(c, ActivateChoice) for c in game.legal_choices() or [])
    )


def few_targets(game: Game) -> bool:
    pending = game.pending
    return (
        isinstance(pending, Decision)
        and pending.kind is DecisionKind.TARGET
        and pending.player.name == "A"
        and len(game.legal_choices() or []) <= MEANINGS_LISTED
    )


def granted_blade(game: Game) -> bool:
    pending = game.pending
    return (
        isinstance(pending, Decision)
        and pending.kind is DecisionKind.BLADE
        and any(isinstance(c, BladeChoice) and c.source >= 0 for c in game.legal_choices() or [])
    )


def copied_blade(game: Game) -> bool:
    pending = game.pending
    return (
        isinstance(pending, Decision)
        and pending.kind is DecisionKind.BLADE
        and any(
            isinstance(c, BladeChoice)
            and c.source >= 0
            and game.minis[c.source].abilities[c.index].keyword != "Hell's Fury"
            for c in game.legal_choices() or []
        )
    )


def kind(wanted: DecisionKind) -> Callable[[Game], bool]:
    return lambda game: isinstance(game.pending, Decision) and game.pending.kind is wanted


TARGET_SEED = 4  # the first seed reaching a TARGET decision of A's with at most 12 choices


@dataclass(frozen=True)
class Case:
    name: str
    setup: Callable[[], GameSetup]
    seed: int
    wanted: Callable[[Game], bool]


def mirror_and_hive() -> GameSetup:
    """Fortunate and Copy are in no default warband: Mirror Court (Cardsharp Fool, Echo
    Mimic) against Hive Terror."""
    return example_setup("mirror-court", "hive-terror")


CASES = [
    Case("spawn ability", default_setup, 1, spawn_ability),
    Case("targets", default_setup, TARGET_SEED, few_targets),
    Case("granted blade", default_setup, 6, granted_blade),
    Case("order", default_setup, 19, kind(DecisionKind.ORDER)),
    # 37, not 2 or 16 (the first to reach a copied blade): there the copying creature's
    # card shows another copy than the blade offered (noted in the closing note of the
    # session that re-searched these seeds for protocol version 2)
    Case("copied blade", mirror_and_hive, 37, copied_blade),
    Case("reroll", mirror_and_hive, 2, kind(DecisionKind.REROLL)),
]


@pytest.fixture(scope="module", params=CASES, ids=[c.name for c in CASES])
def case(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Game:
    """The game at the wanted decision (a copy: the session that reached it is closed)."""
    found: Case = request.param
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DBNET_HOME", str(tmp_path_factory.mktemp("home")))
        session = hotseat_at(found.setup(), found.seed, found.wanted)
        session.close()
    return session.game.copy()


def words_about(game: Game) -> list[str]:
    """Phrases the decision's description must hold, worked out from the game itself."""
    pending = game.pending
    assert isinstance(pending, Decision)
    if pending.kind is DecisionKind.SPAWN:
        return ["'activate NAME ABILITY [X]' for a spawn ability"]
    if pending.kind is DecisionKind.TARGET:
        holder = game.minis[pending.minis[0]]
        ability = game.ability_def(*pending.ability)
        return [f"chooses the targets of {holder.label}'s {ability.keyword}", "Write 'target "]
    if pending.kind is DecisionKind.BLADE:
        return ["to a blade ability: 'blade NAME ABILITY [SOURCE]'"]
    if pending.kind is DecisionKind.ORDER:
        effects = waiting_effects(game, pending)
        assert len(effects) >= 2
        return [f"{n}. {effect}" for n, effect in enumerate(effects, 1)]
    assert pending.kind is DecisionKind.REROLL
    die = "die" if pending.total == 1 else "dice"
    return [f"may reroll up to {pending.total} {die} of {format_attack_dice(pending.dice)}"]


def test_the_decision_is_said_in_words(case: Game) -> None:
    said = describe_pending(case)
    for phrase in words_about(case):
        assert phrase in said, said
    pending = case.pending
    assert isinstance(pending, Decision)
    if pending.kind is DecisionKind.TARGET:  # what each target is, in the order it is written
        ability = case.ability_def(*pending.ability)
        moves = ability.keyword in ("Advance", "Skirmish", "Expel", "Scare", "Lure", "Teleport")
        assert ("'target NAME CELL" in said) == (moves and ability.modifier != "Self")


def test_every_choice_that_needs_it_says_what_it_does(case: Game) -> None:
    choices = case.legal_choices() or []
    meanings = {format_choice(case, c): choice_meaning(case, c) for c in choices}
    pending = case.pending
    assert isinstance(pending, Decision)
    if pending.kind is DecisionKind.SPAWN:
        activations = [c for c in choices if isinstance(c, ActivateChoice)]
        for activation in activations:
            ability = case.minis[activation.mini].abilities[activation.index]
            assert meanings[format_choice(case, activation)].startswith(ability.keyword)
            assert "spawn point" in meanings[format_choice(case, activation)]
        return
    assert all(meanings.values()), meanings
    if pending.kind is DecisionKind.BLADE:
        given = [c for c in choices if isinstance(c, BladeChoice) and c.source >= 0]
        for blade in given:
            source = case.minis[blade.source]
            printed = source.abilities[blade.index]
            text = meanings[format_choice(case, blade)]
            if printed.keyword == "Hell's Fury":
                assert text == f"Crit 2, granted by {source.label}'s Hell's Fury"
            else:
                assert text == f"copy (Copy) of {source.label}'s {ability_name(printed)}"
    # the line interface shows them above the list of legal choices
    lines = choice_lines(case)
    header = next(i for i, line in enumerate(lines) if line.startswith("Legal choices ("))
    assert lines[0] == "What they do:"
    told = " ".join(" ".join(lines[1:header]).split())
    for notation, meaning in meanings.items():
        assert f"{notation}: {meaning}" in told


def test_help_explains_the_abilities_in_plain_words(case: Game) -> None:
    paragraphs = pending_help(case)
    pending = case.pending
    assert isinstance(pending, Decision)
    text = " ".join(paragraphs)
    abilities = []
    if pending.kind is DecisionKind.TARGET:
        abilities.append(case.ability_def(*pending.ability))
    for choice in case.legal_choices() or []:
        if isinstance(choice, BladeChoice):
            source = choice.mini if choice.source < 0 else choice.source
            abilities.append(case.ability_def(source, choice.index))
        elif isinstance(choice, ActivateChoice):
            abilities.append(case.minis[choice.mini].abilities[choice.index])
    if pending.kind is DecisionKind.REROLL:
        holder = case.minis[pending.minis[0]]
        abilities += [a for a in holder.abilities if a.keyword == "Fortunate"]
    if pending.kind is DecisionKind.ORDER:
        assert paragraphs[0].startswith("Simultaneous effects: ")
        assert paragraphs[0].endswith("(Rule 900.7a.)")
        assert all(effect in text for effect in waiting_effects(case, pending))
    for ability in abilities:
        assert ability_name(ability) in text
        assert explain(ability) in text


@pytest.mark.parametrize("case_", CASES, ids=[c.name for c in CASES])
def test_the_full_screen_client_offers_explains_and_plays_it(
    case_: Case, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    monkeypatch.setenv("DBNET_HOME", str(tmp_path_factory.mktemp("home")))
    session = hotseat_at(case_.setup(), case_.seed, case_.wanted)
    asyncio.run(_offer_explain_and_play(session))


async def _offer_explain_and_play(session: LocalSession) -> None:
    async with running(session, 100, 40) as d:
        game = session.game
        pending = game.pending
        assert isinstance(pending, Decision)
        screen = " ".join(d.screen().split())
        assert f"{pending.player.name}, your decision:" in screen
        for phrase in words_about(game):
            assert phrase in screen, phrase
        items = d.console.choice_items()
        choices = game.legal_choices() or []
        assert items == [format_choice(game, c) for c in choices]
        meanings = {format_choice(game, c): choice_meaning(game, c) for c in choices}
        # Tab offers the legal choices in notation, each with what it does beside it
        verb = items[0].split()[0] if pending.kind is not DecisionKind.SPAWN else "activate"
        expected = {i: meanings[i] for i in items if i.startswith(verb)}
        await d.keys(verb[:3] + TAB)
        if len(expected) == 1:  # the only completion goes straight into the entry
            await d.wait_for(lambda: d.console.buffer.text in expected, "the completion")
        else:
            await d.wait_for(lambda: d.console.buffer.complete_state is not None, "the menu")
            state = d.console.buffer.complete_state
            assert state is not None
            offered = {c.display_text: c.display_meta_text for c in state.completions}
            assert offered == expected
            await d.keys("\x1b")  # Escape closes the menu
        await d.keys("\x15")  # Ctrl-U clears the entry
        # help explains the step and its abilities
        await d.keys(F1)
        panel = " ".join(" ".join(line[79:] for line in d.screen().splitlines()).split())
        assert pending_help(game)[0][:40] in panel
        # Down picks the first legal choice, with its meaning on the status line; Enter plays
        await d.keys(DOWN)
        assert d.console.buffer.text == items[0]
        if meanings[items[0]]:
            assert d.console.message == f"Enter plays '{items[0]}': {meanings[items[0]]}."
        played = len(session.log)
        await d.keys(ENTER)
        await d.wait_for(lambda: len(session.log) > played, "the play")
        line = session.log[played]
        assert (line.kind, line.notation) == (LogKind.CHOICE, items[0])


BLADE_CASES = [c for c in CASES if c.name in ("granted blade", "copied blade")]


@pytest.mark.parametrize("case_", BLADE_CASES, ids=[c.name for c in BLADE_CASES])
def test_a_card_shows_the_abilities_a_creature_has_from_others(
    case_: Case, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``show NAME`` on a creature holding a granted or copied blade ability lists it, with
    where it comes from, after its own abilities."""
    monkeypatch.setenv("DBNET_HOME", str(tmp_path_factory.mktemp("home")))
    session = hotseat_at(case_.setup(), case_.seed, case_.wanted)
    session.close()
    game = session.game
    given = [c for c in game.legal_choices() or [] if isinstance(c, BladeChoice) and c.source >= 0]
    assert given
    for choice in given:
        holder, source = game.minis[choice.mini], game.minis[choice.source]
        card = " ".join(" ".join(describe_mini(game, holder)).split())
        ability = game.ability_def(choice.source, choice.index)
        assert f"now also {ability_name(ability)} (blade ability" in card
        assert explain(ability) in card
        assert f"{source.label}'s" in card.split("now also", 1)[1]
