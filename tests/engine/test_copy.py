"""A copy of a game shares nothing mutable with its original, and playing either one
leaves the other alone.

``mutable_parts`` walks a game generically: every slot of every record, every item
of every list, dict and tuple, and refuses a type it does not know, so a field added
to the state (or to a combat, a roll, a miniature) is checked without this test
naming it. Only immutable values and the shared ``Rules`` may be reached from both.
"""

from __future__ import annotations

import dataclasses
import enum
import random
from array import array
from collections.abc import Iterator

import pytest

from dbnet.engine import ChanceRequest, GameSetup
from dbnet.engine import state as state_module
from dbnet.engine.copying import Copy, CopyPlan
from dbnet.engine.game import Game
from dbnet.engine.rules import Rules
from dbnet.engine.state import FIELDS

from .ability_warbands import random_setup
from .conftest import VANILLA_SETUP
from .test_ability_properties import biased_choice, example_setups

MAX_INPUTS = 3000
_LEAVES = (int, str, bytes, type(None), range, enum.Enum, Rules)
"""Immutable values (bool and IntEnum are ints), and the rules, which copies share."""


def mutable_parts(game: Game) -> dict[int, str]:
    """Every mutable object reachable from ``game`` but through its ``Rules``: id to path.

    Raises AssertionError for a slot left unset or an object of a type not known to be
    mutable or not.
    """
    found: dict[int, str] = {}
    seen: set[int] = set()

    def walk(value: object, path: str) -> None:
        if isinstance(value, _LEAVES) or id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, tuple | frozenset):
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")
        elif dataclasses.is_dataclass(value) and vars(type(value))["__dataclass_params__"].frozen:
            for field in dataclasses.fields(value):
                walk(getattr(value, field.name), f"{path}.{field.name}")
        elif isinstance(value, list | array):
            found[id(value)] = path
            for i, item in enumerate(value):
                walk(item, f"{path}[{i}]")
        elif isinstance(value, dict):
            found[id(value)] = path
            for key, item in value.items():
                walk(key, f"{path} key {key!r}")
                walk(item, f"{path}[{key!r}]")
        elif hasattr(type(value), "__slots__") and not hasattr(value, "__dict__"):
            found[id(value)] = path
            for cls in type(value).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    assert hasattr(value, name), f"{path}.{name} is not set"
                    walk(getattr(value, name), f"{path}.{name}")
        else:
            raise AssertionError(f"{path}: is a {type(value).__name__} mutable? (teach the walk)")

    walk(game, "game")
    return found


def shared_parts(game: Game, other: Game) -> list[str]:
    """The paths in ``game`` of the mutable objects that ``other`` reaches too."""
    mine = mutable_parts(game)
    theirs = mutable_parts(other)
    return sorted(mine[i] for i in mine.keys() & theirs.keys())


def random_inputs(game: Game, rng: random.Random) -> Iterator[None]:
    """Random legal inputs until the game ends, yielding after each."""
    for _ in range(MAX_INPUTS):
        if game.is_over:
            return
        random_input(game, rng)
        yield
    raise AssertionError("the game did not end")


def random_input(game: Game, rng: random.Random) -> None:
    """Random dice, or a legal choice biased towards fighting so that abilities come in."""
    pending = game.pending
    if isinstance(pending, ChanceRequest):
        game.roll([rng.randint(1, 6) for _ in range(pending.count)])
    else:
        game.apply(biased_choice(game, rng))


def games() -> Iterator[tuple[GameSetup, int]]:
    """Setups and seeds: the vanilla warbands, the example ability warbands, random ones."""
    yield VANILLA_SETUP, 0
    examples = example_setups()
    for seed in range(12):
        yield examples[seed % len(examples)], seed
    for seed in range(4):
        yield random_setup(seed, turns_to_win=4), seed


GAMES = list(games())


def test_a_copy_shares_nothing_mutable() -> None:
    """At every fifth input, and at every input with work in progress (a combat, a roll,
    the stack, targets to choose), a copy reaches no mutable object its original does."""
    busy = {"combat": 0, "rolling": 0, "stack": 0, "choosing": 0}
    for setup, seed in GAMES:
        game = Game(setup)
        for n, _ in enumerate(random_inputs(game, random.Random(seed))):
            busy_now = [name for name in busy if getattr(game, name)]
            if n % 5 and not busy_now:
                continue
            for name in busy_now:
                busy[name] += 1
            twin = game.copy()
            assert twin.rules is game.rules
            assert twin.encode() == game.encode()
            assert shared_parts(game, twin) == [], (seed, n)
    assert all(busy.values()), busy  # the walk met every kind of work in progress


