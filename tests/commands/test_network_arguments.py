"""The address of ``dbnet join``, ``resume`` and ``watch``: the invite as printed, pasted
whole with its leading ``dbnet join`` (or ``dbnet watch``), as one word (``"$(cat
invite.txt)"``) or as the shell splits it, reads as the invite alone."""

from __future__ import annotations

import ipaddress

import pytest

from dbnet.cli import build_parser
from dbnet.net.invite import Candidate, Invite, PathKind

INVITE = Invite.fresh(
    "KQ3X-7ZBD-M2LA-QX4P",
    (Candidate(PathKind.LAN, ipaddress.ip_address("192.0.2.7"), 7117),),
    ("192.0.2.1", 4001),
)
TOKEN = INVITE.text()
WATCH = Invite(INVITE.fingerprint, INVITE.secret, INVITE.direct, INVITE.relay, watch=True)


@pytest.mark.parametrize(
    "words",
    [
        [TOKEN],
        ["dbnet", "join", TOKEN],
        [f"dbnet join {TOKEN}"],
        [f"dbnet join {TOKEN}\n"],  # "$(cat invite.txt)" keeps no newline; a paste may
        [f"  dbnet join {TOKEN[:40]}\n  {TOKEN[40:]}"],  # wrapped on the screen
        ["dbnet", "join", TOKEN[:40], TOKEN[40:]],
    ],
    ids=["token", "words", "one-word", "newline", "wrapped", "wrapped-words"],
)
@pytest.mark.parametrize("command", [["join"], ["resume", "game.dbnr"]])
def test_the_printed_join_line_reads_as_its_invite(command: list[str], words: list[str]) -> None:
    args = build_parser().parse_args([*command, *words])
    assert args.address == INVITE


@pytest.mark.parametrize(
    "words", [["dbnet", "watch", WATCH.text()], [f"dbnet watch {WATCH.text()}"]]
)
def test_the_printed_watch_line_reads_as_its_invite(words: list[str]) -> None:
    assert build_parser().parse_args(["watch", *words]).address == WATCH


def test_a_printed_host_port_line_reads_too() -> None:
    args = build_parser().parse_args(["join", "dbnet", "join", "192.0.2.7:7117"])
    assert args.address == ("192.0.2.7", 7117)


@pytest.mark.parametrize(
    ("words", "error"),
    [
        (["dbnet", "join"], "the line holds no invite after 'dbnet join'"),
        (["dbnet", "watch"], "the line holds no invite after 'dbnet watch'"),
        (["dbnet", "play", TOKEN], "the invite is of format version N"),  # not a printed line
    ],
)
def test_a_line_without_its_invite_is_one_line(
    words: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["join", *words])
    assert exited.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("dbnet join: error: argument INVITE|HOST:PORT: "), last
    assert error in last


@pytest.mark.parametrize("command", [["join"], ["resume", "game.dbnr"], ["host"], ["watch"]])
def test_no_port_mapping_is_for_joiners_too(command: list[str]) -> None:
    """A joiner's (or spectator's) router maps a port for its host's reversed connection
    (net.reverse), unless --no-port-mapping (or DBNET_PORT_MAPPING=off) says not to."""
    words = {"host": [], "watch": [WATCH.text()]}.get(command[0], [TOKEN])
    assert build_parser().parse_args([*command, *words]).no_port_mapping is False
    args = build_parser().parse_args([command[0], "--no-port-mapping", *command[1:], *words])
    assert args.no_port_mapping is True
