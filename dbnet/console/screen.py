"""What the play client and the replay viewer share on screen: styles, panel tabs, sizes.

Both screens draw the same dreamscape, seat lines and panel pages (``view``);
this module holds the prompt-toolkit side of that: the colour and NO_COLOR
styles, the panel's tabs and their bar, the board's size for a terminal
width, and ``screen_text``, which draws an application into plain text for
tests and captures.
"""

from __future__ import annotations

import enum
import os
import textwrap
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import ConditionalContainer, FormattedTextControl, HSplit, Window
from prompt_toolkit.layout.containers import AnyContainer
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from dbnet.console import view

WIDE_COLUMNS = 100  # from this width on, the board uses render's 14-column cells
MIN_COLUMNS = 80  # the smallest terminal the screens draw in full: the board, its column
MIN_ROWS = 24  # letters and row numbers, the seats, the log, the prompt and the status

COLOUR_STYLE = {
    "topbar": "reverse bold",
    "verdict": "reverse bold",
    "verdict.bad": "ansired bold",
    "owner-a": "ansicyan",
    "owner-b": "ansiyellow",
    "damaged": "bold",
    "mark.portal": "bold",
    "mark.spawn": "",
    "mark.key": "ansigreen",
    "border": "ansibrightblack",
    "label": "bold",
    "highlight": "reverse",
    "panel.title": "reverse",
    "panel.tab": "",
    "panel.heading": "bold underline",
    "affordable": "bold",
    "choice.selected": "reverse",
    "dim": "ansibrightblack",
    "log.roll": "",
    "log.turn": "bold",
    "log.current": "reverse",
    "decision": "bold",
    "prompt": "bold",
    "status.error": "ansired bold",
    "status.info": "ansigreen",
    "status.hint": "ansibrightblack",
    "dialog": "",
    "dialog frame.label": "bold",
}
# NO_COLOR (https://no-color.org): the same screen with no colour at all, only
# bold, underline and reverse video.
MONO_STYLE = {
    name: " ".join(word for word in value.split() if not word.startswith("ansi"))
    for name, value in COLOUR_STYLE.items()
} | {
    "verdict.bad": "bold reverse underline",
    "completion-menu": "noinherit",
    "completion-menu.completion": "noinherit",
    "completion-menu.completion.current": "noinherit reverse",
    "completion-menu.meta.completion": "noinherit",
    "completion-menu.meta.completion.current": "noinherit reverse",
    "scrollbar.background": "noinherit",
    "scrollbar.button": "noinherit reverse",
}


def lines_control(
    lines: Callable[[], Sequence[StyleAndTextTuples]],
    row: Callable[[Sequence[StyleAndTextTuples]], int],
) -> FormattedTextControl:
    """A control drawing ``lines()`` with the cursor on row ``row(lines)`` of the very
    lines drawn. Computed twice, text and cursor could disagree (the terminal resized
    between the two)."""
    drawn: list[Sequence[StyleAndTextTuples]] = [()]

    def text() -> StyleAndTextTuples:
        drawn[0] = lines()
        return join(drawn[0])

    return _kept_cursor(text, lambda: row(drawn[0]))


def cursor_list(text: Callable[[], StyleAndTextTuples], row: Callable[[], int]) -> Window:
    """A focusable list of lines, unwrapped, with the cursor on line ``row()`` (the
    terminal scrolls to keep it in view)."""
    return Window(_kept_cursor(text, row, focusable=True))


def _kept_cursor(
    text: Callable[[], StyleAndTextTuples], row: Callable[[], int], *, focusable: bool = False
) -> FormattedTextControl:
    """A control drawing ``text()`` with the cursor on line ``row()``, kept within the
    lines drawn: prompt-toolkit fails on a cursor past them (a list shortened by keys
    read before the next draw, a log drawn at one width and counted at another)."""
    last = [0]  # the last line drawn, counted once a draw (the cursor is asked often)

    def draw() -> StyleAndTextTuples:
        fragments = text()
        last[0] = sum(fragment[1].count("\n") for fragment in fragments)
        return fragments

    def cursor() -> Point:
        return Point(0, min(max(0, row()), last[0]))

    return FormattedTextControl(draw, focusable=focusable, get_cursor_position=cursor)


def fitted_lines(lines: list[StyleAndTextTuples], room: int) -> list[StyleAndTextTuples]:
    """``lines`` in at most ``room`` lines: when they are more, the last one shown ends
    with an ellipsis instead of its last character, in its first fragment's style."""
    if len(lines) <= room:
        return lines
    last = lines[room - 1]
    text = "".join(fragment[1] for fragment in last)
    style = last[0][0] if last else ""
    return [*lines[: room - 1], [(style, text[:-1] + "…" if text else "…")]]


def no_color() -> bool:
    """Whether the NO_COLOR convention asks for no colour (set and not empty)."""
    return bool(os.environ.get("NO_COLOR"))


def style(colour: bool) -> tuple[Style, ColorDepth | None]:
    """The style and colour depth for an application: colours, or none at all."""
    if colour:
        return Style.from_dict(COLOUR_STYLE), None
    return Style.from_dict(MONO_STYLE), ColorDepth.DEPTH_1_BIT


