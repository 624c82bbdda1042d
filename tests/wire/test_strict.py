"""The one strictness of the wire: every encoding but the canonical one is refused, for an
entry and for a message of the channel, each with a message naming what is wrong."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.catalog import default_warbands, load_catalog
from dbnet.errors import DecodeError
from dbnet.net.messages import Hello, MessageError, decode_message, encode_message
from dbnet.wire.bodies import EntryKind, PlayBody
from dbnet.wire.entries import Entry, decode_entry, decode_signed_entry, encode_entry
from dbnet.wire.replay_header import ReplayHeader, decode_replay_header, encode_replay_header
from dbnet.wire.schema import NonBlank
from dbnet.wire.values import decode, encode


def h(byte: int) -> bytes:
    return bytes([byte]) * 32


enc = encode

# --- an entry ------------------------------------------------------------------------------------

PLAY = Entry(2, h(1), 5, 1, h(2), EntryKind.PLAY, PlayBody("pass", ((1, h(3)),), None, h(4)))
BODY = {"decision": "pass", "links": [[1, h(3)]], "state": h(4)}


def entry(**parts: bytes) -> bytes:
    """PLAY's bytes, each part (``head``, the array's header, then the fields) canonical
    unless given."""
    fields = {
        "head": b"\x97", "v": enc(2), "game_id": enc(h(1)), "seq": enc(5), "author": enc(1),
        "prev_hash": enc(h(2)), "kind": enc(2), "body": enc(BODY),
    }  # fmt: skip
    fields.update(parts)
    return b"".join(fields.values())


def pairs(*items: tuple[str, object], head: bytes | None = None) -> bytes:
    """A map of ``items`` as they are, duplicates and order included."""
    header = bytes([0x80 + len(items)]) if head is None else head
    return header + b"".join(enc(k) + enc(v) for k, v in items)


ENTRY_ITEMS = list(BODY.items())
ENTRIES: list[tuple[str, bytes, str]] = [
    ("a duplicated key", entry(body=pairs(*ENTRY_ITEMS, ("state", h(4)))), "entry.body: duplicate map key 'state'"),  # noqa: E501
    ("keys in another order", entry(body=pairs(*reversed(ENTRY_ITEMS))), "entry.body: map keys are not in the canonical order (docs/entries.md)"),  # noqa: E501
    ("5 as uint16", entry(seq=b"\xcd\x00\x05"), "entry: not canonical msgpack: byte 36 is 0xcd, the shortest encoding has 0x05"),  # noqa: E501
    ("5 as uint8", entry(seq=b"\xcc\x05"), "entry: not canonical msgpack: byte 36 is 0xcc, the shortest encoding has 0x05"),  # noqa: E501
    ("5 as int8", entry(seq=b"\xd0\x05"), "entry: not canonical msgpack: byte 36 is 0xd0, the shortest encoding has 0x05"),  # noqa: E501
    ("5 as uint64", entry(seq=b"\xcf" + (5).to_bytes(8, "big")), "entry: not canonical msgpack: byte 36 is 0xcf, the shortest encoding has 0x05"),  # noqa: E501
    ("a str8 header for 4 bytes", entry(body=enc(BODY).replace(b"\xa4pass", b"\xd9\x04pass")), "entry.body: not canonical msgpack: byte 10 is 0xd9, the shortest encoding has 0xa4"),  # noqa: E501
    ("a bin16 header for 32 bytes", entry(game_id=b"\xc5\x00\x20" + h(1)), "entry: not canonical msgpack: byte 2 is 0xc5, the shortest encoding has 0xc4"),  # noqa: E501
    ("an array16 header for 7 items", entry(head=b"\xdc\x00\x07"), "entry: not canonical msgpack: byte 0 is 0xdc, the shortest encoding has 0x97"),  # noqa: E501
    ("a map16 header for 3 pairs", entry(body=pairs(*ENTRY_ITEMS, head=b"\xde\x00\x03")), "entry.body: not canonical msgpack: byte 0 is 0xde, the shortest encoding has 0x83"),  # noqa: E501
    ("trailing bytes", entry() + b"\xc0", "entry: 1 bytes of trailing data after the value"),
    ("an eighth item", entry(head=b"\x98", body=enc(BODY) + b"\xc0"), "entry: expected an array of 7 items, got 8"),  # noqa: E501
    ("an unknown key", entry(body=pairs(*ENTRY_ITEMS, ("extra", 1))), "entry.body: unknown key 'extra' (allowed: 'decision', 'links', 'anchor', 'state')"),  # noqa: E501
    ("a missing key", entry(body=pairs(*ENTRY_ITEMS[:2])), "entry.body: missing key 'state'"),
    ("an optional key with nil", entry(body=pairs(("decision", None), *ENTRY_ITEMS[1:])), "entry.body.decision: expected a string, got nil"),  # noqa: E501
    ("a wrong type", entry(seq=enc("5")), "entry.seq: expected an integer, got '5' (a string)"),
    ("a bool for an integer", entry(author=enc(True)), "entry.author: expected an integer, got True (a bool)"),  # noqa: E501
    ("an out-of-limit value", entry(author=enc(2)), "entry.author: expected an integer from 0 to 1, got 2"),  # noqa: E501
    ("a float", entry(seq=b"\xcb" + bytes(8)), "entry[2]: floats are not allowed, got 0.0"),
    ("an extension", entry(seq=b"\xd4\x05\x00"), "entry: extension type 5 is not allowed (1 bytes)"),  # noqa: E501
]  # fmt: skip


def test_the_entry_of_these_tests_is_canonical() -> None:
    assert entry() == encode_entry(PLAY)
    assert decode_entry(entry()) == PLAY


def error(decoder: Callable[[bytes], object], data: bytes) -> str:
    with pytest.raises(DecodeError) as info:
        decoder(data)
    return str(info.value)


@pytest.mark.parametrize(("data", "message"), [c[1:] for c in ENTRIES], ids=[c[0] for c in ENTRIES])
def test_an_entry_in_any_other_encoding_is_refused(data: bytes, message: str) -> None:
    assert data != entry()
    assert error(decode_entry, data) == message
    record = enc([data, bytes(64)])
    assert error(decode_signed_entry, record) == message


RECORD = enc([entry(), bytes(64)])
RECORDS: list[tuple[str, bytes, str]] = [
    ("a bin16 header for 64 bytes", RECORD.replace(b"\xc4\x40", b"\xc5\x00\x40"), "signed_entry: not canonical msgpack: byte 174 is 0xc5, the shortest encoding has 0xc4"),  # noqa: E501
    ("an array16 header for 2 items", b"\xdc\x00\x02" + RECORD[1:], "signed_entry: not canonical msgpack: byte 0 is 0xdc, the shortest encoding has 0x92"),  # noqa: E501
    ("trailing bytes", RECORD + b"\x00", "signed_entry: 1 bytes of trailing data after the value"),
    ("a third item", b"\x93" + RECORD[1:] + b"\x00", "signed_entry: expected an array of 2 items, got 3"),  # noqa: E501
    ("a short signature", enc([entry(), bytes(63)]), "signed_entry.signature: expected 64 bytes, got 63"),  # noqa: E501
]  # fmt: skip


@pytest.mark.parametrize(("data", "message"), [c[1:] for c in RECORDS], ids=[c[0] for c in RECORDS])
def test_a_record_in_any_other_encoding_is_refused(data: bytes, message: str) -> None:
    assert decode_signed_entry(RECORD)[1] == PLAY
    assert error(decode_signed_entry, data) == message


# --- a message of the channel --------------------------------------------------------------------

WARBAND = default_warbands(load_catalog())[1]


def _hello_wire() -> list[object]:
    wire = decode(encode_message(Hello("alice", None, 0, WARBAND)))
    assert isinstance(wire, list)
    return wire


HELLO_WIRE = _hello_wire()
WARBAND_WIRE = HELLO_WIRE[4]
assert isinstance(WARBAND_WIRE, dict)
WARBAND_ITEMS = list(WARBAND_WIRE.items())


def hello(warband: bytes) -> bytes:
    """A HELLO whose warband is these bytes (then nil creation time, nonce and proof)."""
    header = bytes([0x90 + len(HELLO_WIRE)])  # a fixarray of the HELLO's items
    return header + b"".join(enc(v) for v in HELLO_WIRE[:4]) + warband + enc(None) * 3


MESSAGES: list[tuple[str, bytes, str]] = [
    ("a duplicated key", hello(pairs(*WARBAND_ITEMS, ("name", "x"))), "message: duplicate map key 'name'"),  # noqa: E501
    ("keys in another order", hello(pairs(*reversed(WARBAND_ITEMS))), "hello.warband: map keys are not in the canonical order (docs/entries.md)"),  # noqa: E501
    ("5 as uint16", b"\x92\x02\xcd\x00\x05", "message: not canonical msgpack: byte 2 is 0xcd, the shortest encoding has 0x05"),  # noqa: E501
    ("a str8 header for 3 bytes", b"\x93\x04\xc3\xd9\x03bye", "message: not canonical msgpack: byte 3 is 0xd9, the shortest encoding has 0xa3"),  # noqa: E501
    ("a bin16 header for 1 byte", b"\x92\x01\xc5\x00\x01\x92", "message: not canonical msgpack: byte 2 is 0xc5, the shortest encoding has 0xc4"),  # noqa: E501
    ("an array16 header for 2 items", b"\xdc\x00\x02\x02\x05", "message: not canonical msgpack: byte 0 is 0xdc, the shortest encoding has 0x92"),  # noqa: E501
    ("a map16 header for 2 pairs", hello(pairs(*WARBAND_ITEMS, head=b"\xde\x00\x02")), "message: not canonical msgpack: byte 10 is 0xde, the shortest encoding has 0x82"),  # noqa: E501
    ("trailing bytes", b"\x92\x02\x05\xc0", "message: 1 bytes of trailing data after the value"),
    ("an unknown key", hello(pairs(*WARBAND_ITEMS, ("extra", 1))), "hello.warband: unknown key 'extra' (allowed: 'name', 'minis')"),  # noqa: E501
    ("a missing key", hello(pairs(WARBAND_ITEMS[0])), "hello.warband: missing key 'minis'"),
    ("an extra item", b"\x93\x02\x05\x06", "message: expected an array of 2 items, got 3"),
    ("a wrong type", b"\x92\x02\xa15", "ping.token: expected an integer, got '5' (a string)"),
    ("an out-of-limit value", enc([2, 2**31]), "ping.token: expected an integer from 0 to 2147483647, got 2147483648"),  # noqa: E501
    ("an unknown type", b"\x92\x0f\x05", "message[0]: unknown message type 15"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("data", "message"), [c[1:] for c in MESSAGES], ids=[c[0] for c in MESSAGES]
)
def test_a_message_in_any_other_encoding_is_refused(data: bytes, message: str) -> None:
    assert decode_message(enc([2, 5])) is not None
    assert decode_message(hello(enc(WARBAND_WIRE))) == Hello("alice", None, 0, WARBAND)
    with pytest.raises(MessageError) as info:
        decode_message(data)
    assert str(info.value) == f"bad message from the peer: {message}"


# --- the replay header: not signed, so any key order ---------------------------------------------

HEADER = ReplayHeader(rules="r", game_id=h(1), keys=(h(2), h(3)), created="")


def test_the_header_takes_any_key_order_but_no_duplicate_key() -> None:
    items = list(decode(encode_replay_header(HEADER)).items())  # type: ignore[attr-defined]
    assert decode_replay_header(pairs(*reversed(items))) == HEADER
    assert decode_replay_header(pairs(*items).replace(b"\xa1r", b"\xd9\x01r")) == HEADER
    assert error(decode_replay_header, pairs(*items, ("rules", "r"))) == (
        "header: duplicate map key 'rules'"
    )
    assert error(decode_replay_header, pairs(*items[1:])) == "header: missing key 'format'"


# --- the encoder ---------------------------------------------------------------------------------

plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.text()
    | st.binary(max_size=70_000)
    | st.sampled_from(["x" * 31, "x" * 32, "x" * 255, "x" * 256, "x" * 65535, "x" * 65536]),
    lambda inner: (
        st.lists(inner, max_size=20) | st.dictionaries(st.text(max_size=10), inner, max_size=20)
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(plain)
def test_the_encoder_writes_what_msgpack_python_writes(value: object) -> None:
    """The bytes dbnet signs did not change with the encoder: msgspec's are msgpack-python's
    (``Packer(use_bin_type=True)``), the shortest form of every header."""
    assert encode(value) == msgpack.packb(value, use_bin_type=True)


@pytest.mark.parametrize(
    "n",
    [
        *(0, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1),
        *(-1, -32, -33, -128, -129, -32768, -32769, -(2**31), -(2**31) - 1, -(2**63)),
    ],
)
def test_every_integer_width_is_msgpack_pythons(n: int) -> None:
    assert encode(n) == msgpack.packb(n)


def test_a_non_blank_string_is_one_with_a_character_that_is_not_white_space() -> None:
    """The schema says non-blank with the regular expression ``\\S``, which follows
    ``str.isspace`` (docs/entries.md section 2.2)."""
    pattern = re.compile(NonBlank.__metadata__[0].pattern)  # type: ignore[attr-defined]
    assert pattern.pattern == r"\S"
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        assert (pattern.search(c) is None) == c.isspace(), hex(code)
