"""Reading TOML from user files and from the data shipped in the package.

Every failure (missing file, unreadable bytes, malformed TOML, a document nested
deeper than ``MAX_TOML_DEPTH``) becomes a ``DataError`` naming the file; ``tomllib``'s
message already carries the line and column. This is the one module that parses TOML:
warbands, catalogs, maps, scenarios and ``config.toml`` are all read by ``parse_toml``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from dbnet.errors import DataError

MAX_TOML_DEPTH = 32
"""The deepest nesting of tables and arrays a TOML document may have (the top-level table
is the first level). No dbnet file needs more than a few; ``tomllib`` recurses once per
level and fails with ``RecursionError`` near 500, and a deep document read whole would
make every recursive walk of it fail the same way."""

# How shipped files are named in messages: the path inside the source tree.
SHIPPED_PREFIX = "dbnet/catalog/data/"


def parse_toml(text: str, where: str) -> dict[str, Any]:
    """The TOML document in ``text``; ``where`` names its file in errors."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(where, f"not valid TOML: {exc}") from exc
    except RecursionError:
        raise _too_deep(where) from None
    if _depth(document) > MAX_TOML_DEPTH:
        raise _too_deep(where)
    return document


def _too_deep(where: str) -> DataError:
    return DataError(
        where, f"nested too deep (more than {MAX_TOML_DEPTH} arrays or tables inside one another)"
    )


def _depth(document: dict[str, Any]) -> int:
    """How deep tables and arrays nest in ``document``, counted without recursion."""
    deepest = 0
    stack: list[tuple[object, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            items: Iterable[object] = value.values()
        elif isinstance(value, list):
            items = value
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_TOML_DEPTH:
            break
        stack.extend((item, depth + 1) for item in items)
    return deepest


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
