"""Entries and their signed records (``wire.entries``, docs/entries.md): round trips,
the exact bytes, the one canonical encoding, errors naming the field, properties."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.errors import DecodeError
from dbnet.protocol.identity import Identity, public_key_problem
from dbnet.wire.bodies import (
    AcceptBody,
    Body,
    ClaimBody,
    CosignBody,
    EntryKind,
    FinalBody,
    OfferBody,
    PlayBody,
    ResignBody,
)
from dbnet.wire.entries import (
    Entry,
    SignedEntry,
    decode_entry,
    decode_signed_entry,
    encode_entry,
    encode_signed_entry,
    entry_hash,
    sign_entry,
    signing_message,
)
from dbnet.wire.entries import replace as wire_replace
from dbnet.wire.replay_header import decode_replay_header
from dbnet.wire.setup import EncodedSetup, encode_setup
from dbnet.wire.values import decode, encode

from .helpers import (
    BODIES,
    MINI,
    NAMES,
    RFC_8032_SECRET,
    SETUPS,
    Wire,
    append,
    at,
    decode_error,
    drop,
    entry,
    h,
    mutated,
    offer,
    put,
    record,
    refused_or_canonical,
)

# --- round trips -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(EntryKind))
def test_every_kind_round_trips_byte_for_byte(kind: EntryKind) -> None:
    original = entry(kind)
    data = record(original)
    signed, decoded = decode_signed_entry(data)
    assert decoded == original
    assert signed == SignedEntry(encode_entry(original), bytes(range(64)))
    assert encode_entry(decoded) == signed.signed
    assert encode_signed_entry(signed) == data
    assert eval(repr(decoded), NAMES) == decoded  # reprs can be pasted back


@pytest.mark.parametrize("kind", list(EntryKind))
def test_entries_and_bodies_are_immutable_values(kind: EntryKind) -> None:
    original = entry(kind)
    signed = SignedEntry(encode_entry(original), bytes(64))
    for value, field in ((original, "seq"), (original.body, "clock"), (signed, "signature")):
        with pytest.raises(AttributeError):
            setattr(value, field, None)
    assert hash(entry(kind)) == hash(original)  # equal values, as dict keys and set members
    assert wire_replace(original, seq=6) != original
    assert original.body.KIND is kind


def test_play_body_optional_fields_are_left_out() -> None:
    bare = PlayBody(None, (), None, h(9))
    assert bare.to_wire() == {"links": [], "state": h(9)}
    e = wire_replace(entry(EntryKind.PLAY), body=bare)
    assert decode_entry(encode_entry(e)) == e
    full = BODIES[EntryKind.PLAY]
    assert list(full.to_wire()) == ["decision", "links", "anchor", "state"]


# --- the exact bytes -----------------------------------------------------------------------------


def test_entry_bytes_are_the_documented_layout() -> None:
    resign = Entry(1, h(0x11), 3, 1, h(0x22), EntryKind.RESIGN, ResignBody(h(0x33)))
    expected = (
        b"\x97"  # array of 7
        + b"\x01"  # v
        + b"\xc4\x20" + h(0x11)  # game_id, bin8 of 32
        + b"\x03"  # seq
        + b"\x01"  # author B
        + b"\xc4\x20" + h(0x22)  # prev_hash
        + b"\x03"  # kind RESIGN
        + b"\x81\xa5state\xc4\x20" + h(0x33)  # body {"state": ...}
    )  # fmt: skip
    assert encode_entry(resign) == expected
    assert decode_entry(expected) == resign


def test_signing_message_and_entry_hash() -> None:
    signed = encode_entry(entry(EntryKind.RESIGN))
    assert signing_message(signed) == b"dbnet/entry/v1\x00" + signed
    assert entry_hash(signed) == (
        hashlib.blake2b(signed, digest_size=32, person=b"dbnet/entry/v1").digest()
    )
    # a golden value, so that a change of the hash function cannot go unnoticed
    assert entry_hash(b"").hex() == (
        "73a5153a2156661e8396cd809396f85d7bf7846b729aa01f5b587caa4b0d83c4"
    )


def test_sign_entry_signs_the_signing_message() -> None:
    seen: list[bytes] = []

    def sign(message: bytes) -> bytes:
        seen.append(message)
        return bytes(64)

    e = entry(EntryKind.COSIGN)
    signed = sign_entry(e, sign)
    assert seen == [signing_message(encode_entry(e))]
    assert signed == SignedEntry(encode_entry(e), bytes(64))


# --- non-canonical encodings ---------------------------------------------------------------------


def _wide_seq_bytes(e: Entry) -> bytes:
    """``e`` encoded with its seq as a uint32 (0xce) although it fits a positive fixint."""
    v, game_id, seq, author, prev, kind, body = e.to_wire()
    assert isinstance(seq, int)
    parts = [encode(v), encode(game_id), b"\xce" + seq.to_bytes(4, "big")]
    parts += [encode(x) for x in (author, prev, kind, body)]
    return b"\x97" + b"".join(parts)


def test_wider_integer_is_refused_though_the_value_is_unchanged() -> None:
    e = entry(EntryKind.PLAY)
    wide = _wide_seq_bytes(e)
    assert wide != encode_entry(e)
    assert decode(wide) == decode(encode_entry(e))  # same value
    assert decode_error(wide) == "entry: not canonical msgpack: byte 36 is 0xce, the shortest " + (
        "encoding has 0x05"
    )
    outer = encode([wide, bytes(64)])
    assert "entry: not canonical msgpack" in decode_error(outer, decode_signed_entry)


def test_longer_string_header_is_refused() -> None:
    canonical = encode_entry(entry(EntryKind.RESIGN))
    longer = canonical.replace(b"\xa5state", b"\xd9\x05state")
    assert decode(longer) == decode(canonical)
    assert "not canonical" in decode_error(longer)


def test_map_keys_out_of_order_are_refused() -> None:
    wire = entry(EntryKind.PLAY).to_wire()
    body = wire[6]
    assert isinstance(body, dict)
    wire[6] = dict(reversed(body.items()))
    assert decode_error(encode(wire)) == (
        "entry.body: map keys are not in the canonical order (docs/entries.md)"
    )
    offer_wire = entry(EntryKind.OFFER).to_wire()
    mini = at(offer_wire, 6, "setup", "warbands", 1, "minis", 2)
    assert isinstance(mini, dict)
    mini["slug"] = mini.pop("slug")  # now the last key
    assert decode_error(encode(offer_wire)).startswith(
        "entry.body.setup.warbands[1].minis[2]: map keys are not in the canonical order"
    )


def test_an_offers_setup_is_read_with_every_check_however_often_its_setup_was_read() -> None:
    """An OFFER's setup is read once for the same bytes and shared: bytes that differ
    from a setup read before, even in width alone, are read and checked on their own."""
    data = encode_entry(entry(EntryKind.OFFER))
    first, again = decode_entry(data), decode_entry(data)
    assert isinstance(first.body, OfferBody)
    assert isinstance(again.body, OfferBody)
    assert again.body.setup is first.body.setup
    setup_bytes = encode_setup(first.body.setup)
    turns = b"\xacturns_to_win\x06"
    assert setup_bytes.count(turns) == 1
    wide = data.replace(turns, b"\xacturns_to_win\xcc\x06")
    assert decode(wide) == decode(data)
    assert decode_error(wide) == (
        "entry.body.setup: not canonical msgpack: byte "
        f"{setup_bytes.index(turns) + len(turns) - 1} is 0xcc, the shortest encoding has 0x06"
    )


def test_non_canonical_record_is_refused() -> None:
    signed = encode_entry(entry(EntryKind.RESIGN))
    bin32 = b"\x92\xc6" + len(signed).to_bytes(4, "big") + signed + encode(bytes(64))
    assert decode(bin32) == [signed, bytes(64)]
    assert "signed_entry: not canonical msgpack" in decode_error(bin32, decode_signed_entry)


@pytest.mark.parametrize(
    "layout",
    [
        # bin16 header for a body shorter than 256 bytes
        lambda s, sig: b"\x92\xc5" + len(s).to_bytes(2, "big") + s + b"\xc4\x40" + sig,
        # bin16 signature header
        lambda s, sig: b"\x92\xc4" + bytes([len(s)]) + s + b"\xc5\x00\x40" + sig,
    ],
)
def test_wider_record_headers_are_refused(layout: Callable[[bytes, bytes], bytes]) -> None:
    """The fast path that slices canonical records must hand every other layout to the
    strict decoder, which refuses it."""
    signed = encode_entry(entry(EntryKind.RESIGN))
    assert len(signed) < 256
    record = layout(signed, bytes(64))
    assert decode(record) == [signed, bytes(64)]
    assert "signed_entry: not canonical msgpack" in decode_error(record, decode_signed_entry)


def test_long_entries_take_a_bin16_header() -> None:
    """An OFFER (kilobytes of setup) round-trips through the sliced canonical layout."""
    signed = encode_entry(entry(EntryKind.OFFER))
    assert len(signed) >= 256
    record = encode_signed_entry(SignedEntry(signed, bytes(range(64))))
    assert record[1] == 0xC5
    assert decode_signed_entry(record) == (
        SignedEntry(signed, bytes(range(64))),
        decode_entry(signed),
    )


# --- schema errors, each naming its field ---------------------------------------------------------

S = EntryKind
SCHEMA_ERRORS: list[tuple[EntryKind, Callable[[Wire], None], str]] = [
    # the envelope
    (S.RESIGN, drop(6), "entry: expected an array of 7 items, got 6"),
    (
        S.RESIGN,
        put(0, value=5),
        "entry.v: unsupported protocol version 5 (this dbnet reads 1, 2, 3, 4)",
    ),
    (S.RESIGN, put(1, value="g" * 32), "entry.game_id: expected 32 bytes, got 'gggggggg"),
    (S.RESIGN, put(2, value=True), "entry.seq: expected an integer, got True (a bool)"),
    (S.RESIGN, put(2, value=-1), "entry.seq: expected an integer at least 0, got -1"),
    (S.RESIGN, put(2, value=2**63), "entry.seq: expected an integer at least 0, got 9223372"),
    (S.RESIGN, put(3, value=2), "entry.author: expected an integer from 0 to 1, got 2"),
    (S.RESIGN, put(3, value=False), "entry.author: expected an integer, got False (a bool)"),
    (S.RESIGN, put(4, value=bytes(33)), "entry.prev_hash: expected 32 bytes, got 33"),
    (S.RESIGN, put(5, value=8), "entry.kind: unknown entry kind 8 (known: 0 to 7)"),
    (
        S.RESIGN,
        put(5, value=7),
        "entry.kind: unknown entry kind 7 in protocol version 1 (known: 0 to 6; DISPUTE is "
        "version 4)",
    ),
    (S.RESIGN, put(5, value=None), "entry.kind: expected an integer, got nil"),
    (S.RESIGN, put(6, value=[]), "entry.body: expected a map, got an array of 0 items"),
    (S.RESIGN, put(5, value=2), "entry.body: missing key 'links'"),
    # bodies
    (S.RESIGN, put(6, "extra", value=1), "entry.body: unknown key 'extra' (allowed: 'state')"),
    (S.RESIGN, drop(6, "state"), "entry.body: missing key 'state'"),
    (S.PLAY, put(6, "links", 1, 1, value=bytes(31)), "entry.body.links[1][1]: expected 32 bytes, got 31"),  # noqa: E501
    (S.PLAY, put(6, "links", 0, value=[1, h(0), 2]), "entry.body.links[0]: expected an array of 2 items, got 3"),  # noqa: E501
    (S.PLAY, put(6, "links", 0, 0, value=-3), "entry.body.links[0][0]: expected an integer at least 0, got -3"),  # noqa: E501
    (S.PLAY, put(6, "links", value=[[0, h(0)]] * 65), "entry.body.links: expected at most 64 items, got 65"),  # noqa: E501
    (S.PLAY, put(6, "decision", value=None), "entry.body.decision: expected a string, got nil"),
    (S.PLAY, put(6, "decision", value="x" * 513), "entry.body.decision: expected at most 512 characters, got 513"),  # noqa: E501
    (S.PLAY, put(6, "decision", value=b"pass"), "entry.body.decision: expected a string, got 4 bytes (bin)"),  # noqa: E501
    (S.PLAY, put(6, "anchor", value=None), "entry.body.anchor: expected 32 bytes, got nil"),
    (S.ACCEPT, put(6, "links", value={}), "entry.body.links: expected an array, got a map of 0 keys"),  # noqa: E501
    (S.ACCEPT, put(6, "anchor", value=h(0)[:16]), "entry.body.anchor: expected 32 bytes, got 16"),
    (S.CLAIM, put(6, "reason", value="bored"), "entry.body.reason: expected one of 'timeout', got 'bored'"),  # noqa: E501
    (S.CLAIM, put(6, "waiting_for", value=False), "entry.body.waiting_for: expected an integer, got False (a bool)"),  # noqa: E501
    (S.FINAL, put(6, "winner", value=2), "entry.body.winner: expected an integer from 0 to 1, got 2"),  # noqa: E501
    (S.FINAL, put(6, "reason", value="draw"), "entry.body.reason: expected one of 'victory', 'resignation', got 'draw'"),  # noqa: E501
    (S.FINAL, put(6, "turns", 2, 1, value=-1), "entry.body.turns[2][1]: expected an integer at least 0, got -1"),  # noqa: E501
    (S.FINAL, put(6, "turns", 0, value=[1]), "entry.body.turns[0]: expected an array of 2 items, got 1"),  # noqa: E501
    (S.COSIGN, put(6, "head", value=None), "entry.body.head: expected 32 bytes, got nil"),
    (S.COSIGN, put(6, "winner", value=True), "entry.body.winner: expected an integer, got True (a bool)"),  # noqa: E501
    # the offer
    (S.OFFER, put(6, "rules", value="r" * 65), "entry.body.rules: expected at most 64 characters, got 65"),  # noqa: E501
    (S.OFFER, append(6, "keys", value=h(0)), "entry.body.keys: expected an array of 2 items, got 3"),  # noqa: E501
    (S.OFFER, put(6, "keys", 1, value=h(0)[:31]), "entry.body.keys[1]: expected 32 bytes, got 31"),
    (S.OFFER, put(6, "nonce", value=1), "entry.body.nonce: expected 32 bytes, got 1"),
    (S.OFFER, put(6, "chain", value=0), "entry.body.chain: expected an integer from 2 to 1000000, got 0"),  # noqa: E501
    (S.OFFER, put(6, "chain", value=1_000_001), "entry.body.chain: expected an integer from 2 to 1000000, got 1000001"),  # noqa: E501
    (S.OFFER, put(6, "chain", value=True), "entry.body.chain: expected an integer, got True (a bool)"),  # noqa: E501
    (S.OFFER, put(6, "state", value=[]), "entry.body.state: expected 32 bytes, got an array of 0 items"),  # noqa: E501
    # the setup
    (S.OFFER, put(6, "setup", "rules", value=1), "entry.body.setup: unknown key 'rules' (allowed: 'map', 'options', 'warbands')"),  # noqa: E501
    (S.OFFER, drop(6, "setup", "options"), "entry.body.setup: missing key 'options'"),
    (S.OFFER, put(6, "setup", "map", "values", value=[0] * 24), "entry.body.setup.map.values: expected an array of 25 items, got 24"),  # noqa: E501
    (S.OFFER, put(6, "setup", "map", "values", 12, value=-5), "entry.body.setup.map.values[12]: expected an integer from 0 to 99, got -5"),  # noqa: E501
    (S.OFFER, put(6, "setup", "map", "values", 0, value=4), "entry.body.setup.map.values[0]: cell a1 is not a key cell (b2-d4); its value must be 0, got 4"),  # noqa: E501
    (S.OFFER, put(6, "setup", "map", "reconstructed", value=1), "entry.body.setup.map.reconstructed: expected true or false, got 1"),  # noqa: E501
    (S.OFFER, put(6, "setup", "map", "name", value=" "), "entry.body.setup.map.name: expected a non-blank string, got ' '"),  # noqa: E501
    (S.OFFER, put(6, "setup", "options", "turns_to_win", value=100), "entry.body.setup.options.turns_to_win: expected an integer from 1 to 99, got 100"),  # noqa: E501
    (S.OFFER, put(6, "setup", "options", "turns_to_win", value=True), "entry.body.setup.options.turns_to_win: expected an integer, got True (a bool)"),  # noqa: E501
    (S.OFFER, put(6, "setup", "options", "tournament_initiative", value=0), "entry.body.setup.options.tournament_initiative: expected true or false, got 0"),  # noqa: E501
    (S.OFFER, append(6, "setup", "warbands", value={}), "entry.body.setup.warbands: expected an array of 2 items, got 3"),  # noqa: E501
    (S.OFFER, put(*MINI[:-1], value=[at(offer().to_wire()["setup"]["warbands"][0]["minis"], 0)] * 17), "entry.body.setup.warbands[0].minis: expected at most 16 items, got 17"),  # type: ignore[index] # noqa: E501
    (S.OFFER, put(*MINI[:-1], value=[at(offer().to_wire()["setup"]["warbands"][0]["minis"], 0)] * 4), "entry.body.setup.warbands[0].minis: 600.3: 4 copies of"),  # type: ignore[index] # noqa: E501
    (S.OFFER, put(*MINI, "kind", value="monster"), "entry.body.setup.warbands[0].minis[0].kind: expected one of 'creature', 'location', got 'monster'"),  # noqa: E501
    (S.OFFER, put(*MINI, "aspects", value=["Valor"]), "entry.body.setup.warbands[0].minis[0].aspects[0]: expected one of 'valor', 'madness', 'fear', 'passion', got 'Valor'"),  # noqa: E501
    (S.OFFER, put(*MINI, "aspects", value=["fear"] * 9), "entry.body.setup.warbands[0].minis[0].aspects: expected at most 8 items, got 9"),  # noqa: E501
    (S.OFFER, put(*MINI, "slug", value="Bad Slug"), "entry.body.setup.warbands[0].minis[0].slug: expected lower-case letters and digits joined by single '-', got 'Bad Slug'"),  # noqa: E501
    (S.OFFER, put(*MINI, "defense", value=0), "entry.body.setup.warbands[0].minis[0].defense: a creature's defense is at least 1 (900.8), got 0"),  # noqa: E501
    (S.OFFER, put(*MINI, "power", value=-1), "entry.body.setup.warbands[0].minis[0].power: expected an integer from 0 to 99, got -1"),  # noqa: E501
    (S.OFFER, put(*MINI, "lineage", value=""), "entry.body.setup.warbands[0].minis[0].lineage: expected a non-blank string, got ''"),  # noqa: E501
    (S.OFFER, put(*MINI, "official", value=None), "entry.body.setup.warbands[0].minis[0].official: expected true or false, got nil"),  # noqa: E501
    (S.OFFER, put(*MINI, "set", value=None), "entry.body.setup.warbands[0].minis[0].set: expected a string, got nil"),  # noqa: E501
    (S.OFFER, drop(*MINI, "life"), "entry.body.setup.warbands[0].minis[0]: missing key 'life'"),
    (S.OFFER, put(*MINI, "abilities", value=[{}]), "entry.body.setup.warbands[0].minis[0].abilities[0]: missing key 'keyword'"),  # noqa: E501
]  # fmt: skip

# errors in the catalog-wide setup (abilities and locations)


@pytest.mark.parametrize(
    ("kind", "change", "message"),
    SCHEMA_ERRORS,
    ids=[f"{i}-{m.split(':')[0]}" for i, (_, _, m) in enumerate(SCHEMA_ERRORS)],
)
def test_schema_error_names_the_field(
    kind: EntryKind, change: Callable[[Wire], None], message: str
) -> None:
    data = mutated(kind, change)
    assert decode_error(data).startswith(message)
    # the same through a whole record
    outer = encode([data, bytes(64)])
    assert decode_error(outer, decode_signed_entry).startswith(message)


@pytest.mark.parametrize(
    ("record_wire", "message"),
    [
        ([b"x"], "signed_entry: expected an array of 2 items, got 1"),
        ({"signed": b""}, "signed_entry: expected an array, got a map of 1 keys"),
        (["x", bytes(64)], "signed_entry.signed: expected bytes (bin), got 'x' (a string)"),
        ([b"\x01", bytes(63)], "signed_entry.signature: expected 64 bytes, got 63"),
        ([b"\x01", bytes(64)], "entry: expected an array, got 1"),
        ([b"\xc1", bytes(64)], "entry: not msgpack: a reserved type byte (0xc1)"),
        ([b"\x90\x00", bytes(64)], "entry: 1 bytes of trailing data after the value"),
    ],
)
def test_signed_entry_errors(record_wire: object, message: str) -> None:
    assert decode_error(encode(record_wire), decode_signed_entry) == message


def test_encode_entry_refuses_an_invalid_entry() -> None:
    with pytest.raises(DecodeError, match=r"^entry\.seq: expected an integer at least 0, got -1$"):
        encode_entry(wire_replace(entry(EntryKind.RESIGN), seq=-1))
    with pytest.raises(DecodeError, match=r"^entry\.body: unknown key 'head'"):
        encode_entry(wire_replace(entry(EntryKind.RESIGN), body=BODIES[EntryKind.COSIGN]))
    with pytest.raises(DecodeError, match=r"^entry\.body\.links\[0\]\[1\]: expected 32 bytes"):
        encode_entry(wire_replace(entry(EntryKind.ACCEPT), body=AcceptBody(h(1), ((0, b""),), h(2))))  # fmt: skip # noqa: E501
    turns = ((2**62, 2**62),) * 10_000  # 19 bytes each
    huge = wire_replace(entry(EntryKind.FINAL), body=FinalBody(0, "victory", turns, h(1)))
    with pytest.raises(DecodeError, match=r"^entry: \d+ bytes is more than the limit of 65466$"):
        encode_entry(huge)


# --- properties ----------------------------------------------------------------------------------

hashes = st.binary(min_size=32, max_size=32)
public_keys = hashes.filter(lambda key: public_key_problem(key) is None)
counts = st.integers(0, 2**63 - 1)
links = st.lists(st.tuples(counts, hashes), max_size=64).map(tuple)
bodies: st.SearchStrategy[Body] = st.one_of(
    st.builds(
        OfferBody,
        rules=st.text(max_size=64),
        keys=st.tuples(public_keys, public_keys),
        nonce=hashes,
        offered=st.sampled_from(SETUPS).map(EncodedSetup.of),
        chain=st.integers(2, 1_000_000),
        anchor=hashes,
        state=hashes,
    ),
    st.builds(AcceptBody, hashes, links, hashes),
    st.builds(PlayBody, st.none() | st.text(max_size=512), links, st.none() | hashes, hashes),
    st.builds(ResignBody, hashes),
    st.builds(ClaimBody, st.just("timeout"), counts),
    st.builds(
        FinalBody,
        st.integers(0, 1),
        st.sampled_from(["victory", "resignation"]),
        st.lists(st.tuples(counts, counts), max_size=30).map(tuple),
        hashes,
    ),
    st.builds(CosignBody, hashes, st.integers(0, 1)),
)
entries = bodies.flatmap(
    lambda body: st.builds(
        Entry,
        st.just(1),
        hashes,
        counts,
        st.integers(0, 1),
        hashes,
        st.just(body.KIND),
        st.just(body),
    )
)


@settings(max_examples=300, deadline=None)
@given(entries)
def test_valid_entries_round_trip_byte_for_byte(e: Entry) -> None:
    data = encode_entry(e)
    decoded = decode_entry(data)
    assert decoded == e
    assert encode_entry(decoded) == data
    assert decode_signed_entry(record(e))[1] == e


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_raise_only_decode_error(data: bytes) -> None:
    for decoder in (decode, decode_entry, decode_signed_entry):
        with contextlib.suppress(DecodeError):
            decoder(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_signed_bytes_raise_only_decode_error(inner: bytes) -> None:
    with contextlib.suppress(DecodeError):
        decode_signed_entry(encode([inner, bytes(64)]))


plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text()
    | st.binary(),
    lambda inner: (
        st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=10), inner, max_size=8)
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(plain, min_size=7, max_size=7))
def test_random_values_raise_only_decode_error(wire: list[object]) -> None:
    data = encode(wire)
    try:
        decoded = decode_entry(data)
    except DecodeError:
        return
    assert encode_entry(decoded) == data  # whatever is accepted is canonical


PLAY = int(EntryKind.PLAY)
odd_values = st.none() | st.booleans() | st.integers(-1, 3) | st.binary(max_size=2) | hashes
play_wires = st.builds(
    PlayBody,
    st.none() | st.text(max_size=5),
    st.lists(st.tuples(st.integers(0, 3), hashes), max_size=2).map(tuple),
    st.none() | hashes,
    hashes,
).map(lambda body: body.to_wire())


@st.composite
def near_play_entries(draw: st.DrawFn) -> list[object]:
    """A valid PLAY entry's wire form, then maybe one change that may make it invalid."""
    body = draw(play_wires)
    wire: list[object] = [1, h(1), 7, draw(st.integers(0, 1)), h(2), PLAY, body]
    keys = ["decision", "links", "anchor", "state", "extra"]
    how = draw(st.sampled_from(["none", "value", "delete", "reorder", "field", "link"]))
    if how == "value":
        body[draw(st.sampled_from(keys))] = draw(odd_values)
    elif how == "delete" and body:
        del body[draw(st.sampled_from(sorted(body)))]
    elif how == "reorder":
        order = draw(st.permutations(list(body)))
        wire[6] = {k: body[k] for k in order}
    elif how == "field":
        wire[draw(st.integers(0, 5))] = draw(odd_values)
    elif how == "link":
        body["links"] = [draw(st.lists(odd_values, max_size=3))]
    return wire


