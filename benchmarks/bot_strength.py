"""How strong each bot is: a round robin of every level, with win rates and speed.

Every pair of bots (random, greedy, easy, normal, hard) plays ``--games`` games,
seats alternating, on the shipped warbands with seeded dice. Prints each bot's
win rate against each other bot, its overall win rate with a 95% Wilson
interval, and for the search levels the playouts per second reached and how
well each kept its time budget (the longest and the mean think, against the
budget; only with ``--think``).

    python benchmarks/bot_strength.py [--games N] [--seed S] [--think SECONDS | --playouts N]
                                      [--bots random,greedy,hard]

With ``--playouts`` the table is the same on any machine; with ``--think`` (default
0.1 s) it depends on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass, field
from itertools import combinations

from dbnet.bots import BOT_NAMES, SearchBot, make_bot
from dbnet.bots.base import Bot
from dbnet.bots.match import play_match
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import Choice, Game, GameSetup


@dataclass(slots=True)
class Thinking:
    """What a search bot's thinks cost, over a run."""

    decisions: int = 0
    playouts: int = 0
    seconds: float = 0.0
    longest: float = 0.0
    searched: list[float] = field(default_factory=list)  # seconds of each real search


class Recorded:
    """A bot whose search reports are added up in ``thinking``."""

    def __init__(self, bot: Bot, thinking: Thinking) -> None:
        self.bot = bot
        self.thinking = thinking

    @property
    def name(self) -> str:
        return self.bot.name

    def choose(self, game: Game) -> Choice:
        start = time.perf_counter()
        choice = self.bot.choose(game)
        spent = time.perf_counter() - start
        if isinstance(self.bot, SearchBot) and self.bot.report.playouts:
            t = self.thinking
            t.decisions += 1
            t.playouts += self.bot.report.playouts
            t.seconds += spent
            t.longest = max(t.longest, spent)
            t.searched.append(spent)
        return choice


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games per pair (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--think", type=float, help="seconds per decision (default 0.1)")
    budget.add_argument("--playouts", type=int, help="playouts per decision instead")
    parser.add_argument("--bots", default=",".join(BOT_NAMES), help="the bots, comma-separated")
    args = parser.parse_args()
    seconds = None if args.playouts else (args.think or 0.1)
    names = args.bots.split(",")
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    wins = {(a, b): 0 for a in names for b in names}
    played = {(a, b): 0 for a in names for b in names}
    thinking = {name: Thinking() for name in names}
    unfinished = 0
    start = time.perf_counter()
    for a, b in combinations(names, 2):
        for i in range(args.games):
            seats = (a, b) if i % 2 == 0 else (b, a)
            bots = tuple(
                Recorded(
                    make_bot(
                        name,
                        random.Random(f"{args.seed}:{a}:{b}:{i}:{seat}"),
                        seconds=seconds,
                        playouts=args.playouts,
                    ),
                    thinking[name],
                )
                for name, seat in zip(seats, "AB", strict=True)
            )
            dice = random.Random(f"{args.seed}:{a}:{b}:{i}:dice")
            result = play_match(setup, (bots[0], bots[1]), dice)
            played[a, b] += 1
            played[b, a] += 1
            if result.winner is None:
                unfinished += 1
                continue
            winner = seats[result.winner]
            loser = seats[result.winner.other]
            wins[winner, loser] += 1
        print(f"  {a} v {b}: {wins[a, b]}-{wins[b, a]}", flush=True)
    elapsed = time.perf_counter() - start
    budget_words = f"{args.playouts} playouts" if args.playouts else f"{seconds} s"
    print(
        f"\nround robin, {args.games} games a pair, search budget {budget_words} per decision, "
        f"{elapsed:.0f} s, {unfinished} unfinished"
    )
    width = max(8, *(len(n) for n in names))
    print(" " * width + "".join(f"{n:>9}" for n in names) + "   overall  95% interval")
    for a in names:
        cells = "".join(
            f"{'-':>9}" if a == b else f"{wins[a, b] / max(1, played[a, b]):>9.0%}" for b in names
        )
        won = sum(wins[a, b] for b in names)
        games = sum(played[a, b] for b in names)
        low, high = wilson(won, games)
        print(f"{a:<{width}}{cells}   {won / max(1, games):>6.0%}   {low:.0%}-{high:.0%}")
    print()
    for name in names:
        t = thinking[name]
        if not t.decisions:
            continue
        rate = t.playouts / t.seconds if t.seconds else 0.0
        line = (
            f"{name}: {rate:,.0f} playouts/s, {t.playouts / t.decisions:,.0f} playouts a "
            f"search over {t.decisions} searches"
        )
        if seconds is not None:
            mean = sum(t.searched) / len(t.searched)
            over = sum(1 for s in t.searched if s > seconds * 1.25 + 0.02)
            line += (
                f"; think {mean:.3f} s mean, {t.longest:.3f} s longest for a budget of "
                f"{seconds} s ({over} over budget by more than 25% + 20 ms)"
            )
        print(line)


if __name__ == "__main__":
    main()
