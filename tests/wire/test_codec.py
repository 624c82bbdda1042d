"""The wire format (docs/entries.md): strict decoding, typed messages, canonical entries."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.catalog.packs import limited_setup
from dbnet.engine import model
from dbnet.engine.model import AbilityDef, Activation, GameSetup, Options, Warband
from dbnet.errors import DecodeError
from dbnet.protocol.identity import Identity, public_key_problem
from dbnet.wire import bodies as wire_bodies
from dbnet.wire import entries as wire_entries
from dbnet.wire import replay_header as wire_replay_header
from dbnet.wire import setup as wire_setup
from dbnet.wire import values as wire_values
from dbnet.wire.bodies import (
    AcceptBody,
    Body,
    ClaimBody,
    CosignBody,
    DisputeBody,
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
from dbnet.wire.replay_header import ReplayHeader, decode_replay_header, encode_replay_header
from dbnet.wire.setup import EncodedSetup, encode_setup, setup_from_wire, setup_to_wire
from dbnet.wire.values import decode, encode
from dbnet.wire.versions import DISPUTE_VERSION

RFC_8032_SECRET = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"

# the names a pasted repr needs
NAMES = {
    **vars(model),
    **vars(wire_bodies),
    **vars(wire_entries),
    **vars(wire_setup),
    **vars(wire_replay_header),
}


def h(byte: int) -> bytes:
    return bytes([byte]) * 32


def _catalog_setups() -> tuple[GameSetup, ...]:
    """Setups built from the shipped data, with the map's note cleared (it is not sent)."""
    catalog = load_catalog()
    game_map = replace(load_map(), note="")
    default = GameSetup(game_map, default_warbands(catalog))
    # every catalog miniature, abilities and locations included, 16 to a warband
    minis = catalog.minis
    chunks = [minis[i : i + 16] for i in range(0, len(minis), 16)]
    chunks += [minis[:1]] * (len(chunks) % 2)
    everything = [
        GameSetup(
            game_map,
            (Warband("first", first), Warband("second", second)),
            Options(tournament_initiative=False, turns_to_win=99),
        )
        for first, second in zip(chunks[0::2], chunks[1::2], strict=True)
    ]
    # whatever the catalog holds, one of each kind of ability field on the wire
    numbered = replace(
        minis[0],
        abilities=(
            AbilityDef("Crit", Activation.BLADE, x=-2, modifier="local", text="-2 damage"),
            AbilityDef("Conquer", Activation.ALWAYS, score=True),
            AbilityDef("Assault", Activation.SPAWN, text="X-power attack", cost_x=True),
        ),
    )
    rest = GameSetup(
        replace(game_map, reconstructed=False, name="other"),
        (Warband("rest", minis[:2]), Warband("three", (numbered,) * 3)),
        Options(turns_to_win=1),
    )
    return (default, *everything, rest)


SETUPS = _catalog_setups()
SETUP = SETUPS[0]


def offer(setup: GameSetup = SETUP) -> OfferBody:
    offered = EncodedSetup.of(setup)
    return OfferBody("dbnet-0.1/catalog-1", (h(0xA0), h(0xB0)), h(0x4E), offered, 1024, h(1), h(2))


BODIES: dict[EntryKind, Body] = {
    EntryKind.OFFER: offer(),
    EntryKind.ACCEPT: AcceptBody(h(3), ((0, h(4)),), h(5)),
    EntryKind.PLAY: PlayBody("attack c3", ((1, h(6)), (2, h(7))), h(8), h(9)),
    EntryKind.RESIGN: ResignBody(h(10)),
    EntryKind.CLAIM: ClaimBody("timeout", 12),
    EntryKind.FINAL: FinalBody(1, "victory", ((0, 3), (5, 0), (2, 2)), h(11)),
    EntryKind.COSIGN: CosignBody(h(12), 1),
    EntryKind.DISPUTE: DisputeBody((40_000, 3)),
}


