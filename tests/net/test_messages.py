"""The network messages (docs/network.md): every field decoded strictly, one precise error."""

from __future__ import annotations

import datetime
import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.catalog import default_warbands, load_catalog
from dbnet.engine import Player
from dbnet.net.invite import Candidate, PathKind
from dbnet.net.messages import (
    Bye,
    Candidates,
    Chat,
    Entry,
    Hello,
    Message,
    MessageError,
    Ping,
    Pong,
    RematchMessage,
    Watch,
    decode_message,
    encode_message,
)
from dbnet.protocol.chat import ChatLine
from dbnet.wire.values import encode

WARBAND = default_warbands(load_catalog())[1]
GOOD: list[Message] = [
    Hello("alice", None, 0, None, "2026-05-01T12:00:00Z"),
    Hello("bob.b-2_", bytes(range(32)), 2**31 - 1, WARBAND, None),
    Hello("x", None, 0, None, "2024-02-29T23:59:59Z"),  # a leap day
    Hello("bob", None, 0, WARBAND, None, bytes(32), bytes(range(32))),  # nonce and proof
    Entry(b"\x92"),
    Ping(0),
    Pong(7),
    Bye(True, ""),
    Bye(False, "r" * 200),
    Watch("eve"),
    Watch("eve.b-2_", bytes(range(32))),
    Chat(ChatLine(Player.A, 1, 0, "good luck", bytes(64))),
    Chat(ChatLine(Player.B, 2**32 - 1, 2**32 - 1, "é" * 200, bytes(range(64)))),
    RematchMessage(True, ""),
    RematchMessage(False, "r" * 200),
    Candidates((Candidate(PathKind.MAPPING, ipaddress.ip_address("203.0.113.9"), 40123),)),
    Candidates(
        tuple(
            Candidate(PathKind.MAPPING, ipaddress.ip_address("2001:db8::9"), p) for p in range(1, 9)
        )
    ),
]


@pytest.mark.parametrize("message", GOOD, ids=repr)
def test_messages_round_trip(message: Message) -> None:
    assert decode_message(encode_message(message)) == message


def hello(created: object = None, **fields: object) -> bytes:
    wire = {
        "name": "alice", "game_id": None, "have": 0, "warband": None, "created": created,
        "nonce": None, "proof": None,
    }  # fmt: skip
    wire.update(fields)
    return encode([0, *wire.values()])


BAD_HELLOS = [
    # the field, its value, what the error says after "hello.FIELD: "
    ("nonce", b"short", "expected 32 bytes, got 5"),
    ("nonce", "n" * 32, "expected 32 bytes, got 'nnnn"),
    ("proof", b"short", "expected 32 bytes, got 5"),
    ("proof", 7, "expected 32 bytes, got 7"),
    ("created", "2026-13-45T99:99:99Z", "which is no such date or time"),
    ("created", "2026-02-29T12:00:00Z", "which is no such date or time"),  # not a leap year
    ("created", "2026-04-31T12:00:00Z", "which is no such date or time"),
    ("created", "2026-05-01T24:00:00Z", "which is no such date or time"),
    ("created", "2026-05-01T23:59:60Z", "which is no such date or time"),  # a leap second
    ("created", "0000-01-01T00:00:00Z", "which is no such date or time"),
    ("created", "\u0662\u0660\u0662\u0666-05-01T12:00:00Z", "got '٢٠٢٦-05-01T12:00:00Z'"),
    ("created", "2026-05-01T12:00:00+00:00", "got '2026-05-01T12:00:00+00:00'"),
    ("created", "2026-05-01 12:00:00Z", "got '2026-05-01 12:00:00Z'"),
    ("created", "2026-05-01T12:00:00Z\n", "got '2026-05-01T12:00:00Z\\n'"),
    ("created", 20260501, "got 20260501"),
    ("created", b"2026-05-01T12:00:00Z", "expected a string, got 20 bytes (bin)"),
    ("name", "", "expected a name of 1-32 letters"),
    ("name", "a" * 33, "expected a name of 1-32 letters"),
    ("name", "al ice", "expected a name of 1-32 letters"),
    ("name", 5, "expected a string, got 5"),
    ("game_id", bytes(31), "expected 32 bytes, got 31"),
    ("game_id", "x" * 32, "expected 32 bytes, got 'xxxx"),
    ("have", -1, "expected an integer from 0 to 2147483647, got -1"),
    ("have", 2**31, "expected an integer from 0 to 2147483647, got 2147483648"),
    ("have", True, "expected an integer, got True (a bool)"),
    ("warband", 5, ""),
]


