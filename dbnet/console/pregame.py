"""The pre-game screen: before a game against the computer, choose your warband (yours,
the shipped ones, the default), the bot and your seat; edit or make a warband on the
way. A ``picker.ListModel``: no prompt-toolkit, no terminal.

Enter closes it with ``Start(argv)``, the ``dbnet play`` command line of that game, which
``dbnet.console.home`` runs through ``dbnet.cli.main``: the game starts exactly as that
command starts it. A warband that breaks a rule of 600, or a file that is no warband,
cannot start: the screen says why, quoting the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dbnet.bots import BOT_NAMES, LEVELS
from dbnet.catalog import Catalog, default_warbands
from dbnet.console.menu import new_warband, warband_details, warband_heading, warband_row
from dbnet.console.outcomes import Back, Edit, Start
from dbnet.console.picker import ListModel, Row
from dbnet.console.shelf import WarbandFile, read_shelf

DEFAULT_BOT = "greedy"
SEATS = ("A", "B")
PORTALS = {"A": "e1", "B": "a5"}
PREGAME_KEYS = "Enter: play  b/<- ->: bot  o: its warband  s: seat  e: edit  n: new  q: back"


def bot_words(name: str) -> str:
    """What the bot ``name`` is, in a few words."""
    if name == "random":
        return "any legal choice, at random"
    if name == "greedy":
        return "one decision ahead, by rules of thumb"
    return f"searches {LEVELS[name].seconds:g} s per decision"


class Pregame(ListModel):
    """Your warband (the rows), the bot, its warband and your seat."""

    title = "New game against the computer: choose your warband"

    def __init__(self, catalog: Catalog, select: Path | None = None) -> None:
        super().__init__()
        self.catalog = catalog
        self.items: list[WarbandFile] = []
        self.bot = DEFAULT_BOT
        self.seat = "A"
        self.default_opponent = default_warbands(catalog)[1].name
        self.opponent: WarbandFile | None = None
        """The bot's warband: None for the default (``dbnet play`` without ``--opponent``)."""
        self.reload(select)

    def reload(self, select: Path | None = None) -> None:
        """Read and check the warbands again; put the cursor on ``select`` if listed."""
        self.items = read_shelf(self.catalog, with_default=True)
        paths = [item.path for item in self.items]
        if select is not None and select in paths:
            self.cursor = paths.index(select)
        self.keep_cursor_on_rows()
        if self.opponent is not None:
            same = [i for i in self.opponents() if i is not None and i.path == self.opponent.path]
            self.opponent = same[0] if same else None

    def opponents(self) -> list[WarbandFile | None]:
        """The warbands the bot may play: the default (None), then every legal file."""
        return [None, *(i for i in self.items if i.path is not None and not i.refusal)]

    @property
    def selected(self) -> WarbandFile | None:
        return self.items[self.cursor] if self.items else None

    def heading(self) -> str:
        return warband_heading()

    def rows(self) -> Sequence[Row]:
        return [warband_row(item) for item in self.items]

    def details(self) -> list[str]:
        item = self.selected
        lines = warband_details(item, self.catalog) if item is not None else []
        lines = [line for line in lines if not line.startswith("Channel")]
        theirs = (
            f"{self.default_opponent} (default)" if self.opponent is None else self.opponent.name
        )
        lines.append(f"Opponent: the {self.bot} bot ({bot_words(self.bot)}), playing {theirs}")
        lines.append(f"Your seat: {self.seat} (portal {PORTALS[self.seat]})")
        return lines

    def help(self) -> str:
        return PREGAME_KEYS

    def act(self, key: str) -> object | None:
        if key in ("escape", "q"):
            return Back()
        if key in ("b", "right", "left"):
            step = -1 if key == "left" else 1
            self.bot = BOT_NAMES[(BOT_NAMES.index(self.bot) + step) % len(BOT_NAMES)]
        elif key == "o":
            choices = self.opponents()
            paths = [None if c is None else c.path for c in choices]
            now = paths.index(None if self.opponent is None else self.opponent.path)
            self.opponent = choices[(now + 1) % len(choices)]
        elif key == "s":
            self.seat = "B" if self.seat == "A" else "A"
        elif key == "e" and self.selected is not None:
            if self.selected.listed is None:
                self.message = f"Cannot edit it: {self.selected.error}"
                return None
            return Edit(self.selected)
        elif key == "n":
            self.asking = "Name of the new warband: "
        elif key == "enter":
            return self.start()
        return None

    def answer(self, text: str | None) -> object | None:
        return new_warband(self, text)

    def start(self) -> Start | None:
        """The game to start, or None (and the message says why not)."""
        item = self.selected
        if item is None:
            self.message = "Cannot start: no warband to play"
            return None
        if item.refusal:
            self.message = f"Cannot start: {item.name} is {item.refusal}"
            return None
        theirs = None if self.opponent is None else self.opponent.path
        return Start(play_argv(item.path, self.bot, self.seat, theirs))


def play_argv(
    warband: Path | None, bot: str, seat: str, opponent: Path | None = None
) -> tuple[str, ...]:
    """``('play', '--bot', 'greedy', '--side', 'A', '--warband', FILE)``: the command line
    (after ``dbnet``) of the game; no ``--warband`` (``--opponent``) for the default."""
    argv: tuple[str, ...] = ("play", "--bot", bot, "--side", seat)
    if warband is not None:
        argv += ("--warband", str(warband))
    if opponent is not None:
        argv += ("--opponent", str(opponent))
    return argv
