"""Catalog files and the ``Catalog``: loading, uniqueness, lookup and search."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.catalog import Catalog, load_catalog
from dbnet.engine.model import MiniatureDef
from dbnet.errors import DataError

from .helpers import write

TWO_MINIS = """\
[[mini]]
name = "Cinder Moth"
type = "creature"
spawn_cost = 2
aspects = ["Passion"]
power = 2
defense = 2
life = 3
lineage = "Bloodcut"

[[mini]]
name = "Glass Oracle"
slug = "oracle"
type = "creature"
spawn_cost = 7
aspects = ["Madness", "Madness"]
power = 3
defense = 5
life = 11
abilities = [{ keyword = "Foresee", activation = "blade", text = "Look at the next die." }]
"""


def load_text(tmp_path: Path, text: str, name: str = "minis.toml") -> Catalog:
    return load_catalog([write(tmp_path, name, text)])


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(DataError) as info:
        load_text(tmp_path, text)
    return str(info.value)


def test_files_load_in_order(tmp_path: Path) -> None:
    first = write(tmp_path, "a.toml", TWO_MINIS)
    second = write(
        tmp_path,
        "b.toml",
        '[[mini]]\nname = "Moss Gate"\ntype = "location"\nspawn_cost = 1\naspects = []\n',
    )
    catalog = load_catalog([first, second])
    assert [m.slug for m in catalog.minis] == ["cinder-moth", "oracle", "moss-gate"]
    assert len(catalog) == 3
    assert list(catalog) == list(catalog.minis)


def test_get_ignores_case_and_accepts_name_or_slug(tmp_path: Path) -> None:
    catalog = load_text(tmp_path, TWO_MINIS)
    oracle = catalog.get("Glass Oracle")
    assert oracle.slug == "oracle"
    assert catalog.get("  glass ORACLE ") is oracle
    assert catalog.get("Oracle") is oracle
    assert "cinder-moth" in catalog
    assert "Cinder Moth" in catalog
    assert oracle in catalog
    assert "Ember Moth" not in catalog
    assert 7 not in catalog


def test_get_unknown_suggests_close_names(tmp_path: Path) -> None:
    catalog = load_text(tmp_path, TWO_MINIS)
    with pytest.raises(DataError) as info:
        catalog.get("Cinder Math")
    assert str(info.value) == (
        "no miniature named 'Cinder Math' in the catalog; did you mean 'Cinder Moth'?"
    )
    with pytest.raises(DataError, match=r"'zzz' in the catalog; 'dbnet catalog' lists"):
        catalog.get("zzz")


def test_suggestions_include_names_containing_the_text(tmp_path: Path) -> None:
    assert load_text(tmp_path, TWO_MINIS).suggest("moth") == ["Cinder Moth"]


@pytest.mark.parametrize(
    ("text", "slugs"),
    [
        ("moth", ["cinder-moth"]),
        ("BLOODCUT", ["cinder-moth"]),  # lineage
        ("madness", ["oracle"]),  # aspect
        ("foresee", ["oracle"]),  # ability keyword
        ("next die", ["oracle"]),  # ability text
        ("e", ["cinder-moth", "oracle"]),
        ("nothing like it", []),
    ],
)
def test_find_searches_names_lineage_aspects_and_abilities(
    tmp_path: Path, text: str, slugs: list[str]
) -> None:
    assert [m.slug for m in load_text(tmp_path, TWO_MINIS).find(text)] == slugs


def test_duplicate_slug_across_files_names_both_entries(tmp_path: Path) -> None:
    first = write(tmp_path, "a.toml", TWO_MINIS)
    second = write(
        tmp_path,
        "b.toml",
        '[[mini]]\nname = "Cinder-Moth"\ntype = "location"\nspawn_cost = 1\naspects = []\n',
    )
    with pytest.raises(DataError) as info:
        load_catalog([first, second])
    assert str(info.value) == (
        f"{second}, entry 1 ('Cinder-Moth'): slug 'cinder-moth' is already used by "
        f"'Cinder Moth' ({first}, entry 1 ('Cinder Moth'))"
    )


def test_duplicate_name_is_refused_even_with_another_slug(tmp_path: Path) -> None:
    text = TWO_MINIS + '\n[[mini]]\nname = "glass oracle"\nslug = "oracle-2"\n'
    text += 'type = "location"\nspawn_cost = 1\naspects = []\n'
    message = error_of(tmp_path, text)
    assert (
        "entry 3 ('glass oracle'): name 'glass oracle' is already used by 'Glass Oracle'" in message
    )


def test_a_name_may_not_be_another_miniatures_slug(tmp_path: Path) -> None:
    text = TWO_MINIS + '\n[[mini]]\nname = "Oracle"\nslug = "true-oracle"\n'
    text += 'type = "location"\nspawn_cost = 1\naspects = []\n'
    assert "name 'Oracle' is already used by 'Glass Oracle'" in error_of(tmp_path, text)


def test_catalog_built_in_code_checks_uniqueness_too() -> None:
    mini = MiniatureDef("moth", "Moth", load_catalog().minis[0].kind, 1, ())
    with pytest.raises(DataError, match=r"catalog entry 2 \('Moth'\): slug 'moth' is already"):
        Catalog([mini, mini])


def test_entry_error_names_the_file_and_the_entry(tmp_path: Path) -> None:
    text = TWO_MINIS.replace("life = 11", "life = -11")
    path = tmp_path / "minis.toml"
    assert error_of(tmp_path, text) == (
        f"{path}, entry 2 ('Glass Oracle'): field 'life' must be at least 1, got -11"
    )


def test_malformed_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    text = TWO_MINIS.replace("spawn_cost = 7", "spawn_cost = = 7")
    message = error_of(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'minis.toml'}: not valid TOML: ")
    assert "line 15" in message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DataError) as info:
        load_catalog([tmp_path / "nowhere.toml"])
    assert str(info.value) == f"{tmp_path / 'nowhere.toml'}: no such file"


def test_directory_and_non_utf8_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="is a directory, not a file"):
        load_catalog([tmp_path])
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "Caf\xe9"'.encode("latin-1"))
    with pytest.raises(
        DataError, match=r"latin1\.toml: is not UTF-8 text \(bad byte at offset 11\)"
    ):
        load_catalog([path])


def test_unknown_top_level_field(tmp_path: Path) -> None:
    message = error_of(tmp_path, "minis = []\n")
    assert message == f"{tmp_path / 'minis.toml'}: unknown field 'minis'; did you mean 'mini'?"


def test_missing_mini_list(tmp_path: Path) -> None:
    assert error_of(tmp_path, "") == (
        f"{tmp_path / 'minis.toml'}: field 'mini' is required (one [[mini]] table per miniature)"
    )


def test_entry_that_is_not_a_table(tmp_path: Path) -> None:
    assert error_of(tmp_path, 'mini = ["Temple Lion"]\n') == (
        f"{tmp_path / 'minis.toml'}, entry 1: the entry must be a table, got 'Temple Lion'"
    )
