"""Property tests of ``Game`` over random games.

Every game is played to the end by ``randomgame.play``; after every input the
``Tracker`` checks the invariants and the rules (see ``invariants``). After half
of the inputs, one illegal input of each kind that fits the state (and a few
random choices that are not legal) is played against the game: each must raise
and leave the state exactly as it was.

In all: 1,000 fully checked games (each also replayed to compare its state
hashes), 60 games split by ``Game.copy``, and the state machine's 40 runs of up to
400 steps.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
)

from dbnet.engine.choices import (
    AttackChoice,
    BladeChoice,
    BuryChoice,
    ChanceRequest,
    Choice,
    DamageChoice,
    DeathblowChoice,
    Decision,
    DecisionKind,
    FateChoice,
    MoveChoice,
    Pending,
    PlaceChoice,
    SpawnChoice,
)
from dbnet.engine.game import Game
from dbnet.errors import GameOverError, IllegalChoiceError, InvalidChoiceError

from .conftest import VANILLA_SETUP
from .invariants import (
    Illegal,
    Tracker,
    check_counters,
    check_damage,
    check_pending,
    check_roster,
    check_stacking,
    check_zones,
    illegal_inputs,
    one_of_each_kind,
    one_per_reason,
    phase_key,
)
from .randomgame import Input, give, hash_sequence, play

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
GAMES_PER_EXAMPLE = 10
EXAMPLES = 100  # 1,000 fully checked games
PARTS = 10
"""``test_game_random_games`` in parts of ``EXAMPLES // PARTS`` examples each, on disjoint
seeds, so parallel test processes share the games (about 3 minutes in one test)."""
RANDOM_CHOICES_PER_INPUT = 2
MACHINE_EXAMPLES = 40
MACHINE_STEPS = 400
SKIP_FUZZ = 0.5  # the share of inputs after which no illegal input is tried


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What must not change when an input is rejected."""

    state_hash: bytes
    encoded: list[int]
    pending: Pending | None
    legal: list[Choice] | None

    @classmethod
    def of(cls, game: Game) -> Snapshot:
        legal = game.legal_choices()
        return cls(game.state_hash(), game.encode(), game.pending, legal and list(legal))


def assert_rejected(game: Game, bad: Illegal, snapshot: Snapshot | None = None) -> None:
    """``bad`` raises a precise error and changes nothing."""
    before = snapshot or Snapshot.of(game)
    error: Exception | None = None
    try:
        give(game, bad.given)
    except (IllegalChoiceError, InvalidChoiceError) as exc:
        error = exc
    assert error is not None, f"{bad} was accepted"
    if bad.error is not None:
        assert isinstance(error, bad.error), (bad, error)
    assert str(error), "errors say what was wrong"
    assert game.state_hash() == before.state_hash, f"{bad} changed the state"
    assert game.pending == before.pending
    assert game.legal_choices() == before.legal
    if snapshot is None:
        assert game.encode() == before.encoded, f"{bad} changed the state"


def random_choice(game: Game, rng: random.Random) -> Choice:
    """A random choice of the type the pending decision expects, legal or not."""
    pending = game.pending
    assert isinstance(pending, Decision)
    mini, cell = rng.randrange(-1, 33), rng.randrange(-1, 26)
    kind = pending.kind
    if kind is DecisionKind.SPAWN:
        return SpawnChoice(mini, cell)
    if kind is DecisionKind.SHIFT:
        return MoveChoice(mini, cell)
    if kind is DecisionKind.STRIKE:
        size = rng.randrange(0, 4)
        return AttackChoice(cell, tuple(sorted(rng.sample(range(32), size))))
    if kind is DecisionKind.FATE:
        return FateChoice(mini, rng.random() < 0.5)
    if kind is DecisionKind.DEATHBLOW:
        return DeathblowChoice(cell, tuple(sorted(rng.sample(range(32), rng.randrange(0, 3)))))
    if kind is DecisionKind.RESOLVE:
        return PlaceChoice(mini, cell) if rng.random() < 0.8 else BuryChoice(mini)
    if kind is DecisionKind.BLADE:
        return BladeChoice(mini, rng.randrange(-1, 3))
    return rng.choice(game.legal_choices() or [])  # ACTION: both choices are always legal