def entry(kind: EntryKind, seq: int = 5, author: int = 1) -> Entry:
    version = DISPUTE_VERSION if kind is EntryKind.DISPUTE else 1  # 7: version 4 only
    return Entry(version, h(0x61), seq, author, h(0x70), kind, BODIES[kind])


def record(e: Entry) -> bytes:
    """A signed-entry record of ``e`` (the signature is not checked by the codec)."""
    return encode_signed_entry(SignedEntry(encode_entry(e), bytes(range(64))))


def decode_error(data: bytes, decoder: Callable[[bytes], object] = decode_entry) -> str:
    with pytest.raises(DecodeError) as info:
        decoder(data)
    return str(info.value)


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


@pytest.mark.parametrize("setup", SETUPS)
def test_catalog_setups_round_trip(setup: GameSetup) -> None:
    wire = setup_to_wire(setup)
    assert setup_from_wire(wire, "setup") == setup
    assert setup_from_wire(decode(encode(wire)), "setup") == setup
    e = wire_replace(entry(EntryKind.OFFER, seq=0, author=0), body=offer(setup))
    assert decode_entry(encode_entry(e)) == e


def test_setup_leaves_out_the_map_note() -> None:
    noted = replace(SETUP, map=replace(SETUP.map, note="values not confirmed"))
    assert setup_from_wire(setup_to_wire(noted), "s") == SETUP
    assert load_map().note  # the shipped map has one


def test_catalog_setups_cover_abilities_and_locations() -> None:
    minis = [d for s in SETUPS for w in s.warbands for d in w.minis]
    assert {d.kind.name for d in minis} == {"CREATURE", "LOCATION"}
    abilities = [a for d in minis for a in d.abilities]
    assert {a.activation.value for a in abilities} >= {"always", "spawn"}
    assert any(a.x is not None and a.modifier is not None for a in abilities)
    assert any(a.score for a in abilities)
    assert any(d.lineage is not None for d in minis)
    carried = {d for s in SETUPS[1:-1] for w in s.warbands for d in w.minis}
    assert carried == set(load_catalog().minis)


def test_setup_wire_form() -> None:
    wire = setup_to_wire(SETUPS[1])
    assert list(wire) == ["map", "options", "warbands"]
    assert wire["options"] == {"tournament_initiative": False, "turns_to_win": 99}
    mini = wire["warbands"][0]["minis"][0]  # type: ignore[index]
    assert list(mini) == [
        "slug", "name", "kind", "spawn_cost", "aspects", "power", "defense", "life", "lineage",
        "official", "set", "abilities",
    ]  # fmt: skip
    assert all(a in ("valor", "madness", "fear", "passion") for a in mini["aspects"])


@pytest.mark.parametrize("clock", [None, (60_000, 2_000)])
@pytest.mark.parametrize("setup", [SETUPS[0], SETUPS[-1], limited_setup("3-boosters")])
def test_encode_setup_is_the_wire_forms_bytes(
    setup: GameSetup, clock: tuple[int, int] | None
) -> None:
    expected = encode(setup_to_wire(setup, clock))
    assert encode_setup(setup, clock) == expected
    twin = replace(setup, options=replace(setup.options))  # equal, another object
    assert encode_setup(twin, clock) == expected


def _decoded_setup(setup: GameSetup, nonce: int = 0x4E, version: int = 2) -> GameSetup:
    """The setup of an OFFER of ``setup`` (its other fields fixed by ``nonce``), decoded."""
    body = wire_replace(offer(setup), nonce=h(nonce), joiner_nonce=h(0x4F))
    if version == 3:
        body = wire_replace(body, name="A")
    e = wire_replace(entry(EntryKind.OFFER, seq=0, author=0), version=version, body=body)
    decoded = decode_entry(encode_entry(e)).body
    assert isinstance(decoded, OfferBody)
    return decoded.setup


def test_offers_of_one_setup_decode_to_one_setup() -> None:
    """A decoded setup is a function of its bytes and immutable: each OFFER of one setup
    gives the same object (so the engine derives its rules once)."""
    first = _decoded_setup(SETUP)
    assert first == SETUP
    assert _decoded_setup(SETUP, nonce=0x50) is first
    assert _decoded_setup(replace(SETUP, map=replace(SETUP.map, note="unsent"))) is first


