"""A random-game driver for the engine tests.

``play`` feeds a game random inputs drawn from a seeded ``random.Random``: a
choice picked uniformly from ``legal_choices()``, a random split for damage
decisions, random dice for chance requests. It yields after every input so a
test can look at the game between inputs. The same seed and setup always give
the same inputs, in any process.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass

from dbnet.engine.choices import ChanceRequest, Choice, DamageChoice, Decision, DecisionKind
from dbnet.engine.game import Game
from dbnet.engine.model import GameSetup

# A generous bound: random games observed so far need a few hundred to a few
# thousand inputs; a game still running after this many is taken to be stuck.
MAX_INPUTS = 50_000


@dataclass(frozen=True, slots=True)
class Input:
    """One input to a game: a choice for a decision, or dice for a chance request."""

    choice: Choice | None = None
    dice: tuple[int, ...] | None = None


def random_split(rng: random.Random, decision: Decision) -> DamageChoice:
    """A random legal damage split: every point goes to a random target (900.2)."""
    amounts: dict[int, int] = {}
    for _ in range(decision.total):
        target = rng.choice(decision.targets)
        amounts[target] = amounts.get(target, 0) + 1
    return DamageChoice(tuple(sorted(amounts.items())))


def random_input(game: Game, rng: random.Random) -> Input:
    """A random legal input for the game's pending item (the game must not be over)."""
    pending = game.pending
    assert pending is not None, "the game is over"
    if isinstance(pending, ChanceRequest):
        return Input(dice=tuple(rng.randint(1, 6) for _ in range(pending.count)))
    if pending.kind is DecisionKind.DAMAGE:
        return Input(choice=random_split(rng, pending))
    legal = game.legal_choices()
    assert legal, f"no legal choice for {pending!r}"
    return Input(choice=rng.choice(legal))


def give(game: Game, given: Input) -> None:
    """Apply a choice or roll dice."""
    if given.dice is not None:
        game.roll(given.dice)
    else:
        assert given.choice is not None
        game.apply(given.choice)


def play(game: Game, rng: random.Random, max_inputs: int = MAX_INPUTS) -> Iterator[Input]:
    """Play random inputs until the game ends, yielding each input after it is applied.

    Raises AssertionError if the game has not ended after ``max_inputs`` inputs.
    """
    for _ in range(max_inputs):
        if game.is_over:
            return
        given = random_input(game, rng)
        give(game, given)
        yield given
    raise AssertionError(f"the game did not end within {max_inputs} inputs (turn {game.turn})")


def hash_sequence(setup: GameSetup, seed: int) -> list[bytes]:
    """The state hash after every input of the random game ``seed`` (initial state first)."""
    game = Game(setup)
    hashes = [game.state_hash()]
    for _ in play(game, random.Random(seed)):
        hashes.append(game.state_hash())
    return hashes


def digest(hashes: list[bytes]) -> str:
    """One hex digest for a whole sequence of state hashes."""
    return hashlib.sha256(b"".join(hashes)).hexdigest()
