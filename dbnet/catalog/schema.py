"""One miniature table from a catalog file, validated into a ``MiniatureDef``.

The table's fields are described in ``docs/catalog.md``. Facts about where a
miniature's data comes from (``sources``, ``confidence``, ``notes``) are kept in
a ``Provenance`` beside the engine's type: players may read them, the rules
never do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from dbnet.catalog.fields import (
    as_bool,
    as_choice,
    as_int,
    as_list,
    as_str,
    as_table,
    check_fields,
    require,
)
from dbnet.engine.model import AbilityDef, Activation, Aspect, MiniatureDef, MiniKind
from dbnet.errors import DataError

ASPECT_NAMES: dict[str, Aspect] = {
    "Valor": Aspect.VALOR,
    "Madness": Aspect.MADNESS,
    "Fear": Aspect.FEAR,
    "Passion": Aspect.PASSION,
}
KIND_NAMES: dict[str, MiniKind] = {"creature": MiniKind.CREATURE, "location": MiniKind.LOCATION}
ACTIVATION_NAMES: dict[str, Activation] = {a.value: a for a in Activation}
CONFIDENCE_LEVELS = ("high", "medium", "low")
RARITIES = ("common", "uncommon", "rare")
"""A miniature's rarity in its set's packs (``rarity``: Limited play, docs/limited.md)."""

MINI_FIELDS = (
    "name", "slug", "type", "spawn_cost", "aspects", "power", "defense", "life", "lineage",
    "abilities", "official", "set", "rarity", "sources", "confidence", "notes",
)  # fmt: skip
ABILITY_FIELDS = ("keyword", "activation", "x", "modifier", "spawn_cost", "score", "text")
CREATURE_STATS = (("power", 0), ("defense", 1), ("life", 1))  # 900.8 minimums

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a miniature's facts come from: shown to players, never read by the engine."""

    sources: tuple[str, ...] = ()
    confidence: str | None = None
    notes: str = ""


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """A miniature, the provenance of its data, and its rarity in its set's packs (None:
    not known, so never drawn in a Limited pack; the engine never reads it)."""

    mini: MiniatureDef
    provenance: Provenance = field(default_factory=Provenance)
    rarity: str | None = None


def slugify(name: str) -> str:
    """``'Temple Lion'`` -> ``'temple-lion'``: lower case, runs of other characters become ``-``."""
    return _NOT_ALNUM.sub("-", name.lower()).strip("-")


def parse_mini(table: Mapping[str, object], where: str) -> MiniatureDef:
    """Validate one miniature table; ``where`` names the file and the entry.

    The miniature's name, once read, is added to ``where`` in every later error,
    e.g. ``minis.toml, entry 7 ('Temple Lion')``.
    """
    return parse_entry(table, where).mini


def parse_entry(table: Mapping[str, object], where: str) -> CatalogEntry:
    """Like ``parse_mini``, also keeping the ``sources``, ``confidence`` and ``notes`` fields."""
    name = as_str(require(table, "name", where), "name", where).strip()
    where = f"{where} ({name!r})"
    check_fields(table, MINI_FIELDS, where)

    slug = _parse_slug(table, name, where)
    kind = KIND_NAMES[as_choice(require(table, "type", where), "type", where, KIND_NAMES)]
    spawn_cost = as_int(require(table, "spawn_cost", where), "spawn_cost", where, minimum=0)
    aspects = _parse_aspects(require(table, "aspects", where), where)

    stats: dict[str, int] = {}
    for key, minimum in CREATURE_STATS:
        if kind is MiniKind.CREATURE:
            value = require(table, key, where, " for a creature")
            stats[key] = as_int(value, key, where, minimum=minimum)
        elif key in table:
            raise DataError(
                where,
                f"field {key!r} is not allowed for a location (locations have no power, "
                f"defense or life), got {table[key]!r}",
            )

    lineage = None
    if "lineage" in table:
        lineage = as_str(table["lineage"], "lineage", where).strip()

    abilities: tuple[AbilityDef, ...] = ()
    if "abilities" in table:
        items = as_list(table["abilities"], "abilities", where)
        abilities = tuple(_parse_ability(item, i, where) for i, item in enumerate(items, 1))

    mini = MiniatureDef(
        slug=slug,
        name=name,
        kind=kind,
        spawn_cost=spawn_cost,
        aspects=aspects,
        power=stats.get("power", 0),
        defense=stats.get("defense", 0),
        life=stats.get("life", 0),
        lineage=lineage,
        abilities=abilities,
        official=as_bool(table.get("official", False), "official", where),
        set_name=as_str(table.get("set", ""), "set", where, nonempty=False).strip(),
    )
    rarity = None
    if "rarity" in table:
        rarity = as_choice(table["rarity"], "rarity", where, RARITIES)
    return CatalogEntry(mini, _parse_provenance(table, where), rarity)


