"""The ``dbnet`` command's own handling of errors, its help, and what starting it imports."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from dbnet import cli
from dbnet.bots import BOT_NAMES, LEVELS
from dbnet.bots.match import DEFAULT_MAX_TURNS
from dbnet.commands import argument_types, common_arguments, verify
from dbnet.engine import Options
from dbnet.errors import DbnetError
from dbnet.net.messages import NAME_PATTERN
from dbnet.protocol.clock import CLOCK_EXAMPLE, ClockSetting
from dbnet.replay.file import EXTENSION
from dbnet.wire.setup import MAX_CLOCK_MS, MAX_INCREMENT_MS


def test_an_error_quoting_hostile_text_is_printed_escaped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An error that quotes a file's or the peer's text cannot forge lines or rewrite the
    screen: each of its lines is escaped; its own line breaks stay."""

    def fail(args: argparse.Namespace) -> int:
        raise DbnetError("the peer said 'x\rdbnet: ok\x1b[2J\u202e'\nwhat to do: nothing")

    monkeypatch.setattr(verify, "run", fail)
    assert cli.main(["verify", "x.dbnr"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err == (
        "dbnet verify: the peer said 'x\\rdbnet: ok\\x1b[2J\\u202e'\nwhat to do: nothing\n"
    )


# --- starting fast: the parser imports nothing heavy ---------------------------------------

COMMANDS = ("play", "selfplay", "scenario", "catalog", "warband", "verify", "event", "replay",
            "export", "host", "join", "resume", "watch", "id")  # fmt: skip
LIGHT = frozenset(
    {
        "dbnet",
        "dbnet.cli",
        "dbnet.commands",
        "dbnet.commands.argument_types",
        "dbnet.commands.arguments",
        "dbnet.commands.common_arguments",
        "dbnet.commands.helptext",
        "dbnet.commands.network_arguments",
        "dbnet.commands.swiss_arguments",
        "dbnet.errors",
        "dbnet.interrupts",
        "dbnet.text",
    }
)
"""The only dbnet modules that parsing the command line, its help and its usage errors
may import: the modules that run the commands import the engine, trio and the rest."""
HEAVY_PACKAGES = ("trio", "cryptography", "prompt_toolkit", "msgpack", "hypothesis")
PROBE = """\
import sys
from dbnet import cli
try:
    code = cli.main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print("imported:", " ".join(sorted(sys.modules)))
sys.exit(code)
"""


def probe(*argv: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``dbnet ARGV`` in a new interpreter, and the modules it had imported at the end."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    *_, last = result.stdout.splitlines() or [""]
    assert last.startswith("imported: "), result.stdout + result.stderr
    return result, set(last.split()[1:])


def heavy(modules: set[str]) -> list[str]:
    """The modules in ``modules`` that parsing must not import."""
    ours = {m for m in modules if m.split(".")[0] == "dbnet"} - LIGHT
    theirs = {m for m in modules if m.split(".")[0] in HEAVY_PACKAGES}
    return sorted(ours | theirs)


def test_the_commands_listed_here_are_the_parsers() -> None:
    parser = cli.build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert tuple(subparsers.choices) == COMMANDS


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        *([command, "--help"] for command in COMMANDS),
        *(["catalog", action, "--help"] for action in ("list", "search", "show", "keywords")),
        *(["warband", action, "--help"] for action in ("check", "show", "new", "edit")),
    ],
    ids=" ".join,
)
def test_help_exits_0_and_imports_nothing_heavy(argv: list[str]) -> None:
    result, modules = probe(*argv)
    assert result.returncode == 0, result.stderr
    command = " ".join(["dbnet", *argv[:-1]])
    assert result.stdout.startswith(f"usage: {command} [-h]"), result.stdout
    assert heavy(modules) == []


def test_no_command_without_a_terminal_prints_the_usage_and_imports_nothing_heavy() -> None:
    """At a terminal ``dbnet`` opens the main menu (``tests/console/test_menu_terminal.py``);
    through pipes it prints the usage, exit code 2, as it always did."""
    result, modules = probe()
    assert result.returncode == 2
    assert result.stdout.startswith("usage: dbnet [-h]"), result.stdout
    assert heavy(modules) == []


USAGE_ERRORS = [
    (["nosuch"], "dbnet: error: argument COMMAND: invalid choice: 'nosuch' (choose from "),
    (["play", "--bot-delay", "99"], "dbnet play: error: argument --bot-delay: '99': give "
                                    "0 to 60 seconds"),
    (["selfplay", "--a", "x"], "dbnet selfplay: error: argument --a: invalid choice: 'x' "
                               "(choose from 'random', 'greedy', 'easy', 'normal', 'hard')"),
    (["replay", "f", "--at", "0"], "dbnet replay: error: argument --at: '0': turns are "
                                   "numbered from 1"),
    (["export", "f", "--at", "-1"], "dbnet export: error: argument --at: '-1': entries are "
                                    "numbered from 0"),
    (["event", "f", "--points", "3,1"], "dbnet event: error: argument --points: '3,1': give "
                                        "three whole numbers"),
    (["join", ":5"], "dbnet join: error: argument INVITE|HOST:PORT: ':5': expected HOST:PORT, e.g. "
                     "192.0.2.7:7117"),
    (["host", "--name", "bad name"], "dbnet host: error: argument --name: 'bad name': a name "
                                     "is 1-32 letters"),
    (["play", "--bot", "expert"], "dbnet play: error: argument --bot: invalid choice: 'expert'"),
    (["selfplay", "--think", "0"], "dbnet selfplay: error: argument --think: '0': give more "
                                   "than 0"),
    (["play", "--think", "soon"], "dbnet play: error: argument --think: 'soon' is not a number "
                                  "of seconds"),
    (["join", "--bot", "hard", "--playouts", "0"], "dbnet join: error: argument --playouts: '0' "
                                                   "must be 1 or more"),
    (["host", "--spectators", "-1"], "dbnet host: error: argument --spectators: '-1' must be 0 "
                                     "or more"),
    (["watch", ":5"], "dbnet watch: error: argument INVITE|HOST:PORT: ':5': expected HOST:PORT"),
    (["host", "--clock", "10:00"], "dbnet host: error: argument --clock: expected "
                                   "MINUTES[+SECONDS], got '10:00'; e.g. --clock 10 (10 minutes "
                                   "each) or --clock 25+10"),
    (["host", "--clock", "0"], "dbnet host: error: argument --clock: the base time must be "
                               "from 1 second to 6000 minutes, got '0'; e.g. --clock 10"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "error"), USAGE_ERRORS, ids=[" ".join(argv) for argv, _ in USAGE_ERRORS]
)
def test_a_usage_error_is_one_line_exit_2_and_imports_nothing_heavy(
    argv: list[str], error: str
) -> None:
    result, modules = probe(*argv)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: dbnet")
    assert result.stderr.splitlines()[-1].startswith(error), result.stderr
    assert heavy(modules) == []


def test_a_command_imports_its_module_when_it_runs() -> None:
    """The check above can fail: running a command imports what it needs."""
    result, modules = probe("verify", "/nonexistent/replay.dbnr")
    assert result.returncode == 2
    assert "dbnet verify: /nonexistent/replay.dbnr: no such file or folder" in result.stderr
    assert "dbnet.commands.verify" in heavy(modules)
    assert "msgpack" in heavy(modules)


def test_the_values_the_help_repeats_agree_with_their_modules() -> None:
    """``dbnet.commands.common_arguments`` and ``argument_types`` repeat a few values so as
    not to import their modules."""
    assert BOT_NAMES == common_arguments.BOT_NAMES
    assert {name: level.seconds for name, level in LEVELS.items()} == common_arguments.LEVEL_SECONDS
    assert DEFAULT_MAX_TURNS == common_arguments.MAX_TURNS
    assert Options().turns_to_win == common_arguments.TURNS_TO_WIN
    assert EXTENSION == common_arguments.EXTENSION
    assert NAME_PATTERN.pattern == argument_types.NAME_PATTERN.pattern
    assert argument_types.CLOCK_EXAMPLE == CLOCK_EXAMPLE
    assert argument_types.CLOCK_MS == (1_000, MAX_CLOCK_MS, MAX_INCREMENT_MS)
    for text in ("10", "25+10", "0.5+2", "1.25", "10+0.5", "6000", "1+3600", "0.017"):
        assert argument_types._clock(text) == ClockSetting.parse(text).wire
