"""A Swiss event's pairing and standings against verifying its files.

Builds (once, into ``--folder``) an event of ``--players`` players (256) and ``--rounds``
Swiss rounds (8) of real games, one replay file a game (1,024): each round paired by
``dbnet.replay.swiss`` from the games so far, each table played by two random bots (one
turn to win) and written with ``ReplayWriter``; keys and games derive from ``--seed``.
The event file asks for one round more, so ``dbnet event pair`` has a round to pair.

Then times, as real processes with the same ``--jobs``, one after the other ``--repeat``
times: ``dbnet verify FOLDER``, ``dbnet event pair FOLDER`` (the round file it writes is
removed after each run) and ``dbnet event FOLDER`` (the standings). Each time is the CPU
time of the process and its workers (so other work on a shared machine counts against
none of them), the best of the runs; prints each event command's ratio to verify next to
the target (1.2). Asserts nothing: timings depend on the machine.

    python benchmarks/swiss.py [--folder DIR] [--players N] [--rounds N] [--repeat N]
                               [--jobs N] [--seed S]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import Decision, Game, GameSetup, Options, Player, format_choice
from dbnet.match.peers import LocalMatch
from dbnet.protocol.identity import Identity
from dbnet.replay.event import report
from dbnet.replay.file import ReplayWriter
from dbnet.replay.gamefile import GameFile, examine
from dbnet.replay.swiss import eventfile, roundfile
from dbnet.replay.swiss.eventfile import Entry, EventFile, EventPoints
from dbnet.replay.swiss.results import find_results
from dbnet.replay.swiss.tournament import plan_round
from dbnet.wire.replay_header import ReplayHeader

TARGET = 1.2


def play(a: Identity, b: Identity, seed: int, path: Path) -> Path:
    """A random-against-random game of one turn to win, written to ``path``."""
    setup = GameSetup(load_map(), default_warbands(load_catalog()), Options(turns_to_win=1))
    rng = random.Random(seed)
    match = LocalMatch(
        setup,
        (a, b),
        secrets=(rng.randbytes(32), rng.randbytes(32)),
        nonce=rng.randbytes(32),
        joiner_nonce=rng.randbytes(32),
        names=("a", "b"),
    )
    bots = {p: make_bot("random", random.Random(f"{seed}:{p.name}")) for p in Player}

    def choose(view: Game) -> str:
        pending = view.pending
        assert isinstance(pending, Decision)
        return format_choice(view, bots[pending.player].choose(view))

    while not match.is_closed:
        match.step(choose)
    log = match.peers[Player.A].log
    header = ReplayHeader(
        rules=log.rules, game_id=log.game_id, keys=log.keys, created="2026-01-01T00:00:00Z"
    )
    with ReplayWriter.create(path, header) as writer:
        for record in match.records:
            writer.append(record)
    return path


def build(folder: Path, players: int, rounds: int, seed: int) -> None:
    if (folder / f"round-{rounds}.toml").exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    keys = [Identity.from_private_bytes(random.Random(f"{seed}:{i}").randbytes(32))
            for i in range(players)]  # fmt: skip
    by_fp = {k.fingerprint: k for k in keys}
    event = EventFile(
        random.Random(seed).randbytes(16).hex(),
        "benchmark",
        rounds + 1,
        0,
        EventPoints(),
        tuple(Entry(k.fingerprint) for k in keys),
    )
    eventfile.save(folder, event)
    facts: list[GameFile] = []
    written: list[roundfile.RoundFile] = []
    for number in range(1, rounds + 1):
        games = report(facts).games
        rnd = plan_round(event, written, find_results(event, written, games))
        roundfile.save(folder, rnd)
        written.append(rnd)
        for t in rnd.tables:
            if t.b is None:
                continue
            path = folder / f"r{number}-t{t.number}.dbnr"
            play(by_fp[t.a], by_fp[t.b], seed * 100_000 + number * 1000 + t.number, path)
            facts.append(examine(str(path)))
        print(f"round {number}: {len(rnd.tables)} tables", file=sys.stderr)


def cpu_seconds(args: list[str], cleanup: Path | None = None) -> float:
    """The CPU time (user and system) of ``dbnet ARGS`` and its worker processes."""
    env = {**os.environ, "DBNET_RELAY": "off", "DBNET_PORT_MAPPING": "off"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "dbnet", *args], capture_output=True, env=env, check=False
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}: {done.stderr[-500:]!r}")
    if cleanup is not None:
        cleanup.unlink()
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/dbnet-swiss-bench"))
    parser.add_argument("--players", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    build(args.folder, args.players, args.rounds, args.seed)
    folder, jobs = str(args.folder), str(args.jobs)
    files = len(list(args.folder.glob("*.dbnr")))
    nxt = args.folder / f"round-{args.rounds + 1}.toml"
    verify = pair = standings = float("inf")
    for _ in range(args.repeat):  # one after the other, so that all see the same conditions
        verify = min(verify, cpu_seconds(["verify", folder, "--jobs", jobs]))
        pair = min(pair, cpu_seconds(["event", "pair", folder, "--jobs", jobs], nxt))
        standings = min(standings, cpu_seconds(["event", folder, "--jobs", jobs]))
    print(f"{args.players} players, {args.rounds} rounds, {files} replay files, {jobs} jobs")
    print(f"dbnet verify        {verify:8.2f} s of CPU")
    for name, seconds in (("dbnet event pair", pair), ("dbnet event", standings)):
        print(f"{name:<18}  {seconds:8.2f} s  {seconds / verify:5.2f}x verify (target {TARGET}x)")


if __name__ == "__main__":
    main()