def _parse_slug(table: Mapping[str, object], name: str, where: str) -> str:
    if "slug" in table:
        slug = as_str(table["slug"], "slug", where)
        if not _SLUG.fullmatch(slug):
            raise DataError(
                where,
                f"field 'slug' must be lower-case letters and digits joined by single '-', "
                f"got {slug!r}",
            )
        return slug
    slug = slugify(name)
    if not slug:
        raise DataError(where, f"field 'name' has no letter or digit to make a slug from: {name!r}")
    return slug


def _parse_aspects(value: object, where: str) -> tuple[Aspect, ...]:
    """The aspect symbols, one list item per symbol (300.3); an empty list means no aspect."""
    items = as_list(value, "aspects", where)
    return tuple(ASPECT_NAMES[as_choice(item, "aspects", where, ASPECT_NAMES)] for item in items)


def _parse_ability(item: object, index: int, where: str) -> AbilityDef:
    table = as_table(item, f"ability {index}", where)
    label = f"ability {index}"
    if isinstance(table.get("keyword"), str):
        label += f" ({table['keyword']!r})"
    where = f"{where}, {label}"
    check_fields(table, ABILITY_FIELDS, where)

    keyword = as_str(require(table, "keyword", where), "keyword", where).strip()
    activation = ACTIVATION_NAMES[
        as_choice(table.get("activation", "always"), "activation", where, ACTIVATION_NAMES)
    ]
    x = as_int(table["x"], "x", where) if "x" in table else None
    modifier = as_str(table["modifier"], "modifier", where).strip() if "modifier" in table else None
    spawn_cost = None
    cost_x = table.get("spawn_cost") == "X"  # {oX}: the cost is X, chosen when activated
    if isinstance(table.get("spawn_cost"), str) and not cost_x:
        raise DataError(
            where,
            f"field 'spawn_cost' must be an integer or 'X' (the spawn points paid are the "
            f"ability's number), got {table['spawn_cost']!r}",
        )
    if "spawn_cost" in table and not cost_x:
        spawn_cost = as_int(table["spawn_cost"], "spawn_cost", where, minimum=0)
    # 303.2a: a spawn ability is activated by spending spawn points, and only it is.
    if activation is Activation.SPAWN and spawn_cost is None and not cost_x:
        raise DataError(where, "field 'spawn_cost' is required for a spawn ability (303.2a)")
    if activation is not Activation.SPAWN and (spawn_cost is not None or cost_x):
        raise DataError(
            where,
            f"field 'spawn_cost' is only allowed for a spawn ability (303.2a), "
            f"but activation is {activation.value!r}",
        )
    return AbilityDef(
        keyword=keyword,
        activation=activation,
        x=x,
        modifier=modifier,
        spawn_cost=spawn_cost,
        cost_x=cost_x,
        score=as_bool(table.get("score", False), "score", where),
        text=as_str(table.get("text", ""), "text", where, nonempty=False).strip(),
    )


def _parse_provenance(table: Mapping[str, object], where: str) -> Provenance:
    sources: tuple[str, ...] = ()
    if "sources" in table:
        items = as_list(table["sources"], "sources", where)
        sources = tuple(as_str(s, "sources", where).strip() for s in items)
    confidence = None
    if "confidence" in table:
        confidence = as_choice(table["confidence"], "confidence", where, CONFIDENCE_LEVELS)
    notes = as_str(table.get("notes", ""), "notes", where, nonempty=False).strip()
    return Provenance(sources, confidence, notes)
