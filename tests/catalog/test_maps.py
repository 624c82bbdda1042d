"""Map files: the nine key cells b2-d4 and their conquest values (301.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.catalog import load_map
from dbnet.engine import board
from dbnet.errors import DataError

from .helpers import write

VALUES = """\
[values]
b4 = 2
c4 = 3
d4 = 2
b3 = 1
c3 = 5
d3 = 1
b2 = 2
c2 = 3
d2 = 2
"""
HEADER = 'name = "duel"\n'


def map_error(tmp_path: Path, text: str) -> str:
    with pytest.raises(DataError) as info:
        load_map(write(tmp_path, "map.toml", text))
    return str(info.value).replace(str(tmp_path / "map.toml"), "map.toml")


def test_map_file_loads(tmp_path: Path) -> None:
    text = 'name = "duel"\nreconstructed = true\nnote = "made up"\n' + VALUES.replace("c3", "C3")
    game_map = load_map(write(tmp_path, "map.toml", text))
    assert (game_map.name, game_map.reconstructed, game_map.note) == ("duel", True, "made up")
    assert game_map.values[board.parse_cell("c3")] == 5  # type: ignore[index]
    assert game_map.values[board.parse_cell("c4")] == 3  # type: ignore[index]
    assert sum(game_map.values) == 21
    assert all(game_map.values[c] == 0 for c in range(25) if c not in board.KEY_CELLS)


def test_reconstructed_and_note_default(tmp_path: Path) -> None:
    game_map = load_map(write(tmp_path, "map.toml", HEADER + VALUES))
    assert (game_map.reconstructed, game_map.note) == (False, "")


def test_zero_is_a_value(tmp_path: Path) -> None:
    game_map = load_map(write(tmp_path, "map.toml", HEADER + VALUES.replace("c3 = 5", "c3 = 0")))
    assert game_map.values[12] == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            HEADER + VALUES.replace("b2 = 2\n", "").replace("d4 = 2\n", ""),
            "map.toml, values: every key cell needs a value (301.4); missing: b2, d4",
        ),
        (
            HEADER + VALUES + "a1 = 1\n",
            "map.toml, values: cell 'a1' is not a key cell; "
            "only b2-d4 have conquest values (301.4)",
        ),
        (HEADER + VALUES + "z9 = 1\n", "map.toml, values: 'z9' is not a cell name (a1 to e5)"),
        (HEADER + VALUES + "B2 = 1\n", "map.toml, values: cell 'B2' is given twice"),
        (
            HEADER + VALUES.replace("c3 = 5", "c3 = -5"),
            "map.toml, values: field 'c3' must be at least 0, got -5",
        ),
        (
            HEADER + VALUES.replace("c3 = 5", "c3 = true"),
            "map.toml, values: field 'c3' must be an integer, got True",
        ),
        (
            HEADER + VALUES.replace("c3 = 5", 'c3 = "5"'),
            "map.toml, values: field 'c3' must be an integer, got '5'",
        ),
        (VALUES, "map.toml: field 'name' is required"),
        ('name = ""\n' + VALUES, "map.toml: field 'name' must not be blank, got ''"),
        (HEADER, "map.toml: field 'values' is required"),
        (HEADER + "values = [5]\n", "map.toml: field 'values' must be a table, got [5]"),
        (
            HEADER + 'reconstructed = "yes"\n' + VALUES,
            "map.toml: field 'reconstructed' must be true or false, got 'yes'",
        ),
        (HEADER + "note = 3\n" + VALUES, "map.toml: field 'note' must be a string, got 3"),
        (HEADER + "size = 5\n" + VALUES, "map.toml: unknown field 'size'"),
    ],
)
def test_map_errors_name_the_file_and_the_field(tmp_path: Path, text: str, message: str) -> None:
    assert map_error(tmp_path, text).startswith(message)


def test_malformed_map_names_the_line(tmp_path: Path) -> None:
    message = map_error(tmp_path, HEADER + VALUES.replace("c3 = 5", "c3 = 5 5"))
    assert message.startswith("map.toml: not valid TOML: ")
    assert "line 7" in message


def test_missing_map_file(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        load_map(tmp_path / "gone.toml")
    assert str(info.value) == f"{tmp_path / 'gone.toml'}: no such file"
