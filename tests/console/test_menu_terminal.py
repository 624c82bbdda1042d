"""``dbnet`` with no command in a real terminal (tmux, 80x24): the main menu, a new
warband made in the builder from Warbands, and the pre-game screen: an illegal warband
refused with its rule, mended in the builder, then a game against the greedy bot."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from dbnet.catalog import load_catalog, read_warband_list, save_warband

from .tmux import Tmux

MENU = "Play against the computer  (p)"


def open_menu(tmux: Tmux) -> str:
    tmux.type(shlex.join([sys.executable, "-m", "dbnet"]) + "; echo EXIT=$?")
    tmux.keys("Enter")
    return tmux.wait_for(MENU)


def fits(pane: str) -> bool:
    return all(len(line) <= 80 for line in pane.splitlines())


def test_the_menu_makes_a_warband_and_lists_it(tmux: Tmux, dbnet_home: Path) -> None:
    pane = open_menu(tmux)
    assert pane.splitlines()[0].strip() == "dbnet: Dreamblade"
    assert "> Play against the computer" in pane
    assert "Choose your warband, the bot and your seat" in pane  # the item's help line
    tmux.keys("Down")
    pane = tmux.wait_for("> Warbands  (w)")
    assert "Your warband files and the shipped ones" in pane
    tmux.keys("Enter")
    pane = tmux.wait_for("Warbands: yours in /")
    assert "Bulwark of Dawn" in pane
    assert "shipped warband-a.toml" in pane
    assert fits(pane)

    tmux.keys("n")
    tmux.wait_for("Name of the new warband:")
    tmux.type("Test Band")
    tmux.keys("Enter")
    tmux.wait_for("Warband builder: Test Band")
    tmux.keys("/")
    tmux.type("gorehound")
    tmux.wait_for("Catalog (1)")
    tmux.keys("Enter", "Enter", "Enter", "Enter")  # to the catalog, then 3 copies
    tmux.wait_for("Legal: at most 16 miniatures (600.1)")
    tmux.keys("C-s")
    tmux.wait_for("saved ")
    tmux.keys("C-q")
    path = dbnet_home / "warbands" / "test-band.toml"
    pane = tmux.wait_for("Test Band: /")  # the file saved, in the message line
    row = next(line for line in pane.splitlines() if line.startswith("> "))
    assert row.split() == [">", "Test", "Band", "yours", "test-band.toml", "9", "legal"]
    assert fits(pane)
    listed = read_warband_list(path, load_catalog())
    assert [(m.name, n) for m, n in listed.entries] == [("Frenzied Gorehound", 3)]

    tmux.keys("Escape")
    tmux.wait_for(MENU)
    tmux.keys("q")
    tmux.wait_for("EXIT=0")


def test_the_pregame_screen_refuses_mends_and_starts_a_game(tmux: Tmux, dbnet_home: Path) -> None:
    catalog = load_catalog()
    folder = dbnet_home / "warbands"
    folder.mkdir(parents=True)
    path = folder / "big.toml"
    save_warband(path, "Big Pack", [(catalog.get("Frenzied Gorehound"), 4)])

    open_menu(tmux)
    tmux.keys("p")
    pane = tmux.wait_for("New game against the computer")
    assert "> Bulwark of Dawn" in pane
    assert "default" in pane
    assert "Opponent: the greedy bot" in pane
    assert fits(pane)
    tmux.keys("Down")
    pane = tmux.wait_for("> Big Pack")
    assert "NOT LEGAL 600.3: 4 copies of 'Frenzied Gorehound' (at most 3)" in pane
    tmux.keys("Enter")
    pane = tmux.wait_for("Cannot start: Big Pack is not legal: 600.3: 4 copies of 'Frenzied")
    refusal = " ".join(pane.split("Cannot start: ")[1].split("Enter: play")[0].split())
    assert refusal == "Big Pack is not legal: 600.3: 4 copies of 'Frenzied Gorehound' (at most 3)"

    # e: the builder on the file; one copy fewer, saved; back to the pre-game screen
    tmux.keys("e")
    tmux.wait_for("Warband builder: Big Pack")
    tmux.keys("Tab", "-")
    tmux.wait_for("Legal: at most 16 miniatures (600.1)")
    tmux.keys("C-s")
    tmux.wait_for("saved ")
    tmux.keys("C-q")
    pane = tmux.wait_for("New game against the computer")
    row = next(line for line in pane.splitlines() if line.startswith("> "))
    assert row.split()[-4:] == ["yours", "big.toml", "9", "legal"]
    assert "Legal: at most 16 miniatures (600.1)" in pane

    # Enter: the game client, as dbnet play --warband big.toml gives it
    tmux.keys("Enter")
    pane = tmux.wait_for("Your decision: A to spawn")
    assert pane.splitlines()[0].startswith(" Turn 1, spawn phase of A")
    assert "* 4+ frenzied-gore~#1" in pane  # A's reserves (copies numbered): the mended warband
    assert fits(pane)
    tmux.type("quit")
    tmux.keys("Enter")
    tmux.wait_for("Quit? The game is saved")
    tmux.keys("y")
    pane = tmux.wait_for(MENU)
    assert "Last game: dbnet play --bot greedy --side A --warband" in pane
    tmux.keys("r")
    pane = tmux.wait_for("Replays in")
    assert ".dbnr" in pane
    tmux.keys("Enter")  # the replay viewer on the game just left
    pane = tmux.wait_for("PgUp PgDn turn")
    assert "unfinished" in pane.splitlines()[0]
    tmux.keys("q")
    tmux.wait_for("Replays in")
    tmux.keys("Escape")
    tmux.wait_for(MENU)
    tmux.keys("q")
    pane = tmux.wait_for("EXIT=0")
    assert "Replay saved" in tmux.text()


def test_the_menu_follows_the_terminal_size_and_ctrl_c_ends_it(
    tmux: Tmux, dbnet_home: Path
) -> None:
    # 24 warbands of one's own: more than an 80x24 list shows (the installed package
    # may have no examples beside it, so the test brings its own)
    folder = dbnet_home / "warbands"
    folder.mkdir(parents=True)
    example = Path(__file__).parents[2] / "examples" / "warbands" / "lost-janus-small.toml"
    for n in range(1, 25):
        (folder / f"band-{n:02}.toml").write_text(example.read_text())
    open_menu(tmux)
    tmux.keys("p")
    pane = tmux.wait_for("New game against the computer")
    assert "band-01.toml" in pane
    assert "band-22.toml" not in pane
    tmux.resize(120, 40)
    pane = tmux.wait_for("band-22.toml")  # more rows shown
    assert "Enter: play" in pane
    tmux.resize(70, 20)
    tmux.wait_for("dbnet needs at least 80x24")
    tmux.resize(80, 24)
    tmux.wait_for("Enter: play")
    tmux.keys("C-c")
    tmux.wait_for("EXIT=130")
