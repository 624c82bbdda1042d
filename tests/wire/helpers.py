"""What the wire tests share: setups made from the catalog, a body of each kind, entries
of them, and ways to change an entry's plain value in place."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace

import pytest

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import model
from dbnet.engine.model import AbilityDef, Activation, GameSetup, Options, Warband
from dbnet.errors import DecodeError
from dbnet.wire import bodies as wire_bodies
from dbnet.wire import entries as wire_entries
from dbnet.wire import replay_header as wire_replay_header
from dbnet.wire import setup as wire_setup
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
from dbnet.wire.entries import Entry, SignedEntry, decode_entry, encode_entry, encode_signed_entry
from dbnet.wire.entries import replace as wire_replace
from dbnet.wire.setup import EncodedSetup
from dbnet.wire.values import encode
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


Wire = list[object]


def at(wire: Wire, *path: int | str) -> object:
    node: object = wire
    for key in path:
        node = node[key]  # type: ignore[index]
    return node


def put(*path: int | str, value: object) -> Callable[[Wire], None]:
    def change(wire: Wire) -> None:
        parent = at(wire, *path[:-1])
        parent[path[-1]] = value  # type: ignore[index]

    return change


def drop(*path: int | str) -> Callable[[Wire], None]:
    def change(wire: Wire) -> None:
        parent = at(wire, *path[:-1])
        del parent[path[-1]]  # type: ignore[attr-defined]

    return change


def append(*path: int | str, value: object) -> Callable[[Wire], None]:
    def change(wire: Wire) -> None:
        target = at(wire, *path)
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


def mutated(kind: EntryKind, change: Callable[[Wire], None], setup: GameSetup = SETUP) -> bytes:
    e = entry(kind)
    if kind is EntryKind.OFFER:
        e = wire_replace(e, body=offer(setup))
    wire = copy.deepcopy(e.to_wire())
    change(wire)
    return encode(wire)


def refused_or_canonical(data: bytes, decoder: Callable[[bytes], object]) -> object | None:
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
