"""dbnet.text: peer-chosen strings made safe to show; system errors in words."""

from __future__ import annotations

import errno
import socket
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbnet.text import os_error_words, printable

HOSTILE = "Evil\n12:00 dbnet: you lost\r\x1b[2J\x07\x7f\x85\u202eniwX\u2066\u200b\u2028\t"


def test_printable_escapes_each_control_visibly() -> None:
    shown = printable(HOSTILE)
    assert shown == (
        "Evil\\n12:00 dbnet: you lost\\r\\x1b[2J\\x07\\x7f\\x85\\u202eniwX\\u2066\\u200b\\u2028\\t"
    )


@pytest.mark.parametrize(
    "text", ["Bulwark of Dawn", "Infernal Pyre", "Zoë's warband", "日本語", "a\\nb", ""]
)
def test_printable_keeps_ordinary_text(text: str) -> None:
    assert printable(text) == text


@pytest.mark.parametrize(
    "code", [*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), 0x2066, 0x2069]
)
def test_printable_escapes_controls_and_bidi(code: int) -> None:
    shown = printable(f"a{chr(code)}b")
    assert chr(code) not in shown
    assert shown.startswith("a\\")
    assert shown.endswith("b")


@given(st.text())
def test_printable_is_one_line_of_printable_characters_and_idempotent(text: str) -> None:
    shown = printable(text)
    assert shown.isprintable()
    assert not any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in shown)
    assert printable(shown) == shown


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (BrokenPipeError(errno.EPIPE, "Broken pipe"), "the other side closed the connection"),
        (ConnectionResetError(errno.ECONNRESET, "reset"), "the other side dropped the connection"),
        (ConnectionRefusedError(errno.ECONNREFUSED, "refused"), "the connection was refused"),
        (TimeoutError(errno.ETIMEDOUT, "timed out"), "no answer in time"),
        (TimeoutError(), "no answer in time"),
        (OSError(errno.EHOSTUNREACH, "x"), "that machine cannot be reached"),
        (OSError(errno.ENETUNREACH, "x"), "no route to that network"),
        (OSError(errno.EADDRINUSE, "x"), "the port is already in use"),
        (OSError(errno.ENOSPC, "x"), "no space left on the disk"),
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), "the host name"),
        (OSError(errno.ENOTSUP, "Operation not supported"), "operation not supported"),
        (OSError("something odd"), "something odd"),
        (OSError(), "an error of the operating system"),
    ],
)
def test_os_error_words(exc: OSError, words: str) -> None:
    said = os_error_words(exc)
    assert said.startswith(words)
    assert "Errno" not in said
    assert type(exc).__name__ not in said


def test_counted_says_one_thing_in_the_singular() -> None:
    from dbnet.text import counted

    assert counted(1, "spawn point") == "1 spawn point"
    assert counted(0, "spawn point") == "0 spawn points"
    assert counted(3, "spawn point") == "3 spawn points"
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(2, "entry", "entries") == "2 entries"
