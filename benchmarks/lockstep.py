"""The signed log of this checkout against another git revision's, stepped in lockstep.

Both versions play ``dbnet selfplay``'s games (random vs random, ``--seed S``'s games 1 to
``--games``) in one process: each game is started by both (timed on its own: the game
start), then each version writes its next entry in turn, the one that goes first changing
every step and every game, each step timed with ``time.perf_counter_ns``. Both versions
must play the very same games (the same decisions and final state hash), or the comparison
stops: it compares the cost of one game, not of two. ``--rounds`` plays them that many
times; the ratio is over all rounds, and each round's own is printed beside it.

Why: on a shared virtual machine two runs one after the other differ by several per cent
(the machine's speed drifts), more than most changes of the log are worth. Stepped entry
by entry, every drift falls on both versions alike, and differences of about a per
cent show. The revision's ``dbnet`` package is taken with ``git archive`` into a temporary
folder and imported under another name (``dbnet_at_rev``), its own imports renamed to
match; the revision must have the match layer (``dbnet.match.local.Match``).

With ``--engine``, the same for engine games without the log (``benchmarks/selfplay.py``'s
random-vs-random games of the default warbands), alternated game by game.

It asserts nothing, since timings depend on the machine.

    python benchmarks/lockstep.py REV [--games N] [--seed S] [--rounds R] [--engine]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OTHER = "dbnet_at_rev"
_MODULE_PATH = re.compile(r"\bdbnet(?=\.\w|\s+import\b)")
"""``dbnet`` where it names the package: ``dbnet.x`` and ``from dbnet import``."""


def package_at(revision: str, folder: Path) -> str:
    """``dbnet`` as committed at ``revision``, written to ``folder`` as the package
    ``OTHER`` (its imports renamed), importable once ``folder`` is on the path."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", revision, "dbnet"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "dbnet"
    for source in package.rglob("*.py"):
        source.write_text(_MODULE_PATH.sub(OTHER, source.read_text()))
    package.rename(folder / OTHER)
    return OTHER


class Version:
    """One version of dbnet playing selfplay games, entry by entry, with its times."""

    def __init__(self, package: str) -> None:
        self.package = package
        try:
            self.local: Any = importlib.import_module(f"{package}.match.local")
            self.selfplay: Any = importlib.import_module(f"{package}.commands.selfplay")
            self.bots: Any = importlib.import_module(f"{package}.bots")
            self.bot_match: Any = importlib.import_module(f"{package}.bots.match")
            self.max_turns: int = self.bot_match.DEFAULT_MAX_TURNS
        except ImportError as exc:
            raise SystemExit(f"{package}: {exc} (the comparison needs the match layer)") from exc
        catalog: ModuleType = importlib.import_module(f"{package}.catalog")
        engine: Any = importlib.import_module(f"{package}.engine")
        self.setup = self.game_setup = engine.GameSetup(
            catalog.load_map(), catalog.default_warbands(catalog.load_catalog())
        )
        # as ``dbnet selfplay`` does: the setup encoded once for all its games (a revision
        # before ``EncodedSetup``, issue 34, kept the setup's bytes itself)
        with contextlib.suppress(ImportError):
            wire_setup = importlib.import_module(f"{package}.wire.setup")
            self.setup = wire_setup.EncodedSetup.of(self.setup)
        self.reset()

    def reset(self) -> None:
        self.start_ns = self.play_ns = self.decisions = 0

    @property
    def spent_ns(self) -> int:
        return self.start_ns + self.play_ns

    def begin(self, seed: int, index: int) -> None:
        """Start game ``index`` of the run seeded ``seed`` (timed)."""
        bots = tuple(
            self.bots.make_bot("random", random.Random(f"dbnet-selfplay:{seed}:{index}:{seat}"))
            for seat in "AB"
        )
        started = time.perf_counter_ns()
        self.match = self.local.Match(
            self.setup, self.selfplay.game_keys(seed, index), names=("random-A", "random-B")
        )
        self.start_ns += time.perf_counter_ns() - started
        # bots_in_place, named bot_chooser before it (a revision compared may be older)
        chooser = getattr(self.local, "bots_in_place", None) or self.local.bot_chooser
        self.choose = chooser(bots)

    @property
    def playing(self) -> bool:
        """As ``play_one`` loops: until the log is closed or the turn limit is passed."""
        game = self.match.log.game
        return not self.match.is_closed and (game.is_over or game.turn <= self.max_turns)

    def step(self) -> None:
        started = time.perf_counter_ns()
        self.match.step(self.choose)
        self.play_ns += time.perf_counter_ns() - started

    def end(self) -> tuple[int, bytes]:
        """The game's decisions (counted) and final state hash."""
        result = self.local.match_result(self.match)
        self.decisions += result.decisions
        return result.decisions, result.state_hash

    def per_decision(self) -> tuple[float, float]:
        """Microseconds a decision, in all and at game starts."""
        return self.spent_ns / self.decisions / 1e3, self.start_ns / self.decisions / 1e3

    def engine_game(self, seed: int, index: int) -> tuple[int, bytes]:
        """Engine game ``index`` of ``seed`` as ``benchmarks/selfplay.py`` plays them (no
        log; timed): its decisions and final state hash."""
        bots = tuple(self.bots.RandomBot(random.Random(f"{seed}:{index}:{seat}")) for seat in "AB")
        dice = random.Random(f"{seed}:{index}:dice")
        started = time.perf_counter_ns()
        result = self.bot_match.play_match(self.game_setup, bots, dice)  # the engine alone
        self.play_ns += time.perf_counter_ns() - started
        self.decisions += result.decisions
        return result.decisions, result.state_hash


