"""``dbnet`` with no command, at a terminal: the main menu, and everything it opens.

One screen is on at a time; each runs until it closes with an outcome
(``dbnet.console.outcomes``), which this module carries out: the next screen, the
warband builder (``dbnet.console.builder``), the replay viewer or a game. The viewer and
the game are started by ``dbnet.cli.main`` with the command line ``dbnet replay FILE``
or ``dbnet play ...`` would have, so they run exactly as those commands do; their closing
words (where the replay is) are printed on the terminal and seen after the menu ends.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from dbnet.catalog import Catalog, WarbandList, load_catalog
from dbnet.console.builder import Builder, Draft
from dbnet.console.menu import MainMenu, NetworkScreen, ReplaysScreen, WarbandsScreen
from dbnet.console.outcomes import Back, Edit, NewWarband, Open, Start, View
from dbnet.console.picker import Interrupted, ListModel, Picker, QuitAll
from dbnet.console.pregame import Pregame
from dbnet.console.shelf import ensure_folder, new_warband_path, warband_folder
from dbnet.errors import DbnetError
from dbnet.interrupts import EXIT_INTERRUPTED
from dbnet.protocol.identity import config_dir

EXIT_OK = 0
EXIT_CANNOT_VIEW = 2  # dbnet replay: the file cannot be read (1 is an invalid file, shown)

Handler = Callable[[object], "int | str | None"]
"""What a screen does with an outcome: an exit code ends dbnet, a message goes back to
the main menu, None stays on the screen."""


def run_home() -> int:
    """The main menu until the person quits; the exit code (130 after Ctrl-C)."""
    catalog = load_catalog()
    menu = MainMenu(config_dir())
    while True:
        outcome = Picker(menu).run()
        if isinstance(outcome, Interrupted):
            return EXIT_INTERRUPTED
        if not isinstance(outcome, Open):
            return EXIT_OK
        menu.message = ""
        result = open_screen(outcome.name, catalog)
        if isinstance(result, int):
            return result
        menu.message = result or ""


def open_screen(name: str, catalog: Catalog) -> int | str | None:
    """Run the screen ``name`` until it goes back: an exit code, or a message."""
    if name == "pregame":
        pregame = Pregame(catalog)
        return browse(pregame, lambda o: _pregame(pregame, o, catalog))
    if name == "warbands":
        shelf = WarbandsScreen(catalog)
        return browse(shelf, lambda o: _shelf(shelf, o, catalog))
    if name == "replays":
        replays = ReplaysScreen()
        return browse(replays, lambda o: _replays(replays, o))
    return browse(NetworkScreen(), lambda o: None)


def browse(model: ListModel, handle: Handler) -> int | str | None:
    """Show ``model`` until it goes back (None), dbnet ends (an exit code) or ``handle``
    says so; a ``DbnetError`` while handling is the screen's message."""
    while True:
        outcome = Picker(model).run()
        if isinstance(outcome, Interrupted):
            return EXIT_INTERRUPTED
        if isinstance(outcome, QuitAll):
            return EXIT_OK
        if isinstance(outcome, Back):
            return None
        try:
            result = handle(outcome)
        except DbnetError as exc:
            model.message = str(exc)
            continue
        if result is not None:
            return result


def _pregame(model: Pregame, outcome: object, catalog: Catalog) -> int | str | None:
    if isinstance(outcome, Start):
        code = run_command(outcome.argv)
        if code == EXIT_INTERRUPTED:
            return code
        return f"Last game: dbnet {shlex.join(outcome.argv)} (exit code {code})"
    model.reload(open_builder(outcome, catalog, model))
    return None


def _shelf(model: WarbandsScreen, outcome: object, catalog: Catalog) -> int | str | None:
    model.reload(open_builder(outcome, catalog, model))
    return None


def _replays(model: ReplaysScreen, outcome: object) -> int | str | None:
    if isinstance(outcome, View):
        code = run_command(("replay", str(outcome.path)))
        if code == EXIT_INTERRUPTED:
            return code
        if code == EXIT_CANNOT_VIEW:
            model.message = f"{outcome.path.name} cannot be read: dbnet replay says why on exit"
    return None


def open_builder(outcome: object, catalog: Catalog, model: ListModel) -> Path | None:
    """Carry out ``Edit`` or ``NewWarband`` in the builder; the file it saved, if any."""
    if isinstance(outcome, Edit):
        item = outcome.warband
        if item.listed is None:
            return None
        listed = item.listed.merged()
        if item.read_only or item.path is None:
            ensure_folder(warband_folder())
            path = new_warband_path(listed.name)
            draft = Draft.from_list(listed, path, catalog)
            draft.modified = True
            draft.message = f"A copy of {item.label()}: Ctrl-S saves it as {path.name}"
        else:
            path = item.path
            draft = Draft.from_list(listed, path, catalog)
    elif isinstance(outcome, NewWarband):
        ensure_folder(warband_folder())
        path = new_warband_path(outcome.name)
        draft = Draft.from_list(WarbandList(outcome.name, ()), path, catalog)
    else:
        return None
    Builder(draft).run()
    if draft.modified or not path.exists():
        model.message = f"Not saved: {path}"
        return None if not path.exists() else path
    model.message = f"{draft.name}: {path}"
    return path


def run_command(argv: tuple[str, ...]) -> int:
    """``dbnet ARGV`` as typed at the shell, in a process of its own on this terminal
    (its errors are its one line on stderr); its exit code. (The console is below the
    command line, so it runs the command rather than importing it.)"""
    return subprocess.run([sys.executable, "-m", "dbnet", *argv], check=False).returncode
