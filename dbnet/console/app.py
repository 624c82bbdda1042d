"""The full-screen console client (prompt-toolkit): the screen, the keys, and ``run_local``.

The screen, top to bottom: a bar with the turn, phase, victory track and the
conquest points each player would score now; the dreamscape on the left with
one line per player under it (seat, spawn points, reserves, graveyard) and a
panel on the right (legal choices, reserves with spawn costs, graveyards, the
log, a miniature's card, help); the log's latest lines; the pending decision
in words; the input line; a status line for answers and errors.

The client only talks to a ``Session`` (``dbnet.console.session``), so the
same screen will serve network games and replays. Bots, dice and later the
network run in a background task; the screen never waits for them.
"""

from __future__ import annotations

import enum
import os
import sys
import textwrap
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_completions, has_focus
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
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
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import ColorDepth, Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.console import view
from dbnet.console.completion import ChoiceCompleter
from dbnet.console.session import DEFAULT_BOT_DELAY, LocalSession, Session
from dbnet.engine import (
    Decision,
    DecisionKind,
    Done,
    Game,
    GameSetup,
    Player,
    format_choice,
    parse_choice,
)
from dbnet.engine.board import parse_cell
from dbnet.errors import DbnetError
from dbnet.render import describe_pending, describe_result, render_score_by_turn

EXIT_DONE = 0
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130

WIDE_COLUMNS = 100  # from this width on, the board uses render's 14-column cells
LOG_MIN = 2

