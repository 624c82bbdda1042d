"""``dbnet selfplay``: bots play each other; prints each result, the win counts and throughput.

Every game runs through the signed log of two in-process peers, so its dice
come from their hash chains. Game ``i`` of a run derives both peers' keys,
chain secrets and nonce, and both bots' randomness, from the run's seed and
``i``, so the same seed gives the same games. Without ``--seed`` a seed is
drawn and printed, so any run can be repeated. ``--replays DIR`` saves each
game's replay as ``DIR/selfplay-<seed>-<i>.dbnr`` (never overwriting a file);
by default nothing is written, and the throughput measures the games alone.
"""

from __future__ import annotations

import argparse
import random
import secrets
import time
from pathlib import Path

from dbnet.bots import make_bot
from dbnet.bots.match import MatchResult
from dbnet.engine import EndReason, GameSetup, Player
from dbnet.match.keys import MatchKeys, as_name, replay_header
from dbnet.match.local import Match, bots_in_place, load_setup, match_result
from dbnet.match.peers import RecordSink
from dbnet.replay.file import EXTENSION
from dbnet.replay.paths import now_utc, start_replay
from dbnet.text import counted
from dbnet.wire.setup import EncodedSetup


def game_keys(seed: int, index: int) -> MatchKeys:
    """The keys, chain secrets and nonce of game ``index`` of the run seeded ``seed``."""
    return MatchKeys.from_seed(f"dbnet-selfplay:{seed}:{index}".encode())


def play_one(
    setup: GameSetup | EncodedSetup,
    names: tuple[str, str],
    seed: int,
    index: int,
    max_turns: int,
    on_record: RecordSink | None = None,
    *,
    think: float | None = None,
    playouts: int | None = None,
) -> MatchResult:
    """Game ``index`` of the run seeded ``seed``, through the signed log; every record goes
    to ``on_record``. ``think`` and ``playouts`` are the search bots' budget per decision."""
    bots = tuple(
        make_bot(
            name,
            random.Random(f"dbnet-selfplay:{seed}:{index}:{seat}"),
            seconds=think,
            playouts=playouts,
        )
        for name, seat in zip(names, "AB", strict=True)
    )
    assert len(bots) == 2
    signed = (as_name(names[0], "A"), as_name(names[1], "B"))
    match = Match(setup, game_keys(seed, index), on_record=on_record, names=signed)
    choose = bots_in_place((bots[0], bots[1]))
    game = match.log.game
    while not match.is_closed and (game.is_over or game.turn <= max_turns):
        match.step(choose)
        game = match.log.game
    return match_result(match)


def replay_path(directory: Path, seed: int, index: int) -> Path:
    return directory / f"selfplay-{seed}-{index:04}{EXTENSION}"


def describe(result: MatchResult, names: tuple[str, str]) -> str:
    a, b = result.turns_won
    if result.winner is None:
        outcome = f"unfinished after {counted(result.turns - 1, 'turn')}"
    else:
        how = " (resignation)" if result.end_reason is EndReason.RESIGNATION else ""
        outcome = f"{result.winner.name} ({names[result.winner]}) wins{how}"
    return f"{outcome}, turns won {a}-{b}, {result.turns} turns, {result.decisions} decisions"


def run(args: argparse.Namespace) -> int:
    seed: int = args.seed if args.seed is not None else secrets.randbelow(2**31)
    names: tuple[str, str] = (args.a, args.b)
    setup = EncodedSetup.of(load_setup(args.warband, args.opponent, Player.A))  # every game's
    budget = {"think": args.think, "playouts": args.playouts}
    print(f"selfplay: {args.games} games, A = {names[0]}, B = {names[1]}, seed {seed}")
    wins = [0, 0]
    unfinished = decisions = 0
    elapsed = 0.0
    for i in range(1, args.games + 1):
        start = time.perf_counter()
        if args.replays is None:
            result = play_one(setup, names, seed, i, args.max_turns, **budget)
        else:
            header = replay_header(game_keys(seed, i), setup, now_utc())
            with start_replay(replay_path(args.replays, seed, i), header) as writer:
                result = play_one(setup, names, seed, i, args.max_turns, writer.append, **budget)
        elapsed += time.perf_counter() - start
        decisions += result.decisions
        if result.winner is None:
            unfinished += 1
        else:
            wins[result.winner] += 1
        print(f"game {i:>4}: {describe(result, names)}", flush=True)
    print(
        f"wins: A ({names[0]}) {wins[0]}, B ({names[1]}) {wins[1]}, unfinished {unfinished}, "
        f"of {args.games} games"
    )
    rate = decisions / elapsed if elapsed > 0 else float("inf")
    games = args.games / elapsed if elapsed > 0 else float("inf")
    print(
        f"throughput: {decisions} decisions in {elapsed:.2f} s: "
        f"{rate:,.0f} decisions/s, {games:,.1f} games/s"
    )
    return 0