@pytest.mark.parametrize(
    "change",
    [
        lambda s: replace(s, options=replace(s.options, turns_to_win=5)),
        lambda s: replace(s, map=replace(s.map, reconstructed=not s.map.reconstructed)),
        lambda s: replace(s, warbands=(replace(s.warbands[0], name="other"), s.warbands[1])),
        lambda s: replace(
            s,
            warbands=(
                s.warbands[0],
                replace(
                    s.warbands[1],
                    minis=(
                        replace(s.warbands[1].minis[0], name="Renamed"),
                        *s.warbands[1].minis[1:],
                    ),
                ),
            ),
        ),
    ],
    ids=["options", "map", "warband name", "a miniature's name"],
)
def test_offers_of_setups_that_differ_decode_to_their_own(
    change: Callable[[GameSetup], GameSetup],
) -> None:
    first = _decoded_setup(SETUP)
    changed = change(SETUP)
    other = _decoded_setup(changed)
    assert other == changed != first
    assert other is not first


def test_an_offer_of_another_version_decodes_its_own_setup() -> None:
    v2, v3 = _decoded_setup(SETUP), _decoded_setup(SETUP, version=3)
    assert v2 == v3
    assert v3 is not v2  # another shape: kept apart
    assert _decoded_setup(SETUP, nonce=0x51, version=3) is v3


def test_replay_header_round_trips() -> None:
    header = ReplayHeader(
        rules="dbnet-0.1", game_id=h(1), keys=(h(2), h(3)), created="2025-01-02T03:04:05Z"
    )
    data = encode_replay_header(header)
    assert decode(data) == {
        "format": 3,
        "protocol": 3,
        "rules": "dbnet-0.1",
        "game_id": h(1),
        "keys": [h(2), h(3)],
        "created": "2025-01-02T03:04:05Z",
    }
    assert decode_replay_header(data) == header
    assert eval(repr(header), NAMES) == header


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 5}, "header.format: unsupported replay format 5 (this dbnet reads 1, 2, 3, 4)"),
        (
            {"protocol": 2},
            "header.protocol: replay format 3 holds protocol version 3 entries, not 2",
        ),
        ({"format": 1}, "header.protocol: replay format 1 holds protocol version 1 entries, not 3"),
        ({"keys": [h(2)]}, "header.keys: expected an array of 2 items, got 1"),
        ({"game_id": b"x"}, "header.game_id: expected 32 bytes, got 1"),
        ({"created": 5}, "header.created: expected a string, got 5"),
        ({"players": 2}, "header: unknown key 'players'"),
    ],
)
def test_replay_header_errors(change: dict[str, object], message: str) -> None:
    wire: dict[str, object] = {
        "format": 3, "protocol": 3, "rules": "r", "game_id": h(1), "keys": [h(2), h(3)],
        "created": "",
    }  # fmt: skip
    wire.update(change)
    assert message in decode_error(encode(wire), decode_replay_header)


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
    mini = _at(offer_wire, 6, "setup", "warbands", 1, "minis", 2)
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


# --- schema errors, each naming its field ---------------------------------------------------------

Wire = list[object]


def _at(wire: Wire, *path: int | str) -> object:
    node: object = wire
    for key in path:
        node = node[key]  # type: ignore[index]
    return node


def put(*path: int | str, value: object) -> Callable[[Wire], None]:
    def change(wire: Wire) -> None:
        parent = _at(wire, *path[:-1])
        parent[path[-1]] = value  # type: ignore[index]

    return change


def drop(*path: int | str) -> Callable[[Wire], None]:
    def change(wire: Wire) -> None:
        parent = _at(wire, *path[:-1])
        del parent[path[-1]]  # type: ignore[attr-defined]

    return change


def append(*path: int | str, value: object) -> Callable[[Wire], None]:
    def change(wire: Wire) -> None:
        target = _at(wire, *path)
        target.append(value)  # type: ignore[attr-defined]

    return change


