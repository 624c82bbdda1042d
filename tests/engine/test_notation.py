"""The decision notation: ``format_choice`` and ``parse_choice`` are inverse on every
legal choice of random games, and malformed text fails with a message quoting it."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.engine import notation
from dbnet.engine.board import PORTAL, parse_cell
from dbnet.engine.choices import (
    DONE,
    ChanceRequest,
    Choice,
    Decision,
    DecisionKind,
    MoveChoice,
    SpawnChoice,
)
from dbnet.engine.game import Game, Zone
from dbnet.engine.model import Player
from dbnet.engine.notation import format_choice, format_dice, parse_choice, parse_dice
from dbnet.engine.position import Placement, Position, Stage, game_at
from dbnet.errors import GameOverError, IllegalChoiceError, InvalidChoiceError

from .conftest import VANILLA_SETUP
from .randomgame import play, random_input

GAMES_PER_EXAMPLE = 2


def shortest_unique_prefix(handle: str, others: Iterable[str]) -> str:
    """The shortest prefix of ``handle`` that starts no other handle in ``others``."""
    rest = [h for h in others if h != handle]
    for n in range(1, len(handle) + 1):
        prefix = handle[:n]
        if not any(h.startswith(prefix) for h in rest):
            return prefix
    return handle


def short_form(game: Game, choice: Choice, text: str) -> str | None:
    """``text`` with the miniature's handle cut to its shortest unique prefix, for spawns
    (among the player's reserves) and moves (among the player's miniatures in play)."""
    if isinstance(choice, SpawnChoice):
        where = Zone.RESERVES
    elif isinstance(choice, MoveChoice):
        where = Zone.DREAMSCAPE
    else:
        return None
    m = game.minis[choice.mini]
    others = [o.handle for o in game.minis if o.owner is m.owner and o.zone is where]
    verb, handle, cell = text.split()
    assert handle == m.handle
    return f"{verb} {shortest_unique_prefix(handle, others)} {cell}"


def check_round_trips(game: Game, rng: random.Random) -> int:
    """Check every legal choice of the pending decision; return how many were checked."""
    pending = game.pending
    if isinstance(pending, ChanceRequest):
        dice = tuple(rng.randint(1, 6) for _ in range(pending.count))
        assert parse_dice(format_dice(dice)) == dice
        return 0
    assert isinstance(pending, Decision)
    if pending.kind is DecisionKind.DAMAGE:
        given_input = random_input(game, rng)
        assert given_input.choice is not None
        choices: list[Choice] = [given_input.choice]
    else:
        choices = list(game.legal_choices() or [])
    for choice in choices:
        text = format_choice(game, choice)
        assert parse_choice(game, text) == choice, text
        assert parse_choice(game, f"  {text.upper()} ") == choice, text  # case-insensitive
        short = short_form(game, choice, text)
        if short is not None:
            assert parse_choice(game, short) == choice, short
    return len(choices)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_parse_choice_inverts_format_choice(seed: int) -> None:
    checked = 0
    for k in range(GAMES_PER_EXAMPLE):
        game = Game(VANILLA_SETUP)
        rng = random.Random(seed * GAMES_PER_EXAMPLE + k)
        checked += check_round_trips(game, rng)
        for _ in play(game, rng):
            if not game.is_over:
                checked += check_round_trips(game, rng)
    assert checked > 0


# --- errors --------------------------------------------------------------------------


def spawn_game() -> Game:
    """Turn 1, A's spawn phase with 7 spawn points (A rolled 4, B rolled 3)."""
    game = Game(VANILLA_SETUP)
    game.roll((4, 3))
    pending = game.pending
    assert isinstance(pending, Decision)
    assert pending.kind is DecisionKind.SPAWN
    assert pending.player is Player.A
    return game


