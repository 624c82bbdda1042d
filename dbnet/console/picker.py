"""The full-screen list the main menu's screens share: a title, rows with a cursor, the
selected row's details, an input line when a screen asks for a name, a message, and the
selected row's one-line help.

A screen is a ``ListModel`` (no prompt-toolkit in it, tested without a terminal): keys
reach it by name (``'up'``, ``'enter'``, ``'escape'``, a letter...) and it answers with
an *outcome*, any value, which closes the screen and is what ``Picker.run`` returns, or
None to stay. ``Picker`` only draws the model and passes keys on.
"""

from __future__ import annotations

import abc
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    BufferControl,
    ConditionalContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.output import Output

from dbnet.console import screen
from dbnet.console.fullscreen import application

QUIT_KEYS = "Ctrl-Q"
PAGE = 10
MOVES = ("up", "down", "home", "end", "pageup", "pagedown")
KEYS = (*MOVES, "enter", "escape", "left", "right", "delete")


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the list; ``style`` is ``''``, ``'dim'`` or ``'error'``."""

    text: str
    style: str = ""


@dataclass(frozen=True, slots=True)
class Interrupted:
    """Ctrl-C: the outcome of every screen, so that the menu ends with exit code 130."""


@dataclass(frozen=True, slots=True)
class QuitAll:
    """Ctrl-Q: leave dbnet from any screen."""


class ListModel(abc.ABC):
    """A screen of rows with a cursor. Subclasses give the rows, details and help, and
    ``act`` on keys; moving the cursor is done here."""

    title: str = ""

    def __init__(self) -> None:
        self.cursor = 0
        self.message = ""
        self.asking = ""
        """The question of the input line (``'Name of the new warband: '``); empty when
        there is none."""

    @abc.abstractmethod
    def rows(self) -> Sequence[Row]:
        """The lines of the list, the cursor's among them."""

    def heading(self) -> str:
        """The line above the rows (column names), or empty."""
        return ""

    def details(self) -> list[str]:
        return []

    def help(self) -> str:
        return ""

    def act(self, key: str) -> object | None:
        """The key (not a cursor move): an outcome, or None to stay."""
        return None

    def answer(self, text: str | None) -> object | None:
        """The input line's text (None: cancelled with Escape). ``asking`` is cleared first."""
        return None

    def press(self, key: str) -> object | None:
        """A key by name: moves the cursor, or is the screen's to act on."""
        count = len(self.rows())
        last = max(count - 1, 0)
        if key in MOVES:
            self.message = ""
            step = {"up": -1, "down": 1, "pageup": -PAGE, "pagedown": PAGE}.get(key)
            if key == "home":
                self.cursor = 0
            elif key == "end":
                self.cursor = last
            elif step is not None:
                self.cursor = min(max(self.cursor + step, 0), last)
            return None
        if key in ("j", "k") and count:
            return self.press("down" if key == "j" else "up")
        return self.act(key)

    def give(self, text: str | None) -> object | None:
        self.asking = ""
        return self.answer(text)

    def keep_cursor_on_rows(self) -> None:
        """Put the cursor back on the rows, which may have become fewer (read again)."""
        self.cursor = min(self.cursor, max(len(self.rows()) - 1, 0))


