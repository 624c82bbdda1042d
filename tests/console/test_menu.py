"""The main menu's screens as models (no terminal): the menu, the warband and replay
lists, the network commands, and the pre-game screen; and ``dbnet`` with no command
without a terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet import cli
from dbnet.catalog import Catalog, load_catalog, save_warband
from dbnet.console import home
from dbnet.console.builder import Draft
from dbnet.console.menu import (
    MENU_ITEMS,
    MainMenu,
    NetworkScreen,
    ReplaysScreen,
    WarbandsScreen,
    warband_heading,
    warband_row,
)
from dbnet.console.outcomes import Back, Edit, NewWarband, Open, Start, View
from dbnet.console.pregame import Pregame, play_argv
from dbnet.console.shelf import (
    Origin,
    list_replays,
    new_warband_path,
    read_shelf,
    warband_folder,
)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def write_band(catalog: Catalog, name: str, count: int) -> Path:
    """A warband of ``count`` Frenzied Gorehounds in your warband folder."""
    folder = warband_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = new_warband_path(name, folder)
    save_warband(path, name, [(catalog.get("Frenzied Gorehound"), count)])
    return path


def write_broken(name: str = "broken.toml") -> Path:
    folder = warband_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text('name = "Broken"\nminis = ["No Such Thing"]\n', encoding="utf-8")
    return path


# --- the main menu ---------------------------------------------------------------------------


def test_the_menu_moves_with_arrows_and_j_k_and_opens_by_enter_or_letter() -> None:
    menu = MainMenu()
    assert next(row.text for row in menu.rows()) == "Play against the computer  (p)"
    assert menu.help() == MENU_ITEMS[0].help
    assert menu.press("down") is None
    assert menu.press("j") is None
    assert menu.cursor == 2
    assert menu.press("enter") == Open("replays")
    assert menu.press("k") is None
    assert menu.cursor == 1
    assert menu.help().startswith("Your warband files")
    assert menu.press("up") is None
    assert menu.press("up") is None  # stays at the top
    assert menu.cursor == 0
    assert menu.press("end") is None
    assert menu.press("enter") == Back()  # Quit
    assert menu.press("w") == Open("warbands")
    assert menu.cursor == 1
    assert menu.press("h") == Open("network")
    assert menu.press("P") == Open("pregame")
    assert menu.press("x") is None
    assert menu.press("q") == Back()
    assert menu.press("escape") == Back()


def test_every_item_has_its_own_letter_and_a_help_line_that_fits_80_columns() -> None:
    assert len({item.key for item in MENU_ITEMS}) == len(MENU_ITEMS)
    assert all(item.words.lower().startswith(item.key) for item in MENU_ITEMS)
    assert all(0 < len(item.help) <= 80 for item in MENU_ITEMS)


# --- the warband shelf -----------------------------------------------------------------------


def test_the_shelf_lists_yours_then_the_shipped_ones_read_only(catalog: Catalog) -> None:
    legal = write_band(catalog, "Pack", 3)
    illegal = write_band(catalog, "Big Pack", 4)
    broken = write_broken()
    shelf = read_shelf(catalog)
    assert [item.path for item in shelf[:3]] == [illegal, broken, legal]  # by file name
    assert [item.origin for item in shelf[:3]] == [Origin.YOURS] * 3
    assert not any(item.read_only for item in shelf[:3])
    shipped = [item for item in shelf if item.origin is Origin.SHIPPED]
    assert [item.name for item in shipped] == ["Bulwark of Dawn", "Infernal Pyre"]
    assert all(item.read_only and item.verdict() == "legal" for item in shipped)
    big, bad, pack = shelf[:3]
    assert pack.verdict() == "legal"
    assert pack.refusal == ""
    assert pack.spawn_cost == 9
    assert big.verdict() == "NOT LEGAL"
    assert big.refusal == "not legal: 600.3: 4 copies of 'Frenzied Gorehound' (at most 3)"
    assert bad.verdict() == "NOT A WARBAND"
    assert bad.name == "broken.toml"
    assert "No Such Thing" in bad.refusal
    with_default = read_shelf(catalog, with_default=True)
    assert with_default[0].origin is Origin.DEFAULT
    assert with_default[0].path is None
    assert with_default[0].name == "Bulwark of Dawn"
    assert [i.name for i in with_default if i.origin is Origin.SHIPPED] == ["Infernal Pyre"]


def test_rows_fit_80_columns_and_line_up_under_the_heading(catalog: Catalog) -> None:
    write_band(catalog, "A warband with a name much longer than any column holds", 3)
    shelf = read_shelf(catalog)
    rows = [warband_row(item) for item in shelf]
    assert all(len(row.text) <= 78 for row in rows)
    cost = warband_heading().index("COST")
    assert all(row.text[cost : cost + 4].strip().isdigit() for row in rows)
    assert rows[0].text.startswith("A warband with a name mu")


def test_the_cursor_stays_on_the_list_when_warbands_go_meanwhile(catalog: Catalog) -> None:
    """Warband files deleted while the list was away (in the builder): read again, the
    list keeps its cursor on its last row, where its details once failed (IndexError)."""
    paths = [write_band(catalog, f"Pack {i}", 3) for i in range(3)]
    screen = WarbandsScreen(catalog)
    screen.press("end")
    before = len(screen.items)
    for path in paths:
        path.unlink()
    screen.reload()
    assert len(screen.items) == before - 3
    assert screen.cursor == len(screen.items) - 1
    assert screen.details()[0].startswith(screen.items[-1].name)


def test_a_new_warband_file_never_takes_a_name_already_used(tmp_path: Path) -> None:
    assert new_warband_path("Hive Terror!", tmp_path) == tmp_path / "hive-terror.toml"
    (tmp_path / "hive-terror.toml").write_text("")
    (tmp_path / "hive-terror-2.toml").write_text("")
    assert new_warband_path("hive terror", tmp_path) == tmp_path / "hive-terror-3.toml"
    assert new_warband_path("!!!", tmp_path) == tmp_path / "warband.toml"


def test_the_warbands_screen_edits_makes_and_refuses_a_broken_file(catalog: Catalog) -> None:
    broken = write_broken("a-broken.toml")
    pack = write_band(catalog, "Pack", 3)
    screen = WarbandsScreen(catalog, select=pack)
    assert screen.cursor == 1
    assert str(warband_folder()) in screen.title
    assert screen.help() == "Enter: edit  n: new warband  Esc/q: back"
    details = screen.details()
    assert details[0] == f"Pack ({pack})"
    assert details[-1].startswith("Legal: at most 16 miniatures (600.1)")
    outcome = screen.press("enter")
    assert isinstance(outcome, Edit)
    assert outcome.warband.path == pack
    assert screen.press("up") is None
    assert screen.press("enter") is None
    assert screen.message.startswith(f"Cannot edit it: {broken}")
    assert screen.details()[-1].startswith("not a warband:")
    assert screen.press("end") is None
    assert screen.help() == "Enter: edit a copy  n: new warband  Esc/q: back"
    assert screen.details()[0].endswith(", read-only")
    assert screen.press("n") is None
    assert screen.asking == "Name of the new warband: "
    assert screen.give("   ") is None
    assert screen.message == "No warband made: the name is empty"
    assert not screen.asking
    screen.press("n")
    assert screen.give(None) is None  # Escape
    screen.press("n")
    assert screen.give(" Night Pack ") == NewWarband("Night Pack")
    assert screen.press("q") == Back()


# --- replays and network ---------------------------------------------------------------------


def test_the_replays_screen_lists_the_newest_first(tmp_path: Path) -> None:
    empty = ReplaysScreen(tmp_path / "none")
    assert empty.rows() == []
    assert empty.press("enter") is None
    assert empty.details()[0].startswith("No replays yet")
    for name in ("20260101-120000-aa.dbnr", "20260102-090000-bb.dbnr", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in list_replays(tmp_path)] == [
        "20260102-090000-bb.dbnr",
        "20260101-120000-aa.dbnr",
    ]
    screen = ReplaysScreen(tmp_path)
    screen.press("down")
    assert screen.press("enter") == View(tmp_path / "20260101-120000-aa.dbnr")
    assert screen.details()[1] == f"Check it: dbnet verify {tmp_path / '20260101-120000-aa.dbnr'}"
    assert screen.press("escape") == Back()


def test_the_network_screen_shows_the_commands() -> None:
    screen = NetworkScreen()
    assert screen.details()[0] == "$ dbnet host"
    screen.press("down")
    assert screen.details()[0] == "$ dbnet join INVITE"
    assert screen.press("enter") is None
    assert screen.message == "Quit the menu and type: dbnet join INVITE"
    assert screen.press("escape") == Back()


# --- the pre-game screen ---------------------------------------------------------------------


def test_the_pregame_screen_starts_what_dbnet_play_starts(catalog: Catalog) -> None:
    pack = write_band(catalog, "Pack", 3)
    pregame = Pregame(catalog)
    assert pregame.rows()[0].text.startswith("Bulwark of Dawn")
    assert "default" in pregame.rows()[0].text
    assert pregame.press("enter") == Start(("play", "--bot", "greedy", "--side", "A"))
    assert pregame.details()[-2].startswith("Opponent: the greedy bot (one decision ahead")
    assert pregame.details()[-1] == "Your seat: A (portal e1)"
    pregame.press("b")
    pregame.press("b")
    assert pregame.bot == "normal"
    assert "searches 0.7 s per decision" in pregame.details()[-2]
    pregame.press("left")
    pregame.press("left")
    pregame.press("left")
    assert pregame.bot == "random"
    pregame.press("left")
    assert pregame.bot == "hard"  # round
    pregame.press("right")
    pregame.press("right")
    pregame.press("s")
    assert pregame.details()[-1] == "Your seat: B (portal a5)"
    pregame.press("down")
    assert pregame.selected is not None
    assert pregame.selected.path == pack
    argv = ("play", "--bot", "greedy", "--side", "B", "--warband", str(pack))
    assert pregame.press("enter") == Start(argv)
    outcome = pregame.press("e")
    assert isinstance(outcome, Edit)
    assert outcome.warband.path == pack
    pregame.press("n")
    assert pregame.give("New") == NewWarband("New")
    assert pregame.press("escape") == Back()


def test_an_illegal_warband_cannot_start_and_the_screen_quotes_the_rule(catalog: Catalog) -> None:
    big = write_band(catalog, "Big", 4)
    broken = write_broken("c.toml")
    pregame = Pregame(catalog, select=big)
    assert pregame.selected is not None
    assert pregame.selected.path == big
    assert pregame.press("enter") is None
    assert pregame.message == (
        "Cannot start: Big is not legal: 600.3: 4 copies of 'Frenzied Gorehound' (at most 3)"
    )
    assert "NOT LEGAL 600.3: 4 copies of 'Frenzied Gorehound' (at most 3)" in pregame.details()
    pregame.reload(broken)
    assert pregame.press("enter") is None
    assert pregame.message.startswith(f"Cannot start: c.toml is not a warband: {broken}")
    assert pregame.press("e") is None
    assert pregame.message.startswith("Cannot edit it:")


def test_the_pregame_command_line_is_dbnet_plays_own(tmp_path: Path) -> None:
    parser = cli.build_parser()
    args = parser.parse_args(play_argv(tmp_path / "w.toml", "hard", "B"))
    assert (args.command, args.bot, args.side, args.warband) == (
        "play",
        "hard",
        "B",
        tmp_path / "w.toml",
    )
    default = parser.parse_args(play_argv(None, "greedy", "A"))
    assert default.warband is None
    assert default.opponent is None


def test_without_a_terminal_dbnet_prints_its_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == cli.EXIT_USAGE
    assert capsys.readouterr().out.startswith("usage: dbnet [-h]")


def test_the_bots_warband_is_the_default_or_a_legal_file(catalog: Catalog) -> None:
    write_band(catalog, "Big", 4)  # not legal: never the bot's
    pack = write_band(catalog, "Pack", 3)
    pregame = Pregame(catalog)
    assert pregame.details()[-2].endswith("playing Infernal Pyre (default)")
    choices = pregame.opponents()
    assert choices[0] is None
    assert all(c is not None and c.refusal == "" for c in choices[1:])
    assert [c.path for c in choices[1:2] if c is not None] == [pack]
    pregame.press("o")
    assert pregame.details()[-2].endswith("playing Pack")
    start = pregame.press("enter")
    assert start == Start(("play", "--bot", "greedy", "--side", "A", "--opponent", str(pack)))
    pregame.reload()
    assert pregame.opponent is not None
    assert pregame.opponent.path == pack  # kept when the list is read again
    for _ in range(len(choices) - 1):
        pregame.press("o")
    assert pregame.opponent is None  # round to the default
    args = cli.build_parser().parse_args(play_argv(None, "random", "B", pack))
    assert args.opponent == pack


# --- what the menu does with the builder -----------------------------------------------------


class FakeBuilder:
    """Stands for ``Builder``: adds a Gorehound and saves, as Ctrl-S would."""

    def __init__(self, draft: Draft) -> None:
        self.draft = draft

    def run(self) -> int:
        self.draft.add(self.draft.catalog.get("Frenzied Gorehound"))
        self.draft.save()
        return 0


def test_a_shipped_warband_is_edited_as_a_copy_in_your_folder(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(home, "Builder", FakeBuilder)
    screen = WarbandsScreen(catalog)
    shipped = next(i for i in screen.items if i.origin is Origin.SHIPPED)
    assert shipped.path is not None
    before = shipped.path.read_bytes()
    saved = home.open_builder(Edit(shipped), catalog, screen)
    assert saved == warband_folder() / "bulwark-of-dawn.toml"
    assert shipped.path.read_bytes() == before  # never written
    assert screen.message == f"Bulwark of Dawn: {saved}"
    screen.reload(saved)
    assert screen.items[screen.cursor].path == saved
    assert screen.items[screen.cursor].origin is Origin.YOURS
    assert screen.items[screen.cursor].listed is not None
    again = home.open_builder(NewWarband("Bulwark of Dawn"), catalog, screen)
    assert again == warband_folder() / "bulwark-of-dawn-2.toml"  # never over another


def test_a_warband_left_unsaved_is_said_so(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Quitter(FakeBuilder):
        def run(self) -> int:
            self.draft.add(self.draft.catalog.get("Frenzied Gorehound"))
            return 0

    monkeypatch.setattr(home, "Builder", Quitter)
    pregame = Pregame(catalog)
    assert home.open_builder(NewWarband("Lost"), catalog, pregame) is None
    assert pregame.message == f"Not saved: {warband_folder() / 'lost.toml'}"
