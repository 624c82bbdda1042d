"""Typed fields of a TOML table read from a file, each check saying where and why."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Final

from dbnet.replay.swiss.errors import EventFileError

__all__ = [
    "FINGERPRINT",
    "GAME_ID",
    "NAME",
    "canonical_fingerprint",
    "integer",
    "known_keys",
    "string",
    "table",
    "tables",
]

FINGERPRINT: Final = re.compile(r"[A-Z2-7]{4}(?:-[A-Z2-7]{4}){3}")
"""A key fingerprint as ``protocol.identity.fingerprint`` writes it."""
NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""A name a player signs (``net.messages``)."""
GAME_ID: Final = re.compile(r"[0-9a-f]{64}")
EVENT_ID: Final = re.compile(r"[0-9a-f]{32}")


def canonical_fingerprint(text: str, where: str) -> str:
    """``kq3x 7zbd-m2la-qx4p`` as ``KQ3X-7ZBD-M2LA-QX4P``; case, spaces and dashes do not count.

    Raises:
        EventFileError: it is not 16 base32 characters.
    """
    plain = "".join(ch for ch in text.upper() if ch not in " -")
    if len(plain) != 16 or not FINGERPRINT.fullmatch(
        "-".join(plain[i : i + 4] for i in range(0, 16, 4))
    ):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise EventFileError(
            where,
            f"{shown!r} is not a key fingerprint (16 letters A-Z and digits 2-7, as "
            "'dbnet id' prints it: XXXX-XXXX-XXXX-XXXX)",
        )
    return "-".join(plain[i : i + 4] for i in range(0, 16, 4))


def known_keys(doc: Mapping[str, object], allowed: Collection[str], where: str) -> None:
    for key in doc:
        if key not in allowed:
            raise EventFileError(where, f"unknown key {key!r} (allowed: {', '.join(allowed)})")


def string(doc: Mapping[str, object], key: str, where: str, *, required: bool = True) -> str:
    value = doc.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise EventFileError(where, f"{key!r} must be a string, not {_kind(value)}")
    return value


def integer(
    doc: Mapping[str, object],
    key: str,
    where: str,
    *,
    low: int,
    high: int,
    default: int | None = None,
) -> int:
    value = doc.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise EventFileError(where, f"{key!r} must be a whole number, not {_kind(value)}")
    if not low <= value <= high:
        raise EventFileError(where, f"{key!r} is {value}: it must be from {low} to {high}")
    return value


def table(doc: Mapping[str, object], key: str, where: str) -> Mapping[str, object]:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise EventFileError(where, f"{key!r} must be a table, not {_kind(value)}")
    return value


def tables(
    doc: Mapping[str, object], key: str, where: str, *, most: int
) -> list[Mapping[str, object]]:
    value = doc.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise EventFileError(where, f"{key!r} must be an array of tables ([[{key}]])")
    if len(value) > most:
        raise EventFileError(where, f"more than {most} [[{key}]] entries")
    return value


def _kind(value: object) -> str:
    if value is None:
        return "missing"
    return {bool: "a boolean", int: "a number", str: "a string", float: "a number"}.get(
        type(value), f"a {type(value).__name__}"
    )
