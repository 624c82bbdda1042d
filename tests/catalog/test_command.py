"""``dbnet catalog``: listing, search and show, in process and as the real command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dbnet.catalog import Catalog
from dbnet.cli import build_parser
from dbnet.commands import catalog as command
from dbnet.engine.keywords import CUSTOM, KEYWORDS, explain
from dbnet.engine.model import AbilityDef, Activation, MiniatureDef
from dbnet.errors import DataError

from .helpers import dbnet, write


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Parse ``argv`` with the ``dbnet`` parser, run the command, capture output."""
    args = build_parser().parse_args(argv)
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_every_miniature_in_80_columns(
    catalog: Catalog, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["catalog"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "COST", "P/D/L", "ORIGIN", "ABILITIES"]
    assert lines[1].split() == ["Screambent", "Lunatic", "creature", "9", "MMM", "4/7/12",
                                "official", "1"]  # fmt: skip
    assert "Darkheart Cottage       location  6 MMM   -" in out
    rows = lines[1 : len(catalog) + 1]
    assert [row[: len(m.name)] for row, m in zip(rows, catalog, strict=True)] == [
        m.name for m in catalog
    ]
    lion = next(row for row in rows if row.startswith("Temple Lion "))
    assert lion.split()[-1] == "1*"
    chitter = next(row for row in rows if row.startswith("Chitter Drone "))
    assert chitter.split()[-2:] == ["original", "-"]
    gloam = next(row for row in rows if row.startswith("Gloamblade Duelist "))
    assert gloam.split()[-2:] == ["original", "2"]
    official = sum(1 for m in catalog if m.official)
    assert lines[len(catalog) + 1] == (
        f"{len(catalog)} miniatures: {official} official, {len(catalog) - official} original."
    )
    assert lines[-1].startswith("* has an ability dbnet can't play")
    assert max(len(line) for line in lines) <= 80
    assert run(["catalog", "list"], capsys)[1] == out


def test_long_names_are_cut_to_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name = "The Extremely Long-Winded Dream Lord of Endless Names"
    path = write(
        tmp_path,
        "long.toml",
        f'[[mini]]\nname = "{name}"\ntype = "creature"\nspawn_cost = 12\n'
        'aspects = ["Valor", "Madness", "Fear", "Passion"]\npower = 10\ndefense = 10\nlife = 10\n',
    )
    code, out, _ = run(["catalog", "--catalog", str(path)], capsys)
    assert code == 0
    assert "The Extremely Long-Winded D...  creature" in out
    assert "1 miniature: 0 official, 1 original." in out
    assert "12 VMFP" in out
    assert max(len(line) for line in out.splitlines()) <= 80
    code, out, _ = run(["catalog", "--catalog", str(path), "show", name], capsys)
    assert out.startswith(f"{name}\n(the-extremely-long-winded-dream-lord-of-endless-names)\n")
    assert max(len(line) for line in out.splitlines()) <= 80


def search_rows(out: str) -> dict[str, str]:
    """A search's output as {name: what matched}, joining wrapped MATCHED lines."""
    lines = out.splitlines()
    column = lines[0].index("MATCHED")
    rows: dict[str, str] = {}
    name = ""
    for line in lines[1:-1]:
        if line[:column].strip():
            name = re.split(r"\s{2,}", line)[0]
            rows[name] = line[column:]
        else:
            rows[name] += " " + line[column:]
    return rows


def test_search_says_what_matched(catalog: Catalog, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["catalog", "search", "janus"], capsys)
    assert code == 0
    rows = search_rows(out)
    expected = [
        m.name
        for m in catalog
        if m.lineage == "Janus" or any(a.modifier == "Janus" for a in m.abilities)
    ]
    assert list(rows) == expected
    assert len(expected) >= 10
    assert rows["Sir Glorious"] == "modifier Janus, lineage Janus, ability text"
    assert rows["Echo Mimic"] == "lineage Janus"
    assert out.splitlines()[-1] == f"{len(expected)} miniatures match 'janus'."
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("Crit", "keyword Crit"),
        ("fear", "aspect Fear"),
        ("LOST", "lineage Lost"),
        ("originals", "set dbnet Originals"),
        ("Enemies", "modifier Enemies"),
    ],
)
def test_search_matches_keywords_aspects_lineages_and_sets(
    catalog: Catalog, capsys: pytest.CaptureFixture[str], text: str, field: str
) -> None:
    kind, _, value = field.partition(" ")

    def has(m: MiniatureDef) -> bool:
        values: dict[str, list[str | None]] = {
            "keyword": [a.keyword for a in m.abilities],
            "aspect": [a.name.capitalize() for a in m.aspects],
            "lineage": [m.lineage],
            "set": [m.set_name],
            "modifier": [a.modifier for a in m.abilities],
        }
        return value in values[kind]

    rows = search_rows(run(["catalog", "search", text], capsys)[1])
    carriers = [m.name for m in catalog if has(m)]
    assert carriers
    assert [name for name, matched in rows.items() if field in matched] == carriers