def cell_width(columns: int) -> int:
    """The board's cell width for a terminal ``columns`` wide."""
    return view.WIDE_CELL if columns >= WIDE_COLUMNS else view.NARROW_CELL


def panel_width(columns: int) -> int:
    """The columns left for the panel right of the board (and one blank column)."""
    return max(10, columns - view.board_width(cell_width(columns)) - 1)


def board_height(lines: int) -> Dimension:
    """The board's window height: all its ``lines`` (``view.render_board`` fits them to the
    room left, so the column letters and every row stay on screen)."""
    return Dimension.exact(lines)


def too_small(columns: int, rows: int) -> bool:
    """Whether a terminal ``columns`` by ``rows`` is too small to draw a screen in full."""
    return columns < MIN_COLUMNS or rows < MIN_ROWS


def too_small_words(columns: int, rows: int, quit_keys: str) -> str:
    """What a screen says instead of a broken board when the terminal is too small."""
    return (
        f"This terminal is {columns}x{rows}: dbnet needs at least {MIN_COLUMNS}x{MIN_ROWS} "
        f"(columns x rows) to draw the board. Make the window larger and the screen comes "
        f"back at once; {quit_keys} quits."
    )


def fitted(body: AnyContainer, size: Callable[[], tuple[int, int]], quit_keys: str) -> HSplit:
    """``body`` while the terminal (``size()``: columns, rows) is big enough; else one
    message saying the terminal is too small and the size needed (``too_small_words``).
    Resizing back draws ``body`` again."""
    small = Condition(lambda: too_small(*size()))

    def words() -> StyleAndTextTuples:
        columns, rows = size()
        text = textwrap.fill(too_small_words(columns, rows, quit_keys), max(10, columns - 1))
        return [("class:status.error", text)]

    message = Window(FormattedTextControl(words), wrap_lines=True)
    return HSplit(
        [
            ConditionalContainer(body, filter=~small),
            ConditionalContainer(message, filter=small),
        ]
    )


class Tab(enum.Enum):
    HELP = "Help"
    CHOICES = "Choices"
    RESERVES = "Reserves"
    GRAVES = "Graveyards"
    LOG = "Log"
    CARD = "Card"


TAB_KEYS = {
    "f1": Tab.HELP,
    "f2": Tab.CHOICES,
    "f3": Tab.RESERVES,
    "f4": Tab.GRAVES,
    "f5": Tab.LOG,
    "f6": Tab.CARD,
}
TAB_WORDS = {
    "choices": Tab.CHOICES,
    "reserves": Tab.RESERVES,
    "reserve": Tab.RESERVES,
    "graves": Tab.GRAVES,
    "graveyards": Tab.GRAVES,
    "graveyard": Tab.GRAVES,
    "log": Tab.LOG,
    "card": Tab.CARD,
}


def tab_bar(
    tabs: Sequence[Tab],
    current: Tab,
    width: int,
    on_click: Callable[[Tab], None] | None = None,
) -> StyleAndTextTuples:
    """The panel's title bar: every tab with its key when they fit in ``width``, else the
    current tab's name and the range of keys. A click on a tab calls ``on_click``."""
    keys = {tab: key.upper() for key, tab in TAB_KEYS.items()}
    full: StyleAndTextTuples = []
    used = 0
    for tab in tabs:
        label = f"{keys[tab]} {tab.value}" if width >= 60 else tab.value
        style = "class:panel.title" if tab is current else "class:panel.tab"
        if on_click is None:
            full.append((style, f" {label} "))
        else:
            full.append((style, f" {label} ", partial(_clicked, on_click, tab)))
        used += len(label) + 2
    if used <= width:
        return full
    title = f" {current.value} ({keys[current]}) "
    first, last = keys[tabs[0]], keys[tabs[-1]]
    return [("class:panel.title", title), ("class:dim", f" {first}-{last}"[: width - len(title)])]


def _clicked(on_click: Callable[[Tab], None], tab: Tab, event: MouseEvent) -> None:
    if event.event_type is MouseEventType.MOUSE_UP:
        on_click(tab)


def join(lines: Sequence[StyleAndTextTuples]) -> StyleAndTextTuples:
    """Lines of fragments as one formatted text, newline-separated."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def terminal_size(app: Application[Any]) -> tuple[int, int]:
    """The columns and rows of ``app``'s terminal, now."""
    size = app.output.get_size()
    return size.columns, size.rows


def screen_text(app: Application[int]) -> str:
    """``app``'s screen as plain text at its output's size (tests and captures)."""
    columns, rows = terminal_size(app)
    app.render_counter += 1  # controls cache their text per render: draw afresh
    with set_app(app):
        screen = Screen()
        app.layout.container.write_to_screen(
            screen,
            MouseHandlers(),
            WritePosition(0, 0, columns, rows),
            parent_style="",
            erase_bg=False,
            z_index=None,
        )
        screen.draw_all_floats()
    lines = []
    for y in range(rows):
        row = screen.data_buffer[y]
        lines.append("".join(row[x].char for x in range(columns)).rstrip())
    return "\n".join(lines)