def play_checked(seed: int) -> list[bytes]:
    """Play the random game ``seed`` to its end, checking everything after every input.

    Returns the state hash after every input (the initial state first).
    """
    game = Game(VANILLA_SETUP)
    tracker = Tracker(game)
    fuzz = random.Random(~seed)  # a separate stream: the game's own inputs depend on seed only
    hashes = [game.state_hash()]
    for given_input in play(game, random.Random(seed)):
        tracker.after(given_input)
        hashes.append(game.state_hash())
        if fuzz.random() < SKIP_FUZZ:
            continue
        snapshot = Snapshot.of(game)
        for bad in one_per_reason(fuzz, illegal_inputs(tracker)):
            assert_rejected(game, bad, snapshot)
        pending = game.pending
        if isinstance(pending, Decision) and pending.kind is not DecisionKind.DAMAGE:
            legal = snapshot.legal or []
            for _ in range(RANDOM_CHOICES_PER_INPUT):
                choice = random_choice(game, fuzz)
                if choice not in legal:
                    assert_rejected(game, Illegal(Input(choice=choice), "not legal"), snapshot)
        assert game.encode() == snapshot.encoded, "a rejected input changed the state"
    # Every game ends, with a winner who has won turns_to_win turns (803.3).
    assert game.is_over
    assert game.winner is not None
    assert game.turns_won[game.winner] == VANILLA_SETUP.options.turns_to_win
    return hashes


@pytest.mark.parametrize("part", range(PARTS))
@settings(max_examples=EXAMPLES // PARTS, deadline=None)
@given(seed=SEEDS)
def test_game_random_games(part: int, seed: int) -> None:
    for k in range(GAMES_PER_EXAMPLE):
        game_seed = (seed * PARTS + part) * GAMES_PER_EXAMPLE + k
        hashes = play_checked(game_seed)
        # The same seed gives the same states, input by input.
        assert hash_sequence(VANILLA_SETUP, game_seed) == hashes
        assert len(set(hashes)) > 1


REQUIRED_REASONS = {
    "engaged (802.1a)",
    "already moved",
    "not adjacent",
    "a full cell (802.1c)",
    "unaffordable",
    "attacked cell",
    "no enemy creature",
    "too much damage (900.2)",
    "too little damage",
    "not a local enemy",
    "one die too many",
    "one die too few",
    "die value 0",
    "die value 7",
    "die value True",
    "die value 2.0",
    "wrong kind",
    "a choice while dice are expected",
    "dice while a decision is expected",
}


def test_illegal_inputs_cover_the_cases() -> None:
    """The random games above do meet every kind of illegal input they are meant to try."""
    seen: set[str] = set()
    for seed in range(40):
        game = Game(VANILLA_SETUP)
        tracker = Tracker(game)
        for given_input in play(game, random.Random(seed)):
            tracker.after(given_input)
            seen.update(bad.why for bad in illegal_inputs(tracker))
        if seen >= REQUIRED_REASONS:
            break
    assert seen >= REQUIRED_REASONS, REQUIRED_REASONS - seen


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, cut=st.integers(min_value=0, max_value=400))
def test_game_copy(seed: int, cut: int) -> None:
    game = Game(VANILLA_SETUP)
    rng = random.Random(seed)
    for i, _ in enumerate(play(game, rng)):
        if i == cut:
            break
    twin = game.copy()
    state, encoded = game.state_hash(), game.encode()
    assert twin.state_hash() == state
    assert twin.encode() == encoded
    assert twin.pending == game.pending
    assert twin.legal_choices() == game.legal_choices()
    # The copy plays on without touching the original...
    saved = rng.getstate()
    twin_rng = random.Random()
    twin_rng.setstate(saved)
    twin_hashes = [twin.state_hash() for _ in play(twin, twin_rng)]
    assert game.state_hash() == state
    assert game.encode() == encoded
    assert twin.is_over
    final = twin.state_hash()
    # ...and the original, given the same inputs, goes through the same states.
    rng.setstate(saved)
    assert [game.state_hash() for _ in play(game, rng)] == twin_hashes
    assert game.winner == twin.winner
    assert twin.state_hash() == final


