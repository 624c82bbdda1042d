"""Property tests with abilities: many random games between random ability warbands,
and games between every pairing of the example warbands.

After every input: the state's invariants (zones, stacking counts, damage, spawn
points, turns won), the pending item (a forced decision never waits; every listed
choice reads back from its notation), a copy hashing alike, and a few illegal
inputs that must be refused without changing anything. After the game: the same
inputs into a fresh game give the same state hashes, input by input.
"""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.bots.base import legal_damage_split
from dbnet.catalog import load_catalog, load_map, load_warband
from dbnet.engine import (
    SHIFT,
    STRIKE,
    ActivateChoice,
    BladeChoice,
    ChanceRequest,
    Choice,
    DamageChoice,
    Decision,
    DecisionKind,
    Done,
    Game,
    GameSetup,
    MoveChoice,
    RerollChoice,
    SpawnChoice,
    TargetChoice,
    Zone,
    format_choice,
    parse_choice,
)
from dbnet.engine.keywords import check_ability
from dbnet.errors import DbnetError

from .ability_warbands import random_setup
from .invariants import check_counters, check_stacking, check_zones

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "warbands"
MAX_INPUTS = 3000
GAMES = 1500  # games in the plain sweep (two turns to win); hypothesis adds its own
Input = tuple[Choice | None, tuple[int, ...]]


def biased_choice(game: Game, rng: random.Random) -> Choice:
    """A legal choice, biased towards fighting so that abilities come into play."""
    pending = game.pending
    assert isinstance(pending, Decision)
    if pending.kind is DecisionKind.DAMAGE:
        return legal_damage_split(game, pending, rng)
    legal = game.legal_choices()
    assert legal
    if pending.kind is DecisionKind.ACTION:
        return STRIKE if rng.random() < 0.7 else SHIFT
    if isinstance(legal[-1], Done) and len(legal) > 1 and rng.random() < 0.85:
        options = legal[:-1]
        hot = [
            c
            for c in options
            if isinstance(c, MoveChoice) and game.creatures[pending.player.other][c.cell]
        ]
        return rng.choice(hot if hot and rng.random() < 0.9 else options)
    return rng.choice(legal)


def check_state(game: Game) -> None:
    check_zones(game)
    check_stacking(game)
    check_counters(game)
    for m in game.minis:
        assert m.damage >= 0, m
        if m.zone is not Zone.DREAMSCAPE or m.defn.is_location:
            assert m.damage == 0, m
    pending = game.pending
    if game.is_over:
        assert pending is None
        assert game.winner is not None
        return
    assert pending is not None
    if isinstance(pending, ChanceRequest):
        assert pending.count >= 1
        assert game.legal_choices() is None
        return
    if pending.kind is DecisionKind.DAMAGE:
        assert pending.total >= 1
        assert len(pending.targets) >= 2, "a single target takes the damage automatically"
        return
    legal = game.legal_choices()
    assert legal is not None
    assert len(legal) >= 2, f"forced decision {pending!r} was not applied automatically"
    assert len(legal) == len(set(legal)), "duplicate legal choices"
    for choice in legal:
        parsed = parse_choice(game, format_choice(game, choice))
        assert parsed == choice, choice
        if isinstance(choice, (SpawnChoice, MoveChoice, TargetChoice)):
            assert parsed is choice, choice  # the listed value: Game.apply needs no check


def illegal_attempts(game: Game, rng: random.Random) -> list[Choice]:
    """Choices of the right shape that are not legal now (or nonsense of any shape)."""
    pending = game.pending
    if not isinstance(pending, Decision):
        return []
    mini, cell = rng.randrange(-1, 33), rng.randrange(-1, 26)
    attempts: list[Choice] = [
        TargetChoice((mini, cell)),
        RerollChoice((rng.randrange(0, 8),)),
        BladeChoice(mini, rng.randrange(-1, 3), rng.randrange(-2, 33)),
        ActivateChoice(mini, rng.randrange(-1, 3), rng.randrange(-1, 20)),
        MoveChoice(mini, cell),
    ]
    if pending.kind is DecisionKind.DAMAGE:
        attempts.append(DamageChoice(((pending.targets[0], pending.total + 1),)))
    legal = game.legal_choices() or []
    return [c for c in attempts if c not in legal]


def play_checked(setup: GameSetup, seed: int) -> tuple[list[Input], list[bytes]]:
    game = Game(setup)
    rng = random.Random(seed)
    fuzz = random.Random(~seed)
    inputs: list[Input] = []
    hashes = [game.state_hash()]
    check_state(game)
    while not game.is_over and len(inputs) < MAX_INPUTS:
        pending = game.pending
        if isinstance(pending, ChanceRequest):
            dice = tuple(rng.randint(1, 6) for _ in range(pending.count))
            game.roll(dice)
            inputs.append((None, dice))
        else:
            if fuzz.random() < 0.2:
                before = game.state_hash()
                for bad in illegal_attempts(game, fuzz):
                    try:
                        game.apply(bad)
                    except DbnetError:
                        pass
                    else:
                        raise AssertionError(f"{bad!r} was accepted")
                    assert game.state_hash() == before, f"{bad!r} changed the state"
            choice = biased_choice(game, rng)
            game.apply(choice)
            inputs.append((choice, ()))
        hashes.append(game.state_hash())
        check_state(game)
        if len(inputs) % 40 == 0:
            twin = game.copy()
            assert twin.state_hash() == game.state_hash()
            assert twin.pending == game.pending
    return inputs, hashes


def replayed(setup: GameSetup, inputs: list[Input]) -> list[bytes]:
    game = Game(setup)
    hashes = [game.state_hash()]
    for choice, dice in inputs:
        if choice is None:
            game.roll(dice)
        else:
            game.apply(choice)
        hashes.append(game.state_hash())
    return hashes


def example_setups() -> list[GameSetup]:
    """Every example ability warband against every other (both seats)."""
    catalog = load_catalog()
    warbands = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        warband = load_warband(path, catalog)
        if all(
            check_ability(a, location=m.is_location) is None
            for m in warband.minis
            for a in m.abilities
        ) and any(m.abilities for m in warband.minis):
            warbands.append(warband)
    assert len(warbands) >= 6
    return [
        GameSetup(load_map(), (first, second))
        for first in warbands
        for second in warbands
        if first is not second
    ]


def test_games_between_the_example_warbands_hold_every_invariant() -> None:
    for seed, setup in enumerate(example_setups() * 4):
        inputs, hashes = play_checked(setup, seed)
        assert len(inputs) < MAX_INPUTS, f"game {seed} did not finish"
        if seed % 8 == 0:
            assert replayed(setup, inputs) == hashes


def test_random_ability_games_hold_every_invariant_and_replay_exactly() -> None:
    finished = 0
    for seed in range(GAMES):
        setup = random_setup(seed)
        inputs, hashes = play_checked(setup, seed)
        if len(inputs) < MAX_INPUTS:
            finished += 1
        if seed % 10 == 0:
            assert replayed(setup, inputs) == hashes
    assert finished >= GAMES * 9 // 10, f"only {finished} of {GAMES} games finished"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=GAMES, max_value=2**32))
def test_hypothesis_ability_games_replay_exactly(seed: int) -> None:
    setup = random_setup(seed, turns_to_win=1)
    inputs, hashes = play_checked(setup, seed)
    assert replayed(setup, inputs) == hashes
