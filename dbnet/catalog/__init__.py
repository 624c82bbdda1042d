"""Miniature, map and warband data: TOML files validated into the engine's types.

The data shipped in the package (``dbnet/catalog/data/``) holds the real
miniatures whose stats are all known, an original set designed by the
project, the standard map and two default warbands. File formats are in
``docs/catalog.md``.
"""

from dbnet.catalog.index import Catalog, Match, load_catalog, parse_catalog
from dbnet.catalog.maps import load_map, parse_map
from dbnet.catalog.schema import CatalogEntry, Provenance, parse_entry, parse_mini, slugify
from dbnet.catalog.warbands import (
    WarbandList,
    default_warbands,
    load_warband,
    parse_warband,
    parse_warband_list,
    read_warband_list,
    save_warband,
)

__all__ = [
    "Catalog",
    "CatalogEntry",
    "Match",
    "Provenance",
    "WarbandList",
    "default_warbands",
    "load_catalog",
    "load_map",
    "load_warband",
    "parse_catalog",
    "parse_entry",
    "parse_map",
    "parse_mini",
    "parse_warband",
    "parse_warband_list",
    "read_warband_list",
    "save_warband",
    "slugify",
]  # fmt: skip
