"""The arguments and help of every ``dbnet`` subcommand, declared with argparse alone.

Building the parser (for ``dbnet --help``, any command's ``--help``, or a usage error)
imports this module and ``helptext``, and none of dbnet's heavy parts. The modules that
run the commands (``dbnet.commands.play`` and the others) import the engine, the
catalog, trio, cryptography or prompt-toolkit, so each command's ``func`` is ``lazy``:
it imports its module when the command runs, and only then.

The few values of those modules that the help shows or the parsing checks are repeated
in ``common_arguments`` (``BOT_NAMES``, ``MAX_TURNS``, ``TURNS_TO_WIN``, ``EXTENSION``)
and ``argument_types`` (``NAME_PATTERN``, ``CLOCK_MS``); ``tests/test_cli.py`` checks that
they still agree with the modules they come from. The options several commands share are
in ``common_arguments``, the argparse types in ``argument_types``, and the network
commands' arguments in ``network_arguments``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dbnet.commands.argument_types import _entry, _positive, _seconds, _turn
from dbnet.commands.common_arguments import (
    BOT_NAMES,
    EXTENSION,
    MAX_TURNS,
    _add_budget,
    _add_limited,
    lazy,
)
from dbnet.commands.network_arguments import _add_network
from dbnet.commands.swiss_arguments import add_event_options, add_id


def add_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add every ``dbnet`` subcommand, in the order the help lists them."""
    for add in (
        _add_play,
        _add_selfplay,
        _add_scenario,
        _add_catalog,
        _add_warband,
        _add_verify,
        _add_event,
        _add_replay,
        _add_network,
    ):
        add(subparsers)
    add_id(subparsers, lazy)


# --- dbnet play ---------------------------------------------------------------------------


def _add_play(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a game against the computer (or hotseat)",
        description="Play Dreamblade against a bot at this terminal. On a terminal this opens "
        "the full-screen client; with --plain, or when stdin or stdout is not a terminal (a "
        "pipe, a file), it uses the line-based interface instead, for scripts and screen "
        "readers. Every game is saved as a replay as it is played. Exit codes: 0 game over "
        "or quit, 1 input ended first (line interface) or an internal error (full screen), "
        "2 bad arguments, 130 Ctrl-C.",
    )
    parser.add_argument(
        "--warband", type=Path, metavar="FILE", help="your warband file (default: shipped)"
    )
    parser.add_argument(
        "--opponent", type=Path, metavar="FILE", help="the bot's warband file (default: shipped)"
    )
    parser.add_argument(
        "--bot",
        choices=BOT_NAMES,
        help="the opponent: random, greedy, or the search levels easy, normal, hard "
        "(default: greedy; a resumed game keeps its own)",
    )
    _add_budget(parser)
    parser.add_argument(
        "--side",
        choices=("A", "B"),
        type=str.upper,
        help="your seat: A (portal e1) or B (portal a5); default A",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="derive the dice chains, both keys and the bot's choices from N (reproducible games)",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        metavar="PATH",
        help="save the replay here (a new file; default: <config dir>/replays/...)",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="FILE",
        help="go on with an unfinished game from its replay file (one of yours): the bot, "
        "its budget, the seats, the seed and the build time it was played with are kept "
        "beside it (FILE.game); an option given replaces its own, saying so",
    )
    interface = parser.add_mutually_exclusive_group()
    interface.add_argument(
        "--plain",
        action="store_true",
        help="the line-based interface (for scripts and screen readers); it is also used "
        "whenever stdin or stdout is not a terminal",
    )
    interface.add_argument(
        "--tui",
        action="store_true",
        help="insist on the full-screen client (the default on a terminal): an error, rather "
        "than the line interface, when stdin or stdout is not a terminal",
    )
    parser.add_argument(
        "--hotseat",
        action="store_true",
        help="two people at one keyboard instead of against the bot (full screen only)",
    )
    _add_limited(parser)
    parser.set_defaults(build_minutes=None)  # 10 for a new game; a resumed game keeps its own
    parser.add_argument(
        "--bot-delay",
        type=_seconds,
        metavar="SECONDS",
        help="full screen: the pause after each of the bot's steps, so you can follow them "
        "(default 0.35)",
    )
    parser.set_defaults(func=lazy("dbnet.commands.play", "run"))


# --- dbnet selfplay -----------------------------------------------------------------------


