"""The arguments and help of every ``dbnet`` subcommand, declared with argparse alone.

Building the parser (for ``dbnet --help``, any command's ``--help``, or a usage error)
imports this module and ``helptext``, and none of dbnet's heavy parts. The modules that
run the commands (``dbnet.commands.play`` and the others) import the engine, the
catalog, trio, cryptography or prompt-toolkit, so each command's ``func`` is ``lazy``:
it imports its module when the command runs, and only then.

The few values of those modules that the help shows or the parsing checks are repeated
here (``BOT_NAMES``, ``MAX_TURNS``, ``TURNS_TO_WIN``, ``EXTENSION``, ``NAME_PATTERN``);
``tests/test_cli.py`` checks that they still agree with the modules they come from.
"""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dbnet.commands.helptext import HOME_HELP
from dbnet.commands.swiss_arguments import add_event_options, add_id

if TYPE_CHECKING:
    from dbnet.net.invite import Invite

Run = Callable[[argparse.Namespace], int]
"""A command: the parsed arguments in, the exit code out."""

BOT_NAMES: Final = ("random", "greedy", "easy", "normal", "hard")  # dbnet.bots.BOT_NAMES
LEVEL_SECONDS: Final = {"easy": 0.25, "normal": 0.7, "hard": 2.0}  # dbnet.bots.LEVELS
MAX_TURNS: Final = 500  # dbnet.bots.match.DEFAULT_MAX_TURNS
TURNS_TO_WIN: Final = 6  # dbnet.engine.Options().turns_to_win
EXTENSION: Final = ".dbnr"  # dbnet.replay.file.EXTENSION
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")  # dbnet.net.messages
DEFAULT_PORT: Final = 7117


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


def lazy(module: str, name: str) -> Run:
    """The function ``name`` of ``module``, imported when it is called, not before."""

    def run(args: argparse.Namespace) -> int:
        command: Run = getattr(importlib.import_module(module), name)
        return command(args)

    return run


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


def _number(text: str, unit: str) -> float:
    """``text`` as a number of ``unit`` (an argparse type's first step)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of {unit}") from None


def _minutes(text: str) -> float:
    """An argparse type: a positive number of minutes, fractions allowed."""
    value = _number(text, "minutes")
    if not 0 < value <= 1440:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 and at most 1440")
    return value


def _whole_number(low: int, what: str, too_low: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``low``; the errors say the text is
    not ``what``, or append ``too_low`` to it."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{text!r}{too_low}")
        return value

    return parse


_positive = _whole_number(1, "a whole number", " must be 1 or more")
_count = _whole_number(0, "a whole number", " must be 0 or more")
_entry = _whole_number(0, "an entry number", ": entries are numbered from 0")
_turn = _whole_number(1, "a turn number", ": turns are numbered from 1")


CLOCK_EXAMPLE: Final = "--clock 10 (10 minutes each) or --clock 25+10 (25 minutes, +10 s a move)"
"""As ``dbnet.protocol.clock.CLOCK_EXAMPLE``, repeated so as not to import it."""
CLOCK_MS: Final = (1_000, 100 * 3_600_000, 3_600_000)
"""The least and the most base time and the most increment of a clock, in ms (as
``dbnet.wire.setup``'s)."""
_CLOCK_TEXT: Final = re.compile(r"(\d{1,9})(?:\.(\d{1,3}))?(?:\+(\d{1,9})(?:\.(\d{1,3}))?)?")


def _clock(text: str) -> tuple[int, int]:
    """``--clock MINUTES[+SECONDS]``: ``(base, increment)`` in ms, as ``ClockSetting.parse``
    reads it; a malformed one is a usage error with an example."""
    match = _CLOCK_TEXT.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"expected MINUTES[+SECONDS], got {text!r}; e.g. {CLOCK_EXAMPLE}"
        )
    minutes, minute_part, seconds, second_part = match.groups()
    base = int(minutes) * 60_000 + int((minute_part or "0").ljust(3, "0")) * 60
    increment = int(seconds or "0") * 1000 + int((second_part or "0").ljust(3, "0"))
    least, most, most_increment = CLOCK_MS
    if not least <= base <= most:
        raise argparse.ArgumentTypeError(
            f"the base time must be from 1 second to {most // 60_000} minutes, got {text!r}; "
            f"e.g. {CLOCK_EXAMPLE}"
        )
    if increment > most_increment:
        raise argparse.ArgumentTypeError(
            f"the increment must be at most {most_increment // 1000} seconds, got {text!r}; "
            f"e.g. {CLOCK_EXAMPLE}"
        )
    return base, increment


