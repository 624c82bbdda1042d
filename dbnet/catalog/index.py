"""The ``Catalog``: miniatures in file order, looked up by name or slug; and its loader."""

from __future__ import annotations

import difflib
import functools
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dbnet.catalog.fields import as_list, as_table, check_fields, require
from dbnet.catalog.files import parse_toml, read_text, shipped_text
from dbnet.catalog.schema import CatalogEntry, Provenance, parse_entry
from dbnet.engine.model import MiniatureDef
from dbnet.errors import DataError

# The shipped catalog files, in the order their miniatures are listed.
SHIPPED_CATALOG = ("official.toml", "originals.toml")
CATALOG_FIELDS = ("mini",)


@dataclass(frozen=True, slots=True)
class Match:
    """A miniature a search found, and what matched: ``('name', 'lineage Janus')``.

    Each item is a field (``name``, ``slug``, ``ability text``) or a field and its
    value (``keyword Crit``, ``modifier Valor``, ``aspect Fear``, ``lineage Lost``,
    ``set dbnet Originals``), in that order, without repeats.
    """

    mini: MiniatureDef
    fields: tuple[str, ...]


class Catalog:
    """An ordered, read-only set of miniatures with unique names and slugs.

    Lookups ignore case and surrounding spaces and accept a name or a slug.
    """

    __slots__ = ("_by_key", "_entries", "_provenance")

    def __init__(
        self,
        entries: Iterable[MiniatureDef | CatalogEntry] = (),
        origins: Sequence[str] | None = None,
    ) -> None:
        """``origins[i]``, when given, names the file and entry of ``entries[i]`` in errors."""
        self._entries = tuple(
            e if isinstance(e, CatalogEntry) else CatalogEntry(e) for e in entries
        )
        self._by_key: dict[str, MiniatureDef] = {}
        self._provenance: dict[str, Provenance] = {}
        owner: dict[str, int] = {}  # lookup key -> index of the entry it belongs to
        wheres: list[str] = []
        for i, entry in enumerate(self._entries):
            mini = entry.mini
            where = origins[i] if origins is not None else f"catalog entry {i + 1} ({mini.name!r})"
            wheres.append(where)
            for field, key in (("slug", mini.slug), ("name", mini.name)):
                folded = key.casefold()
                j = owner.setdefault(folded, i)
                if j != i:
                    other = self._entries[j].mini
                    raise DataError(
                        where, f"{field} {key!r} is already used by {other.name!r} ({wheres[j]})"
                    )
                self._by_key[folded] = mini
            self._provenance[mini.slug] = entry.provenance

    @property
    def minis(self) -> tuple[MiniatureDef, ...]:
        return tuple(e.mini for e in self._entries)

    @property
    def entries(self) -> tuple[CatalogEntry, ...]:
        return self._entries

    @property
    def version(self) -> str:
        """The catalog's version: 12 hex digits of a SHA-256 over every card, in order.
        Two catalogs with the same version hold the same cards, so a warband checked
        against one is checked against the other (``check.py`` compares whole cards)."""
        text = repr(self.minis)  # dataclasses and enums: the same text in every process
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

    def provenance(self, mini: MiniatureDef) -> Provenance:
        """The sources, confidence and notes recorded for ``mini`` (empty if none)."""
        return self._provenance.get(mini.slug, Provenance())

    def lookup(self, name_or_slug: str) -> MiniatureDef | None:
        """The miniature named ``name_or_slug``, or None."""
        return self._by_key.get(name_or_slug.strip().casefold())

    def get(self, name_or_slug: str) -> MiniatureDef:
        """The miniature named ``name_or_slug``; a ``DataError`` with suggestions if none is."""
        mini = self.lookup(name_or_slug)
        if mini is None:
            raise DataError("", self.unknown_name(name_or_slug))
        return mini

    def suggest(self, text: str, limit: int = 3) -> list[str]:
        """Names of miniatures whose name or slug is close to ``text`` or contains it."""
        folded = text.strip().casefold()
        close = difflib.get_close_matches(folded, list(self._by_key), n=limit, cutoff=0.6)
        names = [self._by_key[key].name for key in close]
        if folded:
            names += [m.name for m in self.minis if folded in m.name.casefold()]
        return list(dict.fromkeys(names))[:limit]

    def unknown_name(self, text: str) -> str:
        """The message for a name that is in no catalog entry, with suggestions."""
        names = self.suggest(text)
        hint = (
            "did you mean " + " or ".join(repr(n) for n in names) + "?"
            if names
            else "'dbnet catalog' lists every miniature"
        )
        return f"no miniature named {text!r} in the catalog; {hint}"

    def find(self, text: str) -> list[MiniatureDef]:
        """Miniatures whose name, slug, lineage, aspects, set or abilities contain ``text``."""
        return [match.mini for match in self.search(text)]

    def search(self, text: str) -> list[Match]:
        """Like ``find``, saying for each miniature which of its fields contain ``text``.

        The search ignores case and the spaces around ``text``; the fields are the
        name, slug, ability keywords and modifiers, aspects, lineage, set and the
        abilities' rules texts.
        """
        folded = text.strip().casefold()
        out = []
        for mini in self.minis:
            fields = tuple(
                dict.fromkeys(label for label, value in _fields(mini) if folded in value.casefold())
            )
            if fields:
                out.append(Match(mini, fields))
        return out

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return self.lookup(item) is not None
        if isinstance(item, MiniatureDef):
            return self.lookup(item.slug) == item
        return False

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[MiniatureDef]:
        return iter(self.minis)

    def __repr__(self) -> str:
        return f"<Catalog of {len(self)} miniatures>"