def test_search_by_name_and_slug(capsys: pytest.CaptureFixture[str]) -> None:
    rows = search_rows(run(["catalog", "search", "hellgate"], capsys)[1])
    assert rows == {"Hellgate Herald": "name, slug"}
    rows = search_rows(run(["catalog", "search", "gate-herald"], capsys)[1])
    assert rows == {"Hellgate Herald": "slug"}
    rows = search_rows(run(["catalog", "search", "banished"], capsys)[1])
    assert rows["Screambent Lunatic"] == "ability text"


def test_search_without_match_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["catalog", "search", "no", "such", "thing"], capsys)
    assert (code, out) == (1, "")
    assert err == "dbnet catalog search: no miniature matches 'no such thing'\n"


def test_empty_search_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["catalog", "search", " "], capsys)
    assert code == 2
    assert "search text is empty" in err


def test_show_gives_stats_abilities_and_sources(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["catalog", "show", "screambent", "LUNATIC"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Screambent Lunatic (screambent-lunatic)"
    assert "  cost:       9 MMM (spawn cost 9; aspect cost 3 Madness)" in lines
    assert "  power:      4" in lines
    assert "  defense:    7" in lines
    assert "  life:       12" in lines
    wail = lines.index("    Wail [blade]")
    assert lines[wail + 1 : wail + 5] == [
        "      Roll two initiative dice and banish each creature in the dreamscape whose",
        "      spawn cost equals their total.",
        "      Text: Roll two initiative dice and add them up. Every creature whose spawn",
        "      cost equals the total is banished: it goes back to its owner's reserves.",
    ]
    assert "  confidence: high" in lines
    assert "    https://www.pojo.com/dreamblade/cotd/2006/Aug/17.shtml" in lines
    assert max(len(line) for line in lines) <= 80


def test_show_explains_numbers_modifiers_and_spawn_costs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = run(["catalog", "show", "starfall-observatory"], capsys)[1]
    assert "    Warpstrike X [X spawn, score]\n" in out
    assert "      Makes an X-power attack (X: the points paid) against target nonlocal\n" in out
    assert "Only while it is on one of your scoring cells." in out
    out = run(["catalog", "show", "Valorbane Demon"], capsys)[1]
    assert "    Fight Valor +2 [always]\n" in out
    assert "      Has +2 power while an enemy of type Valor is in its cell.\n" in out
    out = run(["catalog", "show", "Brood Cocoon"], capsys)[1]
    assert "    Raise [2 spawn]\n" in out
    assert "      Text: Pay 2 spawn points: put a creature from your graveyard into" in out


def test_show_unplayable_ability_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(["catalog", "show", "Temple Lion"], capsys)[1]
    assert "    (name unknown) [activation unknown] (not played by dbnet: '(name unknown)'\n" in out
    assert "      Not played by dbnet: An ability involving local allies" in out
    assert "Text:" not in out  # the explanation already quotes it


def test_every_miniature_shows_within_80_columns_with_every_ability_explained(
    catalog: Catalog,
) -> None:
    for mini in catalog:
        out = command.format_details(catalog, mini)
        assert max(len(line) for line in out.splitlines()) <= 80, mini.name
        flat = " ".join(out.split())
        for ability in mini.abilities:
            assert command.ability_label(ability) in flat, mini.name
            assert " ".join(explain(ability).split()) in flat, mini.name
            assert " ".join(ability.text.split()) in flat, mini.name


def test_show_location_and_original(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(["catalog", "show", "temple"], capsys)[1]
    assert "  type:       location" in out
    assert "power" not in out
    out = run(["catalog", "show", "wildkin-warden"], capsys)[1]
    assert "  set:        dbnet Originals (dbnet original)" in out
    assert "  abilities:  none" in out
    assert "not played" not in out


def test_show_unknown_name_raises_with_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(DataError, match=r"no miniature named 'Tempel Lion' .*'Temple Lion'"):
        run(["catalog", "show", "Tempel", "Lion"], capsys)


def test_ability_labels() -> None:
    assert command.ability_label(AbilityDef("Crit", Activation.BLADE, x=2)) == "Crit 2 [blade]"
    assert (
        command.ability_label(AbilityDef("Nullify", modifier="Valor")) == "Nullify Valor [always]"
    )
    spawn = AbilityDef("Call", Activation.SPAWN, spawn_cost=2, score=True)
    assert command.ability_label(spawn) == "Call [2 spawn, score]"
    assert command.ability_label(AbilityDef("Enrage", x=1)) == "Enrage +1 [always]"
    assert command.ability_label(AbilityDef("Enrage", x=-1)) == "Enrage -1 [always]"
    assert command.ability_label(AbilityDef("Fumble", Activation.MULTIBLADE, x=2)) == (
        "Fumble 2 [multiblade]"
    )
    assault = AbilityDef("Assault", Activation.SPAWN, cost_x=True)
    assert command.ability_label(assault) == "Assault X [X spawn]"


# dbnet catalog keywords


def keyword_blocks(out: str) -> dict[str, list[str]]:
    """The keywords listing as {keyword: its lines after the heading}."""
    names = sorted([*KEYWORDS, *CUSTOM], key=len, reverse=True)
    blocks: dict[str, list[str]] = {}
    for block in out.split("\n\n"):
        lines = block.splitlines()
        if len(lines) >= 3 and lines[-1].startswith("  On: "):
            heading = lines[0]
            name = next(n for n in names if heading.startswith((n + " ", n + "  (")))
            blocks[name] = lines[1:]
    return blocks


def carriers_line(lines: list[str]) -> str:
    text = " ".join(line.strip() for line in lines)
    return text[text.index("On: ") + 4 :]


def test_keywords_lists_each_keyword_with_its_carriers(
    catalog: Catalog, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["catalog", "keywords"], capsys)
    assert code == 0
    blocks = keyword_blocks(out)
    assert list(blocks) == [*KEYWORDS, *CUSTOM]
    for name, keyword in KEYWORDS.items():
        lines = blocks[name]
        assert " ".join(keyword.summary.split()) in " ".join(" ".join(lines).split()), name
        carriers = [m.name for m in catalog if any(a.keyword == name for a in m.abilities)]
        assert carriers_line(lines) == ", ".join(carriers), name
    assert [carriers_line(blocks[name]) for name in CUSTOM] == [
        "Lockjaw", "Darkheart Cottage", "Pearlthorn Castle",
    ]  # fmt: skip
    assert "Not played by dbnet (their effect is unknown): Temple, Temple Lion." in out
    assert (
        out.splitlines()[-1]
        == f"{len(KEYWORDS)} keywords and {len(CUSTOM)} miniatures' own effects."
    )
    assert max(len(line) for line in out.splitlines()) <= 80


def test_keyword_headings_show_numbers_modifiers_and_activations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = run(["catalog", "keywords"], capsys)[1]
    lines = out.splitlines()
    assert (
        'Advance [modifier] [X]  (activated: any blade, spawn or comes into play; "may")' in lines
    )
    assert "Fight TYPE +X  (static)" in lines
    assert "Unique NAME  (static)" in lines
    assert "Ambush X  (triggered)" in lines
    assert "Lockdown  (activated: comes into play)" in lines


def test_one_keyword_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["catalog", "keywords", "hell's", "FURY"], capsys)
    assert code == 0
    assert out == (
        "Hell's Fury  (static)\n"
        "  Local and adjacent Hellbred allies have the blade ability Crit 2.\n"
        "  On: Hellgate Herald\n"
    )
    out = run(["catalog", "keywords", "lockdown"], capsys)[1]
    assert out.startswith("Lockdown  (activated: comes into play)\n")


def test_unknown_keyword_raises_with_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(
        DataError, match=r"^no ability keyword named 'Critt'; did you mean 'Crit'\?$"
    ):
        run(["catalog", "keywords", "Critt"], capsys)
    with pytest.raises(DataError, match=r"'dbnet catalog keywords' lists them all"):
        run(["catalog", "keywords", "zzzz"], capsys)


def test_keywords_of_another_catalog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        "one.toml",
        '[[mini]]\nname = "Moth"\ntype = "creature"\nspawn_cost = 1\naspects = []\n'
        "power = 1\ndefense = 1\nlife = 1\n"
        'abilities = [{ keyword = "Crit", activation = "blade", x = 1 }]\n',
    )
    blocks = keyword_blocks(run(["catalog", "--catalog", str(path), "keywords"], capsys)[1])
    assert carriers_line(blocks["Crit"]) == "Moth"
    assert carriers_line(blocks["Wail"]) == "no miniature in this catalog"


# The real command, as users meet it.


def test_real_command_lists(tmp_path: Path) -> None:
    done = dbnet("catalog", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Temple Lion" in done.stdout
    assert "8 V" in done.stdout
    assert done.stderr == ""


def test_real_command_show_search_and_keywords(tmp_path: Path) -> None:
    done = dbnet("catalog", "show", "Lockjaw", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "    Lockdown [comes into play]\n      Choose a cell:" in done.stdout
    done = dbnet("catalog", "search", "hellbred", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Magmaheart Tyrant" in done.stdout
    assert "lineage Hellbred" in done.stdout
    done = dbnet("catalog", "keywords", "Dissipate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Dissipate  (activated: any blade, spawn or comes into play)\n")
    assert "  On: Gloamblade Duelist\n" in done.stdout


def test_real_command_unknown_keyword_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = dbnet("catalog", "keywords", "Bodygaurd", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "dbnet catalog: no ability keyword named 'Bodygaurd'; did you mean 'Bodyguard'?\n"
    )


def test_real_command_unknown_name_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = dbnet("catalog", "show", "Sir Glorius", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "dbnet catalog: no miniature named 'Sir Glorius' in the catalog; "
        "did you mean 'Sir Glorious'?\n"
    )


def test_real_command_bad_catalog_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    write(tmp_path, "bad.toml", '[[mini]]\nname = "Moth"\ntype = "bug"\n')
    done = dbnet("catalog", "--catalog", "bad.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "dbnet catalog: bad.toml, entry 1 ('Moth'): field 'type' must be one of "
        "'creature', 'location', got 'bug'\n"
    )


def test_real_command_search_without_match_exits_1(tmp_path: Path) -> None:
    done = dbnet("catalog", "search", "qqqq", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "dbnet catalog search: no miniature matches 'qqqq'\n"
