"""Whether a game's setup is made of this dbnet's catalog: every miniature's whole card and
the map's values, as the receiver's own catalog has them.

A peer's OFFER (and a joiner's warband) carries every miniature's card so that a replay
stands alone, but the card is not taken on trust: a miniature that names a catalog entry
(by its slug) must carry exactly that entry's card, and a miniature that names none is
refused, since only catalog miniatures can be put in a warband (docs/catalog.md). Both
peers and ``dbnet verify`` run this check, so a replay with altered stats never verifies.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
from typing import Final

from dbnet.catalog.index import Catalog, load_catalog
from dbnet.catalog.maps import load_map
from dbnet.catalog.packs import LIMITED_SET, pack_set
from dbnet.engine import board
from dbnet.engine.limited import RARITIES
from dbnet.engine.model import AbilityDef, GameSetup, MapDef, MiniatureDef, PackSet, Warband
from dbnet.errors import DataError

_CARD_FIELDS: Final = tuple(f.name for f in dataclasses.fields(MiniatureDef))
_ABILITY_FIELDS: Final = tuple(f.name for f in dataclasses.fields(AbilityDef))
_FIELD_WORDS: Final = {"set_name": "set", "spawn_cost": "spawn cost"}
SEATS: Final = ("A", "B")


class CatalogMismatchError(DataError):
    """A setup whose miniature or map differs from this dbnet's catalog (names the field)."""


def check_setup(setup: GameSetup, catalog: Catalog | None = None) -> None:
    """Refuse a setup with a miniature or map that is not the catalog's own.

    Raises:
        CatalogMismatchError: naming the warband, the miniature and the first field that
            differs (with both values), or the map's cell.
    """
    check_map(setup.map)
    for seat, warband in zip(SEATS, setup.warbands, strict=True):
        check_warband(warband, f"{seat}'s warband", catalog)
    if setup.limited is not None:
        check_packs(setup.limited.packs, catalog)


def check_packs(packs: PackSet, catalog: Catalog | None = None) -> None:
    """A Limited setup's pack set is exactly this dbnet's (``packs.pack_set``): every card
    the catalog's, each under its catalog rarity, none missing, in catalog order."""
    catalog = load_catalog() if catalog is None else catalog
    for word, minis in zip(RARITIES, (packs.rare, packs.uncommon, packs.common), strict=True):
        for index, mini in enumerate(minis):
            _check_mini(mini, f"the pack set's {word} miniature {index + 1}", catalog)
    ours = pack_set(catalog)
    if packs != ours:
        raise CatalogMismatchError(
            "the pack set",
            f"it is not this dbnet's {LIMITED_SET!r} by rarity (docs/limited.md)",
        )


def check_warband(warband: Warband, where: str, catalog: Catalog | None = None) -> None:
    """Every miniature of ``warband`` is the catalog's, card for card (``where`` names it)."""
    catalog = load_catalog() if catalog is None else catalog
    checked: set[MiniatureDef] = set()  # a warband holds up to three copies of each
    for index, mini in enumerate(warband.minis):
        if mini in checked:
            continue
        _check_mini(mini, f"{where} ({warband.name!r}), miniature {index + 1}", catalog)
        checked.add(mini)


def _check_mini(mini: MiniatureDef, where: str, catalog: Catalog) -> None:
    ours = catalog.lookup(mini.slug)
    if ours is None or ours.slug != mini.slug:
        raise CatalogMismatchError(
            where,
            f"{mini.name!r} (slug {mini.slug!r}) is not in this dbnet's catalog; only catalog "
            "miniatures can be played",
        )
    if ours == mini:
        return
    field, theirs_value, our_value = _first_difference(mini, ours)
    raise CatalogMismatchError(
        where,
        f"{ours.name!r}: its {field} is {theirs_value}, but the catalog's card says {our_value}",
    )


def _first_difference(mini: MiniatureDef, ours: MiniatureDef) -> tuple[str, str, str]:
    """The first field in which two different cards differ, and both values, as text."""
    for name in _CARD_FIELDS:
        theirs_value, our_value = getattr(mini, name), getattr(ours, name)
        if theirs_value == our_value:
            continue
        if name != "abilities":
            return _FIELD_WORDS.get(name, name), _show(theirs_value), _show(our_value)
        if len(theirs_value) != len(our_value):
            return "number of abilities", str(len(theirs_value)), str(len(our_value))
        for i, (theirs_ability, our_ability) in enumerate(
            zip(theirs_value, our_value, strict=True), 1
        ):
            for ability_field in _ABILITY_FIELDS:
                a, b = getattr(theirs_ability, ability_field), getattr(our_ability, ability_field)
                if a != b:
                    return f"ability {i}'s {ability_field}", _show(a), _show(b)
    raise AssertionError("two different cards with no differing field")


def check_map(game_map: MapDef) -> None:
    """The map is a shipped map with its values (the free-text note is not compared)."""
    ours = _shipped_maps().get(game_map.name)
    if ours is None:
        known = ", ".join(repr(name) for name in _shipped_maps())
        raise CatalogMismatchError(
            "the map", f"{game_map.name!r} is not a map of this dbnet (it has {known})"
        )
    for cell, (value, our_value) in enumerate(zip(game_map.values, ours.values, strict=True)):
        if value != our_value:
            raise CatalogMismatchError(
                f"the map ({game_map.name!r})",
                f"cell {board.cell_name(cell)} is worth {value}, but the shipped map says "
                f"{our_value}",
            )
    if game_map.reconstructed != ours.reconstructed:
        raise CatalogMismatchError(
            f"the map ({game_map.name!r})",
            f"'reconstructed' is {game_map.reconstructed}, but the shipped map says "
            f"{ours.reconstructed}",
        )


@functools.cache
def _shipped_maps() -> dict[str, MapDef]:
    """The maps shipped with dbnet, by name (read once per process)."""
    standard = load_map()
    return {standard.name: standard}


def _show(value: object) -> str:
    """A card's value as a player reads it: enums by their value, tuples as lists."""
    if isinstance(value, tuple):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, enum.Enum):
        return repr(value.value)
    return repr(value)
