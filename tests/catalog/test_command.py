"""``dbnet catalog``: listing, search and show, in process and as the real command."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.commands import catalog as command
from dbnet.errors import DataError

from .helpers import write


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Parse ``argv`` with a parser holding only the catalog command, run it, capture output."""
    parser = argparse.ArgumentParser(prog="dbnet")
    command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    code = args.func(args)
    out, err = capsys.readouterr()
    return code, out, err


def dbnet(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def test_list_shows_every_miniature_in_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["catalog"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "COST", "P/D/L", "ORIGIN", "ABILITIES"]
    assert lines[1].split() == ["Screambent", "Lunatic", "creature", "9", "MMM", "4/7/12",
                                "official", "1*"]  # fmt: skip
    assert "Darkheart Cottage       location  6 MMM   -" in out
    assert any(line.split()[:2] == ["Chitter", "Drone"] and "original" in line for line in lines)
    assert "35 miniatures: 9 official, 26 original." in lines
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


def test_search_lists_matches(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["catalog", "search", "janus"], capsys)
    assert code == 0
    names = [line[:24].strip() for line in out.splitlines()[1:-2]]
    assert names == [
        "Sir Glorious", "Spellbound Scissors", "Lantern Page", "Oathbound Halberdier",
        "Whisperthread Puppet", "Kaleidoscope Sovereign", "Twinmask Duelist",
    ]  # fmt: skip


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
    assert "    Wail [blade] (not implemented yet)" in lines
    assert "  confidence: high" in lines
    assert "    https://www.pojo.com/dreamblade/cotd/2006/Aug/17.shtml" in lines
    assert max(len(line) for line in lines) <= 80


def test_show_location_and_original(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(["catalog", "show", "temple"], capsys)[1]
    assert "  type:       location" in out
    assert "power" not in out
    out = run(["catalog", "show", "wildkin-warden"], capsys)[1]
    assert "  set:        dbnet Originals (dbnet original)" in out
    assert "  abilities:  none" in out
    assert "not implemented" not in out


def test_show_unknown_name_raises_with_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(DataError, match=r"no miniature named 'Tempel Lion' .*'Temple Lion'"):
        run(["catalog", "show", "Tempel", "Lion"], capsys)


def test_ability_labels() -> None:
    from dbnet.engine.model import AbilityDef, Activation

    assert command.ability_label(AbilityDef("Crit", Activation.BLADE, x=2)) == "Crit 2 [blade]"
    assert (
        command.ability_label(AbilityDef("Nullify", modifier="Valor")) == "Nullify Valor [always]"
    )
    spawn = AbilityDef("Call", Activation.SPAWN, spawn_cost=2, score=True)
    assert command.ability_label(spawn) == "Call [2 spawn, score]"


# The real command, as users meet it.


def test_real_command_lists(tmp_path: Path) -> None:
    done = dbnet("catalog", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Temple Lion" in done.stdout
    assert "8 V" in done.stdout
    assert done.stderr == ""


def test_real_command_show_and_search(tmp_path: Path) -> None:
    done = dbnet("catalog", "show", "Lockjaw", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Lockdown [triggered] (not implemented yet)" in done.stdout
    done = dbnet("catalog", "search", "hellbred", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Magmaheart Tyrant" in done.stdout


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
