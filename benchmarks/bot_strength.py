"""How much stronger the greedy bot is than the random one.

Plays greedy against random, half the games with greedy as A and half as B,
and prints the greedy bot's win rate overall and by seat.

    python benchmarks/bot_strength.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import time

from dbnet.bots import GreedyBot, RandomBot
from dbnet.bots.base import Bot
from dbnet.bots.match import play_match
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup, Player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="games to play (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    args = parser.parse_args()
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    wins = {Player.A: 0, Player.B: 0}
    played = {Player.A: 0, Player.B: 0}
    unfinished = 0
    start = time.perf_counter()
    for i in range(args.games):
        seat = Player.A if i % 2 == 0 else Player.B
        greedy: Bot = GreedyBot(random.Random(f"{args.seed}:{i}:greedy"))
        rand: Bot = RandomBot(random.Random(f"{args.seed}:{i}:random"))
        bots = (greedy, rand) if seat is Player.A else (rand, greedy)
        result = play_match(setup, bots, random.Random(f"{args.seed}:{i}:dice"))
        played[seat] += 1
        if result.winner is None:
            unfinished += 1
        elif result.winner is seat:
            wins[seat] += 1
    elapsed = time.perf_counter() - start
    total = wins[Player.A] + wins[Player.B]
    print(f"greedy vs random, {args.games} games in {elapsed:.1f} s ({unfinished} unfinished)")
    print(f"  greedy win rate: {total / args.games:.1%} ({total}/{args.games})")
    for p in (Player.A, Player.B):
        if played[p]:
            print(f"  as {p.name}: {wins[p] / played[p]:.1%} ({wins[p]}/{played[p]})")


if __name__ == "__main__":
    main()
