"""The replay viewer: a checked replay file, full screen, stepped through by keys.

The screen, top to bottom: the verification verdict (red and bold when the
file is invalid); the play client's top bar for the position shown; the same
dreamscape and seat lines as the play client on the left, with the log under
them (the current step highlighted) and a panel on the right (reserves,
graveyards, the whole log, a miniature's card, help with the verdict in
full); the current step in words, a roll's dice with what they did; a
command line; a line of key hints and answers.

Keys: Right/Left (or n/p) one step, PageDown/PageUp (or N/P) one turn, Home/End
the start and the end, Up/Down scroll the panel, F1 and F3-F6 the panel's
pages, q or Ctrl-Q quit, Ctrl-C quit at once. Letters act as keys only while
the command line is empty; anything typed there is a command run with Enter:
``turn N``, ``:N`` or ``N`` (jump to turn N), ``step K`` or ``#K``, ``start``,
``end``, ``show NAME``, ``help``, ``reserves``, ``graves``, ``log``,
``card``, ``quit``.
"""

from __future__ import annotations

import re
import sys
import textwrap
from collections.abc import Callable
from functools import partial
from pathlib import Path

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, ScrollOffsets, VSplit, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.processors import BeforeInput
from prompt_toolkit.output import Output

from dbnet.console import screen, view
from dbnet.console.fullscreen import FullScreen, application
from dbnet.console.replay_view import ReplayModel
from dbnet.console.screen import TAB_KEYS, TAB_WORDS, Tab, join
from dbnet.console.session import LogKind
from dbnet.engine import Player, find_minis
from dbnet.interrupts import EXIT_INTERRUPTED
from dbnet.match.render import describe_result, render_score_by_turn
from dbnet.text import printable

EXIT_OK = 0
EXIT_INVALID = 1  # as dbnet replay --plain: the file is invalid (shown up to where it stops)

NBSP = "\u00a0"
TABS = (Tab.HELP, Tab.RESERVES, Tab.GRAVES, Tab.LOG, Tab.CARD)
HINT = "<- -> step  PgUp PgDn turn  Home End  :N turn N  F1 help  q quit"
KEYS_HELP = (
    "Keys: Right or n, one step forward; Left or p, one step back; PageDown or N, the "
    "first step of the next turn; PageUp or P, the first step of this turn (or of the one "
    "before); Home, the start; End, the end; Up and Down scroll this panel; F1 help, F3 "
    "reserves, F4 graveyards, F5 the whole log, F6 a card; q or Ctrl-Q quits. Letters are "
    "keys only while the command line is empty."
)
COMMANDS_HELP = (
    "Commands (type, then Enter): 'turn N', ':N' or just 'N' jumps to the first step of "
    "turn N; 'step K' or '#K' to step K (the numbers in the log); 'start', 'end'; 'show "
    "NAME' a miniature's card ('show B:ashmaw'); 'reserves', 'graves', 'log', 'card', "
    "'help'; 'quit'. Escape clears the line."
)
STEPS_HELP = (
    "A step is one decision, one roll (its dice and what they did), a resignation, or an "
    "entry that closes the log (FINAL, COSIGN, a timeout CLAIM). The board shows the "
    "position after the current step; the cells it names are in reverse video."
)


