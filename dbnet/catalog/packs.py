"""The pack set of Limited play (docs/limited.md): the catalog's miniatures of one set
by rarity, in catalog order."""

from __future__ import annotations

from dbnet.catalog.index import Catalog, load_catalog
from dbnet.catalog.maps import load_map
from dbnet.engine.limited import RARITIES, check_format, check_pack_set
from dbnet.engine.model import GameSetup, Limited, MiniatureDef, Options, PackSet, Warband

LIMITED_SET = "dbnet Originals"
"""The set Limited packs are drawn from: the only set whose every miniature has a known
rarity (ours, by spawn cost: docs/limited.md). Real miniatures' rarities are not known
to the project, so no real miniature is ever in a pack."""


def pack_set(catalog: Catalog | None = None, set_name: str = LIMITED_SET) -> PackSet:
    """The miniatures of ``set_name`` in ``catalog`` (None: the shipped one) that have a
    rarity, by rarity, each in catalog order; ValueError if a rarity has none."""
    catalog = catalog if catalog is not None else load_catalog()
    by_rarity: dict[str, list[MiniatureDef]] = {word: [] for word in RARITIES}
    for entry in catalog.entries:
        if entry.mini.set_name == set_name and entry.rarity is not None:
            by_rarity[entry.rarity].append(entry.mini)
    packs = PackSet(*(tuple(by_rarity[word]) for word in RARITIES))
    check_pack_set(packs)
    return packs


def limited_setup(
    fmt: str,
    names: tuple[str, str] = ("Limited A", "Limited B"),
    options: Options | None = None,
    catalog: Catalog | None = None,
) -> GameSetup:
    """A Limited game's offered setup: the shipped map, the pack set of ``catalog``, and
    empty warbands named ``names`` (each is built from its pool in the game)."""
    check_format(fmt)
    return GameSetup(
        load_map(),
        (Warband(names[0], ()), Warband(names[1], ())),
        options if options is not None else Options(),
        Limited(fmt, pack_set(catalog)),
    )
