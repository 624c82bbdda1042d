"""Typed reading of TOML tables, where every error names the file and the field.

``where`` is the file followed by a colon for the top level (``tests/x.toml:``),
then the dotted path of the table being read (``tests/x.toml: position``);
errors add the key (``tests/x.toml: position.turn``) and quote the bad value
with ``!r``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from dbnet.engine import board
from dbnet.engine.model import Player
from dbnet.errors import DataError

Table = Mapping[str, object]


def field(where: str, key: str) -> str:
    """``'f.toml: position'`` and ``'turn'`` give ``'f.toml: position.turn'``."""
    return f"{where} {key}" if where.endswith(":") else f"{where}.{key}"


def check_keys(table: Table, allowed: Iterable[str], where: str) -> None:
    """Reject keys the format does not know, so that a typo never passes silently."""
    known = tuple(allowed)
    for key in table:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"expected one of {', '.join(known)}"
            raise DataError(field(where, key), f"unknown field {key!r}; {hint}")


def as_table(value: object, where: str) -> Table:
    if not isinstance(value, dict):
        raise DataError(where, f"expected a table, got {value!r}")
    return value


def get_table(table: Table, key: str, where: str) -> Table | None:
    if key not in table:
        return None
    return as_table(table[key], field(where, key))


def as_str(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise DataError(where, f"expected a string, got {value!r}")
    return value


def get_str(table: Table, key: str, where: str) -> str | None:
    if key not in table:
        return None
    return as_str(table[key], field(where, key))


def as_int(value: object, where: str, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(where, f"expected an integer, got {value!r}")
    if value < minimum:
        raise DataError(where, f"expected an integer of at least {minimum}, got {value!r}")
    return value


def get_int(table: Table, key: str, where: str, minimum: int = 0) -> int | None:
    if key not in table:
        return None
    return as_int(table[key], field(where, key), minimum)


def as_bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise DataError(where, f"expected true or false, got {value!r}")
    return value


def get_bool(table: Table, key: str, where: str) -> bool | None:
    if key not in table:
        return None
    return as_bool(table[key], field(where, key))


def as_list(value: object, where: str) -> list[object]:
    if not isinstance(value, list):
        raise DataError(where, f"expected a list, got {value!r}")
    return value


def as_str_list(value: object, where: str) -> tuple[str, ...]:
    items = as_list(value, where)
    return tuple(as_str(item, f"{where}, item {i + 1}") for i, item in enumerate(items))


def as_player(value: object, where: str) -> Player:
    text = as_str(value, where)
    if text.strip().upper() not in ("A", "B"):
        raise DataError(where, f"expected a player, 'A' or 'B', got {value!r}")
    return Player[text.strip().upper()]


def as_cell(value: object, where: str) -> int:
    text = as_str(value, where)
    cell = board.parse_cell(text)
    if cell is None:
        raise DataError(where, f"expected a cell from a1 to e5, got {value!r}")
    return cell


def as_cell_list(value: object, where: str) -> tuple[int, ...]:
    items = as_list(value, where)
    return tuple(as_cell(item, f"{where}, item {i + 1}") for i, item in enumerate(items))


def as_pair(value: object, where: str, minimum: int = 0) -> dict[Player, int]:
    """A per-player table such as ``{ A = 2, B = 1 }``; either player may be left out."""
    table = as_table(value, where)
    out: dict[Player, int] = {}
    for key, item in table.items():
        if key not in ("A", "B"):
            raise DataError(field(where, key), f"expected the player 'A' or 'B', got {key!r}")
        out[Player[key]] = as_int(item, field(where, key), minimum)
    return out


def get_pair(
    table: Table, key: str, where: str, default: tuple[int, int] = (0, 0), minimum: int = 0
) -> tuple[int, int]:
    """A per-player pair in (A, B) order; a player left out takes the default."""
    if key not in table:
        return default
    given = as_pair(table[key], field(where, key), minimum)
    return (given.get(Player.A, default[0]), given.get(Player.B, default[1]))
