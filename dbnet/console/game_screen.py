"""What the play client's screen shows and how it is laid out: ``GameScreen``, the base of
``console.app.ConsoleApp``, which holds the client's state (the session, the panel's tab,
the entry, the status line) and reacts to keys and entries.

The screen, top to bottom: a bar with the turn, phase, victory track and the conquest
points each player would score now; the dreamscape on the left with one line per player
under it (seat, spawn points, reserves, graveyard) and a panel on the right (legal
choices, reserves with spawn costs, graveyards, the log, a miniature's card, help); the
log's latest lines; the pending decision in words; the input line (or the chat line); a
status line for answers and errors; and a yes/no question over it all when one is asked.
Every part is drawn so that its failure is one line saying so (``FullScreen.safely``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    FormattedTextControl,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.containers import WindowAlign
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.widgets import Frame

from dbnet.console import screen, view
from dbnet.console.chat import chat_line
from dbnet.console.fullscreen import FullScreen
from dbnet.console.screen import Tab
from dbnet.console.session import Session
from dbnet.engine import Decision, DecisionKind, Player
from dbnet.match.render import render_score_by_turn

LOG_MIN = 2

HINT = "Tab complete  Up/Down pick  Enter play  F1 help  F2-F6 panels  ^Q quit"


@dataclass(frozen=True, slots=True)
class Confirm:
    """A yes/no question; ``on_yes`` runs when the answer is yes."""

    question: str
    on_yes: Callable[[], None]


class GameScreen(FullScreen):
    """The play client's screen: what it shows, its layout, the legal choice picked and
    the yes/no question. ``ConsoleApp`` sets the state below and handles keys and
    entries."""

    session: Session
    tab: Tab
    message: str
    message_style: str
    welcome: bool
    card: list[int]
    selected: int
    panel_top: int
    confirm: Confirm | None
    _items_key: object
    _items: list[str]
    _meanings: dict[str, str]
    _auto_tab: object
    buffer: Buffer
    chat_buffer: Buffer
    chatting: bool

    # --- what to show -------------------------------------------------------------------

    @property
    def cell_width(self) -> int:
        return screen.cell_width(self.size[0])

    @property
    def panel_width(self) -> int:
        return screen.panel_width(self.size[0])

    def choice_items(self) -> list[str]:
        """The legal choices of the pending decision if a local person owes it."""
        game = self.session.game
        key = (len(self.session.log), game.pending, self.session.local_player())
        if key != self._items_key:
            self._items_key = key
            local = self.session.local_player() is not None
            self._items = view.choice_items(game) if local else []
            self._meanings = view.choice_meanings(game) if local else {}
            self.selected = -1
        return self._items

    def choice_meaning(self, item: str) -> str:
        """What the legal choice ``item`` does, in words, when its notation does not say it
        plainly (a blade, a target, an order, a reroll, a spawn ability); else empty."""
        self.choice_items()
        return self._meanings.get(item, "")

    def highlighted_cells(self) -> list[int]:
        """The cells the entry names, and the cells of the miniatures it names."""
        return view.named_cells(self.session.game, self.buffer.text.lower().split()[1:])

    def _set_default_tab(self) -> None:
        """On a new local decision, show reserves for a spawn and the choices otherwise,
        unless the person is reading something else."""
        game = self.session.game
        player = self.session.local_player()
        pending = game.pending
        if player is None or not isinstance(pending, Decision):
            return
        key = (pending.kind, player, game.turn)
        if key == self._auto_tab:
            return
        self._auto_tab = key
        if self.tab in (Tab.CHOICES, Tab.RESERVES):
            self.show_tab(Tab.RESERVES if pending.kind is DecisionKind.SPAWN else Tab.CHOICES)

    def show_tab(self, tab: Tab) -> None:
        self.tab = tab
        self.panel_top = 0
        if tab is Tab.LOG:  # the latest entries
            self.panel_top = max(0, len(self._panel_lines()) - self._panel_height())

    def say(self, text: str, error: bool = False) -> None:
        self.message = text
        self.message_style = "class:status.error" if error else "class:status.info"
        self.welcome = False

    # --- layout --------------------------------------------------------------------------

    def _layout(self) -> Layout:
        board = Window(
            FormattedTextControl(self._board_text),
            height=self._board_height,
            dont_extend_width=True,
        )
        seats = Window(FormattedTextControl(self._seats_text), height=2)
        self.log_window = Window(
            screen.lines_control(self._log_lines, lambda lines: len(lines) - 1),
            wrap_lines=True,
            always_hide_cursor=True,
            height=Dimension(min=LOG_MIN, weight=1),
        )
        self.panel_window = Window(
            FormattedTextControl(self._panel_text),
            always_hide_cursor=True,
        )
        panel = HSplit(
            [Window(FormattedTextControl(self._tab_bar), height=1), self.panel_window],
            padding=0,
        )
        middle = VSplit(
            [
                HSplit(
                    [board, seats, self.log_window],
                    width=lambda: view.board_width(self.cell_width),
                ),
                Window(width=1, char=" "),
                panel,
            ]
        )
        self.entry_window = Window(
            BufferControl(self.buffer, input_processors=[BeforeInput(self._prompt)]),
            height=1,
        )
        self.chat_window = chat_line(self.chat_buffer)
        body = HSplit(
            [
                Window(FormattedTextControl(self._top_text), height=1),
                middle,
                Window(
                    FormattedTextControl(self._decision_text),
                    wrap_lines=True,
                    height=self._decision_height,
                ),
                ConditionalContainer(
                    self.entry_window, filter=Condition(lambda: not self.chatting)
                ),
                ConditionalContainer(self.chat_window, filter=Condition(lambda: self.chatting)),
                Window(
                    FormattedTextControl(self._status_text),
                    wrap_lines=True,
                    height=self._status_height,
                ),
            ]
        )
        self.confirm_window = Window(
            FormattedTextControl(
                self._confirm_text, focusable=True, key_bindings=self._confirm_bindings()
            ),
            width=self._confirm_width,
            wrap_lines=True,
            align=WindowAlign.LEFT,
            dont_extend_height=True,
        )
        dialog = ConditionalContainer(
            Frame(self.confirm_window, title="Confirm", style="class:dialog"),
            filter=Condition(lambda: self.confirm is not None),
        )
        root = FloatContainer(
            body,
            floats=[
                Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=10)),
                Float(content=dialog),
            ],
        )
        fitted = screen.fitted(root, lambda: self.size, "Ctrl-Q")
        return Layout(fitted, focused_element=self.entry_window)

    @property
    def viewer(self) -> Player:
        """Whose edge the board is seen from: B's when B is the only person here."""
        local = [p for p in (Player.A, Player.B) if self.session.is_local(p)]
        return Player.B if local == [Player.B] else Player.A

    def drawing_failed(self, line: str) -> None:
        self.say(f"{line}. The game goes on; F1-F6 switch the panels.", error=True)
        self.app.invalidate()  # once per new failure: the status line shows it

    def _drawn(
        self, what: str, lines: Callable[[], list[StyleAndTextTuples]]
    ) -> list[StyleAndTextTuples]:
        """``lines()``, or one line saying why the ``what`` could not be drawn."""
        return self.safely(what, lines, lambda line: [[("class:status.error", line)]])

    def _board_lines(self) -> list[StyleAndTextTuples]:
        return self._drawn("board", self._draw_board)

    def _draw_board(self) -> list[StyleAndTextTuples]:
        game, cells = self.session.game, self.highlighted_cells()
        return view.render_board(
            game, self.cell_width, cells, side=self.viewer, max_lines=self._board_room()
        )

    def _board_room(self) -> int:
        """The lines left for the board by the rest of the screen: the top bar, the seats,
        the log's least, the decision, the entry and the status."""
        rows = self.size[1]
        others = 1 + 2 + LOG_MIN + self._decision_lines() + 1 + self._status_lines()
        return max(view.MIN_BOARD_LINES, rows - others)

    def _board_height(self) -> Dimension:
        return screen.board_height(len(self._board_lines()))

    def _decision_lines(self) -> int:
        return min(3, len(self._decision_wrapped()))

    def _decision_wrapped(self) -> list[StyleAndTextTuples]:
        return self._drawn(
            "decision",
            lambda: view.wrap(view.decision_text(self.session), self.size[0], "class:decision"),
        )

    def _status_lines(self) -> int:
        return len(self._status_wrapped())

    def _status_room(self) -> int:
        """The most lines the status may take: three, or for an error all the room the
        board's least, the log's least and the rest of the screen leave (80x24: six)."""
        if self.message_style != "class:status.error":
            return 3
        others = 1 + view.MIN_BOARD_LINES + 2 + LOG_MIN + self._decision_lines() + 1
        return max(3, self.size[1] - others)

    def _status_wrapped(self) -> list[StyleAndTextTuples]:
        if not self.message:
            return [[("class:status.hint", HINT)]]
        return screen.fitted_lines(
            view.wrap(self.message, self.size[0], self.message_style), self._status_room()
        )

    def _status_height(self) -> Dimension:
        return Dimension.exact(self._status_lines())

    def _decision_height(self) -> Dimension:
        return Dimension.exact(self._decision_lines())

    def _top_text(self) -> StyleAndTextTuples:
        return screen.join(
            self._drawn(
                "top bar",
                lambda: [view.top_bar(self.session.game, self.size[0], self.session.connection)],
            )
        )

    def _board_text(self) -> StyleAndTextTuples:
        return screen.join(self._board_lines())

    def _seats_text(self) -> StyleAndTextTuples:
        labels = (self.session.seat_label(Player.A), self.session.seat_label(Player.B))
        return screen.join(
            self._drawn(
                "seats",
                lambda: view.seat_lines(
                    self.session.game, labels, view.board_width(self.cell_width)
                ),
            )
        )

    def _tab_bar(self) -> StyleAndTextTuples:
        return screen.tab_bar(list(Tab), self.tab, self.panel_width, self.show_tab)

    def _panel_lines(self) -> list[StyleAndTextTuples]:
        return self._drawn(f"{self.tab.value} panel", self._draw_panel)

    def _draw_panel(self) -> list[StyleAndTextTuples]:
        game = self.session.game
        width = self.panel_width
        tab = self.tab
        if tab is Tab.CHOICES:
            items = self.choice_items()
            lines = view.choice_lines(game, items, self.selected, width, self._meanings)
            return [self._clickable(line) for line in lines]
        if tab is Tab.RESERVES:
            deciding = self.session.local_player()
            first = self.viewer if deciding is None else deciding
            return view.reserve_lines(game, width, first)
        if tab is Tab.GRAVES:
            return view.graveyard_lines(game, width)
        if tab is Tab.LOG:
            lines = view.log_lines(self.session.log, width)
            if game.is_over:
                lines += [[], [("class:panel.heading", "Score by turn (conquest points)")]]
                lines += [[("", text)] for text in render_score_by_turn(game)]
            return lines
        if tab is Tab.CARD:
            if not self.card:
                return view.wrap("Type 'show NAME' to see a miniature's card here.", width, "")
            return view.card_lines(game, self.card, width)
        return view.help_lines(game, width)

    def _clickable(self, line: StyleAndTextTuples) -> StyleAndTextTuples:
        """A choice line that picks its choice when clicked."""
        styles = [fragment[0] for fragment in line]
        if not any("choice" in style.split(".")[0] for style in styles):
            return line
        text = "".join(fragment[1] for fragment in line)
        index = self._item_at(text)
        if index is None:
            return line
        handler = partial(self._click_choice, index)
        return [(fragment[0], fragment[1], handler) for fragment in line]

    def _item_at(self, text: str) -> int | None:
        for i, item in enumerate(self._items):
            if item == text or item.endswith(" " + text.strip()):
                return i
        return None

    def _click_choice(self, index: int, event: MouseEvent) -> None:
        if event.event_type is MouseEventType.MOUSE_UP and index < len(self._items):
            self.pick(index)

    def _panel_height(self) -> int:
        info = self.panel_window.render_info
        return info.window_height if info is not None else max(5, self.size[1] - 8)

    def _panel_text(self) -> StyleAndTextTuples:
        """The panel's lines (all wrapped to its width) from ``panel_top`` on; the selected
        choice is kept in view."""
        lines = self._panel_lines()
        height = self._panel_height()
        if self.tab is Tab.CHOICES and self.selected >= 0:
            rows = [y for y, line in enumerate(lines) if _is_selected(line)]
            if rows:
                if rows[0] < self.panel_top:
                    self.panel_top = rows[0]
                elif rows[-1] >= self.panel_top + height:
                    self.panel_top = rows[-1] - height + 1
        self.panel_top = max(0, min(self.panel_top, len(lines) - 1))
        return screen.join(lines[self.panel_top :])

    def _log_lines(self) -> list[StyleAndTextTuples]:
        return self._drawn(
            "log", lambda: view.log_lines(self.session.log, view.board_width(self.cell_width))
        )

    def _decision_text(self) -> StyleAndTextTuples:
        return screen.join(self._decision_wrapped())

    def _prompt(self) -> StyleAndTextTuples:
        player = self.session.local_player()
        return [("class:prompt", f"{player.name}> " if player is not None else "> ")]

    def _status_text(self) -> StyleAndTextTuples:
        return screen.join(self._status_wrapped())

    def _confirm_text(self) -> StyleAndTextTuples:
        question = self.confirm.question if self.confirm is not None else ""
        width = self._confirm_width() - 1
        lines = textwrap.wrap(question, width, break_on_hyphens=False)
        return [("", "\n".join(lines) + "\n\n"), ("bold", "[y] yes   [n] no")]

    def _confirm_width(self) -> int:
        question = self.confirm.question if self.confirm is not None else ""
        return max(20, min(60, self.size[0] - 8, len(question) + 1))

    # --- the choice picked and the yes/no question -----------------------------------------

    def pick(self, index: int) -> None:
        self.selected = index
        if self.tab is not Tab.CHOICES:
            self.show_tab(Tab.CHOICES)
        text = self._items[index]
        self.buffer.set_document(Document(text, len(text)), bypass_readonly=True)
        meaning = self._meanings.get(text)
        self.say(f"Enter plays '{text}'" + (f": {meaning}." if meaning else "."))

    def _confirm_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        for key in ("y", "Y", "enter"):
            kb.add(key)(self.guard(partial(self.answer, True)))
        for key in ("n", "N", "escape", "c-q"):
            kb.add(key)(self.guard(partial(self.answer, False)))

        @kb.add("<any>")
        def _ignore(event: KeyPressEvent) -> None:
            pass

        return kb

    def answer(self, yes: bool) -> None:
        confirm = self.confirm
        self.confirm = None
        self.app.layout.focus(self.entry_window)
        if confirm is None:
            return
        if yes:
            confirm.on_yes()
        else:
            self.say("Cancelled.")

    def ask(self, question: str, on_yes: Callable[[], None]) -> None:
        self.confirm = Confirm(question, on_yes)
        self.app.layout.focus(self.confirm_window)


def _is_selected(line: StyleAndTextTuples) -> bool:
    return any("choice.selected" in fragment[0] for fragment in line)