MINI = (6, "setup", "warbands", 0, "minis", 0)
SPAWNER = next(
    (i, j)
    for i, d in enumerate(SETUPS[1].warbands[0].minis)
    for j, a in enumerate(d.abilities)
    if a.activation.value == "spawn"
)
ABILITY = (6, "setup", "warbands", 0, "minis", SPAWNER[0], "abilities", SPAWNER[1])
LOCATION = next(i for i, d in enumerate(SETUPS[1].warbands[0].minis) if d.is_location)

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
    (S.OFFER, put(*MINI[:-1], value=[_at(offer().to_wire()["setup"]["warbands"][0]["minis"], 0)] * 17), "entry.body.setup.warbands[0].minis: expected at most 16 items, got 17"),  # type: ignore[index] # noqa: E501
    (S.OFFER, put(*MINI[:-1], value=[_at(offer().to_wire()["setup"]["warbands"][0]["minis"], 0)] * 4), "entry.body.setup.warbands[0].minis: 600.3: 4 copies of"),  # type: ignore[index] # noqa: E501
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
SETUP_ERRORS: list[tuple[Callable[[Wire], None], str]] = [
    (put(*ABILITY, "activation", value="bogus"), ".activation: expected one of 'always', 'blade',"),
    (put(*ABILITY, "spawn_cost", value=None), ".spawn_cost: a spawn ability has a spawn cost (a number, or X) and no other ability has one (303.2a); activation 'spawn', spawn cost None"),  # noqa: E501
    (put(*ABILITY, "activation", value="always"), ".spawn_cost: a spawn ability has a spawn cost (a number, or X) and no other ability has one (303.2a); activation 'always', spawn cost"),  # noqa: E501
    (put(*ABILITY, "x", value=True), ".x: expected an integer, got True (a bool)"),
    (put(*ABILITY, "modifier", value=3), ".modifier: expected a string, got 3"),
    (put(*ABILITY, "score", value="yes"), ".score: expected true or false, got 'yes' (a string)"),
    (put(*ABILITY, "text", value=None), ".text: expected a string, got nil"),
    (put(*ABILITY, "when", value=1), ": unknown key 'when' (allowed: 'keyword', 'activation',"),
    (put(*MINI[:-1], LOCATION, "power", value=1), f".minis[{LOCATION}].power: a location has no power: expected 0, got 1"),  # noqa: E501
]  # fmt: skip


def _mutated(kind: EntryKind, change: Callable[[Wire], None], setup: GameSetup = SETUP) -> bytes:
    e = entry(kind)
    if kind is EntryKind.OFFER:
        e = wire_replace(e, body=offer(setup))
    wire = copy.deepcopy(e.to_wire())
    change(wire)
    return encode(wire)


@pytest.mark.parametrize(
    ("kind", "change", "message"),
    SCHEMA_ERRORS,
    ids=[f"{i}-{m.split(':')[0]}" for i, (_, _, m) in enumerate(SCHEMA_ERRORS)],
)
def test_schema_error_names_the_field(
    kind: EntryKind, change: Callable[[Wire], None], message: str
) -> None:
    data = _mutated(kind, change)
    assert decode_error(data).startswith(message)
    # the same through a whole record
    outer = encode([data, bytes(64)])
    assert decode_error(outer, decode_signed_entry).startswith(message)


@pytest.mark.parametrize(
    ("change", "message"), SETUP_ERRORS, ids=[m.split(":")[0] for _, m in SETUP_ERRORS]
)
def test_setup_error_names_the_field(change: Callable[[Wire], None], message: str) -> None:
    text = decode_error(_mutated(EntryKind.OFFER, change, SETUPS[1]))
    assert text.startswith("entry.body.setup.warbands[0].minis[")
    assert message in text


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


