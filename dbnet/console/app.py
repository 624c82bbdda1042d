"""The full-screen console client (prompt-toolkit): the screen, the keys, and ``run_local``.

The screen, top to bottom: a bar with the turn, phase, victory track and the
conquest points each player would score now; the dreamscape on the left with
one line per player under it (seat, spawn points, reserves, graveyard) and a
panel on the right (legal choices, reserves with spawn costs, graveyards, the
log, a miniature's card, help); the log's latest lines; the pending decision
in words; the input line; a status line for answers and errors.

The client only talks to a ``Session`` (``dbnet.console.session``), so the
same screen will serve network games. Bots, dice and later the network run in
a background task; the screen never waits for them. When the screen closes,
however it closes, the session is closed too: its replay file holds every
entry written, and where it is is printed on the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import textwrap
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from prompt_toolkit.buffer import Buffer
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
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.output import Output
from prompt_toolkit.widgets import Frame

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.console import screen, view
from dbnet.console.builder import run_pool_builder
from dbnet.console.chat import chat_bindings, chat_line
from dbnet.console.completion import ChoiceCompleter
from dbnet.console.copying import Copyable, show_alone
from dbnet.console.fullscreen import EXIT_ERROR, EXIT_INTERRUPTED, FullScreen, application
from dbnet.console.screen import (
    TAB_KEYS,
    TAB_WORDS,
    Tab,
)
from dbnet.console.session import DEFAULT_BOT_DELAY, LocalSession, Session
from dbnet.engine import (
    Decision,
    DecisionKind,
    Done,
    Game,
    GameSetup,
    Player,
    find_minis,
    format_choice,
    read_choice,
)
from dbnet.errors import DbnetError, InvalidChoiceError
from dbnet.match.building import build_decision, pool_of
from dbnet.match.render import describe_pending, describe_result, render_score_by_turn
from dbnet.text import printable

EXIT_DONE = 0

LOG_MIN = 2

PHASE_ENDING = (DecisionKind.SPAWN, DecisionKind.SHIFT, DecisionKind.STRIKE)
HINT = "Tab complete  Up/Down pick  Enter play  F1 help  F2-F6 panels  ^Q quit"


@dataclass(frozen=True, slots=True)
class Confirm:
    """A yes/no question; ``on_yes`` runs when the answer is yes."""

    question: str
    on_yes: Callable[[], None]


class ConsoleApp(FullScreen):
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
        self.tab = Tab.CHOICES
        self.message = "Welcome to dbnet. Type 'help' or press F1 at any time."
        if session.replay_path is not None:
            self.message += f" Saving the replay to {session.replay_path}"
        self.message_style = "class:status.info"
        self.welcome = True  # the welcome (and where the replay goes) stays until a key
        self.card: list[int] = []
        self.selected = -1
        self.panel_top = 0  # the panel line shown at the top (PageUp, PageDown)
        self.confirm: Confirm | None = None
        self.exit_code = EXIT_DONE
        self.closing_words: list[str] = []
        self._items_key: object = None
        self._items: list[str] = []
        self._meanings: dict[str, str] = {}
        self._auto_tab: object = None
        self._advancing = False

        self.buffer = Buffer(
            completer=ChoiceCompleter(
                lambda: self.session.game, self.choice_items, self.choice_meaning
            ),
            complete_while_typing=False,
            multiline=False,
            name="entry",
        )
        self.buffer.on_text_changed += self._on_text_changed
        self.chat_buffer = Buffer(multiline=False, name="chat")
        self.say_chat: Callable[[str], None] | None = getattr(session, "say_chat", None)
        """How to send the opponent a chat line (network games only; ``console.chat``)."""
        self.chatting = False
        """Whether the chat line is shown (in the entry's row) and has the focus."""
        self.open(
            application(
                self._layout(),
                self._key_bindings(),
                colour=colour,
                input=input,
                output=output,
                mouse=mouse,
            )
        )
        self._set_default_tab()

    # --- running --------------------------------------------------------------------

    async def run_async(self) -> int:
        """Run until the person quits or interrupts; the terminal is restored either way,
        and the session is closed (its replay saved as far as the game went) on the same
        event loop, which a network game runs on too."""
        return await self._finish(await super().run_async())

    def starting(self) -> None:
        self.start_advance()

    def stopped(self, number: int) -> None:
        """SIGTERM or SIGHUP: leave as Ctrl-C does (the session is closed on the way out,
        its replay saved, and the line that resumes it printed)."""
        name = signal.Signals(number).name
        if self.watching:
            self.closing_words = [f"Stopped by {name}; the game goes on without you."]
        elif self.session.resumable and not self.session.game.is_over:
            self.closing_words = [f"Stopped by {name}; the game is saved and can be resumed."]
        else:
            self.closing_words = [f"Stopped by {name}."]
        super().stopped(number)

    async def _finish(self, code: int) -> int:
        try:
            await self.session.aclose()
        except Exception:
            self.error = (self.error or "") + traceback.format_exc()
        self.closing_words += self.session.farewell()
        self.exit_code = code if self.error is None else EXIT_ERROR
        return self.exit_code

    def start_advance(self) -> None:
        """Let bots and dice play, in the background, until a local person must decide."""
        if self._advancing or self.session.is_closed:
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
            if (
                len(self.session.log) != steps
                and self.message_style != "class:status.error"
                and not self.welcome
            ):
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
        path = self.session.replay_path
        saved = "" if path is None else f" Replay: {path}."
        return f"{result}{saved} Type 'quit' to leave; F5 shows the log and the score by turn."

    def _changed(self) -> None:
        self._set_default_tab()
        self.app.invalidate()

    def quit(self, code: int = EXIT_DONE) -> None:
        game = self.session.game
        if game.is_over:
            self.closing_words = [describe_pending(game), "Score by turn:"]
            self.closing_words += render_score_by_turn(game)
        elif self.watching:
            self.closing_words = ["Stopped watching; the game goes on without you."]
        elif self.session.resumable:
            self.closing_words = ["Game left unfinished; it is saved and can be resumed."]
        else:
            self.closing_words = ["Game abandoned."]
        self.app.exit(result=code)

    @property
    def watching(self) -> bool:
        """Whether this screen only watches (a spectator: nobody here plays)."""
        return self.session.spectating

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

    # --- keys ----------------------------------------------------------------------------

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        confirming = Condition(lambda: self.confirm is not None)
        entry = has_focus(self.buffer) & ~confirming

        @kb.add("c-c", eager=True)
        def _interrupt(event: KeyPressEvent) -> None:
            if self.watching:
                self.closing_words = ["Interrupted; the game goes on without you."]
            elif self.session.resumable and not self.session.game.is_over:
                self.closing_words = ["Interrupted; the game is saved and can be resumed."]
            else:
                self.closing_words = ["Interrupted: game abandoned."]
            event.app.exit(result=EXIT_INTERRUPTED)

        kb.add("c-q", filter=~confirming)(self.guard(self.ask_quit))
        kb.add("c-d", filter=entry & Condition(lambda: not self.buffer.text))(
            self.guard(self.ask_quit)
        )
        for key, tab in TAB_KEYS.items():
            kb.add(key, filter=~confirming)(self.guard(partial(self.show_tab, tab)))
        kb.add("pageup", filter=~confirming)(self.guard(partial(self.scroll, -1)))
        kb.add("pagedown", filter=~confirming)(self.guard(partial(self.scroll, 1)))
        kb.add("up", filter=entry & ~has_completions)(self.guard(partial(self.step, -1)))
        kb.add("down", filter=entry & ~has_completions)(self.guard(partial(self.step, 1)))
        kb.add("escape", filter=entry & has_completions, eager=True)(
            self.guard(self.buffer.cancel_completion)
        )
        kb.add("enter", filter=entry)(self.guard(self.enter))
        chat_bindings(kb, self, ~confirming)
        return kb

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
        meaning = self._meanings.get(text)
        self.say(f"Enter plays '{text}'" + (f": {meaning}." if meaning else "."))

    def _on_text_changed(self, buffer: Buffer) -> None:
        if self.message_style != "class:status.error":
            self.message = ""  # an answer to the last entry; errors stay while it is fixed
            self.welcome = False
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
        if self.watching:
            self.ask("Stop watching? The game goes on without you.", self.quit)
        elif self.session.resumable:
            self.ask("Quit? The game is saved: you can go on with it later.", self.quit)
        else:
            self.ask("Quit? This game will be abandoned.", self.quit)

    # --- entries --------------------------------------------------------------------------

    def enter(self) -> None:
        """Enter: a command, or a choice in notation for the pending decision.

        An open completion menu is closed and the entry, with the completion picked in
        it if any, is played at once: one Enter always submits.
        """
        if self.buffer.complete_state is not None:
            self.buffer.complete_state = None  # the picked completion is already the text
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
        elif command == "invite" and not rest:
            self.show_invite()
        elif command == "say" and self.say_chat is not None:
            self._clear()
            self.say_chat(rest)
        elif command == "rematch":
            self.rematch(rest)
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

    def rematch(self, terms: str = "") -> None:
        """'rematch': yes to another game over a network game's connection, once it ends;
        the host may add new terms (``rematch --turns-to-win 4``)."""
        session = self.session
        offer = getattr(session, "rematch", None)
        if offer is None:
            self.say("No rematch here: it is offered when a network game ends.", error=True)
            return
        try:
            offer(terms)
        except InvalidChoiceError as exc:  # bad terms: the question stays open
            self.say(str(exc), error=True)
            return
        except DbnetError as exc:
            self.say(f"Not now: {exc}.", error=True)
            return
        self._clear("Rematch: waiting for the opponent's answer.")

    def show_invite(self) -> None:
        """'invite': the host's invites alone, out of the full screen, to copy whole."""
        session = self.session
        lines = session.copyable if isinstance(session, Copyable) else ()
        if not lines:
            self.say("No invite here: the host of a network game has one.", error=True)
            return
        self._clear()
        self.app.create_background_task(self._show_alone(lines))

    async def _show_alone(self, lines: Sequence[tuple[str, str]]) -> None:
        try:
            await show_alone(lines)
        except Exception as exc:  # a convenience: the game goes on without it
            self.say(f"The invite could not be shown alone ({exc}); it is in the log.", error=True)
            self._changed()

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
        if self.session.resign(player):
            self.say(self.verdict())
        else:
            who = self.session.seat_label(player.other)
            self.say(f"{player.name} resigns as soon as their entry is due (after {who}'s).")
        self.start_advance()
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
            choice = read_choice(game, text)  # legal, or why not and what is
        except DbnetError as exc:
            self.say(f"Not played: {exc}", error=True)
            return
        notation = format_choice(game, choice)
        if isinstance(choice, Done) and pending.kind in PHASE_ENDING:
            self.ask(_ending_question(game, pending), partial(self._submit, notation))
            return
        self._submit(notation)

    def _submit(self, text: str) -> None:
        game = self.session.game
        try:
            notation = format_choice(game, read_choice(game, text))
            self.session.submit(notation)
        except DbnetError as exc:
            self.say(f"Not played: {exc}", error=True)
            return
        self._clear(f"Played: {notation}")
        if game.is_over:
            self.say(self.verdict())
        self.start_advance()
        self.app.invalidate()


def _is_selected(line: StyleAndTextTuples) -> bool:
    return any("choice.selected" in fragment[0] for fragment in line)


def _ending_question(game: Game, pending: Decision) -> str:
    if pending.kind is DecisionKind.SPAWN:
        points = game.spawn_points
        if points:
            plural = "" if points == 1 else "s"
            lost = f" {points} spawn point{plural} left will be lost (rule 801.9)."
            return f"End your spawn phase?{lost}"
        return "End your spawn phase?"
    if pending.kind is DecisionKind.SHIFT:
        return "End your shift? Creatures that have not moved stay where they are."
    return "End your strike? No more combats this action phase."


def default_setup(side: Player = Player.A) -> GameSetup:
    """The standard map; the first shipped warband in ``side``'s seat, the second opposite."""
    first, second = default_warbands(load_catalog())
    pair = (first, second) if side is Player.A else (second, first)
    return GameSetup(load_map(), pair)


def run_local(
    setup: GameSetup | None = None,
    *,
    bot: str = "greedy",
    think: float | None = None,
    playouts: int | None = None,
    side: Player | None = Player.A,
    seed: int | None = None,
    hotseat: bool = False,
    bot_delay: float = DEFAULT_BOT_DELAY,
    replay: Path | None = None,
    resume: Path | None = None,
    build_seconds: float = 600.0,
    notes: Sequence[str] = (),
) -> int:
    """Play a local game full screen: a person in ``side``'s seat against ``bot``, or two
    people at this keyboard (``hotseat``; ``side`` and ``bot`` are then unused). ``think``
    and ``playouts`` are a search bot's budget per decision (``dbnet.bots.make_bot``).

    ``setup`` defaults to the standard map and the shipped warbands (the first in
    ``side``'s seat). ``seed`` makes the keys, dice and bot repeatable. The game is saved
    as it is played at ``replay`` (a new file), by default in ``<config dir>/replays/``;
    where it went is printed on exit. With ``resume`` (a replay file), the unfinished game
    saved there goes on instead (``setup``, ``hotseat`` and ``replay`` are then unused;
    ``side`` only says the person's seat in a ``seed`` game, None for people in both).
    Returns the exit code: 0 when the game ended or the person quit, 1 after an internal
    error (reported on stderr), 130 on Ctrl-C. A Limited ``setup`` opens the builder on
    the person's pool first, for ``build_seconds`` (``build_limited``). ``notes`` go to
    the log first (what a resumed game's options changed).

    Raises:
        DbnetError: the replay file cannot be created or resumed (before the screen opens).
    """
    if resume is not None:
        session = LocalSession.resume(
            resume,
            bot=bot,
            think=think,
            playouts=playouts,
            seed=seed,
            side=side,
            bot_delay=bot_delay,
        )
        for note in notes:
            session.note(note)
        return run_session(session)
    side = Player.A if side is None else side  # None: a resumed hotseat game
    if setup is None:
        setup = default_setup(side)
    if hotseat:
        session = LocalSession.hotseat_game(setup, seed=seed, replay=replay)
    else:
        session = LocalSession.against_bot(
            setup,
            bot=bot,
            think=think,
            playouts=playouts,
            side=side,
            seed=seed,
            bot_delay=bot_delay,
            replay=replay,
            build_minutes=build_seconds / 60,
        )
    if setup.limited is not None:
        try:
            build_limited(session, build_seconds)
        except KeyboardInterrupt:  # SIGTERM or SIGHUP in the builder (commands.stopping)
            session.close()
            _say_after(["Stopped; the game is saved and can be resumed.", *session.farewell()])
            raise
        except BaseException:
            session.close()
            raise
    return run_session(session)


def _say_after(lines: Sequence[str]) -> None:
    """Print ``lines`` once the screen is gone (after SIGHUP the terminal may be gone too:
    nothing is lost but the words)."""
    try:
        for line in lines:
            print(printable(line), flush=True)  # a failure's words may quote the peer
    except (OSError, ValueError):
        pass


def build_limited(session: LocalSession, seconds: float) -> None:
    """A Limited game's build before the game's screen: the pack roll (and the bot's
    commitment if it builds first), then the full-screen builder on the person's pool for
    ``seconds``; what it returns is committed (the last legal warband, else the automatic
    build, when the time runs out). The reveals follow in the game (``LocalSession``)."""
    asyncio.run(session.advance(lambda: None))
    player = session.local_player()
    pending = build_decision(session.game)
    if player is None or pending is None or pending.kind is not DecisionKind.COMMIT:
        return
    game = session.game
    fmt = game.setup.limited.format if game.setup.limited is not None else "Limited"
    minis, said = run_pool_builder(
        pool_of(game, player),
        load_catalog(),
        seconds=seconds,
        label=f"Limited {fmt}, you are {player.name}",
    )
    builder = session.local.builders[player]
    if minis is not None:
        builder.save(game, player, minis)
    session.note(said)
    session.submit(format_choice(game, builder.choice(game)))


def run_session(session: Session) -> int:
    """Run the client over ``session`` until it closes; print its closing words (and an
    internal error's traceback) on the restored terminal; return the exit code."""
    try:
        console = ConsoleApp(session)
    except BaseException:
        session.close()
        raise
    code = console.run()
    _say_after(console.closing_words)
    if console.error is not None:
        with contextlib.suppress(OSError, ValueError):
            print("dbnet: internal error, the game was stopped:", file=sys.stderr)
            print(console.error, file=sys.stderr, end="")
    return code
