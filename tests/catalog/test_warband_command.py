"""``dbnet warband check`` and ``show``: every rule of 600 a file breaks, one line each
quoting the rule; exit 0 legal, 1 a breach, 2 not a warband."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.catalog import load_catalog
from dbnet.cli import main

from .helpers import EXAMPLE_WARBANDS, dbnet, write


def test_every_example_is_legal(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(str(p) for p in EXAMPLE_WARBANDS.glob("*.toml"))
    assert main(["warband", "check", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(files)
    version = load_catalog().version
    assert all(line.endswith(f"catalog {version}") and ": legal: " in line for line in out)


def test_each_breach_is_one_line_quoting_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        "big.toml",
        'name = "Big"\nminis = [{ name = "Frenzied Gorehound", count = 4 }, '
        '{ name = "Lantern Page", count = 3 }, { name = "Chitter Drone", count = 3 }, '
        '{ name = "Emberfang Cub", count = 3 }, { name = "Brimstone Imp", count = 3 }, '
        '"Frenzied Gorehound"]\n',
    )
    assert main(["warband", "check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: 600.1: 17 miniatures (at most 16)",
        f"{path}: 600.3: 5 copies of 'Frenzied Gorehound' (at most 3)",
    ]


def test_not_a_warband_exits_2_naming_the_line_or_the_nearest_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = write(tmp_path, "broken.toml", 'name = "B"\nminis = [ = ]\n')
    unknown = write(tmp_path, "unknown.toml", 'name = "B"\nminis = ["Frenzied Gorhound"]\n')
    legal = write(tmp_path, "legal.toml", 'name = "B"\nminis = ["Frenzied Gorehound"]\n')
    assert main(["warband", "check", str(broken), str(unknown), str(legal)]) == 2
    out, err = capsys.readouterr()
    assert "line 2" in err.splitlines()[0]
    assert err.splitlines()[1] == (
        f"dbnet warband check: {unknown}, minis entry 1: no miniature named "
        "'Frenzied Gorhound' in the catalog; did you mean 'Frenzied Gorehound'?"
    )
    assert out.startswith(f"{legal}: legal: 1 miniatures")


def test_show_lists_costs_stats_and_the_aspect_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = EXAMPLE_WARBANDS / "infernal-pyre.toml"
    assert main(["warband", "show", str(path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[1].split() == ["N", "NAME", "TYPE", "COST", "PAYS", "P/D/L"]
    assert "3  Pyreclaw Zealot     creature  1 P    1-2    2/2/3" in lines
    assert "Passion: 14 miniatures of the aspect, needs up to 2, 17 symbols" in lines
    assert "Channel 1 (Crucible of Fury): your Passion miniatures cost 1 less to spawn," in out
    assert lines[-1].startswith("Legal: 16 miniatures")


def test_the_real_command_and_the_builder_needs_a_terminal(tmp_path: Path) -> None:
    done = dbnet("warband", "check", str(EXAMPLE_WARBANDS / "hive-terror.toml"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = dbnet("warband", "new", "My Band", cwd=tmp_path)
    assert done.returncode == 2
    assert "needs a terminal" in done.stderr
    write(tmp_path, "my-band.toml", 'name = "B"\nminis = ["Lantern Page"]\n')
    done = dbnet("warband", "new", "My Band", cwd=tmp_path)
    assert "my-band.toml: already exists; 'dbnet warband edit my-band.toml' opens it" in (
        done.stderr
    )
