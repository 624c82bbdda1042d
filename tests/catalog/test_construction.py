"""Rule 600 as one check (``warband_breaches``), costs as the glossary defines them, the
builder's catalog search, and writing warband files back."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dbnet.catalog import Catalog, WarbandList, parse_warband_list, read_warband_list, save_warband
from dbnet.catalog.construction import (
    aspect_summary,
    channel_covers,
    cost_range,
    parse_query,
    search,
    summary_lines,
)
from dbnet.engine.game import MAX_WARBAND_POWER, Breach, warband_breaches
from dbnet.engine.model import AbilityDef, Activation, Aspect, MiniatureDef, MiniKind
from dbnet.errors import DataError


def mini(name: str, spawn: int, aspects: tuple[Aspect, ...] = (), power: int = 1) -> MiniatureDef:
    slug = name.lower().replace(" ", "-")
    return MiniatureDef(slug, name, MiniKind.CREATURE, spawn, aspects, power, 1, 1)


SQUIRE = mini("Squire", 1, (Aspect.VALOR, Aspect.VALOR))
GOREHOUND = mini("Frenzied Gorehound", 2, (Aspect.PASSION,))


def test_600_1_at_most_sixteen_miniatures() -> None:
    assert warband_breaches([(SQUIRE, 3)] + [(mini(f"M{i}", 1), 1) for i in range(13)]) == []
    assert warband_breaches([(mini(f"M{i}", 1), 1) for i in range(17)]) == [
        Breach("600.1", "17 miniatures (at most 16)")
    ]


def test_600_3_at_most_three_copies_counted_across_entries() -> None:
    breaches = warband_breaches([(GOREHOUND, 2), (SQUIRE, 1), (GOREHOUND, 2)])
    assert [str(b) for b in breaches] == ["600.3: 4 copies of 'Frenzied Gorehound' (at most 3)"]
    assert warband_breaches([(GOREHOUND, 3)]) == []


def test_every_breach_is_reported_in_rule_order() -> None:
    entries = [(GOREHOUND, 5), (SQUIRE, 4), *((mini(f"M{i}", 1), 1) for i in range(8))]
    assert [b.rule for b in warband_breaches(entries)] == ["600.1", "600.3", "600.3"]


def test_the_power_bound_is_part_of_the_same_check() -> None:
    giant = mini("Giant", 1, power=MAX_WARBAND_POWER)
    assert warband_breaches([(giant, 1)]) == []
    assert [str(b) for b in warband_breaches([(giant, 2)])] == [
        "dbnet: 2000 power in all (at most 1000: it bounds the dice of a roll)"
    ]


def test_cost_is_spawn_cost_plus_aspect_shortfall_less_channel_floored_at_0() -> None:
    """Glossary: cost, Channel; 801.4; 900.8."""
    assert cost_range(SQUIRE) == (1, 3)
    assert cost_range(SQUIRE, reduction=2) == (0, 1)  # 1 + 2 - 2, not 0 + 2
    assert cost_range(mini("Page", 1), reduction=2) == (0, 0)


def test_channel_covers_its_aspect_only() -> None:
    channel = AbilityDef("Channel", Activation.ALWAYS, x=1, modifier="Passion")
    assert channel_covers(channel, GOREHOUND)
    assert not channel_covers(channel, SQUIRE)
    assert channel_covers(AbilityDef("Channel", Activation.ALWAYS, x=1), SQUIRE)


def test_aspect_summary_600_2() -> None:
    lines = aspect_summary([(SQUIRE, 2), (GOREHOUND, 3)])
    assert [(line.aspect, line.members, line.most, line.symbols) for line in lines] == [
        (Aspect.VALOR, 2, 2, 4),
        (Aspect.PASSION, 3, 1, 3),
    ]
    assert summary_lines([(SQUIRE, 2)])[0] == (
        "2 miniatures (2 creatures, 0 locations); spawn costs 2 in all, 4 aspect symbols"
    )


def test_query_by_name_aspect_cost_type_and_keyword(catalog: Catalog) -> None:
    found = search(catalog.minis, parse_query("gore a:pas c:<=3 t:cr"))
    assert [m.name for m in found] == ["Frenzied Gorehound"]
    crit = search(catalog.minis, parse_query("k:crit t:loc"))
    assert crit
    assert all(m.is_location for m in crit)
    assert all(2 <= m.spawn_cost <= 5 for m in search(catalog.minis, parse_query("c:2-5")))
    assert parse_query("a: c:") == parse_query("")  # a prefix still being typed
    for bad in ("a:purple", "c:cheap", "t:god"):
        with pytest.raises(DataError):
            parse_query(bad)


def test_save_writes_atomically_and_reads_back(tmp_path: Path, catalog: Catalog) -> None:
    path = tmp_path / "band.toml"
    path.write_text("old", encoding="utf-8")
    hound = catalog.get("Frenzied Gorehound")
    arena = catalog.get("Bloodsand Arena")
    save_warband(path, 'The "Pack"', [(hound, 3), (arena, 1)])
    assert read_warband_list(path, catalog) == WarbandList('The "Pack"', ((hound, 3), (arena, 1)))
    assert os.listdir(tmp_path) == ["band.toml"]  # no temporary file left behind
    with pytest.raises(DataError, match="cannot be written"):
        save_warband(tmp_path / "missing" / "band.toml", "X", [(hound, 1)])


def test_a_list_is_read_legal_or_not(catalog: Catalog) -> None:
    listed = parse_warband_list(
        'name = "X"\nminis = [{ name = "Frenzied Gorehound", count = 9 }]\n', "x.toml", catalog
    )
    assert listed.size == 9
    assert [str(b) for b in listed.breaches()] == [
        "600.3: 9 copies of 'Frenzied Gorehound' (at most 3)"
    ]
    with pytest.raises(DataError, match=r"x\.toml: not valid TOML: .*line 2"):
        parse_warband_list('name = "X"\nminis = [ = ]\n', "x.toml", catalog)
