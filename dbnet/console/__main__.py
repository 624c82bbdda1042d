"""``python -m dbnet.console``: a local game in the full-screen client, for trying it out.

python -m dbnet.console                    # you are A against the greedy bot
python -m dbnet.console --side B --bot random --seed 3
python -m dbnet.console --hotseat          # two people at one keyboard
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dbnet.bots import BOT_NAMES
from dbnet.console.launch import run_local
from dbnet.console.session import DEFAULT_BOT_DELAY
from dbnet.engine import Player
from dbnet.errors import DbnetError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dbnet.console", description="Play Dreamblade in the full-screen client."
    )
    parser.add_argument("--bot", choices=BOT_NAMES, default="greedy")
    parser.add_argument("--side", choices=("A", "B"), type=str.upper, default="A")
    parser.add_argument("--seed", type=int, metavar="N")
    parser.add_argument("--hotseat", action="store_true", help="two people at one keyboard")
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=DEFAULT_BOT_DELAY,
        metavar="SECONDS",
        help=f"pause after each bot step (default {DEFAULT_BOT_DELAY})",
    )
    parser.add_argument(
        "--replay", type=Path, metavar="PATH", help="save the replay here (a new file)"
    )
    args = parser.parse_args(argv)
    try:
        return run_local(
            bot=args.bot,
            side=Player[args.side],
            seed=args.seed,
            hotseat=args.hotseat,
            bot_delay=args.bot_delay,
            replay=args.replay,
        )
    except DbnetError as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
