"""Record the games in this folder again, byte for byte.

    python replays/regenerate.py [DIR]

writes every game of ``GAMES`` to DIR (default: this folder), replacing files
of the same name. Each game is a real game through the signed log of two
in-process peers, bot against bot. Everything that would otherwise vary is
fixed: both identity keys, both chain secrets and the nonce (derived from the
game's name), the players' names (each bot's with the game's number and seat, since
every game has its own keys), the bots' random generators and the header's ``created`` time,
so the same dbnet writes the same bytes; ``tests/commands/test_recorded_replays.py``
checks that it does.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import Decision, GameSetup, Options, Player
from dbnet.match.keys import MatchKeys, replay_header
from dbnet.match.local import Match, bots_in_place
from dbnet.replay.file import EXTENSION, ReplayWriter
from dbnet.wire.setup import EncodedSetup

HERE: Final = Path(__file__).resolve().parent
CREATED: Final = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)


@dataclass(frozen=True, slots=True)
class Recording:
    """One recorded game: its file name, A's and B's bots, its options and how it ends."""

    name: str
    bots: tuple[str, str]
    turns_to_win: int = 6
    chain_length: int = 1024
    resign: Player | None = None  # this player resigns at their first decision of turn 3
    warbands: tuple[str, str] | None = None  # example warband files; None: the defaults
    seed: str = ""  # varies keys, dice and bots; "" uses the name alone


GAMES: Final = (
    Recording("01-greedy-vs-random", ("greedy", "random")),
    Recording("02-random-vs-greedy", ("random", "greedy")),
    Recording("03-greedy-vs-greedy-short-chains", ("greedy", "greedy"), chain_length=4),
    Recording("04-one-turn-to-win", ("random", "random"), turns_to_win=1),
    Recording("05-resignation", ("greedy", "random"), resign=Player.B),
    Recording(
        "06-bulwark-vs-pyre-abilities",
        ("random", "random"),
        warbands=("bulwark-of-dawn.toml", "infernal-pyre.toml"),
        seed=":1",
    ),
    Recording(
        "07-mirror-vs-hive-abilities",
        ("random", "random"),
        warbands=("mirror-court.toml", "hive-terror.toml"),
        seed=":5",
    ),
    Recording(
        "08-stampede-vs-recursion-abilities",
        ("greedy", "random"),
        turns_to_win=3,
        warbands=("bloodcut-stampede.toml", "faceless-recursion.toml"),
        seed=":9",
    ),
)
WARBANDS: Final = HERE.parent / "examples" / "warbands"


def record(game: Recording, directory: Path) -> Path:
    """Play ``game`` and write its replay into ``directory``."""
    catalog = load_catalog()
    if game.warbands is None:
        warbands = default_warbands(catalog)
    else:
        first, second = (load_warband(WARBANDS / name, catalog) for name in game.warbands)
        warbands = (first, second)
    setup = EncodedSetup.of(
        GameSetup(load_map(), warbands, options=Options(turns_to_win=game.turns_to_win))
    )
    tag = f"dbnet-replays:{game.name}{game.seed}"
    keys = MatchKeys.from_seed(tag.encode())
    bots = (
        make_bot(game.bots[0], random.Random(f"{tag}:A")),
        make_bot(game.bots[1], random.Random(f"{tag}:B")),
    )
    choose = bots_in_place(bots)
    path = directory / f"{game.name}{EXTENSION}"
    with ReplayWriter.create(path, replay_header(keys, setup, CREATED)) as writer:
        match = Match(
            setup,
            keys,
            chain_length=game.chain_length,
            on_record=writer.append,
            names=(f"{game.bots[0]}-{game.name[:2]}A", f"{game.bots[1]}-{game.name[:2]}B"),
        )
        while not match.is_closed:
            if game.resign is not None and _may_resign(match, game.resign):
                match.resign(game.resign)
            else:
                match.step(choose)
    return path


def _may_resign(match: Match, player: Player) -> bool:
    """Whether ``player`` owes a decision of turn 3 or later (and the game is still on)."""
    log = match.log
    if match.next_author is not player or log.game.is_over or log.game.turn < 3:
        return False
    pending = match.peers[player].view().pending
    return isinstance(pending, Decision) and pending.player is player


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Record the games of replays/ again.")
    parser.add_argument(
        "directory", nargs="?", type=Path, default=HERE, help="where to write (default: here)"
    )
    args = parser.parse_args(argv)
    directory: Path = args.directory
    directory.mkdir(parents=True, exist_ok=True)
    # write every game beside its final place, then move each one in whole
    staging = Path(tempfile.mkdtemp(prefix=".regenerate-", dir=directory))
    try:
        for game in GAMES:
            made = record(game, staging)
            os.replace(made, directory / made.name)
            print(directory / made.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
