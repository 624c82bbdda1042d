"""Reading TOML from user files and from the data shipped in the package.

Every failure (missing file, unreadable bytes, malformed TOML) becomes a
``DataError`` naming the file; ``tomllib``'s message already carries the line
and column.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from dbnet.errors import DataError

# How shipped files are named in messages: the path inside the source tree.
SHIPPED_PREFIX = "dbnet/catalog/data/"


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """The TOML document in ``text``; ``where`` names its file in errors."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(where, f"not valid TOML: {exc}") from exc


def read_text(path: Path) -> str:
    """The UTF-8 text of ``path``, or a ``DataError`` saying why it cannot be read."""
    where = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(where, "no such file") from None
    except IsADirectoryError:
        raise DataError(where, "is a directory, not a file") from None
    except OSError as exc:
        raise DataError(where, f"cannot be read: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(where, f"is not UTF-8 text (bad byte at offset {exc.start})") from exc


def shipped_text(name: str) -> tuple[str, str]:
    """The text of the shipped data file ``name`` (e.g. ``"maps/standard.toml"``) and its label."""
    where = SHIPPED_PREFIX + name
    resource = resources.files("dbnet.catalog").joinpath("data", *name.split("/"))
    try:
        return resource.read_text(encoding="utf-8"), where
    except OSError as exc:  # a broken installation, not a user mistake
        raise DataError(where, f"shipped data file is missing or unreadable: {exc}") from exc
