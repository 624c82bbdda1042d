"""The little TOML the event's files need, written (``catalog.files.parse_toml`` reads
it): strings, integers, booleans, lists of strings, tables and arrays of tables, in the
order given."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from dbnet.catalog.files import parse_toml
from dbnet.errors import DataError
from dbnet.replay.swiss.errors import EventFileError

__all__ = ["MAX_BYTES", "dumps", "read_table"]

MAX_BYTES: Final = 4 * 1024 * 1024
"""No event or round file is larger (a hostile file cannot make us read gigabytes)."""

Value = str | int | bool | Sequence[str]


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # JSON's escapes (\" \\ \n \uXXXX for control characters) are TOML's too; the
        # text is checked printable before it gets here, so no surrogate is escaped.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def dumps(
    head: str,
    top: Mapping[str, object],
    tables: Mapping[str, Mapping[str, object]] = {},
    arrays: Mapping[str, Sequence[Mapping[str, object]]] = {},
) -> str:
    """A document: ``head`` (comment lines), the top keys, tables, arrays of tables."""
    lines = [f"# {line}" if line else "#" for line in head.splitlines()]
    lines += [f"{k} = {_value(v)}" for k, v in top.items() if v is not None]
    for name, table in tables.items():
        lines += ["", f"[{name}]"]
        lines += [f"{k} = {_value(v)}" for k, v in table.items() if v is not None]
    for name, rows in arrays.items():
        for row in rows:
            lines += ["", f"[[{name}]]"]
            lines += [f"{k} = {_value(v)}" for k, v in row.items() if v is not None]
    return "\n".join(lines) + "\n"


def read_table(path: Path) -> dict[str, object]:
    """The TOML document at ``path``.

    Raises:
        EventFileError: it cannot be read, is too large, is not UTF-8 or not TOML.
    """
    where = str(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise EventFileError(where, f"cannot read it: {exc.strerror or exc}") from exc
    if len(data) > MAX_BYTES:
        raise EventFileError(where, f"larger than {MAX_BYTES} bytes: not an event file")
    try:
        return parse_toml(data.decode("utf-8"), where)
    except UnicodeDecodeError as exc:
        raise EventFileError(where, f"not UTF-8 text (byte {exc.start})") from exc
    except DataError as exc:  # not TOML, or nested too deep (catalog.files)
        raise EventFileError(where, exc.problem) from exc
