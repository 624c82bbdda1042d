"""Map files: the conquest value of each of the nine key cells (301.4)."""

from __future__ import annotations

from pathlib import Path

from dbnet.catalog.fields import as_bool, as_int, as_str, as_table, check_fields, require
from dbnet.catalog.files import parse_toml, read_text, shipped_text
from dbnet.engine import board
from dbnet.engine.model import MapDef
from dbnet.errors import DataError

STANDARD_MAP = "maps/standard.toml"
MAP_FIELDS = ("name", "reconstructed", "note", "values")
KEY_CELL_NAMES = tuple(board.cell_name(c) for c in board.KEY_CELLS)


def load_map(path: Path | None = None) -> MapDef:
    """The map in the file ``path``; None: the shipped standard map."""
    if path is None:
        text, where = shipped_text(STANDARD_MAP)
    else:
        text, where = read_text(path), str(path)
    return parse_map(text, where)


def parse_map(text: str, where: str) -> MapDef:
    """The map in the TOML ``text``; ``where`` names its file in errors."""
    document = parse_toml(text, where)
    check_fields(document, MAP_FIELDS, where)
    name = as_str(require(document, "name", where), "name", where).strip()
    reconstructed = as_bool(document.get("reconstructed", False), "reconstructed", where)
    note = as_str(document.get("note", ""), "note", where, nonempty=False).strip()

    table = as_table(require(document, "values", where), "field 'values'", where)
    values = [0] * board.CELL_COUNT
    given: set[int] = set()
    for key, value in table.items():
        cell = board.parse_cell(key)
        field_where = f"{where}, values"
        if cell is None:
            raise DataError(field_where, f"{key!r} is not a cell name (a1 to e5)")
        if cell not in board.KEY_CELLS:
            raise DataError(
                field_where,
                f"cell {key!r} is not a key cell; only b2-d4 have conquest values (301.4)",
            )
        if cell in given:
            raise DataError(field_where, f"cell {key!r} is given twice")
        given.add(cell)
        values[cell] = as_int(value, key, field_where, minimum=0)
    missing = [c for c in KEY_CELL_NAMES if board.parse_cell(c) not in given]
    if missing:
        raise DataError(
            f"{where}, values",
            f"every key cell needs a value (301.4); missing: {', '.join(missing)}",
        )
    return MapDef(name, tuple(values), reconstructed, note)
