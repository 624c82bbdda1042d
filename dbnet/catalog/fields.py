"""Typed reads of TOML table fields, each failing with a ``DataError`` that names the field.

The catalog, map and warband parsers share these so that every file format
reports a wrong type, a missing field or an unknown field the same way: the
``where`` names the file and the entry, the problem names the field and quotes
the bad value with ``!r``.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping

from dbnet.errors import DataError


def check_fields(table: Mapping[str, object], allowed: Collection[str], where: str) -> None:
    """Refuse any key of ``table`` that is not in ``allowed``, suggesting the closest one."""
    for key in table:
        if key not in allowed:
            close = difflib.get_close_matches(key, list(allowed), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (allowed: {_listing(allowed)})"
            raise DataError(where, f"unknown field {key!r}{hint}")


def require(table: Mapping[str, object], key: str, where: str, why: str = "") -> object:
    """The value of a required field."""
    if key not in table:
        raise DataError(where, f"field {key!r} is required{why}")
    return table[key]


def as_int(value: object, key: str, where: str, minimum: int | None = None) -> int:
    """``value`` as an int (never a bool), at least ``minimum`` when given."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError(where, f"field {key!r} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise DataError(where, f"field {key!r} must be at least {minimum}, got {value!r}")
    return value


def as_str(value: object, key: str, where: str, *, nonempty: bool = True) -> str:
    """``value`` as a string, refusing a blank one unless ``nonempty`` is False."""
    if not isinstance(value, str):
        raise DataError(where, f"field {key!r} must be a string, got {value!r}")
    if nonempty and not value.strip():
        raise DataError(where, f"field {key!r} must not be blank, got {value!r}")
    return value


def as_bool(value: object, key: str, where: str) -> bool:
    if not isinstance(value, bool):
        raise DataError(where, f"field {key!r} must be true or false, got {value!r}")
    return value


def as_list(value: object, key: str, where: str) -> list[object]:
    if not isinstance(value, list):
        raise DataError(where, f"field {key!r} must be a list, got {value!r}")
    return value


def as_table(value: object, key: str, where: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise DataError(where, f"{key} must be a table, got {value!r}")
    return value


def as_choice(value: object, key: str, where: str, choices: Collection[str]) -> str:
    """``value`` as one of the strings in ``choices`` (exact spelling)."""
    if not isinstance(value, str) or value not in choices:
        raise DataError(where, f"field {key!r} must be one of {_listing(choices)}, got {value!r}")
    return value


def _listing(names: Collection[str]) -> str:
    return ", ".join(repr(n) for n in names)