def _refused_or_canonical(data: bytes, decoder: Callable[[bytes], object]) -> object | None:
    """What ``decoder`` makes of ``data``: None if it refuses it, with a message that names
    the field in the description's words (never in msgspec's own, such as "Expected `int`
    >= 0 - at `$[2]`", which the schema says its own way); else the value."""
    try:
        return decoder(data)
    except DecodeError as exc:
        text = str(exc)
    assert "refused by the schema" not in text, text
    assert "Expected `" not in text, text
    assert "at `$" not in text, text
    return None


@settings(max_examples=1000, deadline=None)
@given(near_play_entries())
def test_near_play_entries_are_refused_or_canonical(wire: list[object]) -> None:
    """A PLAY entry with maybe one change (a nil decision, a missing key, keys out of order,
    a bool for an int...) is either a valid entry whose bytes are its canonical encoding,
    or refused with a message naming the field."""
    data = encode(wire)
    decoded = _refused_or_canonical(data, decode_entry)
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


# --- every miniature, with one change ------------------------------------------------------


def _mini_wire(mini: model.MiniatureDef) -> dict[str, object]:
    """``mini`` as sent, in a setup."""
    setup = replace(SETUP, warbands=(Warband("w", (mini,)), SETUP.warbands[1]))
    wire = _at(setup_to_wire(setup), "warbands", 0, "minis", 0)  # type: ignore[arg-type]
    assert isinstance(wire, dict)
    return wire


MINI_WIRES = list(
    {
        repr(wire): wire
        for wire in (_mini_wire(d) for setup in SETUPS for w in setup.warbands for d in w.minis)
    }.values()
)
"""Every distinct miniature of the catalog setups, as sent."""
ODD_VALUES: list[object] = [
    None, True, False, -100, -99, -1, 0, 1, 2, 3, 99, 100, 2**64 - 1, "", " ", "x", "Valor",
    "valor", "fear", "creature", "location", "spawn", "always", "a-b", "a--b", b"x", [],
    ["valor"], ["fear", "x"], ["valor"] * 9, {}, [{}],
]  # fmt: skip


def _near(m: dict[str, object]) -> list[dict[str, object]]:
    """``m`` with one change each: a value replaced, a key left out, a key added, two
    neighbouring keys swapped."""
    keys = list(m)
    changed = [{**m, key: value} for key in keys for value in ODD_VALUES]
    changed += [{k: v for k, v in m.items() if k != key} for key in keys]
    changed += [{**m, "extra": 1}]
    for i in range(len(keys) - 1):
        order = [*keys[:i], keys[i + 1], keys[i], *keys[i + 2 :]]
        changed.append({k: m[k] for k in order})
    return changed


def _near_minis(wire: dict[str, object]) -> list[object]:
    abilities = wire["abilities"]
    assert isinstance(abilities, list)
    near: list[object] = [wire, *_near(wire)]
    for i, ability in enumerate(abilities):
        near += [
            {**wire, "abilities": [*abilities[:i], a, *abilities[i + 1 :]]} for a in _near(ability)
        ]
    for value in ODD_VALUES:
        near.append({**wire, "aspects": [*wire["aspects"], value]})  # type: ignore[misc]
    return near


@pytest.mark.parametrize("wire", MINI_WIRES, ids=[str(w["slug"]) for w in MINI_WIRES])
def test_near_miniatures_are_refused_or_canonical(wire: dict[str, object]) -> None:
    """Each catalog miniature with every single change of a value, a key or the order of
    keys, and the same for each of its abilities, in an OFFER: refused with a message
    naming a field of that miniature, or read back as the same bytes."""
    offer_wire = entry(EntryKind.OFFER).to_wire()
    minis = _at(offer_wire, 6, "setup", "warbands", 0, "minis")
    assert isinstance(minis, list)
    for near in _near_minis(wire):
        minis[0] = near
        data = encode(offer_wire)
        decoded = _refused_or_canonical(data, decode_entry)
        if decoded is None:
            text = decode_error(data)
            assert text.startswith("entry.body.setup.warbands[0].minis"), text
        else:
            assert isinstance(decoded, Entry)
            assert encode_entry(decoded) == data


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
        data = _mutated(EntryKind.OFFER, put(6, "keys", index, value=key))
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
