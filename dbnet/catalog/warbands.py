"""Warband files: a name and the miniatures, by catalog name, with copy counts (rule 600).

Reading a file (``read_warband``) checks only that it is a warband: TOML, the fields,
names in the catalog. Whether the warband may be played is ``WarbandList.breaches``,
the engine's ``warband_breaches`` (600.1, 600.3 and dbnet's power bound): the one check
that a game's start, the signed log, ``dbnet warband check`` and the builder all make.
``save_warband`` writes a list back in the same format, atomically.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dbnet.catalog.fields import as_int, as_list, as_str, check_fields, require
from dbnet.catalog.files import parse_toml, read_text, shipped_text
from dbnet.catalog.index import Catalog
from dbnet.engine.game import Breach, warband_breaches
from dbnet.engine.model import MiniatureDef, Warband
from dbnet.errors import DataError
from dbnet.files import replace_atomically

WARBAND_FIELDS = ("name", "minis")
ENTRY_FIELDS = ("name", "count")
# The shipped default warbands, A's first.
DEFAULT_WARBANDS = ("warband-a.toml", "warband-b.toml")


@dataclass(frozen=True, slots=True)
class WarbandList:
    """A warband as its file lists it: a name and (miniature, copies) entries in file
    order. A miniature may be in several entries; nothing here says the list is legal."""

    name: str
    entries: tuple[tuple[MiniatureDef, int], ...]

    @property
    def size(self) -> int:
        return sum(count for _, count in self.entries)

    def breaches(self) -> list[Breach]:
        """Every rule of 600 the list breaks (empty: it may be played)."""
        return warband_breaches(self.entries)

    def copies(self, mini: MiniatureDef) -> int:
        return sum(count for m, count in self.entries if m.slug == mini.slug)

    def merged(self) -> WarbandList:
        """The same list with one entry per miniature, in order of first appearance."""
        counts: dict[str, int] = {}
        minis: dict[str, MiniatureDef] = {}
        for mini, count in self.entries:
            counts[mini.slug] = counts.get(mini.slug, 0) + count
            minis.setdefault(mini.slug, mini)
        return WarbandList(self.name, tuple((minis[s], n) for s, n in counts.items()))

    def to_warband(self) -> Warband:
        """The engine's warband, each miniature repeated by its count (check first)."""
        return Warband(self.name, tuple(m for m, count in self.entries for _ in range(count)))


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

    Refuses a warband that breaks 600.1 (at most 16 miniatures) or 600.3 (at most three
    copies), naming the first breach.
    """
    listed = parse_warband_list(text, where, catalog)
    breaches = listed.breaches()
    if breaches:
        raise DataError(f"{where} (warband {listed.name!r})", str(breaches[0]))
    return listed.to_warband()


def read_warband_list(path: Path, catalog: Catalog) -> WarbandList:
    """The list in the file ``path``, legal or not (``DataError`` if it is no warband)."""
    return parse_warband_list(read_text(path), str(path), catalog)


def parse_warband_list(text: str, where: str, catalog: Catalog) -> WarbandList:
    """The list in the TOML ``text``, legal or not; a ``DataError`` naming the line (TOML
    syntax), the entry and the field if the text is no warband."""
    document = parse_toml(text, where)
    check_fields(document, WARBAND_FIELDS, where)
    name = as_str(require(document, "name", where), "name", where).strip()
    items = as_list(require(document, "minis", where), "minis", where)
    if not items:
        raise DataError(where, "field 'minis' is empty; a warband needs at least one miniature")
    entries = tuple(
        _parse_entry(item, f"{where}, minis entry {i}", catalog) for i, item in enumerate(items, 1)
    )
    return WarbandList(name, entries)


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
    return mini, count


# --- writing -----------------------------------------------------------------------------


def format_warband(name: str, entries: Iterable[tuple[MiniatureDef, int]]) -> str:
    """The TOML text of a warband file (the format ``parse_warband`` reads)."""
    lines = [
        "# Made with the dbnet warband builder: 'dbnet warband edit FILE' opens it again.",
        "",
        f"name = {_toml_string(name)}",
        "minis = [",
    ]
    for mini, count in entries:
        quoted = _toml_string(mini.name)
        lines.append(f"  {quoted}," if count == 1 else f"  {{ name = {quoted}, count = {count} }},")
    lines.append("]")
    return "\n".join(lines) + "\n"


def save_warband(path: Path, name: str, entries: Iterable[tuple[MiniatureDef, int]]) -> None:
    """Write the warband file ``path`` atomically: a temporary file in the same folder,
    flushed to disk, then renamed over ``path`` (a crash leaves the old file or the new
    one, never half of one). Raises ``DataError`` naming the file if it cannot."""
    text = format_warband(name, entries)
    try:
        replace_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise DataError(str(path), f"cannot be written: {exc.strerror or exc}") from exc


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (quotes, backslashes and control characters escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
