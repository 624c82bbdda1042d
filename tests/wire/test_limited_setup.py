"""The ``limited`` part of a setup on the wire (protocol version 3, docs/limited.md):
strict, and absent from every other setup."""

from __future__ import annotations

import dataclasses

import pytest

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.catalog.packs import limited_setup
from dbnet.engine.model import GameSetup, Warband
from dbnet.errors import DecodeError
from dbnet.wire.bodies import OfferBody
from dbnet.wire.entries import replace
from dbnet.wire.setup import EncodedSetup, setup_from_wire, setup_to_wire


def test_a_limited_setup_goes_through_the_wire() -> None:
    setup = limited_setup("starter+booster")
    back = setup_from_wire(setup_to_wire(setup), "setup")
    assert back.limited == setup.limited
    assert back.warbands == setup.warbands


def test_a_constructed_setup_has_no_limited_key() -> None:
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    wire = setup_to_wire(setup)
    assert list(wire) == ["map", "options", "warbands"]
    assert setup_from_wire(wire, "setup").limited is None


def test_a_limited_setup_with_a_miniature_in_a_warband_is_refused() -> None:
    setup = limited_setup("3-boosters")
    assert setup.limited is not None
    wire = setup_to_wire(setup)
    full = setup_to_wire(GameSetup(load_map(), default_warbands(load_catalog())))
    wire["warbands"] = full["warbands"]
    with pytest.raises(DecodeError, match=r"setup\.warbands\[0\]\.minis: a Limited setup"):
        setup_from_wire(wire, "setup")


def test_an_unknown_format_and_a_repeated_slug_are_refused() -> None:
    wire = setup_to_wire(limited_setup("3-boosters"))
    limited = wire["limited"]
    assert isinstance(limited, dict)
    bad = {**wire, "limited": {**limited, "format": "sealed"}}
    with pytest.raises(DecodeError, match="format"):
        setup_from_wire(bad, "setup")
    packs = limited["packs"]
    assert isinstance(packs, dict)
    twice = {**packs, "common": [*packs["common"], packs["common"][0]]}
    bad = {**wire, "limited": {**limited, "packs": twice}}
    with pytest.raises(DecodeError, match="already in the pack set"):
        setup_from_wire(bad, "setup")
    empty = {**packs, "rare": []}
    bad = {**wire, "limited": {**limited, "packs": empty}}
    with pytest.raises(DecodeError, match="rare"):
        setup_from_wire(bad, "setup")


def test_a_limited_offer_is_only_written_in_protocol_version_3() -> None:
    setup = limited_setup("3-boosters")
    body = OfferBody(
        "r", (bytes(32), bytes([1]) * 32), bytes(32), EncodedSetup.of(setup), 16,
        bytes(32), bytes(32),
        joiner_nonce=bytes(32),
    )  # fmt: skip
    with pytest.raises(ValueError, match="only written in protocol version 3"):
        body.to_wire()
    named = replace(body, name="alice")
    wire = named.to_wire()
    assert "limited" in wire["setup"]  # type: ignore[operator]


def test_the_built_setup_is_never_sent() -> None:
    setup = limited_setup("3-boosters")
    assert setup.limited is not None
    built = dataclasses.replace(
        setup,
        warbands=(Warband("a", ()), Warband("b", ())),
        limited=dataclasses.replace(setup.limited, pools=((), ())),
    )
    with pytest.raises(ValueError, match="never sent"):
        setup_to_wire(built)
