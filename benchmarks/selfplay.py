"""Engine and bot throughput: random-versus-random games on one core.

Every decision counts the legal-choice generation (the random bot calls
``legal_choices()`` each time), the choice's validation and application, and
the dice. Prints decisions per second and games per second next to the
target; it asserts nothing, since timings depend on the machine.

    python benchmarks/selfplay.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from dbnet.bots import RandomBot
from dbnet.bots.match import play_match
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup

TARGET_DECISIONS_PER_SECOND = 20_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games to play (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    args = parser.parse_args()
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    decisions = rolls = 0
    start = time.perf_counter()
    for i in range(args.games):
        bots = (
            RandomBot(random.Random(f"{args.seed}:{i}:A")),
            RandomBot(random.Random(f"{args.seed}:{i}:B")),
        )
        result = play_match(setup, bots, random.Random(f"{args.seed}:{i}:dice"))
        decisions += result.decisions
        rolls += result.rolls
    elapsed = time.perf_counter() - start
    rate = decisions / elapsed
    verdict = "meets" if rate >= TARGET_DECISIONS_PER_SECOND else "MISSES"
    print(f"random vs random, {args.games} games on one core, {elapsed:.2f} s")
    print(f"  {decisions} decisions ({decisions / args.games:.0f} a game), {rolls} dice rolls")
    print(f"  {rate:,.0f} decisions/s ({verdict} the target of {TARGET_DECISIONS_PER_SECOND:,})")
    print(f"  {args.games / elapsed:,.1f} games/s")


if __name__ == "__main__":
    main()