def _seconds(text: str) -> float:
    value = _number(text, "seconds")
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{text!r}: give 0 to 60 seconds")
    return value


def _think(text: str) -> float:
    value = _number(text, "seconds")
    if not 0 < value <= 600:
        raise argparse.ArgumentTypeError(f"{text!r}: give more than 0 and at most 600 seconds")
    return value


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


# --- dbnet host, dbnet join and dbnet resume ----------------------------------------------


def _add_network(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    host = subparsers.add_parser(
        "host",
        help="host a game over the network (you play A)",
        description="Listen for an opponent on IPv4 and IPv6 and play a game as A. Prints "
        "the line to send the opponent (dbnet join INVITE: your key's fingerprint, a "
        "one-game secret and every way to reach you: this machine's addresses, a port "
        "mapping on your router, a relay); only its holder takes the seat, unless --expect "
        "names the joiner's key or --open seats anyone (then dbnet join HOST:PORT works). "
        "Exit codes: 0 complete, 1 the game could not go on, 2 bad arguments, 3 adjourned, "
        "130 Ctrl-C.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    host.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT})"
    )
    host.add_argument(
        "--turns-to-win", type=int, default=TURNS_TO_WIN, metavar="N",
        help=f"turns a player must win (default {TURNS_TO_WIN})",
    )  # fmt: skip
    host.add_argument(
        "--clock",
        type=_clock,
        metavar="MINUTES[+SECONDS]",
        help="a chess clock for each player: MINUTES to start with, and SECONDS more for "
        "each move handed over, e.g. --clock 10 or --clock 25+10 (default: no clock). A "
        "player whose clock runs out may lose on time: the other claims it (docs/protocol.md)",
    )
    _hosting(host)
    _common(host)
    _rematch(host)
    _add_limited(host)
    host.set_defaults(func=lazy("dbnet.commands.net", "run_host"))

    join = subparsers.add_parser(
        "join",
        help="join a game hosted over the network (you play B)",
        description="Connect to a host and play a game as B: with the INVITE the host "
        "printed, every path it lists is tried at once (direct first, the relay after a "
        "moment) and the host's key is the one it names; or directly to HOST:PORT (a host "
        "seats you so only with --open, or with --expect naming your key). "
        "Reconnects by itself when the connection drops. Exit codes as for 'dbnet host'.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    join.add_argument(
        "address",
        nargs="+",
        action=_AddressOrInvite,
        metavar="INVITE|HOST:PORT",
        help="the host's invite (the line it printed; pasted wrapped over several lines "
        "is fine), or its address",
    )
    _no_port_mapping(join)
    _common(join)
    _rematch(join)
    _add_limited(join, joiner=True)
    join.set_defaults(func=lazy("dbnet.commands.net", "run_join"))

    resume = subparsers.add_parser(
        "resume",
        help="go on with an adjourned network game from its replay",
        description="Go on with a network game from this side's replay file: listen for the "
        "opponent, or connect to HOST:PORT if given. With --claim-timeout, append a signed "
        "claim that the opponent stopped answering instead (verifiers show it as unilateral).",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    resume.add_argument("file", type=Path, metavar="FILE", help="this side's replay file")
    resume.add_argument(
        "address",
        nargs="*",
        action=_AddressOrInvite,
        metavar="INVITE|HOST:PORT",
        help="connect through the host's invite (a fresh one: it prints one when it "
        "resumes), or to its address; without it, host again",
    )
    resume.add_argument(
        "--port", type=_port, default=DEFAULT_PORT, help=f"listen here (default {DEFAULT_PORT})"
    )
    resume.add_argument(
        "--claim-timeout",
        action="store_true",
        help="record a signed timeout claim (only while waiting for the opponent's entry)",
    )
    _hosting(resume)
    _common(resume, new_game=False)
    resume.set_defaults(func=lazy("dbnet.commands.net", "run_resume"))

    watch = subparsers.add_parser(
        "watch",
        help="watch a game hosted over the network (read-only)",
        description="Follow a game live as a spectator of a host started with --spectators: "
        "with the spectator INVITE the host printed (dbnet watch INVITE: its direct paths and "
        "its relay are raced, as dbnet join does), or with HOST:PORT and --expect "
        "FINGERPRINT (a host admits that only with --open). Every entry is verified as it "
        "arrives with the checks of dbnet verify (signatures, hash chain, dice, "
        "re-simulation), full screen or in lines (--plain); joining in the middle of a game "
        "catches up from its start. A spectator never takes a seat. The players are called "
        "by the names they signed (alice (A)); the last line names the winner. Exit codes: "
        "0 the game was watched to its end, 1 refused (no place left, a wrong key, the game "
        "over) or the watch broke off, 2 bad arguments, 130 Ctrl-C.",
        epilog=HOME_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    watch.add_argument(
        "address",
        nargs="+",
        action=_AddressOrInvite,
        metavar="INVITE|HOST:PORT",
        help="the host's spectator invite (the 'dbnet watch' line it printed), or its address "
        "(then give --expect)",
    )
    watch.add_argument(
        "--expect",
        metavar="FINGERPRINT",
        help="refuse to watch unless the host's key has this fingerprint (the invite names it)",
    )
    watch.add_argument(
        "--replay", type=Path, metavar="PATH", help="save the verified game here (a new file)"
    )
    watch.add_argument(
        "--stay",
        action="store_true",
        help="when the game ends, stay for the players' rematch if they agree on one (the next "
        "game is watched too, its replay beside the last: NAME-2.dbnr), full screen or --plain",
    )
    watch.add_argument(
        "--name",
        type=_name,
        default=None,
        help="your name as the host sees it (default: your login)",
    )
    watch.add_argument(
        "--relay",
        metavar="HOST:PORT|off",
        help="with an invite, also try the invite's relay when no direct path works "
        "(default: on, unless DBNET_RELAY or 'relay' in config.toml in your dbnet home says "
        "off); off: the direct paths only",
    )
    watch.add_argument(
        "--stun",
        metavar="HOST:PORT|off",
        help=_STUN_HELP,
    )
    watch.add_argument(
        "--verbose",
        action="store_true",
        help="say each path to the host that failed, and why",
    )
    _no_port_mapping(watch)
    watch.add_argument(
        "--plain",
        action="store_true",
        help="the line-based output (for scripts and screen readers) instead of the "
        "full-screen client; it is also used when stdin or stdout is not a terminal",
    )
    watch.set_defaults(func=lazy("dbnet.commands.watch", "run_watch"))


_STUN_HELP = (
    "the STUN server that tells this side its public address and port (default: "
    "DBNET_STUN, else 'stun' in config.toml in your dbnet home, else "
    "stun.l.google.com:19302); off: none. For now it is asked only with --verbose, which "
    "prints the answer"
)


def _rematch(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rematch",
        type=_count,
        default=0,
        metavar="N",
        help="for --bot and --plain: accept or offer up to N more games with the same "
        "opponent over the same connection when a game ends (each a new game: fresh nonces, "
        "its own replay beside the last; the host's terms). Default 0: a bot or a script "
        "declines, a person is asked (type rematch). A --seed game cannot be rematched "
        "(docs/network.md)",
    )


def _no_port_mapping(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-port-mapping",
        action="store_true",
        help="do not ask the router for a port mapping (UPnP IGD, NAT-PMP, PCP): a host "
        "for its port, a joiner or spectator for the port where its host may connect to it "
        "when the relay is the only other way; also DBNET_PORT_MAPPING=off in the environment",
    )


def _hosting(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--address",
        dest="address_given",
        type=_ip_address,
        action="append",
        metavar="IP",
        help="put IP in the invite as a direct path instead of this machine's own addresses "
        "(repeat it for more): e.g. 127.0.0.1 to try dbnet on one machine",
    )
    _no_port_mapping(parser)
    parser.add_argument(
        "--open",
        action="store_true",
        help="seat the first joiner who reaches the port, invite or not (dbnet join "
        "HOST:PORT), and admit spectators without the spectator invite (dbnet watch "
        "HOST:PORT --expect FP): for a LAN party or a script. Without it, only the holder "
        "of the invite (or of a key named with --expect) takes the seat",
    )
    parser.add_argument(
        "--spectators",
        type=_count,
        default=0,
        metavar="N",
        help="admit up to N spectators (dbnet watch), apart from the opponent's place; "
        "prints a spectator invite (the same paths as the player's, relay included), which "
        "never takes a seat (default 0: none)",
    )
    parser.add_argument(
        "--spectator-delay",
        type=_count,
        default=0,
        metavar="N",
        help="spectators see the game N entries late, until it ends (default 0)",
    )


def _common(parser: argparse.ArgumentParser, *, new_game: bool = True) -> None:
    if new_game:
        parser.add_argument(
            "--warband", type=Path, metavar="FILE", help="your warband file (default: shipped)"
        )
        parser.add_argument(
            "--replay", type=Path, metavar="PATH", help="save the replay here (a new file)"
        )
        parser.add_argument(
            "--seed",
            type=int,
            metavar="N",
            help="testing only: derive the bot's choices and this side's game nonce from N; "
            "the same players and seed on both sides give the same game and dice (a game "
            "id played before is refused, so use a new seed for each game)",
        )
    parser.add_argument(
        "--bot", choices=BOT_NAMES, help="let a bot play this side (default: you, at the prompt)"
    )
    _add_budget(parser)
    parser.add_argument(
        "--plain",
        action="store_true",
        help="the line-based interface (for scripts and screen readers) instead of the "
        "full-screen client; it is also used when stdin or stdout is not a terminal",
    )
    parser.add_argument(
        "--name",
        type=_name,
        default=None,
        help="your name as the opponent's known-peers file records it (default: your login)",
    )
    parser.add_argument(
        "--expect",
        metavar="FINGERPRINT",
        help="refuse to play unless the opponent's key has this fingerprint (compare it by "
        "phone or in person first)",
    )
    parser.add_argument(
        "--relay",
        metavar="HOST:PORT|off",
        help="the relay to meet at when no direct path works (default: DBNET_RELAY, else "
        "'relay' in config.toml in your dbnet home, else the public magic-wormhole transit "
        "relay); off: none. A joiner uses the invite's relay unless this says off",
    )
    parser.add_argument(
        "--stun",
        metavar="HOST:PORT|off",
        help=_STUN_HELP,
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="say each path to the host that failed, and why",
    )
    parser.add_argument(
        "--adjourn-after",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="adjourn the game after this long without the opponent (default 300)",
    )


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0-65535)")
    return port


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"{text!r}: expected HOST:PORT, e.g. 192.0.2.7:7117")
    return host.strip("[]"), _port(port)


def _looks_like_invite(text: str) -> bool:
    """``dbnet.net.invite.looks_like_invite``, here so that parsing imports no network."""
    plain = text.strip()
    return plain[:2].upper() == "DB" and ":" not in plain and "." not in plain


def _ip_address(text: str) -> str:
    import ipaddress

    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IPv4 or IPv6 address") from None


_PRINTED_COMMANDS = (["dbnet", "join"], ["dbnet", "watch"])
"""The words before the invite on the lines a host prints (and saves in ``invite.txt``)."""


class _AddressOrInvite(argparse.Action):
    """The host's INVITE, its words joined (an invite copied from a wrapped line comes
    as several), or one HOST:PORT; None when no word is given. The whole line the host
    printed reads too: its leading ``dbnet join`` (or ``dbnet watch``) is left out."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[object] | None,
        option_string: str | None = None,
    ) -> None:
        words = [word for value in values or () for word in str(value).split()]
        if words[:2] in _PRINTED_COMMANDS:
            printed, words = " ".join(words[:2]), words[2:]
            if not words:
                raise argparse.ArgumentError(self, f"the line holds no invite after {printed!r}")
        value: tuple[str, int] | Invite | None = None
        if len(words) > 1 and not _looks_like_invite(words[0]):
            raise argparse.ArgumentError(
                self, f"expected one HOST:PORT or an invite, got {len(words)} words"
            )
        if words:
            try:
                value = _address_or_invite("".join(words))
            except argparse.ArgumentTypeError as exc:
                raise argparse.ArgumentError(self, str(exc)) from None
        setattr(namespace, self.dest, value)


def _address_or_invite(text: str) -> tuple[str, int] | Invite:
    """An invite (``dbnet.net.invite``) if ``text`` looks like one, else HOST:PORT (which
    is told apart without importing the network: a usage error stays light)."""
    if not _looks_like_invite(text):
        return _address(text)
    from dbnet.net.invite import Invite, InviteError

    try:
        return Invite.parse(text)
    except InviteError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _name(text: str) -> str:
    if not NAME_PATTERN.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a name is 1-32 letters, digits, '_', '.' or '-', starting with a "
            "letter or digit"
        )
    return text
