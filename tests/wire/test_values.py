"""Any msgpack value (``wire.values``): the strict reader's refusals and limits."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dbnet.wire import values as wire_values
from dbnet.wire.entries import decode_signed_entry
from dbnet.wire.values import decode, encode

from .helpers import decode_error

# --- strict decoding ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x82\xa1a\x01\xa1a\x02", "message: duplicate map key 'a'"),
        (b"\x81\x01\x02", "message: map keys must be strings, got a key of type int"),
        (b"\x81\xc3\x02", "message: map keys must be strings, got a key of type bool"),
        (b"\x81\xc4\x01a\x02", "message: map keys must be strings, got 1 bytes (bin)"),
        (b"\xd4\x05\x00", "message: extension type 5 is not allowed (1 bytes)"),
        (b"\xc7\x03\x07abc", "message: extension type 7 is not allowed (3 bytes)"),
        (b"\xd6\xff\x00\x00\x00\x01", "message: values of type Timestamp are not allowed"),
        (b"\xcb" + bytes(8), "message: floats are not allowed, got 0.0"),
        (b"\x92\x01\x81\xa1x\xca\x3f\x80\x00\x00", "message[1].x: floats are not allowed, got 1.0"),
        (b"\x81\xa3a b\xca\x3f\x80\x00\x00", "message['a b']: floats are not allowed, got 1.0"),
        (b"\x01\x02\x03", "message: 2 bytes of trailing data after the value"),
        (b"", "message: truncated: the input ends inside a value"),
        (b"\x93\x01\x02", "message: truncated: the input ends inside a value"),
        (b"\xc1", "message: not msgpack: a reserved type byte (0xc1)"),
        (b"\xa2\xc3\x28", "message: a string is not valid UTF-8 (invalid continuation byte"),
        # huge declared lengths: refused without allocating
        (b"\xdb\xff\xff\xff\xff", "message: truncated: the input ends inside a value"),
        (b"\xc6\xff\xff\xff\xff", "message: truncated: the input ends inside a value"),
        (
            b"\xdd\xff\xff\xff\xff",
            "message: malformed msgpack: 4294967295 exceeds max_array_len(5)",
        ),
        (b"\xdf\xff\xff\xff\xff", "message: malformed msgpack: 4294967295 exceeds max_map_len(5)"),
    ],
)
def test_decode_refuses(data: bytes, message: str) -> None:
    assert decode_error(data, decode).startswith(message)


def test_decode_depth_limit() -> None:
    assert decode(b"\x91" * 16 + b"\x00") == [[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]
    assert decode_error(b"\x91" * 17 + b"\x00", decode) == (
        f"message{'[0]' * 16}: arrays or maps nested more than 16 deep"
    )
    deep_maps = b"\x81\xa1k" * 17 + b"\x00"
    assert decode_error(deep_maps, decode) == (
        f"message{'.k' * 16}: arrays or maps nested more than 16 deep"
    )
    bomb = b"\x91" * 100_000 + b"\x00"
    assert decode_error(bomb, lambda d: decode(d, max_size=200_000)) == (
        "message: arrays or maps nested too deeply"
    )


def test_decode_size_limit() -> None:
    assert decode(encode(b"x" * 65000)) == b"x" * 65000
    too_big = encode(b"x" * 65536)
    assert decode_error(too_big, decode) == (
        "message: 65541 bytes is more than the limit of 65536 bytes"
    )
    assert decode_error(b"\x01\x02", lambda d: decode(d, max_size=1)) == (
        "message: 2 bytes is more than the limit of 1 bytes"
    )
    assert decode_error(encode(b"x" * 65536), decode_signed_entry).startswith(
        "signed_entry: 65541 bytes is more than the limit"
    )


def test_decode_keeps_plain_values() -> None:
    value = {"a": [None, True, False, 0, -1, 2**64 - 1, -(2**63), "é", b"\x00"], "b": {}}
    assert decode(encode(value)) == value


def test_only_the_any_value_reader_imports_msgpack() -> None:
    package = Path(wire_values.__file__).parents[1]
    importers = sorted(
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if re.search(r"^\s*(import|from)\s+msgpack", p.read_text(encoding="utf-8"), re.M)
    )
    assert importers == ["wire/values.py"]
