"""The format's documentation states the code's values: tables of docs/ parsed and compared
with the code, so that the docs cannot drift from what replays hold (issue 19, "The
format's documentation")."""

from __future__ import annotations

import enum
import re
from pathlib import Path

import pytest

from dbnet.engine.abilities import EventKind
from dbnet.engine.combat import Fate, Purpose, Stage
from dbnet.engine.effects import OpKind
from dbnet.engine.game import Game, Mode, Phase, Step, Zone
from dbnet.engine.model import Player
from tests.engine.conftest import VANILLA_SETUP

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
    heading = next(
        line[4:] for line in text.splitlines() if line.startswith(f"### `{name}` (")
    )
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
    game = Game(VANILLA_SETUP)
    assert documented_start(STATE_HASH, len(game.minis)) == game.encode()


def test_the_documented_length_of_a_new_games_encoding() -> None:
    game = Game(VANILLA_SETUP)
    match = re.search(r"a new game with (\d+) miniatures encodes as (\d+) integers", STATE_HASH)
    assert match is not None
    assert int(match.group(1)) == len(game.minis)
    assert int(match.group(2)) == len(game.encode())
