"""The players' signed chat lines (issue 30, item 14; ``dbnet.protocol.chat``): signing and
checking, the bounds, and the chat file beside a replay (append-safe, verified later
against the game's keys)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dbnet.engine import Player
from dbnet.protocol.chat import (
    MAX_CHAT_CHARS,
    ChatError,
    ChatLine,
    append_chat,
    chat_path,
    read_chat,
    sign_line,
    signed_bytes,
    verify_line,
)
from dbnet.protocol.identity import Identity

ALICE = Identity.from_private_bytes(bytes(range(32)))
BOB = Identity.from_private_bytes(bytes(range(32, 64)))
KEYS = (ALICE.public_key, BOB.public_key)
GAME = bytes(range(100, 132))
OTHER_GAME = bytes(32)


def test_a_signed_line_verifies_against_its_game_and_seat() -> None:
    line = sign_line(BOB, GAME, Player.B, 1, 7, "  good game  ")
    assert line.text == "good game"  # stripped
    verify_line(line, GAME, KEYS)
    assert signed_bytes(GAME, Player.B, 1, 7, "good game") == (
        b"dbnet chat 1\x00" + GAME + b"B" + b"\x00\x00\x00\x01" + b"\x00\x00\x00\x07"
        + b"good game"
    )  # fmt: skip


@pytest.mark.parametrize(
    "forged",
    [
        lambda line: ChatLine(Player.A, line.seq, line.at, line.text, line.signature),
        lambda line: ChatLine(line.seat, 2, line.at, line.text, line.signature),
        lambda line: ChatLine(line.seat, line.seq, 8, line.text, line.signature),
        lambda line: ChatLine(line.seat, line.seq, line.at, "good gamf", line.signature),
        lambda line: ChatLine(line.seat, line.seq, line.at, line.text, bytes(64)),
    ],
    ids=["seat", "seq", "at", "text", "signature"],
)
def test_a_changed_line_is_refused(forged: object) -> None:
    line = sign_line(BOB, GAME, Player.B, 1, 7, "good game")
    assert callable(forged)
    with pytest.raises(ChatError, match="not signed by"):
        verify_line(forged(line), GAME, KEYS)


def test_a_line_of_another_game_or_in_the_opponents_name_is_refused() -> None:
    line = sign_line(BOB, GAME, Player.B, 1, 0, "hi")
    with pytest.raises(ChatError, match="not signed by B's key for this game"):
        verify_line(line, OTHER_GAME, KEYS)
    # the host (A) signs a line as B: what spectators would be shown as B's
    forged = sign_line(ALICE, GAME, Player.B, 1, 0, "I resign, A is right")
    with pytest.raises(ChatError, match="forged or altered"):
        verify_line(forged, GAME, KEYS)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "needs some text"),
        ("   ", "needs some text"),
        ("x" * (MAX_CHAT_CHARS + 1), f"at most {MAX_CHAT_CHARS} characters; this one is 201"),
        ("two\nlines", "one line of printable text"),
        ("clear\x1b[2J", "one line of printable text"),
        ("rtl\u202eevil", "one line of printable text"),
    ],
)
def test_the_bounds_of_a_line(text: str, why: str) -> None:
    with pytest.raises(ChatError, match=why):
        sign_line(ALICE, GAME, Player.A, 1, 0, text)


def test_the_longest_line_and_any_language_pass() -> None:
    verify_line(sign_line(ALICE, GAME, Player.A, 1, 0, "é" * MAX_CHAT_CHARS), GAME, KEYS)
    verify_line(sign_line(ALICE, GAME, Player.A, 2, 0, "よろしく 🎲"), GAME, KEYS)


def test_the_chat_file_keeps_and_verifies_each_line(tmp_path: Path) -> None:
    replay = tmp_path / "game.dbnr"
    path = chat_path(replay)
    assert path.name == "game.dbnr.chat"
    lines = [
        sign_line(ALICE, GAME, Player.A, 1, 2, "good luck"),
        sign_line(BOB, GAME, Player.B, 1, 3, "you too"),
        sign_line(ALICE, GAME, Player.A, 2, 9, "nice roll"),
    ]
    for line in lines:
        append_chat(path, line)
    assert read_chat(path, GAME, KEYS) == lines
    first = json.loads(path.read_text().splitlines()[0])
    assert first == {
        "seat": "A", "seq": 1, "at": 2, "text": "good luck", "sig": lines[0].signature.hex()
    }  # fmt: skip
    # a crash in the middle of a line: the whole lines before it still verify
    with path.open("ab") as out:
        out.write(b'{"seat": "B", "se')
    assert read_chat(path, GAME, KEYS) == lines


def test_a_changed_chat_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "g.dbnr.chat"
    append_chat(path, sign_line(ALICE, GAME, Player.A, 1, 2, "good luck"))
    append_chat(path, sign_line(BOB, GAME, Player.B, 1, 3, "you too"))
    text = path.read_text().replace("you too", "you lose")
    path.write_text(text)
    with pytest.raises(ChatError, match=r"g\.dbnr\.chat line 2: chat line 1 of B is not signed"):
        read_chat(path, GAME, KEYS)
    with pytest.raises(ChatError, match="line 1: chat line 1 of A is not signed by A's key"):
        read_chat(path, OTHER_GAME, KEYS)


def test_a_repeated_line_in_the_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.dbnr.chat"
    line = sign_line(ALICE, GAME, Player.A, 1, 2, "good luck")
    append_chat(path, line)
    append_chat(path, line)
    with pytest.raises(ChatError, match="line 2: A's line 1 comes after its line 1"):
        read_chat(path, GAME, KEYS)