@settings(max_examples=1000, deadline=None)
@given(near_play_entries())
def test_near_play_entries_are_refused_or_canonical(wire: list[object]) -> None:
    """A PLAY entry with maybe one change (a nil decision, a missing key, keys out of order,
    a bool for an int...) is either a valid entry whose bytes are its canonical encoding,
    or refused with a message naming the field."""
    data = encode(wire)
    decoded = refused_or_canonical(data, decode_entry)
    if decoded is not None:
        assert isinstance(decoded, Entry)
        assert encode_entry(decoded) == data
        assert decoded.to_wire() == wire


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(EntryKind)), st.integers(0, 10_000), st.integers(0, 255), st.data())
def test_corrupted_records_raise_only_decode_error(
    kind: EntryKind, position: int, byte: int, data: st.DataObject
) -> None:
    good = record(entry(kind))
    i = position % len(good)
    how = data.draw(st.sampled_from(["replace", "insert", "delete", "truncate"]))
    if how == "replace":
        bad = good[:i] + bytes([byte]) + good[i + 1 :]
    elif how == "insert":
        bad = good[:i] + bytes([byte]) + good[i:]
    elif how == "delete":
        bad = good[:i] + good[i + 1 :]
    else:
        bad = good[:i]
    try:
        signed, decoded = decode_signed_entry(bad)
    except DecodeError:
        return
    assert encode_signed_entry(signed) == bad  # whatever is accepted is canonical
    assert encode_entry(decoded) == signed.signed


