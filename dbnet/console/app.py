"""The full-screen console client (prompt-toolkit): ``ConsoleApp``, its keys and entries.

What the screen shows and how it is laid out is ``console.game_screen``'s (``GameScreen``,
this class's base); opening the client over a session, or on a local game, is
``console.launch``'s (``run_session``, ``run_local``).

The client only talks to a ``Session`` (``dbnet.console.session``), so the
same screen will serve network games. Bots, dice and later the network run in
a background task; the screen never waits for them. When the screen closes,
however it closes, the session is closed too: its replay file holds every
entry written, and where it is is printed on the terminal.
"""

from __future__ import annotations

import signal
import traceback
from collections.abc import Callable, Sequence
from functools import partial

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, has_completions, has_focus
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from dbnet.console.chat import chat_bindings
from dbnet.console.completion import ChoiceCompleter
from dbnet.console.copying import Copyable, show_alone
from dbnet.console.fullscreen import EXIT_ERROR, application
from dbnet.console.game_screen import Confirm, GameScreen
from dbnet.console.screen import TAB_KEYS, TAB_WORDS, Tab
from dbnet.console.session import Session
from dbnet.engine import (
    Decision,
    DecisionKind,
    Done,
    Game,
    Player,
    find_minis,
    format_choice,
    read_choice,
)
from dbnet.errors import DbnetError, InvalidChoiceError
from dbnet.interrupts import EXIT_INTERRUPTED
from dbnet.match.render import describe_pending, describe_result, render_score_by_turn

EXIT_DONE = 0

PHASE_ENDING = (DecisionKind.SPAWN, DecisionKind.SHIFT, DecisionKind.STRIKE)


class ConsoleApp(GameScreen):
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

    def _on_text_changed(self, buffer: Buffer) -> None:
        if self.message_style != "class:status.error":
            self.message = ""  # an answer to the last entry; errors stay while it is fixed
            self.welcome = False
        if self.selected >= 0 and buffer.text != self._items[self.selected]:
            self.selected = -1

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
