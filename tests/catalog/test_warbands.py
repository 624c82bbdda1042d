"""Warband files (rule 600): names from the catalog, copy counts, 600.1 and 600.3."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.catalog import Catalog, load_warband, parse_warband
from dbnet.errors import DataError

from .helpers import write


def warband_error(tmp_path: Path, text: str, catalog: Catalog) -> str:
    path = write(tmp_path, "band.toml", text)
    with pytest.raises(DataError) as info:
        load_warband(path, catalog)
    return str(info.value).replace(str(path), "band.toml")


def test_entries_by_name_or_slug_with_counts(tmp_path: Path, catalog: Catalog) -> None:
    text = """\
name = "Test Band"
minis = [
  { name = "Chitter Drone", count = 3 },
  "ember-altar",
  { name = "  pyre devourer " },
  "Chitter Drone",
]
"""
    path = write(tmp_path, "band.toml", text)
    with pytest.raises(DataError, match=r"600\.3: 4 copies of 'Chitter Drone' \(at most 3\)"):
        load_warband(path, catalog)
    warband = load_warband(
        write(tmp_path, "ok.toml", text.replace('  "Chitter Drone",\n', "")), catalog
    )
    assert warband.name == "Test Band"
    assert [m.slug for m in warband.minis] == [
        "chitter-drone", "chitter-drone", "chitter-drone", "ember-altar", "pyre-devourer",
    ]  # fmt: skip


def test_sixteen_is_the_limit(catalog: Catalog) -> None:
    """600.1: up to 16 miniatures."""
    names = ["Chitter Drone", "Emberfang Cub", "Gloomwing Larva", "Brimstone Imp", "Dread Carapace"]
    entries = ", ".join(f'{{ name = "{n}", count = 3 }}' for n in names)
    sixteen = f'name = "Big"\nminis = [{entries}, "Ember Altar"]\n'
    assert len(parse_warband(sixteen, "big.toml", catalog).minis) == 16
    seventeen = sixteen.replace('"Ember Altar"]', '"Ember Altar", "Ashmaw Brute"]')
    with pytest.raises(DataError) as info:
        parse_warband(seventeen, "big.toml", catalog)
    assert str(info.value) == ("big.toml (warband 'Big'): 600.1: 17 miniatures (at most 16)")


def test_three_copies_is_the_limit(catalog: Catalog) -> None:
    """600.3: up to three copies of a miniature, counted across entries."""
    three = 'name = "Trio"\nminis = [{ name = "Lantern Page", count = 3 }]\n'
    assert len(parse_warband(three, "trio.toml", catalog).minis) == 3
    split = (
        'name = "Quad"\n'
        'minis = [{ name = "Lantern Page", count = 2 }, "lantern-page", "Lantern Page"]\n'
    )
    with pytest.raises(DataError) as info:
        parse_warband(split, "quad.toml", catalog)
    assert str(info.value) == (
        "quad.toml (warband 'Quad'): 600.3: 4 copies of 'Lantern Page' (at most 3)"
    )
    huge = three.replace("count = 3", "count = 1000000000")  # refused, never expanded
    with pytest.raises(DataError) as info:
        parse_warband(huge, "quad.toml", catalog)
    assert str(info.value) == (
        "quad.toml (warband 'Trio'): 600.1: 1000000000 miniatures (at most 16)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'name = "B"\nminis = ["Chitter Drone", "Lantern Pagge"]\n',
            "band.toml, minis entry 2: no miniature named 'Lantern Pagge' in the catalog; "
            "did you mean 'Lantern Page' or 'Lanternfly Lurer'?",
        ),
        (
            'name = "B"\nminis = [{ name = "Xyzzy Quux" }]\n',
            "band.toml, minis entry 1: no miniature named 'Xyzzy Quux' in the catalog; "
            "'dbnet catalog' lists every miniature",
        ),
        (
            'name = "B"\nminis = [{ name = "Ember Altar", count = 0 }]\n',
            "band.toml, minis entry 1: field 'count' must be at least 1, got 0",
        ),
        (
            'name = "B"\nminis = [{ name = "Ember Altar", count = true }]\n',
            "band.toml, minis entry 1: field 'count' must be an integer, got True",
        ),
        (
            'name = "B"\nminis = [{ name = "Ember Altar", copies = 2 }]\n',
            "band.toml, minis entry 1: unknown field 'copies'",
        ),
        (
            'name = "B"\nminis = [{ count = 2 }]\n',
            "band.toml, minis entry 1: field 'name' is required",
        ),
        (
            'name = "B"\nminis = ["Ember Altar", 7]\n',
            "band.toml, minis entry 2: must be a miniature name or a table "
            "{ name = ..., count = ... }, got 7",
        ),
        ('name = "B"\n', "band.toml: field 'minis' is required"),
        (
            'name = "B"\nminis = []\n',
            "band.toml: field 'minis' is empty; a warband needs at least one miniature",
        ),
        ('name = "B"\nminis = "Ember Altar"\n', "band.toml: field 'minis' must be a list"),
        ('minis = ["Ember Altar"]\n', "band.toml: field 'name' is required"),
        ('name = 3\nminis = ["Ember Altar"]\n', "band.toml: field 'name' must be a string, got 3"),
        (
            'name = "B"\nminis = ["Ember Altar"]\nplayer = "A"\n',
            "band.toml: unknown field 'player'",
        ),
    ],
)
def test_warband_errors_name_the_file_entry_and_field(
    tmp_path: Path, catalog: Catalog, text: str, message: str
) -> None:
    assert warband_error(tmp_path, text, catalog).startswith(message)


def test_malformed_warband_names_the_line(tmp_path: Path, catalog: Catalog) -> None:
    message = warband_error(tmp_path, 'name = "B"\nminis = [Ember Altar]\n', catalog)
    assert message.startswith("band.toml: not valid TOML: ")
    assert "line 2" in message


def test_missing_warband_file(tmp_path: Path, catalog: Catalog) -> None:
    with pytest.raises(DataError) as info:
        load_warband(tmp_path / "none.toml", catalog)
    assert str(info.value) == f"{tmp_path / 'none.toml'}: no such file"