@pytest.mark.parametrize(("setup", "seed"), GAMES[::2])
def test_playing_a_copy_leaves_the_original_alone(setup: GameSetup, seed: int) -> None:
    """Every 23 inputs: a copy plays on for a while and the original is as it was; and the
    copy kept from the last time is as it was, the original's inputs since then notwithstanding."""
    game = Game(setup)
    rng = random.Random(100 + seed)
    kept: tuple[Game, bytes] | None = None
    for n, _ in enumerate(random_inputs(game, rng)):
        if n % 23:
            continue
        if kept is not None:
            twin, twin_hash = kept
            assert twin.state_hash() == twin_hash, n
        before, encoded = game.state_hash(), game.encode()
        probe = game.copy()
        for _ in zip(range(40), random_inputs(probe, random.Random(n)), strict=False):
            pass
        assert game.state_hash() == before, n
        assert game.encode() == encoded, n
        kept = (game.copy(), before)


@pytest.mark.parametrize(("setup", "seed"), GAMES[1::4])
def test_a_game_copied_into_another_is_in_its_position_and_shares_nothing(
    setup: GameSetup, seed: int
) -> None:
    """``copy_from`` puts a game held elsewhere in the original's position, at every
    seventh input, as ``copy`` would: the same bytes, nothing mutable shared, and it plays
    on the same as the original."""
    game = Game(setup)
    held = Game(setup)
    rng = random.Random(200 + seed)
    for n, _ in enumerate(random_inputs(game, rng)):
        if n % 7:
            continue
        held.copy_from(game)
        assert held.encode() == game.encode(), n
        assert held.state_hash() == game.state_hash(), n
        assert shared_parts(game, held) == [], n
        probe, twin = held.copy(), game.copy()
        for _ in zip(range(20), random_inputs(probe, random.Random(n)), strict=False):
            pass
        for _ in zip(range(20), random_inputs(twin, random.Random(n)), strict=False):
            pass
        assert probe.state_hash() == twin.state_hash(), n


def test_every_field_has_a_rule() -> None:
    """A state has exactly the fields of ``FIELDS``, each with a way to copy it, and no
    ``__dict__`` where another could hide."""
    game = Game(VANILLA_SETUP)
    slots = [name for cls in Game.__mro__ for name in getattr(cls, "__slots__", ())]
    assert sorted(slots) == sorted(FIELDS)
    assert not hasattr(game, "__dict__")
    with pytest.raises(AttributeError):
        game.notes = []  # type: ignore[attr-defined]


def test_the_walk_finds_a_list_shared_by_a_copy() -> None:
    game = play_a_while(VANILLA_SETUP)
    twin = game.copy()
    twin.kills = game.kills
    assert shared_parts(game, twin) == ["game.kills"]


def test_the_walk_finds_a_field_copied_as_immutable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Had the table said a list may be shared, copying would share it, and the walk says so."""
    wrong = CopyPlan({**FIELDS, "conquest_history": Copy.SHARE, "creatures": Copy.LIST})
    monkeypatch.setattr(state_module, "_PLAN", wrong)
    game = play_a_while(VANILLA_SETUP)
    assert shared_parts(game, game.copy()) == [
        "game.conquest_history",
        "game.creatures[0]",
        "game.creatures[1]",
    ]


def test_the_walk_finds_a_field_the_copy_missed() -> None:
    """A field outside the table (here, in a subclass) would be missing from a copy."""

    class WithNotes(Game):
        __slots__ = ("notes",)
        notes: list[str]

    game = WithNotes(VANILLA_SETUP)
    game.notes = ["a note"]
    with pytest.raises(AssertionError, match=r"game\.notes is not set"):
        shared_parts(game, game.copy())


def play_a_while(setup: GameSetup) -> Game:
    """A game some turns in, with conquest history and creatures on the dreamscape."""
    game = Game(setup)
    rng = random.Random(7)
    for _ in random_inputs(game, rng):
        if game.turn > 2:
            break
    return game
