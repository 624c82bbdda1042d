"""The pack set of Limited play (docs/limited.md): the catalog's miniatures of one set
by rarity, in catalog order."""

from __future__ import annotations

from dbnet.catalog.index import Catalog, load_catalog
from dbnet.engine.limited import PackSet
from dbnet.engine.model import MiniatureDef

LIMITED_SET = "dbnet Originals"
"""The set Limited packs are drawn from: the only set whose every miniature has a known
rarity (ours, by spawn cost: docs/limited.md). Real miniatures' rarities are not known
to the project, so no real miniature is ever in a pack."""


def pack_set(catalog: Catalog | None = None, set_name: str = LIMITED_SET) -> PackSet:
    """The miniatures of ``set_name`` in ``catalog`` (None: the shipped one) that have a
    rarity, by rarity, each in catalog order."""
    catalog = catalog if catalog is not None else load_catalog()
    by_rarity: dict[str, list[MiniatureDef]] = {"rare": [], "uncommon": [], "common": []}
    for entry in catalog.entries:
        if entry.mini.set_name == set_name and entry.rarity is not None:
            by_rarity[entry.rarity].append(entry.mini)
    packs = PackSet(
        set_name,
        tuple(by_rarity["rare"]),
        tuple(by_rarity["uncommon"]),
        tuple(by_rarity["common"]),
    )
    packs.check()
    return packs