def _fields(mini: MiniatureDef) -> Iterator[tuple[str, str]]:
    """(label, searched value) for each searchable field of ``mini``, in the order a
    search reports them."""
    yield "name", mini.name
    yield "slug", mini.slug
    for ability in mini.abilities:
        yield f"keyword {ability.keyword}", ability.keyword
        if ability.modifier:
            yield f"modifier {ability.modifier}", ability.modifier
    for aspect in mini.aspects:
        word = aspect.name.capitalize()
        yield f"aspect {word}", word
    if mini.lineage:
        yield f"lineage {mini.lineage}", mini.lineage
    if mini.set_name:
        yield f"set {mini.set_name}", mini.set_name
    for ability in mini.abilities:
        yield "ability text", ability.text


def load_catalog(paths: Sequence[Path] | None = None) -> Catalog:
    """The miniatures in the catalog files ``paths``, in order; None: the shipped catalog.

    Names and slugs must be unique across all the files.
    """
    if paths is None:
        return _shipped_catalog()
    return _build([(read_text(path), str(path)) for path in paths])


@functools.cache
def _shipped_catalog() -> Catalog:
    """The shipped catalog, read once per process (a ``Catalog`` never changes)."""
    return _build([shipped_text(name) for name in SHIPPED_CATALOG])


def _build(sources: Sequence[tuple[str, str]]) -> Catalog:
    """The catalog of the files given as (text, where) pairs."""
    entries: list[CatalogEntry] = []
    origins: list[str] = []
    for text, where in sources:
        for entry, origin in parse_catalog(text, where):
            entries.append(entry)
            origins.append(origin)
    return Catalog(entries, origins)


def parse_catalog(text: str, where: str) -> list[tuple[CatalogEntry, str]]:
    """The entries of one catalog file, each with the ``where`` that names it."""
    document: dict[str, Any] = parse_toml(text, where)
    check_fields(document, CATALOG_FIELDS, where)
    items = as_list(
        require(document, "mini", where, " (one [[mini]] table per miniature)"), "mini", where
    )
    out = []
    for i, item in enumerate(items, 1):
        entry_where = f"{where}, entry {i}"
        table = as_table(item, "the entry", entry_where)
        entry = parse_entry(table, entry_where)
        out.append((entry, f"{entry_where} ({entry.mini.name!r})"))
    return out