def _add_selfplay(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "selfplay",
        help="let bots play each other and measure throughput",
        description="Play bot-against-bot games and print results, win counts and speed.",
    )
    parser.add_argument("--games", type=_positive, default=10, metavar="N", help="default 10")
    parser.add_argument("--seed", type=int, metavar="S", help="seed of the run (default: random)")
    parser.add_argument("--a", choices=BOT_NAMES, default="greedy", help="bot in seat A")
    parser.add_argument("--b", choices=BOT_NAMES, default="random", help="bot in seat B")
    _add_budget(parser)
    parser.add_argument("--warband", type=Path, metavar="FILE", help="A's warband file")
    parser.add_argument("--opponent", type=Path, metavar="FILE", help="B's warband file")
    parser.add_argument(
        "--max-turns",
        type=_positive,
        default=MAX_TURNS,
        metavar="T",
        help=f"stop a game unfinished after T turns (default {MAX_TURNS})",
    )
    parser.add_argument(
        "--replays",
        type=Path,
        metavar="DIR",
        help=f"save each game's replay in DIR as selfplay-SEED-N{EXTENSION} (default: none)",
    )
    parser.set_defaults(func=lazy("dbnet.commands.selfplay", "run"))


# --- dbnet scenario -----------------------------------------------------------------------


def _add_scenario(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "scenario",
        help="run rule scenario files",
        description="Run scenario files (TOML, see docs/scenarios.md); folders are searched "
        "recursively for *.toml. Exit 0 if all pass, 1 if any fails, 2 for usage errors.",
    )
    parser.add_argument("paths", nargs="+", metavar="FILE", help="scenario file or folder")
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print only failures and the summary"
    )
    parser.set_defaults(func=lazy("dbnet.commands.scenario", "run"))


# --- dbnet catalog ------------------------------------------------------------------------


def _add_catalog(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "catalog",
        help="list, search and show miniatures and ability keywords",
        description="List the miniatures in the catalog, search them, show one in full, or "
        "list the ability keywords with the miniatures that carry them.",
    )
    _catalog_option(parser)
    actions = parser.add_subparsers(dest="catalog_action", metavar="ACTION")
    actions.add_parser("list", help="list every miniature (the default)")
    search = actions.add_parser(
        "search",
        help="miniatures whose name, slug, ability keyword, aspect, lineage, set or rules "
        "text contain TEXT, and what matched",
    )
    search.add_argument("text", nargs="+", metavar="TEXT")
    show = actions.add_parser("show", help="one miniature's full stats and abilities")
    show.add_argument("name", nargs="+", metavar="NAME", help="a name or slug")
    keywords = actions.add_parser(
        "keywords", help="every ability keyword explained, with the miniatures that carry it"
    )
    keywords.add_argument("keyword", nargs="*", metavar="KEYWORD", help="only this keyword")
    parser.set_defaults(func=lazy("dbnet.commands.catalog", "run"))


def _catalog_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalog",
        dest="catalog_files",
        action="append",
        type=Path,
        metavar="FILE",
        help="read this catalog file instead of the shipped catalog (repeatable)",
    )


# --- dbnet warband -------------------------------------------------------------------------


def _add_warband(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "warband",
        help="check, show, make and edit warband files",
        description="Check warband files against rule 600, show one with its costs, or make "
        "and edit one in the full-screen warband builder. Exit codes: 0 legal, 1 a warband "
        "breaks a rule (one line each, quoting the rule), 2 a file that is not a warband or "
        "bad arguments.",
    )
    _catalog_option(parser)
    actions = parser.add_subparsers(dest="warband_action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="every rule of 600 each warband breaks: at most 16 miniatures (600.1), at most "
        "3 copies (600.3), names in the catalog",
    )
    check.add_argument("files", nargs="+", type=Path, metavar="FILE")
    show = actions.add_parser(
        "show", help="the miniatures with cost, aspects and stats, and the aspect costs (600.2)"
    )
    show.add_argument("file", type=Path, metavar="FILE")
    new = actions.add_parser("new", help="make a new warband in the full-screen builder")
    new.add_argument("name", nargs="+", metavar="NAME", help="the warband's name")
    new.add_argument(
        "--file",
        type=Path,
        metavar="PATH",
        help="save it here (default: the name as a slug, .toml, in this folder)",
    )
    edit = actions.add_parser("edit", help="open a warband file in the full-screen builder")
    edit.add_argument("file", type=Path, metavar="FILE")
    parser.set_defaults(func=lazy("dbnet.commands.warband", "run"))


# --- dbnet verify -------------------------------------------------------------------------


