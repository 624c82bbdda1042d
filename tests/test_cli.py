"""The ``dbnet`` command's own handling of errors."""

from __future__ import annotations

import argparse

import pytest

from dbnet import cli
from dbnet.commands import verify
from dbnet.errors import DbnetError


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