@pytest.mark.parametrize(("field", "value", "says"), BAD_HELLOS)
def test_a_bad_hello_field_is_a_precise_message_error(field: str, value: object, says: str) -> None:
    with pytest.raises(MessageError) as info:
        decode_message(hello(**{field: value}))
    text = str(info.value)
    assert text.startswith(f"bad message from the peer: hello.{field}: ")
    assert says in text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("wire", "says"),
    [
        ([1, "record"], "entry.record: expected bytes"),
        ([2, -1], "ping.token: expected an integer from 0"),
        ([3, 2**31], "pong.token: expected an integer from 0"),
        ([2, 1.5], "message[1]: floats are not allowed, got 1.5"),
        ([4, 1, ""], "bye.done: expected true or false"),
        ([4, False, "r" * 201], "bye.reason: expected at most 200 characters, got 201"),
        ([4, False, b"reason"], "bye.reason: expected a string"),
        ([15], "message[0]: unknown message type 15"),
        ([6, 2, 1, 0, "hi", bytes(64)], "chat.seat: expected an integer from 0 to 1"),
        ([6, 0, 0, 0, "hi", bytes(64)], "chat.seq: expected an integer from 1"),
        ([6, 0, 1, 0, "x" * 201, bytes(64)], "chat.text: expected at most 200 characters"),
        ([6, 0, 1, 0, "hi", bytes(63)], "chat.signature: expected 64 bytes, got 63"),
        ([7, 1, ""], "rematch.want: expected true or false"),
        ([7, True, "r" * 201], "rematch.reason: expected at most 200 characters, got 201"),
        ([7, True], "message: expected an array of 3 items, got 2"),
        ([8, []], "at `$[1]`"),  # at least one candidate
        ([8, [["mapping", "203.0.113.9", 1]] * 9], "at `$[1]`"),  # at most 8
        ([8, [["mapping", "224.0.0.1", 7117]]], "candidates[0]: not a direct candidate"),
        ([8, [["mapping", "0.0.0.0", 7117]]], "candidates[0]: not a direct candidate"),
        ([8, [["relay", "203.0.113.9", 7117]]], "candidates[0]: not a direct candidate"),
        ([8, [["mapping", "example.org", 7117]]], "candidates[0]: not a direct candidate"),
        ([8, [["mapping", "203.0.113.9", 0]]], "at `$[1][0][2]`"),
        ([5, "eve", b"short"], "watch.proof: expected 32 bytes, got 5"),
        ([5, "-eve", None], "watch.name: expected a name of 1-32 letters"),
        ([True, 1], "message[0]: unknown message type True"),
        ([2], "message: expected an array of 2 items, got 1"),
        ([], "message: expected an array [type, ...]"),
    ],
)
def test_every_other_bad_field_is_a_precise_message_error(wire: list[object], says: str) -> None:
    with pytest.raises(MessageError, match=r"^bad message from the peer: ") as info:
        decode_message(encode(wire))
    assert says in str(info.value)


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.text(max_size=40),
    st.binary(max_size=40),
    st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    st.from_regex(r"\A[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z\Z"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(values, min_size=6, max_size=6))
def test_a_decoded_hello_is_usable_or_a_message_error(fields: list[object]) -> None:
    """Whatever a peer puts in a HELLO, decoding gives a MessageError or a HELLO whose
    creation time is a real UTC time (the joiner names its replay file after it)."""
    fields[3] = None  # the warband has its own tests (tests/wire/test_setup.py)
    try:
        message = decode_message(encode([0, *fields]))
    except MessageError:
        return
    assert isinstance(message, Hello)
    if message.created is not None:
        when = datetime.datetime.fromisoformat(message.created.replace("Z", "+00:00"))
        assert when.tzinfo is datetime.UTC