def _add_verify(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="check replay files (signatures, dice, rules, result)",
        description=(
            "Check replay files: framing, every signature, the hash chain, every dice link, "
            "a full re-simulation of the game and its result. Folders are searched for "
            f"*{EXTENSION} files. Exit status 0 only if every game is complete and valid."
        ),
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help=f"a replay file, or a folder of *{EXTENSION}"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document with every verdict"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for many files (default: the number of CPUs; 1: none)",
    )
    parser.set_defaults(func=lazy("dbnet.commands.verify", "run"))


# --- dbnet event --------------------------------------------------------------------------


def _add_event(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "event",
        help="verify an event's replays, then print its roster and standings",
        description=(
            f"Verify every *{EXTENSION} file in FOLDER (as 'dbnet verify' does), then print "
            "the roster (players by key fingerprint), flags (invalid files, unfinished "
            "games, claims, results not counter-signed, different replays with one game "
            "id) and the standings of the complete, verified games: played, won, drawn, "
            "lost, match points and the opponents' win rate as tie-break. Both players' "
            "copies of a game count once. Exit status 0 when every file is valid, 1 when "
            "one is invalid or disagrees with another copy of its game, 2 for usage errors "
            "(an empty folder among them)."
        ),
    )
    parser.add_argument("folder", metavar="FOLDER", help=f"a folder of *{EXTENSION} files")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON document")
    output.add_argument("--html", action="store_true", help="print one self-contained page")
    parser.add_argument(
        "--points",
        type=_points,
        default=(3, 1, 0),
        metavar="WIN,DRAW,LOSS",
        help="match points for a win, a draw and a loss (default 3,1,0)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for many files (default: the number of CPUs; 1: none)",
    )
    add_event_options(parser)
    parser.set_defaults(func=lazy("dbnet.commands.event", "run"))


def _points(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    try:
        values = tuple(int(p) for p in parts)
    except ValueError:
        values = ()
    if len(values) != 3 or min(values) < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give three whole numbers of points, WIN,DRAW,LOSS, e.g. 3,1,0"
        )
    return values[0], values[1], values[2]


# --- dbnet replay and dbnet export --------------------------------------------------------


def _add_replay(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``replay`` and ``export`` commands."""
    replay = subparsers.add_parser(
        "replay",
        help="check a replay file, then show the game turn by turn",
        description=(
            f"Verify a replay file (*{EXTENSION}) and show the game. On a terminal this "
            "opens the full-screen viewer (step through it with the arrow keys; 'help' "
            "inside). With --plain, or when stdin or stdout is not a terminal (a pipe, a "
            "file), it prints the game turn by turn instead: decisions in notation, dice, "
            "conquest points of every turn, the result. Exit status 0 for a valid file, 1 "
            "for an invalid one (shown up to where it stops), 2 when it cannot be read."
        ),
    )
    replay.add_argument("file", type=Path, metavar="FILE", help="the replay file")
    replay.add_argument(
        "--at",
        type=_turn,
        metavar="TURN",
        help="print the position at the start of TURN instead of the whole game; full "
        "screen: open the viewer at the first step of TURN",
    )
    replay.add_argument(
        "--plain",
        action="store_true",
        help="print the text even on a terminal (it is printed anyway when stdin or stdout "
        "is not a terminal)",
    )
    replay.set_defaults(func=lazy("dbnet.commands.replay", "run_replay"))

    export = subparsers.add_parser(
        "export",
        help="write a replay file's checked content as JSON, text, an SVG picture or a page",
        description=(
            "Verify a replay file and write it out. json and text: its header, the players' "
            "key fingerprints, the verdict and every entry (sequence number, author, kind, "
            "decision, dice, state hash). svg: one position as a standalone picture (the "
            "final one, or --at ENTRY, or --turn T). html: the whole game as one "
            "self-contained page (every position, the moves, the dice, what was verified; "
            "it fetches nothing). Exit status 0 for a valid file, 1 for an invalid one (svg "
            "and html then write nothing), 2 when it cannot be read or has no such entry "
            "or turn."
        ),
    )
    export.add_argument("file", type=Path, metavar="FILE", help="the replay file")
    export.add_argument(
        "--format",
        choices=("json", "text", "svg", "html"),
        default="json",
        help="json (default): one JSON document; text: the same as plain text; svg: one "
        "position as a picture; html: a page to step through the game",
    )
    where = export.add_mutually_exclusive_group()
    where.add_argument(
        "--at",
        type=_entry,
        metavar="ENTRY",
        help="svg: the position after entry ENTRY (its sequence number; 0 is the start)",
    )
    where.add_argument(
        "--turn", type=_turn, metavar="T", help="svg: the position at the start of turn T"
    )
    export.set_defaults(func=lazy("dbnet.commands.replay", "run_export"))
