"""The setup on the wire (``wire.setup``): round trips, its bytes, reading it once, errors
naming the field of a miniature."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from dbnet.catalog import load_catalog, load_map
from dbnet.catalog.packs import limited_setup
from dbnet.engine import model
from dbnet.engine.model import GameSetup, Warband
from dbnet.wire.bodies import EntryKind, OfferBody
from dbnet.wire.entries import Entry, decode_entry, encode_entry
from dbnet.wire.entries import replace as wire_replace
from dbnet.wire.setup import encode_setup, setup_from_wire, setup_to_wire
from dbnet.wire.values import decode, encode

from .helpers import (
    ABILITY,
    LOCATION,
    MINI,
    SETUP,
    SETUPS,
    Wire,
    at,
    decode_error,
    entry,
    h,
    mutated,
    offer,
    put,
    refused_or_canonical,
)


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


@pytest.mark.parametrize(
    ("change", "message"), SETUP_ERRORS, ids=[m.split(":")[0] for _, m in SETUP_ERRORS]
)
def test_setup_error_names_the_field(change: Callable[[Wire], None], message: str) -> None:
    text = decode_error(mutated(EntryKind.OFFER, change, SETUPS[1]))
    assert text.startswith("entry.body.setup.warbands[0].minis[")
    assert message in text


# --- every miniature, with one change ------------------------------------------------------


def _mini_wire(mini: model.MiniatureDef) -> dict[str, object]:
    """``mini`` as sent, in a setup."""
    setup = replace(SETUP, warbands=(Warband("w", (mini,)), SETUP.warbands[1]))
    wire = at(setup_to_wire(setup), "warbands", 0, "minis", 0)  # type: ignore[arg-type]
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
    minis = at(offer_wire, 6, "setup", "warbands", 0, "minis")
    assert isinstance(minis, list)
    for near in _near_minis(wire):
        minis[0] = near
        data = encode(offer_wire)
        decoded = refused_or_canonical(data, decode_entry)
        if decoded is None:
            text = decode_error(data)
            assert text.startswith("entry.body.setup.warbands[0].minis"), text
        else:
            assert isinstance(decoded, Entry)
            assert encode_entry(decoded) == data
