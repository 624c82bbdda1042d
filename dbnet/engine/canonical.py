"""Canonical encodings of a game's setup and state, the input of ``state_hash``.

Both are specified in docs/state-hash.md so that another implementation can
reproduce every hash: the setup as compact JSON with sorted keys, the state as
little-endian signed 64-bit integers.
"""

from __future__ import annotations

import json
import struct
import sys
from array import array
from collections.abc import Iterable

from dbnet.engine.model import (
    ACTIVATION_TEXT,
    ASPECT_TEXT,
    KIND_TEXT,
    AbilityDef,
    GameSetup,
    MiniatureDef,
)

# Every dict below is built with its keys already in sorted order, so that the encoder
# need not sort them (``sort_keys`` sorts each dict again): the bytes are those of
# ``json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)``.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True, check_circular=False)
"""The canonical setup's encoder (it keeps no state between calls). It need not look for
cycles: ``setup_bytes`` encodes a tree of lists and dicts it has just built."""


def _ability(a: AbilityDef) -> dict[str, object]:
    return {
        "activation": ACTIVATION_TEXT[a.activation],
        "cost_x": a.cost_x,
        "keyword": a.keyword,
        "modifier": a.modifier,
        "score": a.score,
        "spawn_cost": a.spawn_cost,
        "x": a.x,
    }


def _mini(d: MiniatureDef) -> dict[str, object]:
    return {
        "abilities": [_ability(a) for a in d.abilities],
        "aspects": [ASPECT_TEXT[a] for a in d.aspects],
        "defense": d.defense,
        "kind": KIND_TEXT[d.kind],
        "life": d.life,
        "lineage": d.lineage,
        "power": d.power,
        "slug": d.slug,
        "spawn_cost": d.spawn_cost,
    }


def setup_bytes(setup: GameSetup) -> bytes:
    """The setup's rules-relevant content as canonical JSON (names and texts left out).
    A Limited setup has the key ``limited`` too (docs/limited.md); any other setup's
    bytes are as they were before Limited play."""
    doc: dict[str, object] = {}
    limited = setup.limited
    if limited is not None:
        packs = limited.packs
        part: dict[str, object] = {
            "format": limited.format,
            "packs": [
                [_mini(d) for d in minis] for minis in (packs.rare, packs.uncommon, packs.common)
            ],
        }
        if limited.pools is not None:
            part["pools"] = [[d.slug for d in pool] for pool in limited.pools]
        doc["limited"] = part
    doc |= {
        "map": list(setup.map.values),
        "options": {
            "tournament_initiative": setup.options.tournament_initiative,
            "turns_to_win": setup.options.turns_to_win,
        },
        "warbands": [[_mini(d) for d in w.minis] for w in setup.warbands],
    }
    return _ENCODER.encode(doc).encode()


def pack_ints(ints: list[int]) -> bytes:
    """``ints`` as little-endian signed 64-bit integers."""
    packer = _PACKERS.get(len(ints))
    if packer is None:
        packer = _PACKERS[len(ints)] = struct.Struct(f"<{len(ints)}q")
    return packer.pack(*ints)


_PACKERS: dict[int, struct.Struct] = {}
"""A compiled packer per length: a game's encodings come in a few dozen lengths."""


def int_words(ints: Iterable[int]) -> array[int]:
    """Signed 64-bit integers in an array, whose bytes ``words_bytes`` gives."""
    return array("q", ints)


def words_bytes(words: array[int]) -> array[int]:
    """``words`` as little-endian bytes, like ``pack_ints``: the array itself where that
    is the machine's order, else a byte-swapped copy."""
    if sys.byteorder == "little":
        return words
    swapped = words[:]
    swapped.byteswap()
    return swapped
