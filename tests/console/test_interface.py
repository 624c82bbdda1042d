"""``dbnet play``: the full screen on a terminal, the line interface otherwise."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.cli import build_parser
from dbnet.commands.play import wants_full_screen
from dbnet.errors import InvalidChoiceError


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def play_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["play", *argv])


TTY = FakeTerminal()
PIPE = io.StringIO()


@pytest.mark.parametrize(
    ("argv", "stdin", "stdout", "full"),
    [
        ((), TTY, TTY, True),  # a terminal: the full screen by default
        (("--hotseat",), TTY, TTY, True),
        (("--tui",), TTY, TTY, True),
        (("--plain",), TTY, TTY, False),  # asked for the line interface
        ((), PIPE, TTY, False),  # input from a pipe or a file
        ((), TTY, PIPE, False),  # output to a pipe or a file
        ((), PIPE, PIPE, False),
        ((), None, TTY, False),  # no stdin at all
    ],
)
def test_the_interface_follows_the_terminal(
    argv: tuple[str, ...], stdin: io.StringIO | None, stdout: io.StringIO, full: bool
) -> None:
    assert wants_full_screen(play_args(*argv), stdin, stdout) is full


def test_a_closed_stream_is_no_terminal() -> None:
    with open(os.devnull) as stream:
        pass
    with pytest.raises(ValueError, match="closed file"):
        stream.isatty()
    assert not wants_full_screen(play_args(), stream, TTY)  # no error: just no terminal


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (("--tui",), PIPE, "--tui needs the full-screen client, and stdin or stdout is not"),
        (("--hotseat",), PIPE, "--hotseat needs the full-screen client, and stdin or stdout"),
        (("--hotseat", "--plain"), TTY, "--hotseat needs the full-screen client: drop --plain"),
    ],
)
def test_what_only_the_full_screen_can_do_is_refused_elsewhere(
    argv: tuple[str, ...], stdin: io.StringIO, message: str
) -> None:
    with pytest.raises(InvalidChoiceError, match=message.replace("-", r"\-")):
        wants_full_screen(play_args(*argv), stdin, TTY)


def test_plain_and_tui_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        play_args("--plain", "--tui")
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def run_play(tmp_path: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "play", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )


def test_help_explains_the_two_interfaces(tmp_path: Path) -> None:
    result = run_play(tmp_path, "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "On a terminal this opens the full-screen client" in text
    assert "with --plain, or when stdin or stdout is not a terminal" in text
    assert "--plain the line-based interface (for scripts and screen readers)" in text
    assert "--tui insist on the full-screen client" in text
    assert "--hotseat two people at one keyboard" in text


def test_pipes_get_the_line_interface_with_or_without_plain(tmp_path: Path) -> None:
    for argv in ((), ("--plain",)):
        result = run_play(tmp_path, "--seed", "3", *argv, stdin="quit\n")
        assert result.returncode == 0, result.stderr
        assert "Legal choices (" in result.stdout
        assert "A> " in result.stdout
        assert "\x1b[" not in result.stdout  # no screen drawing


def test_full_screen_options_through_pipes_are_one_line_and_exit_2(tmp_path: Path) -> None:
    for argv in (("--tui",), ("--hotseat",), ("--hotseat", "--plain")):
        result = run_play(tmp_path, *argv, stdin="quit\n")
        assert result.returncode == 2, argv
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("dbnet play: --"), lines[0]
        assert result.stdout == ""
    bad = run_play(tmp_path, "--bot-delay", "soon")
    assert bad.returncode == 2
    assert "'soon' is not a number of seconds" in bad.stderr
