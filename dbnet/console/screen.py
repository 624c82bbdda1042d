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
from collections.abc import Callable, Sequence
from functools import partial

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

from dbnet.console import view

WIDE_COLUMNS = 100  # from this width on, the board uses render's 14-column cells

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
    """The board's window height: all its ``lines``, or at least 11 when space is short."""
    return Dimension(min=min(lines, 11), preferred=lines, max=lines)


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


def screen_text(app: Application[int]) -> str:
    """``app``'s screen as plain text at its output's size (tests and captures)."""
    size = app.output.get_size()
    columns, rows = size.columns, size.rows
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