def first_decision(kind: DecisionKind) -> Game:
    """The first game (over seeds 0, 1, ...) that reaches a ``kind`` decision, stopped there."""
    for seed in range(200):
        game = Game(VANILLA_SETUP)
        for _ in play(game, random.Random(seed)):
            pending = game.pending
            if isinstance(pending, Decision) and pending.kind is kind:
                return game
    raise AssertionError(f"no random game reached a {kind.value} decision")


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("shift", "shift"),  # a verb of another decision
        ("fly ash-sentinel#1 e1", "fly ash-sentinel#1 e1"),  # no such verb
        ("spawn ash-sentinel#1", "spawn ash-sentinel#1"),  # one argument short
        ("spawn ash-sentinel#1 e1 e1", "spawn ash-sentinel#1 e1 e1"),  # one too many
        ("done now", "done now"),
        ("spawn ash-sentinel#1 z9", "z9"),  # no such cell
        ("spawn ash-sentinel#1 e", "e"),
        ("spawn nobody e1", "nobody"),  # no such handle
        ("spawn grim e1", "grim"),  # grim-warden or grim-howler
        ("spawn storm-drake e1", "storm-drake"),  # B's, not A's
    ],
)
def test_parse_choice_rejects_malformed_text(text: str, quoted: str) -> None:
    game = spawn_game()
    with pytest.raises(InvalidChoiceError) as info:
        parse_choice(game, text)
    assert repr(quoted) in str(info.value)


def test_parse_choice_names_the_candidates_of_an_ambiguous_handle() -> None:
    with pytest.raises(InvalidChoiceError, match="grim-warden") as info:
        parse_choice(spawn_game(), "spawn grim e1")
    assert "grim-howler" in str(info.value)


def test_parse_choice_rejects_empty_text() -> None:
    with pytest.raises(InvalidChoiceError):
        parse_choice(spawn_game(), "   ")


@pytest.mark.parametrize("amount", ["x", "", "-1", "2.5", "two"])
def test_parse_choice_rejects_damage_that_is_no_number(amount: str) -> None:
    game = first_decision(DecisionKind.DAMAGE)
    pending = game.pending
    assert isinstance(pending, Decision)
    handle = game.minis[pending.targets[0]].handle
    word = f"{handle}={amount}"
    with pytest.raises(InvalidChoiceError) as info:
        parse_choice(game, f"damage {word}")
    assert repr(word) in str(info.value)
    with pytest.raises(InvalidChoiceError) as info:
        parse_choice(game, "damage lockjaw=x")
    assert repr("lockjaw=x") in str(info.value)
    with pytest.raises(InvalidChoiceError) as info:
        parse_choice(game, f"damage {handle}")
    assert repr(handle) in str(info.value)


@pytest.mark.parametrize(("text", "quoted"), [("attack z9", "z9"), ("attack", "attack")])
def test_parse_choice_rejects_a_strike_without_a_cell(text: str, quoted: str) -> None:
    game = first_decision(DecisionKind.STRIKE)
    with pytest.raises(InvalidChoiceError) as info:
        parse_choice(game, text)
    assert repr(quoted) in str(info.value)


def test_parse_choice_rejects_a_bad_cell_in_a_shift() -> None:
    game = first_decision(DecisionKind.SHIFT)
    mover = next(c for c in game.legal_choices() or [] if isinstance(c, MoveChoice))
    handle = game.minis[mover.mini].handle
    with pytest.raises(InvalidChoiceError) as info:
        parse_choice(game, f"move {handle} f1")
    assert repr("f1") in str(info.value)


def test_parse_choice_accepts_unique_prefixes() -> None:
    game = spawn_game()
    portal = PORTAL[Player.A]
    expected = {
        "dream-l": "dream-leviathan",
        "d": None,  # dusk-titan or dream-leviathan: ambiguous
        "grim-w": "grim-warden",
        "grim-h": "grim-howler",
        "ASH-SENTINEL#3": "ash-sentinel#3",
        "bone": "bone-spire",
    }
    for prefix, handle in expected.items():
        text = f"spawn {prefix} e1"
        if handle is None:
            with pytest.raises(InvalidChoiceError):
                parse_choice(game, text)
            continue
        m = next(m for m in game.minis if m.owner is Player.A and m.handle == handle)
        assert parse_choice(game, text) == SpawnChoice(m.id, portal)