COLOUR_STYLE = {
    "topbar": "reverse bold",
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
PHASE_ENDING = (DecisionKind.SPAWN, DecisionKind.SHIFT, DecisionKind.STRIKE)
HINT = "Tab complete  Up/Down pick  Enter play  F1 help  F2-F6 panels  ^Q quit"


@dataclass(frozen=True, slots=True)
class Confirm:
    """A yes/no question; ``on_yes`` runs when the answer is yes."""

    question: str
    on_yes: Callable[[], None]


class ConsoleApp:
    """The full-screen client for one session. ``run()`` returns the exit code."""

    def __init__(
        self,
        session: Session,
        *,
        input: Input | None = None,
        output: Output | None = None,
        colour: bool | None = None,
        mouse: bool = True,
    ) -> None:
        self.session = session
        self.colour = not no_color() if colour is None else colour
        self.tab = Tab.CHOICES
        self.message = "Welcome to dbnet. Type 'help' or press F1 at any time."
        self.message_style = "class:status.info"
        self.card: list[int] = []
        self.selected = -1
        self.panel_top = 0  # the panel line shown at the top (PageUp, PageDown)
        self.confirm: Confirm | None = None
        self.exit_code = EXIT_DONE
        self.error: str | None = None  # an internal error's traceback, shown after exit
        self.closing_words: list[str] = []
        self._items_key: object = None
        self._items: list[str] = []
        self._auto_tab: object = None
        self._advancing = False

        self.buffer = Buffer(
            completer=ChoiceCompleter(lambda: self.session.game, self.choice_items),
            complete_while_typing=False,
            multiline=False,
            name="entry",
        )
        self.buffer.on_text_changed += self._on_text_changed
        self.app: Application[int] = Application(
            layout=self._layout(),
            key_bindings=self._key_bindings(),
            style=Style.from_dict(COLOUR_STYLE if self.colour else MONO_STYLE),
            color_depth=None if self.colour else ColorDepth.DEPTH_1_BIT,
            full_screen=True,
            mouse_support=mouse,
            input=input,
            output=output,
        )
        self._set_default_tab()

    # --- running --------------------------------------------------------------------

    def run(self) -> int:
        """Run until the person quits or interrupts; the terminal is restored either way."""
        try:
            code = self.app.run(pre_run=self.start_advance)
        except Exception:
            self.error = traceback.format_exc()
            code = EXIT_ERROR
        self.exit_code = code if self.error is None else EXIT_ERROR
        return self.exit_code

    async def run_async(self) -> int:
        try:
            code = await self.app.run_async(pre_run=self.start_advance)
        except Exception:
            self.error = traceback.format_exc()
            code = EXIT_ERROR
        self.exit_code = code if self.error is None else EXIT_ERROR
        return self.exit_code

    def start_advance(self) -> None:
        """Let bots and dice play, in the background, until a local person must decide."""
        if self._advancing or self.session.game.is_over:
            return
        self._advancing = True
        self.app.create_background_task(self._advance())

    async def _advance(self) -> None:
        steps = len(self.session.log)
        try:
            await self.session.advance(self._changed)
        except Exception:
            self.crash(traceback.format_exc())
        finally:
            self._advancing = False
            if len(self.session.log) != steps and self.message_style != "class:status.error":
                self.message = ""  # the answer to the last entry is old news now
            if self.session.game.is_over:
                self.say(self.verdict())
            self._changed()

    def verdict(self) -> str:
        """The result, addressed to the person at this keyboard when there is one."""
        game = self.session.game
        result = describe_result(game)
        mine = [p for p in (Player.A, Player.B) if self.session.is_local(p)]
        if len(mine) == 1 and game.winner is not None:
            result = ("You win! " if game.winner is mine[0] else "You lose. ") + result
        return f"{result} Type 'quit' to leave; F5 shows the log and the score by turn."

    def _changed(self) -> None:
        self._set_default_tab()
        self.app.invalidate()

    def crash(self, text: str) -> None:
        """An internal error: leave the full screen and report it (run() returns 1)."""
        self.error = text
        future = self.app.future
        if future is not None and not future.done():
            self.app.exit(result=EXIT_ERROR)

    def quit(self, code: int = EXIT_DONE) -> None:
        game = self.session.game
        if game.is_over:
            self.closing_words = [describe_pending(game), "Score by turn:"]
            self.closing_words += render_score_by_turn(game)
        else:
            self.closing_words = ["Game abandoned."]
        self.app.exit(result=code)

    # --- what to show -------------------------------------------------------------------

    @property
    def size(self) -> tuple[int, int]:
        size = self.app.output.get_size()
        return size.columns, size.rows

    @property
    def cell_width(self) -> int:
        return view.WIDE_CELL if self.size[0] >= WIDE_COLUMNS else view.NARROW_CELL

    @property
    def panel_width(self) -> int:
        return max(10, self.size[0] - view.board_width(self.cell_width) - 1)

    def choice_items(self) -> list[str]:
        """The legal choices of the pending decision if a local person owes it."""
        game = self.session.game
        key = (len(self.session.log), game.pending, self.session.local_player())
        if key != self._items_key:
            self._items_key = key
            local = self.session.local_player() is not None
            self._items = view.choice_items(game) if local else []
            self.selected = -1
        return self._items

    def highlighted_cells(self) -> list[int]:
        """The cells the entry names, and the cells of the miniatures it names."""
        cells = []
        game = self.session.game
        for word in self.buffer.text.lower().split()[1:]:
            cell = parse_cell(word)
            if cell is not None:
                cells.append(cell)
                continue
            name = word.partition("=")[0]
            for m in game.minis:
                if m.handle == name and m.cell >= 0:
                    cells.append(m.cell)
        return cells

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

    # --- layout --------------------------------------------------------------------------

    def _layout(self) -> Layout:
        board = Window(
            FormattedTextControl(self._board_text),
            height=self._board_height,
            dont_extend_width=True,
        )
        seats = Window(FormattedTextControl(self._seats_text), height=2)
        self.log_window = Window(
            FormattedTextControl(self._log_text, get_cursor_position=self._log_cursor),
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
        body = HSplit(
            [
                Window(FormattedTextControl(self._top_text), height=1),
                middle,
                Window(
                    FormattedTextControl(self._decision_text),
                    wrap_lines=True,
                    height=self._decision_height,
                ),
                self.entry_window,
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
        return Layout(root, focused_element=self.entry_window)

    @property
    def viewer(self) -> Player:
        """Whose edge the board is seen from: B's when B is the only person here."""
        local = [p for p in (Player.A, Player.B) if self.session.is_local(p)]
        return Player.B if local == [Player.B] else Player.A

    def _board_lines(self) -> list[StyleAndTextTuples]:
        game, cells = self.session.game, self.highlighted_cells()
        return view.render_board(game, self.cell_width, cells, side=self.viewer)

    def _board_height(self) -> Dimension:
        needed = len(self._board_lines())
        return Dimension(min=min(needed, 11), preferred=needed, max=needed)

    def _decision_lines(self) -> int:
        width = self.size[0]
        text = view.decision_text(self.session)
        return min(3, len(view.wrap(text, width, "")))

    def _status_height(self) -> Dimension:
        text = self.message or HINT
        return Dimension.exact(min(3, len(view.wrap(text, self.size[0], ""))))

    def _decision_height(self) -> Dimension:
        return Dimension.exact(self._decision_lines())

    def _top_text(self) -> StyleAndTextTuples:
        return view.top_bar(self.session.game, self.size[0])

    def _board_text(self) -> StyleAndTextTuples:
        return _join(self._board_lines())

    def _seats_text(self) -> StyleAndTextTuples:
        return _join(view.seat_lines(self.session, view.board_width(self.cell_width)))

    def _tab_bar(self) -> StyleAndTextTuples:
        width = self.panel_width
        keys = {tab: key.upper() for key, tab in TAB_KEYS.items()}
        full: StyleAndTextTuples = []
        used = 0
        for tab in Tab:
            label = f"{keys[tab]} {tab.value}" if width >= 60 else tab.value
            style = "class:panel.title" if tab is self.tab else "class:panel.tab"
            full.append((style, f" {label} ", partial(self._click_tab, tab)))
            used += len(label) + 2
        if used <= width:
            return full
        title = f" {self.tab.value} ({keys[self.tab]}) "
        return [
            ("class:panel.title", title),
            ("class:dim", " F1-F6"[: width - len(title)]),
        ]

    def _click_tab(self, tab: Tab, event: MouseEvent) -> None:
        if event.event_type is MouseEventType.MOUSE_UP:
            self.show_tab(tab)

    def _panel_lines(self) -> list[StyleAndTextTuples]:
        game = self.session.game
        width = self.panel_width
        tab = self.tab
        if tab is Tab.CHOICES:
            items = self.choice_items()
            lines = view.choice_lines(game, items, self.selected, width)
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
        return _join(lines[self.panel_top :])

    def _log_lines(self) -> list[StyleAndTextTuples]:
        return view.log_lines(self.session.log, view.board_width(self.cell_width))

    def _log_text(self) -> StyleAndTextTuples:
        return _join(self._log_lines())

    def _log_cursor(self) -> Point:
        return Point(0, max(0, len(self._log_lines()) - 1))

    def _decision_text(self) -> StyleAndTextTuples:
        text = view.decision_text(self.session)
        return _join(view.wrap(text, self.size[0], "class:decision"))

    def _prompt(self) -> StyleAndTextTuples:
        player = self.session.local_player()
        return [("class:prompt", f"{player.name}> " if player is not None else "> ")]

    def _status_text(self) -> StyleAndTextTuples:
        if self.message:
            return _join(view.wrap(self.message, self.size[0], self.message_style))
        return [("class:status.hint", HINT)]

    def _confirm_text(self) -> StyleAndTextTuples:
        question = self.confirm.question if self.confirm is not None else ""
        width = self._confirm_width() - 1
        lines = textwrap.wrap(question, width, break_on_hyphens=False)
        return [("", "\n".join(lines) + "\n\n"), ("bold", "[y] yes   [n] no")]

    def _confirm_width(self) -> int:
        question = self.confirm.question if self.confirm is not None else ""
        return max(20, min(60, self.size[0] - 8, len(question) + 1))

    # --- keys ----------------------------------------------------------------------------

    def _guard(self, handler: Callable[[KeyPressEvent], None]) -> Callable[[KeyPressEvent], None]:
        """Run a key handler; an internal error ends the app cleanly and is reported."""

        def guarded(event: KeyPressEvent) -> None:
            try:
                handler(event)
            except Exception:
                self.crash(traceback.format_exc())

        return guarded

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        confirming = Condition(lambda: self.confirm is not None)
        entry = has_focus(self.buffer) & ~confirming

        @kb.add("c-c", eager=True)
        def _interrupt(event: KeyPressEvent) -> None:
            self.closing_words = ["Interrupted: game abandoned."]
            event.app.exit(result=EXIT_INTERRUPTED)

        kb.add("c-q", filter=~confirming)(self._guard(lambda e: self.ask_quit()))
        kb.add("c-d", filter=entry & Condition(lambda: not self.buffer.text))(
            self._guard(lambda e: self.ask_quit())
        )
        for key, tab in TAB_KEYS.items():
            kb.add(key, filter=~confirming)(self._guard(partial(self._key_tab, tab)))
        kb.add("pageup", filter=~confirming)(self._guard(lambda e: self.scroll(-1)))
        kb.add("pagedown", filter=~confirming)(self._guard(lambda e: self.scroll(1)))
        kb.add("up", filter=entry & ~has_completions)(self._guard(lambda e: self.step(-1)))
        kb.add("down", filter=entry & ~has_completions)(self._guard(lambda e: self.step(1)))
        kb.add("escape", filter=entry & has_completions, eager=True)(
            self._guard(lambda e: self.buffer.cancel_completion())
        )
        kb.add("enter", filter=entry)(self._guard(lambda e: self.enter()))
        return kb

    def _confirm_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        for key in ("y", "Y", "enter"):
            kb.add(key)(self._guard(lambda e: self.answer(True)))
        for key in ("n", "N", "escape", "c-q"):
            kb.add(key)(self._guard(lambda e: self.answer(False)))

        @kb.add("<any>")
        def _ignore(event: KeyPressEvent) -> None:
            pass

        return kb

    def _key_tab(self, tab: Tab, event: KeyPressEvent) -> None:
        self.show_tab(tab)

    def scroll(self, direction: int) -> None:
        """PageUp (-1) or PageDown (1): the panel by a page less one line."""
        height = self._panel_height()
        last = max(0, len(self._panel_lines()) - height)
        self.panel_top = max(0, min(last, self.panel_top + direction * max(1, height - 1)))

    def step(self, direction: int) -> None:
        """Up/Down: the previous or next legal choice into the entry."""
        items = self.choice_items()
        if not items:
            self.say("No legal choice to pick: no decision of yours is waiting.", error=True)
            return
        if self.selected < 0:
            index = 0 if direction > 0 else len(items) - 1
        else:
            index = (self.selected + direction) % len(items)
        self.pick(index)

    def pick(self, index: int) -> None:
        self.selected = index
        if self.tab is not Tab.CHOICES:
            self.show_tab(Tab.CHOICES)
        text = self._items[index]
        self.buffer.set_document(Document(text, len(text)), bypass_readonly=True)
        self.say(f"Enter plays '{text}'.")

    def _on_text_changed(self, buffer: Buffer) -> None:
        if self.message_style != "class:status.error":
            self.message = ""  # an answer to the last entry; errors stay while it is fixed
        if self.selected >= 0 and buffer.text != self._items[self.selected]:
            self.selected = -1

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

    def ask_quit(self) -> None:
        if self.session.game.is_over:
            self.quit()
            return
        self.ask("Quit? This game will be abandoned.", self.quit)

    # --- entries --------------------------------------------------------------------------

    def enter(self) -> None:
        """Enter: a command, or a choice in notation for the pending decision.

        With a completion picked in the menu, Enter only takes it into the entry.
        """
        state = self.buffer.complete_state
        if state is not None:
            self.buffer.complete_state = None
            if state.current_completion is not None:
                self.say(f"Enter plays '{self.buffer.text.strip()}'.")
                return
        text = self.buffer.text.strip()
        words = text.split(maxsplit=1)
        if not words:
            self.say("Type a choice (Tab completes it, Up/Down pick one) or 'help'.", error=True)
            return
        command, rest = words[0].lower(), (words[1].strip() if len(words) > 1 else "")
        if command in ("help", "?"):
            self.show_tab(Tab.HELP)
            self._clear("Help for this step is in the panel (F1).")
        elif command == "show":
            self.show(rest)
        elif command in TAB_WORDS and not rest:
            self.show_tab(TAB_WORDS[command])
            self._clear()
        elif command == "resign" and not rest:
            self.ask_resign()
        elif command in ("quit", "exit") and not rest:
            self._clear()
            self.ask_quit()
        else:
            self.play(text)

    def _clear(self, message: str = "") -> None:
        self.buffer.reset()
        self.say(message)

    def show(self, name: str) -> None:
        if not name:
            self.say("Show what? e.g. 'show lantern-page' or 'show B:ashmaw'.", error=True)
            return
        found = find_minis(self.session.game, name)
        if not found:
            self.say(f"No miniature in this game is called {name!r}.", error=True)
            return
        self.card = found
        self.show_tab(Tab.CARD)
        self._clear(f"Card of {', '.join(self.session.game.minis[i].label for i in found)}.")

    def ask_resign(self) -> None:
        game = self.session.game
        if game.is_over:
            self.say("The game is already over.", error=True)
            return
        player = self.session.local_player()
        if player is None:
            locals_ = [p for p in (Player.A, Player.B) if self.session.is_local(p)]
            if len(locals_) != 1:
                self.say("Resign when it is your decision.", error=True)
                return
            player = locals_[0]
        self._clear()
        self.ask(
            f"{player.name}: resign this game? {player.other.name} wins at once.",
            partial(self._resign, player),
        )

    def _resign(self, player: Player) -> None:
        self.session.resign(player)
        self.say(self.verdict())
        self.app.invalidate()

    def play(self, text: str) -> None:
        """A choice in notation: checked first; the entry stays for editing if it is wrong."""
        session = self.session
        game = session.game
        if game.is_over:
            self.say("The game is over: type 'quit' to leave, or 'log' to read it.", error=True)
            return
        player = session.local_player()
        pending = game.pending
        if player is None or not isinstance(pending, Decision):
            who = ""
            if isinstance(pending, Decision):
                who = f": {pending.player.name} ({session.seat_label(pending.player)}) is deciding"
            self.say(f"Not your decision now{who}. Wait a moment.", error=True)
            return
        try:
            choice = parse_choice(game, text)
        except DbnetError as exc:
            self.say(f"Not played: {exc}", error=True)
            return
        try:
            game.check_choice(choice)
        except DbnetError as exc:
            # The engine names the choice by its repr; people wrote it in notation.
            words = str(exc).replace(repr(choice), repr(format_choice(game, choice)))
            self.say(f"Not played: {words}", error=True)
            return
        if isinstance(choice, Done) and pending.kind in PHASE_ENDING:
            self.ask(_ending_question(game, pending), partial(self._submit, text))
            return
        self._submit(text)

    def _submit(self, text: str) -> None:
        game = self.session.game
        try:
            notation = format_choice(game, parse_choice(game, text))
            self.session.submit(text)
        except DbnetError as exc:
            self.say(f"Not played: {exc}", error=True)
            return
        self._clear(f"Played: {notation}")
        if game.is_over:
            self.say(self.verdict())
        self.start_advance()
        self.app.invalidate()

    # --- snapshots -------------------------------------------------------------------------

    def screen_text(self) -> str:
        """The screen as plain text at the output's size (tests and captures)."""
        columns, rows = self.size
        self.app.render_counter += 1  # controls cache their text per render: draw afresh
        with set_app(self.app):
            screen = Screen()
            self.app.layout.container.write_to_screen(
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


def _is_selected(line: StyleAndTextTuples) -> bool:
    return any("choice.selected" in fragment[0] for fragment in line)


def _join(lines: Sequence[StyleAndTextTuples]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def _ending_question(game: Game, pending: Decision) -> str:
    if pending.kind is DecisionKind.SPAWN:
        points = game.spawn_points
        if points:
            lost = f" {points} spawn point{'' if points == 1 else 's'} left will be lost (801.9)."
            return f"End your spawn phase?{lost}"
        return "End your spawn phase?"
    if pending.kind is DecisionKind.SHIFT:
        return "End your shift? Creatures that have not moved stay where they are."
    return "End your strike? No more combats this action phase."


def find_minis(game: Game, name: str) -> list[int]:
    """Miniatures called ``name``: ``[A:|B:]handle``, a beginning of a handle, or the full
    name. Exact names win over beginnings; copies of one miniature show once."""
    owner: Player | None = None
    key = name.strip().lower()
    if len(key) > 2 and key[1] == ":" and key[0] in "ab":
        owner = Player.A if key[0] == "a" else Player.B
        key = key[2:]
    minis = [m for m in game.minis if owner is None or m.owner is owner]
    exact = [m for m in minis if key in (m.handle, m.defn.slug, m.defn.name.lower())]
    found = exact or [m for m in minis if m.handle.startswith(key)]
    seen: set[tuple[Player, str]] = set()
    out = []
    for m in found:
        if (m.owner, m.defn.slug) not in seen or m.handle == key:
            seen.add((m.owner, m.defn.slug))
            out.append(m.id)
    return out


def default_setup(side: Player = Player.A) -> GameSetup:
    """The standard map; the first shipped warband in ``side``'s seat, the second opposite."""
    first, second = default_warbands(load_catalog())
    pair = (first, second) if side is Player.A else (second, first)
    return GameSetup(load_map(), pair)


def run_local(
    setup: GameSetup | None = None,
    *,
    bot: str = "greedy",
    side: Player = Player.A,
    seed: int | None = None,
    hotseat: bool = False,
    bot_delay: float = DEFAULT_BOT_DELAY,
) -> int:
    """Play a local game full screen: a person in ``side``'s seat against ``bot``, or two
    people at this keyboard (``hotseat``; ``side`` and ``bot`` are then unused).

    ``setup`` defaults to the standard map and the shipped warbands (the first in
    ``side``'s seat). ``seed`` makes dice and bot repeatable. Returns the exit code:
    0 when the game ended or the person quit, 1 after an internal error (reported
    on stderr), 130 on Ctrl-C.
    """
    if setup is None:
        setup = default_setup(side)
    if hotseat:
        session = LocalSession.hotseat_game(setup, seed=seed)
    else:
        session = LocalSession.against_bot(
            setup, bot=bot, side=side, seed=seed, bot_delay=bot_delay
        )
    console = ConsoleApp(session)
    code = console.run()
    for line in console.closing_words:
        print(line)
    if console.error is not None:
        print("dbnet: internal error, the game was stopped:", file=sys.stderr)
        print(console.error, file=sys.stderr, end="")
    return code
