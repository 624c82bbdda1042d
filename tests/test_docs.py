"""The format's documentation states the code's values: tables of docs/ parsed and compared
with the code, so that the docs cannot drift from what replays hold (issue 19, "The
format's documentation")."""

from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import re
import sys
from pathlib import Path

import msgpack
import pytest

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine.combat import Fate, Purpose, Stage
from dbnet.engine.game import Game, Mode, Phase, Step, Zone
from dbnet.engine.model import GameSetup, Player, Warband
from dbnet.engine.waiting import EventKind, OpKind
from dbnet.errors import DecodeError
from dbnet.protocol.identity import fingerprint
from dbnet.wire.bodies import OfferBody
from dbnet.wire.entries import replace
from dbnet.wire.setup import (
    MAX_STAT,
    MAX_TURNS_TO_WIN,
    EncodedSetup,
    setup_from_wire,
    setup_to_wire,
)
from dbnet.wire.values import encode

DOCS = Path(__file__).resolve().parent.parent / "docs"


def section(text: str, heading: str) -> str:
    """The text under the markdown heading ``heading`` (a whole line), up to the next heading
    of the same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.MULTILINE)
    assert match is not None, f"no heading {heading!r}"
    level = len(match.group(1))
    rest = text[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.MULTILINE)
    return rest if end is None else rest[: end.start()]


def table(text: str) -> list[list[str]]:
    """The rows of the first markdown table in ``text`` (header and rule left out), as cells."""
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert len(lines) >= 3, "no table"
    start = text.splitlines().index(lines[0])
    rows = []
    for line in text.splitlines()[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def code(cell: str) -> str:
    """The text between the first pair of backticks in a table cell."""
    match = re.search(r"`([^`]*)`", cell)
    assert match is not None, f"no code in {cell!r}"
    return match.group(1)


def offer_setup() -> GameSetup:
    """The default warbands on the shipped map, as an OFFER carries them."""
    return GameSetup(dataclasses.replace(load_map(), note=""), default_warbands(load_catalog()))


# --- docs/state-hash.md ---------------------------------------------------------------------

STATE_HASH = (DOCS / "state-hash.md").read_text(encoding="utf-8")

ENUMS: dict[str, type[enum.IntEnum]] = {
    "Phase": Phase,
    "Step": Step,
    "Mode": Mode,
    "Zone": Zone,
    "Player": Player,
    "Fate": Fate,
    "Purpose": Purpose,
    "Stage": Stage,
    "EventKind": EventKind,
    "OpKind": OpKind,
}


def enum_table(text: str, name: str) -> dict[str, int]:
    """The documented members of enumeration ``name``: name to value."""
    heading = next(line[4:] for line in text.splitlines() if line.startswith(f"### `{name}` ("))
    return {code(row[1]): int(row[0]) for row in table(section(text, heading))}


@pytest.mark.parametrize("name", sorted(ENUMS))
def test_every_enum_of_the_state_encoding_is_documented_with_its_numbers(name: str) -> None:
    members = {member.name: member.value for member in ENUMS[name]}
    assert enum_table(STATE_HASH, name) == members


def test_the_documented_enums_are_those_of_the_encoding() -> None:
    documented = set(re.findall(r"^### `(\w+)` \(", STATE_HASH, re.MULTILINE))
    assert documented == set(ENUMS)


def documented_start(text: str, minis: int) -> list[int]:
    """The encoding of a new game with ``minis`` miniatures, as the field table states it."""
    out: list[int] = []
    for field, start in table(section(text, "pack(encode())")):
        ints = [minis if word == "n" else int(word) for word in code(start).split()]
        if "25 times" in start:
            ints *= 25
        out += ints
        if "for each miniature" in start:
            each = re.findall(r"`([^`]*)`", start)[1]
            out += [int(word) for word in each.split()] * minis
        assert field
    return out


def test_the_documented_start_values_are_a_new_games_encoding() -> None:
    game = Game(offer_setup())
    assert documented_start(STATE_HASH, len(game.minis)) == game.encode()


def test_the_documented_length_of_a_new_games_encoding() -> None:
    game = Game(offer_setup())
    match = re.search(r"a new game with (\d+) miniatures encodes as (\d+) integers", STATE_HASH)
    assert match is not None
    assert int(match.group(1)) == len(game.minis)
    assert int(match.group(2)) == len(game.encode())


# --- docs/entries.md ------------------------------------------------------------------------

ENTRIES = (DOCS / "entries.md").read_text(encoding="utf-8")


def hex_bytes(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_the_canonical_integer_examples_are_the_encoders() -> None:
    rows = table(ENTRIES[ENTRIES.index("Examples (`tests/test_docs.py`") :])
    assert len(rows) >= 8
    for value, canonical, others in rows:
        n = int(value)
        assert encode(n) == hex_bytes(code(canonical)), value
        assert msgpack.packb(n) == hex_bytes(code(canonical)), value
        for other in re.findall(r"`([^`]*)`", others):
            data = hex_bytes(other)
            assert msgpack.unpackb(data) == n, other  # the same value ...
            assert encode(msgpack.unpackb(data)) != data, other  # ... not canonical


def offer_wire(**changes: object) -> dict[str, object]:
    body = OfferBody(
        "dbnet-rules-2",
        (bytes([0xA0]) * 32, bytes([0xB0]) * 32),
        bytes(32),
        EncodedSetup.of(offer_setup()),
        1024,
        bytes([1]) * 32,
        bytes([2]) * 32,
        joiner_nonce=bytes([3]) * 32,
    )
    return OfferBody.to_wire(replace(body, **changes))


def test_the_documented_chain_lengths_are_the_decoders() -> None:
    match = re.search(r"\| `chain` \| int, (\d+) to ([\d ]+) \|", ENTRIES)
    assert match is not None
    low, high = int(match.group(1)), int(match.group(2).replace(" ", ""))
    for chain in (low, high):
        assert OfferBody.from_wire(offer_wire(chain=chain), "offer", 2).chain == chain
    for chain in (low - 1, high + 1):
        with pytest.raises(DecodeError, match="chain"):
            OfferBody.from_wire(offer_wire(chain=chain), "offer", 2)
    dice_md = (DOCS / "dice.md").read_text(encoding="utf-8")
    assert f"from {low} to {match.group(2)}" in dice_md


def documented_white_space() -> set[int]:
    start = ENTRIES.index("the 29 code points")
    text = ENTRIES[start : ENTRIES.index("(Unicode", start)]
    found: set[int] = set()
    for first, last in re.findall(r"U\+([0-9A-F]{4})(?: to U\+([0-9A-F]{4}))?", text):
        found.update(range(int(first, 16), int(last or first, 16) + 1))
    return found


def test_the_documented_white_space_is_what_str_isspace_counts() -> None:
    every = {c for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    assert documented_white_space() == every
    assert len(every) == 29


def test_a_name_of_white_space_is_blank_and_a_format_character_is_not() -> None:
    setup = offer_setup()
    a, b = setup.warbands

    def named(name: str) -> object:
        warbands = (Warband(name, a.minis), b)
        return setup_to_wire(dataclasses.replace(setup, warbands=warbands))

    blank = "".join(chr(c) for c in sorted(documented_white_space()))
    with pytest.raises(DecodeError, match="non-blank"):
        setup_from_wire(named(blank), "setup")
    for name in ("\u200b", "\ufeff", "\x00", "\u180e"):
        assert setup_from_wire(named(name), "setup").warbands[0].name == name


def test_the_documented_limits_are_the_decoders() -> None:
    assert "from -99 to 99" in ENTRIES
    assert MAX_STAT == 99
    assert "25 integers from 0 to 99" in ENTRIES
    assert "power 0 to 99,\n  defense 1 to 99 and life 1 to 99" in ENTRIES
    assert "`mini.spawn_cost`: 0 to 99" in ENTRIES
    assert "`spawn_cost` (0 to 99)" in ENTRIES
    assert "`options.turns_to_win`: 1 to 99" in ENTRIES
    assert MAX_TURNS_TO_WIN == 99


def test_the_fingerprint_example_is_the_codes() -> None:
    block = section(ENTRIES, "8. Key fingerprints")
    pattern = r"^(public key|SHA-256|first 10|base32|fingerprint) +(\S+)$"
    values = dict(re.findall(pattern, block, re.MULTILINE))
    key = bytes.fromhex(values["public key"])
    digest = hashlib.sha256(key).digest()
    assert values["SHA-256"] == digest.hex()
    assert values["first 10"] == digest[:10].hex()
    assert values["base32"] == base64.b32encode(digest)[:16].decode()
    assert values["fingerprint"] == fingerprint(key)
    assert values["fingerprint"] == "-".join(re.findall("....", values["base32"]))