class Picker:
    """Draws a ``ListModel`` full screen and passes it the keys."""

    def __init__(
        self,
        model: ListModel,
        *,
        input: Input | None = None,
        output: Output | None = None,
        colour: bool | None = None,
    ) -> None:
        self.model = model
        self.entry = Buffer(multiline=False, name="entry")
        asking = Condition(lambda: bool(self.model.asking))
        self.list_window = screen.cursor_list(self._rows_text, lambda: self.model.cursor)
        self.entry_window = Window(BufferControl(self.entry), height=1)
        body = HSplit(
            [
                Window(FormattedTextControl(self._title_text), height=1, style="class:topbar"),
                ConditionalContainer(
                    Window(FormattedTextControl(self._heading_text), height=1),
                    filter=Condition(lambda: bool(self.model.heading())),
                ),
                self.list_window,
                Window(height=1, char="-", style="class:border"),
                Window(
                    FormattedTextControl(self._details_text),
                    height=Dimension(min=1, max=9),
                    dont_extend_height=True,
                ),
                ConditionalContainer(
                    VSplit(
                        [
                            Window(
                                FormattedTextControl(lambda: [("class:prompt", self.model.asking)]),
                                width=lambda: Dimension.exact(len(self.model.asking)),
                            ),
                            self.entry_window,
                        ],
                        height=1,
                    ),
                    filter=asking,
                ),
                Window(
                    FormattedTextControl(self._message_text),
                    height=Dimension(min=1, max=3),
                    dont_extend_height=True,
                ),
                Window(FormattedTextControl(self._help_text), height=1),
            ]
        )
        self.app: Application[object] = application(
            Layout(screen.fitted(body, self._size, QUIT_KEYS), focused_element=self.list_window),
            self._key_bindings(asking),
            colour=colour,
            input=input,
            output=output,
        )

    def _size(self) -> tuple[int, int]:
        return screen.terminal_size(self.app)

    def _width(self) -> int:
        return self._size()[0]

    # --- drawing ----------------------------------------------------------------------

    def _title_text(self) -> StyleAndTextTuples:
        return [("", fit(f" {self.model.title}", self._width()))]

    def _heading_text(self) -> StyleAndTextTuples:
        return [("class:panel.heading", fit(f"  {self.model.heading()}", self._width()))]

    def _rows_text(self) -> StyleAndTextTuples:
        rows = self.model.rows()
        if not rows:
            return [("class:dim", "(nothing here)")]
        self.model.cursor = min(self.model.cursor, len(rows) - 1)
        width = self._width()
        out: StyleAndTextTuples = []
        for i, row in enumerate(rows):
            style = {"dim": "class:dim", "error": "class:status.error"}.get(row.style, "")
            mark = "> " if i == self.model.cursor else "  "
            if i == self.model.cursor:
                style = f"{style} class:choice.selected".strip()
            out.append((style, fit(mark + row.text, width).ljust(width) + "\n"))
        return out

    def _details_text(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        width = max(self._width() - 1, 20)
        for line in self.model.details():
            style = ""
            if line.startswith(("NOT LEGAL", "Cannot", "not a warband")):
                style = "class:status.error"
            elif line.startswith("Legal"):
                style = "class:status.info"
            for part in textwrap.wrap(line, width, subsequent_indent="  ") or [""]:
                out.append((style, part + "\n"))
        return out

    def _message_text(self) -> StyleAndTextTuples:
        lines = textwrap.wrap(self.model.message, max(self._width() - 1, 20)) or [""]
        return [("class:status.error", "\n".join(lines))]

    def _help_text(self) -> StyleAndTextTuples:
        return [("class:status.hint", fit(self.model.help(), self._width()))]

    # --- keys -------------------------------------------------------------------------

    def _key_bindings(self, asking: Condition) -> KeyBindings:
        kb = KeyBindings()
        listing = ~asking

        def settle(event: KeyPressEvent, outcome: object | None) -> None:
            if outcome is not None:
                event.app.exit(result=outcome)
            elif self.model.asking:
                self.entry.reset()
                event.app.layout.focus(self.entry_window)

        for key in KEYS:

            def on_key(event: KeyPressEvent, key: str = key) -> None:
                settle(event, self.model.press(key))

            kb.add(key, filter=listing)(on_key)

        @kb.add("<any>", filter=listing)
        def _letter(event: KeyPressEvent) -> None:
            if len(event.data) == 1 and event.data.isprintable():
                settle(event, self.model.press(event.data))

        @kb.add("enter", filter=asking)
        @kb.add("escape", filter=asking)
        def _answer(event: KeyPressEvent) -> None:
            text = self.entry.text if event.key_sequence[0].key == "c-m" else None
            event.app.layout.focus(self.list_window)
            settle(event, self.model.give(text))

        @kb.add("c-q")
        def _quit(event: KeyPressEvent) -> None:
            event.app.exit(result=QuitAll())

        @kb.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            event.app.exit(result=Interrupted())

        return kb

    def run(self) -> object:
        return self.app.run()


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns, ``~`` marking a cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "~"
