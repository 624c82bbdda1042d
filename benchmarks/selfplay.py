"""Engine and bot throughput: random-versus-random games on one core.

Every decision counts the legal-choice generation (the random bot calls
``legal_choices()`` each time), the choice's validation and application, and
the dice. Two sets of games: the default warbands, and every pairing of the
example ability warbands in ``examples/warbands/`` (each against the next, both
seats). Prints decisions per second and games per second for each, next to the
targets; it asserts nothing, since timings depend on the machine.

    python benchmarks/selfplay.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from dbnet.bots import RandomBot
from dbnet.bots.match import play_match
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import GameSetup, Warband
from dbnet.engine.keywords import check_ability

TARGET_DEFAULT = 20_000  # decisions per second with the default warbands
TARGET_ABILITIES = 10_000  # ...and with the ability warbands
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "warbands"


def ability_setups() -> list[GameSetup]:
    """Each playable example warband with abilities against the next one, both ways."""
    catalog = load_catalog()
    warbands: list[Warband] = []
    for path in sorted(EXAMPLES.glob("*.toml")):
        warband = load_warband(path, catalog)
        playable = all(
            check_ability(a, location=m.is_location) is None
            for m in warband.minis
            for a in m.abilities
        )
        if playable and any(m.abilities for m in warband.minis):
            warbands.append(warband)
    game_map = load_map()
    setups = []
    for i, first in enumerate(warbands):
        second = warbands[(i + 1) % len(warbands)]
        setups += [GameSetup(game_map, (first, second)), GameSetup(game_map, (second, first))]
    return setups


def measure(label: str, setups: list[GameSetup], games: int, seed: int, target: int) -> None:
    decisions = rolls = 0
    start = time.perf_counter()
    for i in range(games):
        bots = (
            RandomBot(random.Random(f"{seed}:{i}:A")),
            RandomBot(random.Random(f"{seed}:{i}:B")),
        )
        setup = setups[i % len(setups)]
        result = play_match(setup, bots, random.Random(f"{seed}:{i}:dice"))
        decisions += result.decisions
        rolls += result.rolls
    elapsed = time.perf_counter() - start
    rate = decisions / elapsed
    verdict = "meets" if rate >= target else "MISSES"
    print(f"{label}: random vs random, {games} games on one core, {elapsed:.2f} s")
    print(f"  {decisions} decisions ({decisions / games:.0f} a game), {rolls} dice rolls")
    print(f"  {rate:,.0f} decisions/s ({verdict} the target of {target:,})")
    print(f"  {games / elapsed:,.1f} games/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games of each set (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    args = parser.parse_args()
    default = [GameSetup(load_map(), default_warbands(load_catalog()))]
    measure("default warbands", default, args.games, args.seed, TARGET_DEFAULT)
    setups = ability_setups()
    names = sorted({s.warbands[0].name for s in setups})
    measure(
        f"ability warbands ({', '.join(names)})", setups, args.games, args.seed, TARGET_ABILITIES
    )


if __name__ == "__main__":
    main()