class ReplayApp(FullScreen):
    """The full-screen viewer of one replay. ``run()`` returns the exit code."""

    def __init__(
        self,
        model: ReplayModel,
        *,
        input: Input | None = None,
        output: Output | None = None,
        colour: bool | None = None,
    ) -> None:
        self.model = model
        self.tab = Tab.RESERVES
        self.card: list[int] = []
        self.panel_top = 0
        self.message = ""
        self.message_style = "class:status.info"
        self.buffer = Buffer(multiline=False, name="command")
        self.buffer.on_text_changed += self._on_text_changed
        self.open(
            application(
                self._layout(), self._key_bindings(), colour=colour, input=input, output=output
            )
        )

    # --- running --------------------------------------------------------------------

    def quit(self, code: int | None = None) -> None:
        if code is None:
            code = EXIT_INVALID if self.model.is_invalid else EXIT_OK
        self.app.exit(result=code)

    def say(self, text: str, error: bool = False) -> None:
        self.message = text
        self.message_style = "class:status.error" if error else "class:status.info"

    # --- moving ------------------------------------------------------------------------

    def move(self, moved: bool, edge: str) -> None:
        """After a move: clear the last answer, or say why nothing moved."""
        if moved:
            self.say("")
            if self.tab is Tab.LOG:
                self._follow_log()
        else:
            self.say(edge, error=True)

    def forward(self) -> None:
        self.move(self.model.forward(), self._end_words())

    def back(self) -> None:
        self.move(self.model.back(), "This is the start: nothing was played before it.")

    def next_turn(self) -> None:
        self.move(self.model.next_turn(), "This is the last turn. End goes to the last step.")

    def previous_turn(self) -> None:
        self.move(self.model.previous_turn(), "This is the start.")

    def to_start(self) -> None:
        self.move(self.model.start(), "This is the start.")

    def to_end(self) -> None:
        self.move(self.model.end(), self._end_words())

    def to_turn(self, turn: int) -> None:
        if self.model.jump_to_turn(turn):
            self.say(f"Turn {turn}, its first step.")
            self._follow_log()
            return
        turns = self.model.turns
        has = f"it has turns 1 to {turns[-1]}" if turns else "no turn was played"
        self.say(f"The game has no turn {turn} ({has}).", error=True)

    def to_step(self, number: int) -> None:
        if not 0 <= number <= self.model.last:
            self.say(f"There is no step {number}: steps go from 0 to {self.model.last}.", True)
            return
        self.model.go(number)
        self.say("")
        self._follow_log()

    def _end_words(self) -> str:
        if self.model.is_invalid:
            return "The replay stops here: the next record is invalid (see the top line)."
        return "This is the end of the replay."

    # --- commands -------------------------------------------------------------------------

    def enter(self) -> None:
        text = self.buffer.text.strip()
        self.buffer.reset()
        if not text:
            self.say(HINT)
            return
        words = text.lower().split()
        command, rest = words[0], words[1:]
        if text.startswith(":") or _number(text) is not None:
            self._turn_command(text.removeprefix(":"), "':N'")
        elif command in ("turn", "t"):
            self._turn_command(" ".join(rest), "'turn N'")
        elif text.startswith("#") or command == "step":
            number = _number(text[1:] if text.startswith("#") else " ".join(rest))
            if number is None:
                self.say("'step K' wants a step number, e.g. 'step 12' or '#12'.", error=True)
            else:
                self.to_step(number)
        elif command == "start" and not rest:
            self.to_start()
        elif command == "end" and not rest:
            self.to_end()
        elif command == "show":
            self.show(text.split(maxsplit=1)[1] if rest else "")
        elif command in ("help", "?") and not rest:
            self.show_tab(Tab.HELP)
        elif command in TAB_WORDS and TAB_WORDS[command] in TABS and not rest:
            self.show_tab(TAB_WORDS[command])
        elif command in ("quit", "exit", "q") and not rest:
            self.quit()
        else:
            self.say(f"Unknown command {text!r}. Type 'help' (or press F1).", error=True)

    def _turn_command(self, text: str, form: str) -> None:
        turn = _number(text)
        if turn is None:
            self.say(f"{form} wants a turn number, e.g. 'turn 3' or ':3'; not {text!r}.", True)
        else:
            self.to_turn(turn)

    def show(self, name: str) -> None:
        if not name:
            self.say("Show what? e.g. 'show lantern-page' or 'show B:ashmaw'.", error=True)
            return
        game = self.model.game
        found = find_minis(game, name)
        if not found:
            self.say(f"No miniature in this game is called {name!r}.", error=True)
            return
        self.card = found
        self.show_tab(Tab.CARD)
        self.say(f"Card of {', '.join(game.minis[i].label for i in found)}.")

    def show_tab(self, tab: Tab) -> None:
        self.tab = tab
        self.panel_top = 0
        if tab is Tab.LOG:
            self._follow_log()

    def scroll(self, direction: int) -> None:
        last = max(0, len(self._panel_lines()) - self._panel_height())
        self.panel_top = max(0, min(last, self.panel_top + direction))

    def _follow_log(self) -> None:
        """With the log in the panel: the current step a few lines from the panel's top."""
        if self.tab is Tab.LOG:
            row = view.current_row(self._panel_lines())
            self.panel_top = max(0, row - 2)

    def _on_text_changed(self, buffer: Buffer) -> None:
        if self.message_style != "class:status.error":
            self.message = ""

    # --- layout -----------------------------------------------------------------------------

    def _layout(self) -> Layout:
        board_width = lambda: view.board_width(screen.cell_width(self.size[0]))  # noqa: E731
        self.log_window = Window(
            screen.lines_control(self._log_lines, view.current_row),
            always_hide_cursor=True,
            scroll_offsets=ScrollOffsets(top=1, bottom=1),
            # the board first: the step line under it repeats the current entry anyway
            height=Dimension(min=1, preferred=1, weight=1),
        )
        self.panel_window = Window(FormattedTextControl(self._panel_text), always_hide_cursor=True)
        middle = VSplit(
            [
                HSplit(
                    [
                        Window(
                            FormattedTextControl(self._board_text),
                            height=self._board_height,
                            dont_extend_width=True,
                        ),
                        Window(FormattedTextControl(self._seats_text), height=2),
                        self.log_window,
                    ],
                    width=board_width,
                ),
                Window(width=1, char=" "),
                HSplit([Window(FormattedTextControl(self._tab_bar), height=1), self.panel_window]),
            ]
        )
        self.entry_window = Window(
            BufferControl(self.buffer, input_processors=[BeforeInput(self._prompt)]), height=1
        )
        body = HSplit(
            [
                Window(
                    FormattedTextControl(self._verdict_text),
                    height=self._verdict_height,
                    wrap_lines=False,
                ),
                Window(FormattedTextControl(self._top_text), height=1),
                middle,
                Window(FormattedTextControl(self._step_text), height=self._step_height),
                self.entry_window,
                Window(FormattedTextControl(self._status_text), height=1),
            ]
        )
        fitted = screen.fitted(body, lambda: self.size, "q or Ctrl-Q")
        return Layout(fitted, focused_element=self.entry_window)

    def _verdict_lines(self) -> list[str]:
        """The verdict with the file's name: one line (cut to fit) for a valid file; up to
        two for an invalid one, which also says how far it is shown."""
        model = self.model
        width = self.size[0] - 2
        name = Path(model.story.where).name
        text = printable(f"{name}: {model.verdict.summary()}")  # it may quote the file
        if not model.is_invalid:
            return [text if len(text) <= width else text[: width - 1] + "~"]
        seqs = [step.seq for step in model.steps if step.seq is not None]
        shown = f"entry {max(seqs)}" if seqs else "the start"
        text = printable(f"INVALID: {name}: {model.verdict.summary()}; shown up to {shown}.")
        lines = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
        if len(lines) > 2:
            lines = [lines[0], lines[1][: width - 1] + "~"]
        return lines

    def _verdict_height(self) -> Dimension:
        return Dimension.exact(len(self._verdict_lines()))

    def _verdict_text(self) -> StyleAndTextTuples:
        style = "class:verdict.bad" if self.model.is_invalid else "class:verdict"
        width = self.size[0]
        return join([[(style, f" {line:<{width - 2}} ")] for line in self._verdict_lines()])

    def _top_text(self) -> StyleAndTextTuples:
        return view.top_bar(self.model.game, self.size[0])

    def _board_lines(self) -> list[StyleAndTextTuples]:
        return self.safely("board", self._draw_board, _error_line)

    def _draw_board(self) -> list[StyleAndTextTuples]:
        model = self.model
        step = model.step
        words = [w.strip(":.,") for w in f"{step.notation} {step.words}".split()]
        cells = view.named_cells(model.game, words[1:]) if step.number else []
        width = screen.cell_width(self.size[0])
        return view.render_board(model.game, width, cells, max_lines=self._board_room())

    def _board_room(self) -> int:
        """The lines left for the board by the rest of the screen: the verdict, the top
        bar, the seats, a line of log, the step, the entry and the status."""
        others = len(self._verdict_lines()) + 1 + 2 + 1 + len(self._step_lines()) + 1 + 1
        return max(view.MIN_BOARD_LINES, self.size[1] - others)

    def _board_height(self) -> Dimension:
        return screen.board_height(len(self._board_lines()))

    def _board_text(self) -> StyleAndTextTuples:
        return join(self._board_lines())

    def _seats_text(self) -> StyleAndTextTuples:
        setup = self.model.game.setup
        labels = (repr(setup.warbands[Player.A].name), repr(setup.warbands[Player.B].name))
        width = view.board_width(screen.cell_width(self.size[0]))
        return join(view.seat_lines(self.model.game, labels, width))

    def _log_lines(self) -> list[StyleAndTextTuples]:
        model = self.model
        width = view.board_width(screen.cell_width(self.size[0]))
        return self.safely(
            "log",
            lambda: view.log_lines(model.log, width, model.log_index(model.current)),
            _error_line,
        )

    def _tab_bar(self) -> StyleAndTextTuples:
        return screen.tab_bar(TABS, self.tab, screen.panel_width(self.size[0]))

    def _panel_lines(self) -> list[StyleAndTextTuples]:
        width = screen.panel_width(self.size[0])
        return self.safely(
            f"{self.tab.value} panel",
            self._draw_panel,
            lambda line: view.wrap(line, width, "class:status.error"),
        )

    def _draw_panel(self) -> list[StyleAndTextTuples]:
        model = self.model
        game = model.game
        width = screen.panel_width(self.size[0])
        if self.tab is Tab.RESERVES:
            return view.reserve_lines(game, width)
        if self.tab is Tab.GRAVES:
            return view.graveyard_lines(game, width)
        if self.tab is Tab.LOG:
            lines = view.log_lines(model.log, width, model.log_index(model.current))
            if model.current == model.last and game.is_over:
                lines += [[], [("class:panel.heading", "Score by turn (conquest points)")]]
                lines += [[("", text)] for text in render_score_by_turn(game)]
            return lines
        if self.tab is Tab.CARD:
            if not self.card:
                return view.wrap("Type 'show NAME' to see a miniature's card here.", width, "")
            return view.card_lines(game, self.card, width)
        return self._help_lines(width)

    def _help_lines(self, width: int) -> list[StyleAndTextTuples]:
        model = self.model
        style = "class:status.error" if model.is_invalid else "class:panel.heading"
        lines = view.wrap(f"Verdict: {model.verdict.summary()}", width, style)
        header = model.story.header
        if header is not None:
            lines += view.wrap(
                f"Game {header.game_id.hex()[:16]}, rules {header.rules}, created "
                f"{header.created} (informative).",
                width,
                "",
            )
        for text in model.players():
            lines += view.wrap(text, width, "")
        lines.append([])
        for text in (KEYS_HELP, COMMANDS_HELP, STEPS_HELP):
            lines += view.wrap(text, width, "class:dim" if text is STEPS_HELP else "")
            lines.append([])
        return lines

    def _panel_height(self) -> int:
        info = self.panel_window.render_info
        return info.window_height if info is not None else max(5, self.size[1] - 10)

    def _panel_text(self) -> StyleAndTextTuples:
        lines = self._panel_lines()
        self.panel_top = max(0, min(self.panel_top, len(lines) - 1))
        return join(lines[self.panel_top :])

    def step_words(self) -> str:
        """The current step in words: where it is, what it was, the dice, what followed."""
        model = self.model
        step = model.step
        if step.number == 0:
            return f"{step.words} Right (or n) steps forward; type 'help' for more."
        where = f"Step {step.number} of {model.last}, entry {step.seq}, turn {step.turn}:"
        if step.kind is LogKind.ROLL:
            what = f"{step.notation}: {step.words}"
        elif step.kind is LogKind.CHOICE:
            what = f"{step.words}."
        else:
            what = step.words if step.words.endswith(".") else f"{step.words}."
        text = " ".join([where, what, *step.after])
        game = model.game
        if step.number == model.last:
            if game.is_over and step.kind is not LogKind.SEAL:
                text += f" {describe_result(game)}"
            if model.is_invalid:
                text += " The replay stops here."
            elif not game.is_over:
                text += " The replay ends here: the game is unfinished."
        return text

    def _step_lines(self) -> list[StyleAndTextTuples]:
        # dice faces ([1 - 3]) are kept on one line: their blanks are not break points
        text = re.sub(r"\[[^\]]*\]", lambda m: m.group().replace(" ", NBSP), self.step_words())
        lines = view.wrap(text, self.size[0], "class:decision")[:3]
        return [[(style, part.replace(NBSP, " ")) for style, part, *_ in line] for line in lines]

    def _step_height(self) -> Dimension:
        return Dimension.exact(len(self._step_lines()))

    def _step_text(self) -> StyleAndTextTuples:
        return join(self._step_lines())

    def _prompt(self) -> StyleAndTextTuples:
        return [("class:prompt", "> ")]

    def _status_text(self) -> StyleAndTextTuples:
        if self.message:
            text = self.message
            if len(text) > self.size[0]:
                text = text[: self.size[0] - 1] + "~"
            return [(self.message_style, text)]
        return [("class:status.hint", HINT[: self.size[0]])]

    # --- keys ---------------------------------------------------------------------------

    def _key_bindings(self) -> KeyBindings:
        kb = KeyBindings()
        empty = Condition(lambda: not self.buffer.text)

        @kb.add("c-c", eager=True)
        def _interrupt(event: KeyPressEvent) -> None:
            event.app.exit(result=EXIT_INTERRUPTED)

        moves: list[tuple[tuple[str, ...], Callable[[], None]]] = [
            (("right", "n"), self.forward),
            (("left", "p"), self.back),
            (("pagedown", "N"), self.next_turn),
            (("pageup", "P"), self.previous_turn),
            (("home",), self.to_start),
            (("end",), self.to_end),
            (("q",), self.quit),
        ]
        for keys, action in moves:
            for key in keys:
                kb.add(key, filter=empty)(self.guard(action))
        kb.add("c-q")(self.guard(self.quit))
        kb.add("up")(self.guard(partial(self.scroll, -1)))
        kb.add("down")(self.guard(partial(self.scroll, 1)))
        for key, tab in TAB_KEYS.items():
            if tab in TABS:
                kb.add(key)(self.guard(partial(self.show_tab, tab)))
        kb.add("escape", eager=True)(self.guard(self.buffer.reset))
        kb.add("enter")(self.guard(self.enter))
        return kb


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


def run_viewer(model: ReplayModel, *, at: int | None = None) -> int:
    """View ``model`` full screen (at the first step of turn ``at`` if given); returns the
    exit code: 0 for a valid file, 1 for an invalid one (as ``dbnet replay --plain``) or
    after an internal error (reported on stderr), 130 on Ctrl-C. The verdict is printed
    once the screen is gone."""
    if at is not None:
        model.jump_to_turn(at)
    viewer = ReplayApp(model)
    code = viewer.run()
    print(f"{model.story.where}: {model.verdict.summary()}")
    if viewer.error is not None:
        print("dbnet: internal error, the viewer was stopped:", file=sys.stderr)
        print(viewer.error, file=sys.stderr, end="")
    return code


def _error_line(line: str) -> list[StyleAndTextTuples]:
    """A part of the screen that could not be drawn, as the one line that says so."""
    return [[("class:status.error", line)]]
