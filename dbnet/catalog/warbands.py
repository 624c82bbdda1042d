"""Warband files: a name and the miniatures, by catalog name, with copy counts (rule 600)."""

from __future__ import annotations

from pathlib import Path

from dbnet.catalog.fields import as_int, as_list, as_str, check_fields, require
from dbnet.catalog.files import parse_toml, read_text, shipped_text
from dbnet.catalog.index import Catalog
from dbnet.engine.game import MAX_COPIES, check_warband_size
from dbnet.engine.model import MiniatureDef, Warband
from dbnet.errors import DataError

WARBAND_FIELDS = ("name", "minis")
ENTRY_FIELDS = ("name", "count")
# The shipped default warbands, A's first.
DEFAULT_WARBANDS = ("warband-a.toml", "warband-b.toml")


def load_warband(path: Path, catalog: Catalog) -> Warband:
    """The warband in the file ``path``, its miniatures taken from ``catalog``."""
    return parse_warband(read_text(path), str(path), catalog)


def default_warbands(catalog: Catalog) -> tuple[Warband, Warband]:
    """The two warbands shipped with dbnet (A's first): Bulwark of Dawn and Infernal Pyre,
    dbnet Originals with abilities (``data/warband-a.toml``, ``data/warband-b.toml``)."""
    a, b = (parse_warband(*shipped_text(name), catalog) for name in DEFAULT_WARBANDS)
    return a, b


def parse_warband(text: str, where: str, catalog: Catalog) -> Warband:
    """The warband in the TOML ``text``; ``where`` names its file in errors.

    Checks 600.1 (at most 16 miniatures) and 600.3 (at most three copies).
    """
    document = parse_toml(text, where)
    check_fields(document, WARBAND_FIELDS, where)
    name = as_str(require(document, "name", where), "name", where).strip()
    items = as_list(require(document, "minis", where), "minis", where)
    if not items:
        raise DataError(where, "field 'minis' is empty; a warband needs at least one miniature")
    minis: list[MiniatureDef] = []
    for i, item in enumerate(items, 1):
        mini, count = _parse_entry(item, f"{where}, minis entry {i}", catalog)
        minis += [mini] * count
    check_warband_size(f"{where} (warband {name!r})", minis)
    return Warband(name, tuple(minis))


def _parse_entry(item: object, where: str, catalog: Catalog) -> tuple[MiniatureDef, int]:
    """One ``minis`` entry: a plain name (one copy) or ``{ name = ..., count = ... }``."""
    if isinstance(item, str):
        mini_name, count = item, 1
    elif isinstance(item, dict):
        check_fields(item, ENTRY_FIELDS, where)
        mini_name = as_str(require(item, "name", where), "name", where)
        count = as_int(item.get("count", 1), "count", where, minimum=1)
    else:
        raise DataError(
            where,
            f"must be a miniature name or a table {{ name = ..., count = ... }}, got {item!r}",
        )
    mini = catalog.lookup(mini_name)
    if mini is None:
        raise DataError(where, catalog.unknown_name(mini_name))
    if count > MAX_COPIES:  # refused here, before a huge count builds a huge list
        raise DataError(
            where, f"count {count} of {mini.name!r} is more than {MAX_COPIES} copies (600.3)"
        )
    return mini, count