def test_parse_choice_names_the_first_of_interchangeable_copies() -> None:
    game = spawn_game()
    copies = [m for m in game.minis if m.owner is Player.A and m.defn.slug == "ash-sentinel"]
    assert [m.handle for m in copies] == ["ash-sentinel#1", "ash-sentinel#2", "ash-sentinel#3"]
    assert parse_choice(game, "spawn ash-sentinel e1") == SpawnChoice(copies[0].id, PORTAL[0])
    game.apply(SpawnChoice(copies[0].id, PORTAL[Player.A]))
    assert parse_choice(game, "spawn ash-sentinel e1") == SpawnChoice(copies[1].id, PORTAL[0])


def cell(name: str) -> int:
    c = parse_cell(name)
    assert c is not None
    return c


def test_parse_choice_rejects_a_slug_shared_by_copies_in_different_places() -> None:
    hounds = [
        m.id
        for m in Game(VANILLA_SETUP).minis
        if m.owner is Player.A and m.defn.slug == "cinder-hound"
    ]
    where = dict(zip(hounds, (cell("d2"), cell("c2")), strict=True))
    placements = tuple(
        Placement(Zone.DREAMSCAPE, where[i]) if i in where else Placement() for i in range(32)
    )
    game = game_at(VANILLA_SETUP, Position(stage=Stage.SHIFT, placements=placements))
    with pytest.raises(InvalidChoiceError, match="ambiguous") as info:
        parse_choice(game, "move cinder-hound c3")
    assert "cinder-hound#1" in str(info.value)
    assert "cinder-hound#2" in str(info.value)
    assert parse_choice(game, "move cinder-hound#2 c3") == MoveChoice(hounds[1], cell("c3"))


def test_parse_choice_when_dice_are_expected() -> None:
    game = Game(VANILLA_SETUP)
    with pytest.raises(IllegalChoiceError, match="dice"):
        parse_choice(game, "done")


def test_parse_choice_after_the_game() -> None:
    game = spawn_game()
    game.resign(Player.B)
    with pytest.raises(GameOverError) as info:
        parse_choice(game, "done")
    assert repr("done") in str(info.value)


def test_parse_dice() -> None:
    assert parse_dice("roll 3 5") == (3, 5)
    assert parse_dice("6 1 2") == (6, 1, 2)
    assert parse_dice(format_dice((1, 6))) == (1, 6)
    with pytest.raises(InvalidChoiceError) as info:
        parse_dice("roll 3 x")
    assert repr("roll 3 x") in str(info.value)


def test_format_choice() -> None:
    game = spawn_game()
    assert format_choice(game, DONE) == "done"
    hound = next(m for m in game.minis if m.handle == "cinder-hound#2" and m.owner is Player.A)
    assert format_choice(game, SpawnChoice(hound.id, PORTAL[Player.A])) == "spawn cinder-hound#2 e1"


def outcome(game: Game, text: str) -> object:
    """What ``parse_choice`` gives for ``text``: the choice, or the error's type and words."""
    try:
        return parse_choice(game, text)
    except (InvalidChoiceError, IllegalChoiceError, GameOverError) as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("seed", range(6))
def test_the_short_way_for_moves_and_spawns_reads_as_the_full_one(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``parse_choice`` takes a move's or a spawn's exact handle straight from its cached
    words (``notation._placing``); at every decision of random games, every miniature
    named in every cell, moved and spawned, in either case and by a prefix, reads the
    same, choice or error, as with the short way turned off."""
    game = Game(VANILLA_SETUP)
    handles = [m.handle for m in game.minis]
    texts = [
        f"{verb} {name} {cell}"
        for verb in ("move", "spawn", "MOVE")
        for handle in handles
        for name in (handle, handle.upper(), handle[:4])
        for cell in ("a1", "c3", "E5", "f9")
    ]
    rng = random.Random(seed)
    compared = 0
    for _ in play(game, rng):
        pending = game.pending
        if not isinstance(pending, Decision) or pending.kind not in (
            DecisionKind.SPAWN,
            DecisionKind.SHIFT,
        ):
            continue
        sample = rng.sample(texts, 40)
        short = [outcome(game, text) for text in sample]
        with monkeypatch.context() as patched:
            patched.setattr(notation, "_placing", lambda text: None)
            full = [outcome(game, text) for text in sample]
        assert short == full
        compared += sum(isinstance(o, (MoveChoice, SpawnChoice)) for o in short)
    assert compared > 0