def test_documented_test_vector() -> None:
    """The vector of docs/entries.md, section 6, is what the code produces."""
    resign = Entry(1, h(0x11), 3, 1, h(0x22), EntryKind.RESIGN, ResignBody(h(0x33)))
    signed = encode_entry(resign)
    signer = Identity.from_private_bytes(bytes.fromhex(RFC_8032_SECRET))
    record_bytes = encode_signed_entry(sign_entry(resign, signer.sign))
    doc = (Path(__file__).parents[2] / "docs" / "entries.md").read_text(encoding="utf-8")
    section = doc[doc.index("## 6. Test vector") :].replace("\n", "")
    assert len(signed) == 114
    assert entry_hash(signed).hex() in section
    assert signer.sign(signing_message(signed)).hex() in section
    assert f"starts `{record_bytes[:4].hex(' ')}` and is {len(record_bytes)} bytes" in section


# --- degenerate keys (tests/test_identity.py checks the points themselves) ---------------------

IDENTITY_POINT = bytes.fromhex("01" + "00" * 31)  # order 1
ORDER_8_POINT = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
NEGATIVE_ZERO = bytes.fromhex("01" + "00" * 30 + "80")  # the identity, x = 0 with the sign bit


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        (IDENTITY_POINT, "a small-order point (order 1) that no private key matches"),
        (ORDER_8_POINT, "a small-order point (order 8) that no private key matches"),
        (NEGATIVE_ZERO, "not canonical (x is 0 but its sign bit is set)"),
    ],
    ids=["order-1", "order-8", "negative-zero"],
)
def test_an_offer_or_header_with_a_degenerate_key_is_refused(key: bytes, problem: str) -> None:
    for index in (0, 1):
        data = mutated(EntryKind.OFFER, put(6, "keys", index, value=key))
        assert decode_error(data).startswith(
            f"entry.body.keys[{index}]: the key {key.hex()} is {problem}"
        )
    real = Identity.from_private_bytes(bytes.fromhex(RFC_8032_SECRET)).public_key
    header = {
        "format": 1, "protocol": 1, "rules": "r", "game_id": h(1), "keys": [real, key],
        "created": "",
    }  # fmt: skip
    assert decode_error(encode(header), decode_replay_header).startswith(
        f"header.keys[1]: the key {key.hex()} is {problem}"
    )
