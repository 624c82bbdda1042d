"""The canonical state encoding's byte order (docs/state-hash.md): little-endian words
on every machine."""

from __future__ import annotations

import json
import struct
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import canonical
from dbnet.engine.model import (
    AbilityDef,
    Activation,
    GameSetup,
    MiniatureDef,
    Options,
    Warband,
)

EXAMPLE_WARBANDS = Path(__file__).resolve().parents[2] / "examples" / "warbands"


@pytest.mark.parametrize("byteorder", ["little", "big"])
def test_words_are_little_endian_whatever_the_machine(
    monkeypatch: pytest.MonkeyPatch, byteorder: str
) -> None:
    values = [0, -1, 5, 2**40 + 3, -(2**63)]
    native = canonical.int_words(values)
    if byteorder != sys.byteorder:  # pretend to be the other kind of machine
        native.byteswap()
        monkeypatch.setattr(sys, "byteorder", byteorder)
    assert bytes(canonical.words_bytes(native)) == struct.pack("<5q", *values)
    assert bytes(canonical.words_bytes(native)) == canonical.pack_ints(values)


def _reference_setup_bytes(setup: GameSetup) -> bytes:
    """``setup_bytes`` as docs/state-hash.md states it: plain dicts, sorted by the encoder."""

    def ability(a: AbilityDef) -> dict[str, object]:
        return {
            "keyword": a.keyword,
            "activation": a.activation.value,
            "x": a.x,
            "modifier": a.modifier,
            "spawn_cost": a.spawn_cost,
            "cost_x": a.cost_x,
            "score": a.score,
        }

    def mini(d: MiniatureDef) -> dict[str, object]:
        return {
            "slug": d.slug,
            "kind": d.kind.name.lower(),
            "spawn_cost": d.spawn_cost,
            "aspects": [a.name.lower() for a in d.aspects],
            "power": d.power,
            "defense": d.defense,
            "life": d.life,
            "lineage": d.lineage,
            "abilities": [ability(a) for a in d.abilities],
        }

    doc = {
        "map": list(setup.map.values),
        "options": {
            "tournament_initiative": setup.options.tournament_initiative,
            "turns_to_win": setup.options.turns_to_win,
        },
        "warbands": [[mini(d) for d in w.minis] for w in setup.warbands],
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _setups() -> list[GameSetup]:
    """Every catalog miniature, 16 to a warband, and every example warband against the
    default ones, under both kinds of options; and odd values the encoder must escape."""
    catalog = load_catalog()
    game_map = load_map()
    default = default_warbands(catalog)
    minis = catalog.minis
    bands = [Warband(f"part {i}", minis[i : i + 16]) for i in range(0, len(minis), 16)]
    bands += [load_warband(path, catalog) for path in sorted(EXAMPLE_WARBANDS.glob("*.toml"))]
    odd = replace(
        minis[0],
        slug='caf\u00e9-"quoted"\\',
        lineage="L\u00e9gion \U0001f409",
        abilities=(
            AbilityDef("Crit", Activation.BLADE, x=-2, modifier="\u00fcber\n", spawn_cost=3),
            AbilityDef("Assault", Activation.SPAWN, cost_x=True, score=True),
        ),
    )
    bands.append(Warband("odd", (odd, odd)))
    setups = [GameSetup(game_map, (band, default[1])) for band in bands]
    setups += [
        GameSetup(
            replace(game_map, values=tuple(range(25))),
            (default[0], band),
            Options(tournament_initiative=False, turns_to_win=99),
        )
        for band in bands
    ]
    return setups


def test_setup_bytes_are_the_documented_canonical_json() -> None:
    """The dicts built in sorted key order give the bytes of ``json.dumps(...,
    sort_keys=True)`` for every catalog miniature and example warband."""
    for setup in _setups():
        assert canonical.setup_bytes(setup) == _reference_setup_bytes(setup)