# --- the same properties as a hypothesis state machine -----------------------------


def damage_splits(decision: Decision) -> st.SearchStrategy[DamageChoice]:
    """Every legal split of the decision's damage among its targets (900.2)."""

    def split(points: list[int]) -> DamageChoice:
        return DamageChoice(tuple(sorted(Counter(points).items())))

    n = decision.total
    return st.lists(st.sampled_from(decision.targets), min_size=n, max_size=n).map(split)


@settings(
    max_examples=MACHINE_EXAMPLES,
    stateful_step_count=MACHINE_STEPS,
    deadline=None,
    # A whole game takes hundreds of steps, so even the simplest run is large.
    suppress_health_check=[HealthCheck.large_base_example, HealthCheck.too_slow],
)
class GameMachine(RuleBasedStateMachine):
    """Hypothesis drives one game: legal inputs advance it, illegal ones must bounce."""

    def __init__(self) -> None:
        super().__init__()
        self.game = Game(VANILLA_SETUP)
        self.tracker = Tracker(self.game)
        self.key = phase_key(self.game)
        self.turns_won = tuple(self.game.turns_won)

    @precondition(lambda self: not self.game.is_over)
    @rule(data=st.data())
    def play_legal(self, data: st.DataObject) -> None:
        pending = self.game.pending
        if isinstance(pending, ChanceRequest):
            n = pending.count
            dice = data.draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
            given_input = Input(dice=tuple(dice))
        elif pending is not None and pending.kind is DecisionKind.DAMAGE:
            given_input = Input(choice=data.draw(damage_splits(pending)))
        else:
            given_input = Input(choice=data.draw(st.sampled_from(self.game.legal_choices() or [])))
        give(self.game, given_input)
        self.tracker.after(given_input)

    @precondition(lambda self: not self.game.is_over)
    @rule(data=st.data())
    def play_illegal(self, data: st.DataObject) -> None:
        assert_rejected(self.game, data.draw(st.sampled_from(illegal_inputs(self.tracker))))

    @precondition(lambda self: self.game.is_over)
    @rule(data=st.data())
    def play_after_the_end(self, data: st.DataObject) -> None:
        choice = data.draw(st.sampled_from(one_of_each_kind(self.game)))
        before = Snapshot.of(self.game)
        for bad in (Input(choice=choice), Input(dice=(3, 4))):
            assert_rejected(self.game, Illegal(bad, "the game is over", GameOverError), before)
        assert self.game.encode() == before.encoded

    @invariant()
    def warbands_are_whole(self) -> None:
        check_roster(self.game)

    @invariant()
    def one_zone_each(self) -> None:
        check_zones(self.game)

    @invariant()
    def stacking_limits_hold(self) -> None:
        check_stacking(self.game)

    @invariant()
    def damage_is_consistent(self) -> None:
        check_damage(self.game)

    @invariant()
    def damage_clears_between_phases(self) -> None:
        key = phase_key(self.game)
        if key != self.key:  # 802.2i
            assert all(m.damage == 0 for m in self.game.minis)
            self.key = key

    @invariant()
    def counters_in_range(self) -> None:
        check_counters(self.game)

    @invariant()
    def turns_won_never_decrease(self) -> None:
        now = tuple(self.game.turns_won)
        assert all(new >= old for new, old in zip(now, self.turns_won, strict=True))
        self.turns_won = now

    @invariant()
    def pending_fits_state(self) -> None:
        check_pending(self.game)


TestGameMachine = GameMachine.TestCase