def lockstep(versions: tuple[Version, Version], games: int, seed: int) -> None:
    """Play games 1 to ``games`` of ``seed`` with both versions, step by step (times add
    up in the versions)."""
    for index in range(1, games + 1):
        order = versions if index % 2 else versions[::-1]
        for version in order:
            version.begin(seed, index)
        steps = 0
        while any(version.playing for version in versions):
            steps += 1
            for version in order if steps % 2 else order[::-1]:
                if version.playing:
                    version.step()
        results = [version.end() for version in versions]
        if results[0] != results[1]:
            raise SystemExit(
                f"game {index}: the versions play different games ({results[0][0]} and "
                f"{results[1][0]} decisions, or another final state): nothing to compare"
            )


def engine_lockstep(versions: tuple[Version, Version], games: int, seed: int) -> None:
    """Engine games 0 to ``games - 1`` of ``seed`` with both versions, game by game, the
    one that goes first changing every game (times add up in the versions)."""
    for index in range(games):
        order = versions if index % 2 else versions[::-1]
        results = {version.package: version.engine_game(seed, index) for version in order}
        if len(set(results.values())) != 1:
            raise SystemExit(f"engine game {index}: the versions play different games")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", metavar="REV", help="the git revision to compare with")
    parser.add_argument("--games", type=int, default=20, help="games a version (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the selfplay seed (default 1)")
    parser.add_argument("--rounds", type=int, default=3, help="times to play them (default 3)")
    parser.add_argument(
        "--engine",
        action="store_true",
        help="compare engine games instead (no log; benchmarks/selfplay.py's), game by game",
    )
    args = parser.parse_args()
    compare = engine_lockstep if args.engine else lockstep
    with tempfile.TemporaryDirectory() as folder:
        try:
            other = package_at(args.revision, Path(folder))
        except subprocess.CalledProcessError as exc:
            why = exc.stderr.decode().strip()
            raise SystemExit(f"git archive {args.revision}: {why}") from None
        sys.path.insert(0, folder)
        versions = (Version(other), Version("dbnet"))
        compare(versions, 1, args.seed + 1)  # a warm-up game of another seed, not counted
        for version in versions:
            version.reset()
        rounds = []
        for _ in range(args.rounds):
            spent = [version.spent_ns for version in versions]
            compare(versions, args.games, args.seed)
            rounds.append((versions[1].spent_ns - spent[1]) / (versions[0].spent_ns - spent[0]))
    (theirs, their_start), (ours, our_start) = (v.per_decision() for v in versions)
    made = versions[1].decisions // args.rounds
    if args.engine:
        print(
            f"engine games in lockstep: random vs random, seed {args.seed} games "
            f"0-{args.games - 1}, {args.rounds} rounds, {made} decisions a round"
        )
        print(f"  {args.revision:12} {theirs:7.2f} us a decision")
        print(f"  {'this':12} {ours:7.2f} us a decision")
    else:
        print(
            f"signed log in lockstep: dbnet selfplay --seed {args.seed} games 1-{args.games}, "
            f"{args.rounds} rounds, {made} decisions a round"
        )
        print(
            f"  {args.revision:12} {theirs:7.1f} us a decision ({their_start:.1f} at game starts)"
        )
        print(f"  {'this':12} {ours:7.1f} us a decision ({our_start:.1f} at game starts)")
    by_round = " ".join(f"{r:.3f}" for r in rounds)
    print(f"  this / {args.revision}: {ours / theirs:.3f}; by round {by_round}")


if __name__ == "__main__":
    main()
