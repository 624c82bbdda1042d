"""The main menu and the screens it opens: your warbands, your replays, and how to play
over the network. Each is a ``picker.ListModel``: no prompt-toolkit, no terminal.

``dbnet`` with no command, at a terminal, opens ``MainMenu`` (``dbnet.console.home``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dbnet.catalog import Catalog
from dbnet.console.builder import Draft
from dbnet.console.outcomes import Back, Edit, NewWarband, Open, View
from dbnet.console.picker import ListModel, Row, fit
from dbnet.console.shelf import WarbandFile, list_replays, read_shelf, replay_folder, warband_folder


@dataclass(frozen=True, slots=True)
class MenuItem:
    """An entry of the main menu: its words, its shortcut, its help line, and the
    screen it opens (None: quit)."""

    words: str
    key: str
    help: str
    opens: str | None


MENU_ITEMS = (
    MenuItem(
        "Play against the computer",
        "p",
        "Choose your warband, the bot and your seat, then play full screen (dbnet play).",
        "pregame",
    ),
    MenuItem(
        "Warbands",
        "w",
        "Your warband files and the shipped ones: check them, edit them, make new ones.",
        "warbands",
    ),
    MenuItem(
        "Replays", "r", "The games you played (saved as you play): step through them.", "replays"
    ),
    MenuItem(
        "Host / Join / Watch a network game",
        "h",
        "The commands that host, join, watch or go on with a game over the network.",
        "network",
    ),
    MenuItem("Quit", "q", "Leave dbnet.", None),
)
MENU_KEYS = "Up/Down or j/k, Enter: choose  letters: shortcut  q/Esc: quit"


class MainMenu(ListModel):
    title = "dbnet: Dreamblade"

    def __init__(self, home: Path | None = None) -> None:
        super().__init__()
        self.home = home
        """The dbnet home (``config_dir()``), said under the menu."""

    def rows(self) -> Sequence[Row]:
        return [Row(f"{item.words}  ({item.key})") for item in MENU_ITEMS]

    def details(self) -> list[str]:
        if self.home is None:
            return [MENU_KEYS]
        return [MENU_KEYS, f"Your warbands and replays: {self.home}/warbands, {self.home}/replays"]

    def help(self) -> str:
        return MENU_ITEMS[self.cursor].help

    def act(self, key: str) -> object | None:
        if key in ("escape", "q"):
            return Back()
        if key == "enter":
            return self._choose(MENU_ITEMS[self.cursor])
        for i, item in enumerate(MENU_ITEMS):
            if key.lower() == item.key:
                self.cursor = i
                return self._choose(item)
        return None

    @staticmethod
    def _choose(item: MenuItem) -> object:
        return Open(item.opens) if item.opens is not None else Back()


# --- warbands ------------------------------------------------------------------------------

LABEL = 30
VERDICT = len("NOT A WARBAND")


def warband_row(item: WarbandFile, width: int = 78) -> Row:
    """``'Bulwark of Dawn       yours bulwark.toml     63 legal'``: the name, where it is,
    its spawn costs added up, and whether it may be played (``width`` with the cursor's
    two columns)."""
    name = fit(item.name, _name_room(width))
    label = fit(item.label(), LABEL)
    style = "" if item.verdict() == "legal" else "error"
    return Row(
        f"{name:<{_name_room(width)}} {label:<{LABEL}} {item.spawn_cost:>4} {item.verdict()}", style
    )


def warband_heading(width: int = 78) -> str:
    """The column names above ``warband_row``s."""
    return f"{'WARBAND':<{_name_room(width)}} {'FILE':<{LABEL}} COST"


def _name_room(width: int) -> int:
    return max(12, width - 2 - LABEL - 1 - 4 - 1 - VERDICT - 1)


def warband_details(item: WarbandFile, catalog: Catalog) -> list[str]:
    """The builder's lines for the warband (counts, costs, aspects, legality), or why the
    file is no warband."""
    where = str(item.path) if item.path is not None else "shipped, what dbnet play gives you"
    head = f"{item.name} ({where})" + (", read-only" if item.read_only else "")
    if item.listed is None:
        return [head, f"not a warband: {item.error}"]
    return [head, *Draft.from_list(item.listed, Path(), catalog).status_lines()]


class WarbandsScreen(ListModel):
    """Your warbands and the shipped ones; Enter edits (a copy of a read-only one), ``n``
    makes a new one."""

    title = "Warbands"

    def __init__(self, catalog: Catalog, select: Path | None = None) -> None:
        super().__init__()
        self.catalog = catalog
        self.items: list[WarbandFile] = []
        self.reload(select)

    def reload(self, select: Path | None = None) -> None:
        """Read the files again; put the cursor on ``select`` if it is listed, else keep it
        on the list (files may have gone meanwhile)."""
        self.items = read_shelf(self.catalog)
        paths = [item.path for item in self.items]
        if select is not None and select in paths:
            self.cursor = paths.index(select)
        self.keep_cursor_on_rows()
        self.title = f"Warbands: yours in {warband_folder()}"

    def heading(self) -> str:
        return warband_heading()

    def rows(self) -> Sequence[Row]:
        return [warband_row(item) for item in self.items]

    def details(self) -> list[str]:
        if not self.items:
            return ["No warband yet: n makes one."]
        return warband_details(self.items[self.cursor], self.catalog)

    def help(self) -> str:
        if self.items and self.items[self.cursor].read_only:
            return "Enter: edit a copy  n: new warband  Esc/q: back"
        return "Enter: edit  n: new warband  Esc/q: back"

    def act(self, key: str) -> object | None:
        if key in ("escape", "q"):
            return Back()
        if key == "enter" and self.items:
            item = self.items[self.cursor]
            if item.listed is None:
                self.message = f"Cannot edit it: {item.error}"
                return None
            return Edit(item)
        if key == "n":
            self.asking = "Name of the new warband: "
        return None

    def answer(self, text: str | None) -> object | None:
        return new_warband(self, text)


def new_warband(model: ListModel, text: str | None) -> object | None:
    """The answer to "name of the new warband": a ``NewWarband``, or a message."""
    if text is None:
        return None
    name = text.strip()
    if not name:
        model.message = "No warband made: the name is empty"
        return None
    return NewWarband(name)


# --- replays -------------------------------------------------------------------------------


class ReplaysScreen(ListModel):
    """The replay files in your replay folder, newest first; Enter views one."""

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__()
        self.folder = replay_folder() if folder is None else folder
        self.paths = list_replays(self.folder)
        self.title = f"Replays in {self.folder}"

    def rows(self) -> Sequence[Row]:
        return [Row(path.name) for path in self.paths]

    def details(self) -> list[str]:
        if not self.paths:
            return ["No replays yet: every game against the computer is saved here."]
        path = self.paths[self.cursor]
        return [str(path), f"Check it: dbnet verify {path}"]

    def help(self) -> str:
        return "Enter: view the replay  Esc/q: back"

    def act(self, key: str) -> object | None:
        if key in ("escape", "q"):
            return Back()
        if key == "enter" and self.paths:
            return View(self.paths[self.cursor])
        return None


# --- network -------------------------------------------------------------------------------

NETWORK = (
    (
        "Host a game (you play A)",
        [
            "dbnet host",
            "It prints an invite line: send it to your opponent. Options: --warband FILE, "
            "--bot LEVEL, --spectators N, --turns-to-win N (docs/network.md).",
        ],
    ),
    (
        "Join a game (you play B)",
        [
            "dbnet join INVITE",
            "INVITE is the line the host sent you (HOST:PORT only if it hosts with --open).",
        ],
    ),
    (
        "Watch a game",
        ["dbnet watch INVITE", "The host must admit spectators (dbnet host --spectators N)."],
    ),
    (
        "Go on with an adjourned game",
        ["dbnet resume FILE [HOST:PORT]", "FILE is your replay of the game (see Replays)."],
    ),
)


class NetworkScreen(ListModel):
    """The command lines of network play (the menu does not run them)."""

    title = "Network games: quit the menu (q) and type the command"

    def rows(self) -> Sequence[Row]:
        return [Row(words) for words, _ in NETWORK]

    def details(self) -> list[str]:
        command, *rest = NETWORK[self.cursor][1]
        return [f"$ {command}", *rest]

    def help(self) -> str:
        return "Up/Down: which game  Esc/q: back"

    def act(self, key: str) -> object | None:
        if key in ("escape", "q"):
            return Back()
        if key == "enter":
            self.message = f"Quit the menu and type: {NETWORK[self.cursor][1][0]}"
        return None
