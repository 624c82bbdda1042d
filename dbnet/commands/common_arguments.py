"""What the parsers of several ``dbnet`` commands share: ``lazy`` (a command's function,
imported when it runs), the values of heavy modules that the help shows (repeated here so
that parsing imports none of them; ``tests/test_cli.py`` checks that they still agree),
and the options of a bot's budget (``--think``, ``--playouts``) and of Limited play
(``--limited``, ``--build-minutes``)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from typing import Final

from dbnet.commands.argument_types import _minutes, _positive, _think

Run = Callable[[argparse.Namespace], int]
"""A command: the parsed arguments in, the exit code out."""

BOT_NAMES: Final = ("random", "greedy", "easy", "normal", "hard")  # dbnet.bots.BOT_NAMES
LEVEL_SECONDS: Final = {"easy": 0.25, "normal": 0.7, "hard": 2.0}  # dbnet.bots.LEVELS
MAX_TURNS: Final = 500  # dbnet.bots.match.DEFAULT_MAX_TURNS
TURNS_TO_WIN: Final = 6  # dbnet.engine.Options().turns_to_win
EXTENSION: Final = ".dbnr"  # dbnet.replay.file.EXTENSION
DEFAULT_PORT: Final = 7117


def lazy(module: str, name: str) -> Run:
    """The function ``name`` of ``module``, imported when it is called, not before."""

    def run(args: argparse.Namespace) -> int:
        command: Run = getattr(importlib.import_module(module), name)
        return command(args)

    return run


LIMITED_FORMATS = ("3-boosters", "starter+booster")
"""The Limited formats (600.6; ``engine.limited.FORMATS``)."""


def _add_limited(parser: argparse.ArgumentParser, *, joiner: bool = False) -> None:
    """``--limited FORMAT`` and ``--build-minutes N`` (docs/limited.md)."""
    what = (
        "refuse any game but this Limited format (without it, the joiner plays the "
        "format the host offers, told before it accepts)"
        if joiner
        else "play Limited (600.6)"
    )
    how = (
        "At a terminal the full-screen builder opens on your pool (Enter or Ctrl-S commits "
        "a legal warband); with --plain, the build> prompt"
    )
    if joiner or parser.prog.endswith(" host"):
        how += (
            ". Resuming between the commitment and the reveal needs REPLAY.warband, saved "
            "beside the replay"
        )
    parser.add_argument(
        "--limited",
        choices=LIMITED_FORMATS,
        metavar="FORMAT",
        help=f"{what}: each player opens 3-boosters (three boosters of 7) or "
        "starter+booster (a starter of 16 and a booster) of the dbnet Originals set, drawn "
        "from both players' joint dice, and builds a warband from that pool; --warband is "
        f"not used. {how}",
    )
    parser.add_argument(
        "--build-minutes",
        type=_minutes,
        default=10,
        metavar="N",
        help="Limited: your time to build a warband from your pool (default 10; a fraction "
        "such as 0.5 is allowed); when it runs out, the last legal warband you saved (in "
        "the full-screen builder: the last legal one you built), else the automatic build, "
        "is committed",
    )


def _add_budget(parser: argparse.ArgumentParser) -> None:
    """``--think`` and ``--playouts``: the search bots' budget per decision."""
    defaults = ", ".join(f"{name} {seconds:g}" for name, seconds in LEVEL_SECONDS.items())
    parser.add_argument(
        "--think",
        type=_think,
        metavar="SECONDS",
        help=f"the search bot's time per decision (default: {defaults})",
    )
    parser.add_argument(
        "--playouts",
        type=_positive,
        metavar="N",
        help="the search bot's playouts per decision: a budget independent of the machine, "
        "reproducible with --seed (with --think too, whichever ends first)",
    )
