"""Determinism of ``Game.state_hash`` (DESIGN.md section 2): the same setup, decisions
and dice give the same states in any process, whatever ``PYTHONHASHSEED`` is, with and
without abilities; and the hash tells states apart."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from dbnet.engine.choices import ChanceKind, ChanceRequest
from dbnet.engine.game import Game

from .ability_warbands import random_setup
from .conftest import VANILLA_SETUP
from .randomgame import Input, digest, give, hash_sequence, play, random_input
from .test_ability_properties import play_checked

SEEDS = (0, 1, 2, 31337, 2**40 + 7)
HASH_SEEDS = ("0", "12345")

# This package and the folder to put on sys.path to import it in another process.
PACKAGE = __package__ or "engine"
IMPORT_ROOT = Path(__file__).resolve().parents[len(PACKAGE.split("."))]

SCRIPT = f"""
import json, sys
sys.path.insert(0, {str(IMPORT_ROOT)!r})
from {PACKAGE}.conftest import VANILLA_SETUP
from {PACKAGE}.randomgame import digest, hash_sequence
from {PACKAGE}.ability_warbands import random_setup
from {PACKAGE}.test_ability_properties import play_checked
out = {{}}
for seed in json.loads(sys.argv[1]):
    hashes = hash_sequence(VANILLA_SETUP, seed)
    out[str(seed)] = [len(hashes), hashes[-1].hex(), digest(hashes)]
    _, hashes = play_checked(random_setup(seed), seed)
    out["abilities " + str(seed)] = [len(hashes), hashes[-1].hex(), digest(hashes)]
print(json.dumps(out, sort_keys=True))
"""


def run_games(hash_seed: str) -> dict[str, list[object]]:
    """Play the random games ``SEEDS`` in a fresh interpreter with ``PYTHONHASHSEED``."""
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(SEEDS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, list[object]] = json.loads(done.stdout)
    return result


def test_state_hash_is_the_same_in_every_process() -> None:
    runs = [run_games(hash_seed) for hash_seed in HASH_SEEDS]
    assert runs[0] == runs[1]
    # ...and the same as in this process, whatever its own hash seed is.
    for seed in SEEDS:
        hashes = hash_sequence(VANILLA_SETUP, seed)
        assert runs[0][str(seed)] == [len(hashes), hashes[-1].hex(), digest(hashes)]
        _, hashes = play_checked(random_setup(seed), seed)
        assert runs[0][f"abilities {seed}"] == [len(hashes), hashes[-1].hex(), digest(hashes)]
    # Different games end in different states.
    finals = {str(result[1]) for result in runs[0].values()}
    assert len(finals) == 2 * len(SEEDS)


def initiative_rolls(seed: int) -> list[tuple[Game, Input]]:
    """Each initiative roll of the random game ``seed``, with the game just before it."""
    game = Game(VANILLA_SETUP)
    rng = random.Random(seed)
    out = []
    while not game.is_over:
        pending = game.pending
        given = random_input(game, rng)
        if isinstance(pending, ChanceRequest) and pending.kind is ChanceKind.INITIATIVE:
            out.append((game.copy(), given))
        give(game, given)
    return out


def test_state_hash_differs_when_one_die_differs() -> None:
    for seed in SEEDS:
        rolls = initiative_rolls(seed)
        assert rolls
        for before, given in rolls:
            assert given.dice is not None
            same = before.copy()
            same.roll(given.dice)
            for i, value in enumerate(given.dice):
                other = before.copy()
                dice = list(given.dice)
                dice[i] = value % 6 + 1
                other.roll(dice)
                assert other.state_hash() != same.state_hash(), (seed, given.dice, dice)


def test_state_hash_ignores_how_a_miss_was_rolled() -> None:
    """302: a 4 and a 5 are both misses, so they lead to the same state."""
    checked = 0
    for seed in SEEDS:
        game = Game(VANILLA_SETUP)
        rng = random.Random(seed)
        while not game.is_over:
            pending = game.pending
            given = random_input(game, rng)
            if isinstance(pending, ChanceRequest) and pending.kind is ChanceKind.ATTACK:
                assert given.dice is not None
                fours, fives = game.copy(), game.copy()
                fours.roll([4 if v == 5 else v for v in given.dice])
                fives.roll([5 if v == 4 else v for v in given.dice])
                assert fours.state_hash() == fives.state_hash()
                checked += 1
            give(game, given)
    assert checked > 0


def test_hash_sequence_repeats() -> None:
    for seed in SEEDS:
        game = Game(VANILLA_SETUP)
        hashes = [game.state_hash()] + [game.state_hash() for _ in play(game, random.Random(seed))]
        assert hashes == hash_sequence(VANILLA_SETUP, seed)
