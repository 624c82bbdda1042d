"""A network game in the full-screen client: ``NetworkSession``.

The game itself is a ``dbnet.net.session.GameSession`` (trio), run by trio in
*guest mode* on prompt-toolkit's asyncio loop: trio's tasks and the screen take
turns on one thread, so nothing the screen reads (the log, the position, the
connection's state) is ever changed while it is being drawn, and no lock is
needed. (A thread of its own for trio, as before, raced the screen: a log line
appended while the screen drew it showed as "list index out of range".) They
meet in three places:

- the game's tasks publish what the screen shows (the position as this player
  sees it, log lines, the connection's state) and wake the screen with
  ``loop.call_soon``;
- when the person owes a decision, the chooser publishes the position and waits
  on a trio channel; ``submit`` checks the entry against that position and hands
  the notation over with ``TrioToken.run_sync_soon``;
- ``aclose`` cancels the game's run, which closes its connection and the replay,
  and waits for it to end before the screen's loop stops.

A dropped connection shows as "reconnecting" and the game goes on when the peer
is back; the screen never waits for the network, and whatever the game publishes
(a lost connection while the person is deciding too) is drawn at once.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext
from pathlib import Path

import trio
from prompt_toolkit.application import Application, get_app_or_none, in_terminal, set_app

from dbnet.catalog import load_catalog
from dbnet.console.builder import run_pool_builder_async
from dbnet.console.guest import GuestRun
from dbnet.console.session import LogKind, LogLine
from dbnet.engine import Choice, Decision, Game, GameSetup, Player, format_choice, read_choice
from dbnet.engine.choices import DecisionKind
from dbnet.errors import DbnetError, IllegalChoiceError, InvalidChoiceError
from dbnet.match.building import build_decision, pool_of
from dbnet.net.chat import ChatRoom
from dbnet.net.invite import looks_like_invite
from dbnet.net.rematch import TERMS_HINT
from dbnet.net.session import GameSession, clock_claim_result
from dbnet.net.session_values import (
    RESIGN,
    GameSessionError,
    LocalPlayer,
    Outcome,
    disk_full_advice,
    resume_command,
    withheld_result,
)
from dbnet.protocol.clock import format_clock
from dbnet.protocol.identity import fingerprint
from dbnet.replay.errors import DiskFullError
from dbnet.text import printable

EXIT_COMPLETE = 0
EXIT_FAILED = 1
EXIT_ADJOURNED = 3
_STATES = {
    Outcome.COMPLETE: "game over",
    Outcome.ADJOURNED: "adjourned",
    Outcome.UNREACHED: "not connected",
}
"""Seconds ``aclose`` waits for the game's run to end (it closes a connection and a file)."""

_ENDINGS = {
    Outcome.COMPLETE: "The game is complete; both players signed the result.",
    Outcome.ADJOURNED: "The opponent was away too long: the game is adjourned.",
    Outcome.UNREACHED: "The host could not be reached; no game was started.",
}

_INVITES = {
    "join": "Send your opponent this line (it names your key and carries a one-game secret):",
    "watch": "Spectators watch with this line (it never takes a seat):",
}
"""The host's printed invites (``dbnet join ...``, ``dbnet watch ...``), by their command."""

Runner = Callable[[GameSession], Awaitable[Outcome]]
"""Plays the session (``session.host(...)`` or ``session.join(...)``) in the game thread."""


class NetworkSession(GuestRun):
    """The console's ``Session`` for a game with a remote peer."""

    def __init__(
        self, make: Callable[[LocalPlayer], GameSession], run: Runner, player: LocalPlayer
    ) -> None:
        """``make`` builds the game session for ``player`` (whose ``choose``, ``say`` and
        ``on_events`` this class replaces); ``run`` plays it in the game thread."""
        super().__init__()
        player.choose = self._choose
        player.say = self._say
        player.on_events = self._on_events
        self.chat = player.chat = ChatRoom(self._say)
        """The players' chat: ``say_chat`` hands it a line, its lines show in the log."""
        player.ask_rematch = self._ask_rematch
        player.on_rematch = self._adopt
        self.player = player
        self._rematch: trio.Event | None = None  # set when the person types 'rematch'
        self.change_terms: Callable[[list[str]], str | None] | None = None
        """The host's: takes new terms for the rematch (None: taken), else says why not."""

        self._play = run
        self._asking = False  # the game thread waits for the person's decision
        self._resigning = False
        self._state = "waiting for the opponent"
        self._outcome: Outcome | None = None
        self._failure: str | None = None
        self._answers: trio.MemorySendChannel[str] | None = None
        self._receive: trio.MemoryReceiveChannel[str] | None = None
        self._clocks: tuple[tuple[int, int], Player | None, float] | None = None
        """In a game with a clock: both clocks as the game's run last saw them, whose
        runs, and when (``time.monotonic``): the screen counts the running one down."""
        self._app: Application[int] | None = None  # the game's screen, once it runs
        self._copyable: list[tuple[str, str]] = []  # the host's invites ('invite')
        self.build_seconds = 600.0  # Limited: the person's time to build
        self.net = make(player)  # a resumed game tells its story to _on_events at once
        self._view: Game = _placeholder(self.net)

    # --- the Session interface -----------------------------------------------------

    @property
    def game(self) -> Game:
        return self._view

    @property
    def log(self) -> Sequence[LogLine]:
        return self._log

    @property
    def hotseat(self) -> bool:
        return False

    @property
    def spectating(self) -> bool:
        return False

    @property
    def is_closed(self) -> bool:
        return self._closed or self._outcome is not None or self._failure is not None

    @property
    def replay_path(self) -> Path | None:
        return self.net.replay_path if self.net.writer is not None else None

    @property
    def connection(self) -> str:
        """The connection's state, for the top of the screen, and both clocks in a game
        with a clock (they stand still once the game's run is over: adjourned, closed)."""
        clocks = self._clocks
        if clocks is None:
            return self._state
        (a, b), running, at = clocks
        if running is not None and self._done is not None and not self._done.done():
            spent = int((time.monotonic() - at) * 1000)
            a, b = (t - spent if p is running else t for p, t in zip(Player, (a, b), strict=True))
        mark = {p: "*" if p is running else "" for p in Player}
        return (
            f"{self._state} | A {format_clock(a)}{mark[Player.A]} "
            f"B {format_clock(b)}{mark[Player.B]}"
        )

    @property
    def thinking(self) -> float | None:
        return None  # the person at this keyboard plays; a --bot game has no screen

    def seat_label(self, player: Player) -> str:
        """ "you", or the opponent's name and key fingerprint."""
        if self.is_local(player):
            return "you"
        game = self.net.game
        name = printable(self.net.peer_name or "opponent")
        if game is None:
            return name
        return f"{name} {fingerprint(game.log.keys[game.me.other])}"

    def is_local(self, player: Player) -> bool:
        game = self.net.game
        return game is not None and game.me is player

    def local_player(self) -> Player | None:
        if not self._asking or self.is_closed:
            return None
        pending = self._view.pending
        return pending.player if isinstance(pending, Decision) else None

    def submit(self, text: str) -> Choice:
        player = self.local_player()
        if player is None:
            raise IllegalChoiceError(f"no decision of yours is waiting; {text!r} not played")
        view = self._view
        choice = read_choice(view, text)
        self._answer(format_choice(view, choice))
        return choice

    def resign(self, player: Player) -> bool:
        if self.is_closed or self._view.is_over:
            raise IllegalChoiceError("the game is already over")
        if not self.is_local(player):
            raise IllegalChoiceError(f"{player.name} is not played at this keyboard")
        if self._asking:
            self._answer(RESIGN)
            return True
        self._resigning = True  # at this player's next decision
        return False

    async def advance(self, changed: Callable[[], None]) -> None:
        # Kept for _publish: the connection can change while the person decides (and
        # advance has returned), and the screen must show it at once.
        self._on_change = changed
        if self._app is None:
            self._app = get_app_or_none()
        if self._done is None:
            self._start()
        while True:
            if self.local_player() is not None or self.is_closed:
                changed()
                return
            await self._wake.wait()
            self._wake.clear()
            changed()

    def farewell(self) -> list[str]:
        lines: list[str] = []
        if self._failure is not None:
            lines.append(f"The game could not go on: {self._failure}")
        withheld = withheld_result(self.net.game)
        if self._outcome is Outcome.ADJOURNED and withheld is not None:
            lines.append(withheld[0].upper() + withheld[1:] + ".")
        elif self._outcome is Outcome.ADJOURNED:
            lines.append("The opponent was away too long: the game is adjourned.")
        if self._outcome is Outcome.UNREACHED:
            lines.append("The host could not be reached; no game was started.")
        claimed = clock_claim_result(self.net.game)
        if claimed is not None:  # a claim on time, disputed or not: never a result
            lines.append(claimed[0].upper() + claimed[1:] + ".")
        path = self.replay_path
        if path is None:
            return lines
        game = self.net.game
        done = game is not None and (game.is_closed or withheld is not None)
        lines.append(f"Replay saved ({'complete' if done else 'unfinished'}): {path}")
        if not done:
            lines.append(f"Go on later: {resume_command(path, self.player.name)}")
        lines.append(f"Check it: dbnet verify {shlex.quote(str(path))}")
        return lines

    # --- rematch -------------------------------------------------------------------------

    def rematch(self, terms: str = "") -> None:
        """The person typed 'rematch' (``ConsoleApp``): yes to another game, if asked;
        ``terms``: the host's new terms for it (``--turns-to-win 4``), if any.

        Raises:
            IllegalChoiceError: no rematch is asked for now.
            InvalidChoiceError: bad terms, or terms typed by the joiner (still asked).
        """
        token, wanted = self._token, self._rematch
        if token is None or wanted is None:
            raise IllegalChoiceError(
                "no rematch now: it is offered when a network game ends, over its connection"
            )
        if terms.split():
            if self.change_terms is None:
                raise InvalidChoiceError(
                    "rematch: only the host sets the terms: type 'rematch', or 'quit'"
                )
            wrong = self.change_terms(terms.split())
            if wrong is not None:
                raise InvalidChoiceError(wrong)
        token.run_sync_soon(wanted.set)

    async def _ask_rematch(self, offered: bool) -> bool:
        """In the game's run: the game is over; wait for the person's 'rematch' (the
        question ends when the opponent declines, or after a minute)."""
        who = printable(self.net.peer_name or "the opponent")
        if self.change_terms is not None:
            self._note(f"(the host may change the terms: rematch {TERMS_HINT})")
        if offered:
            self._note(f"{who} offers a rematch: type 'rematch' to play another game, or 'quit'")
        else:
            self._note(
                f"The game is over: type 'rematch' to offer {who} another game over this "
                "connection, or 'quit' to leave"
            )
        self._rematch = trio.Event()
        self._publish()
        try:
            await self._rematch.wait()
        finally:
            self._rematch = None
        return True

    def _adopt(self, net: GameSession) -> None:
        """In the game's run: a rematch starts; show its game from now on."""
        self.net = net
        self._view = _placeholder(net)
        self._clocks = None
        self._publish()

    # --- the game, run by trio in guest mode on the screen's loop ------------------------

    async def _run(self) -> None:
        send, self._receive = trio.open_memory_channel[str](1)
        self._answers = send
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._tick)
                self._outcome = await self._play(self.net)
                nursery.cancel_scope.cancel()
            self._note(_ENDINGS[self._outcome])
        except GameSessionError as exc:
            self._failure = str(exc)
            self._note(f"The game cannot go on: {exc}")
        except DiskFullError as exc:
            writer = self.net.writer
            self._failure = disk_full_advice(exc, 0 if writer is None else writer.entries)
            self._note(f"The game cannot go on: {self._failure}")
        except DbnetError as exc:
            self._failure = str(exc)
            self._note(f"Error: {exc}")
        finally:
            if self.net.writer is not None:
                self.net.writer.close()

    def _ended(self, *, cancelled: bool) -> None:
        if cancelled:
            self._state = "closed"
        elif self._failure is not None:
            self._state = "stopped"
        elif self._outcome is not None:
            self._state = _STATES[self._outcome]
        super()._ended(cancelled=cancelled)

    @property
    def resumable(self) -> bool:
        """Whether leaving now keeps the game to go on with later (``dbnet resume``)."""
        game = self.net.game
        return game is not None and not game.is_closed

    def exit_code(self) -> int:
        """The exit code the docs give for how the game ended (docs/network.md, "Exit
        codes"): 0 complete (or decided with a signature withheld), 1 the game could not
        go on, 3 adjourned or left to be resumed."""
        if self._failure is not None or self._outcome is Outcome.UNREACHED:
            return EXIT_FAILED
        game = self.net.game
        if self._outcome is Outcome.COMPLETE or withheld_result(game) is not None:
            return EXIT_COMPLETE
        if game is None:
            return EXIT_FAILED  # closed before any game started
        return EXIT_COMPLETE if game.is_closed else EXIT_ADJOURNED

    async def _choose(self, view: Game) -> str:
        if self._resigning:
            self._resigning = False
            return RESIGN
        pending = build_decision(view)
        if pending is not None:
            builder = self.player.builder
            assert builder is not None
            if pending.kind is DecisionKind.REVEAL:  # the warband committed to
                return format_choice(view, builder.choice(view))
            loop, app = self._loop, self._app
            assert loop is not None
            assert self._receive is not None
            loop.call_soon(lambda: loop.create_task(self._build(view, pending.player, app)))
            return await self._receive.receive()
        self._view = view
        self._asking = True
        self._publish()
        assert self._receive is not None
        try:
            return await self._receive.receive()
        finally:
            self._asking = False

    async def _build(self, view: Game, player: Player, app: Application[int] | None) -> None:
        """On the screen's loop: the builder on ``player``'s pool, run in the terminal
        while the game's screen is suspended; then the commitment is handed to the game."""
        builder = self.player.builder
        assert builder is not None
        fmt = view.setup.limited.format if view.setup.limited is not None else "Limited"
        try:
            with set_app(app) if app is not None else nullcontext():
                async with in_terminal():
                    minis, said = await run_pool_builder_async(
                        pool_of(view, player),
                        load_catalog(),
                        seconds=self.build_seconds,
                        label=f"Limited {fmt}, you are {player.name}",
                    )
            if minis is not None:
                builder.save(view, player, minis)
        except DbnetError as exc:
            said = f"the builder failed ({exc}): committing the automatic build"
        self._note(said)
        token, answers = self._token, self._answers
        if token is not None and answers is not None:
            token.run_sync_soon(answers.send_nowait, format_choice(view, builder.choice(view)))

    def say_chat(self, text: str) -> None:
        """Send ``text`` to the opponent (the chat line, or ``say TEXT``): signed and sent
        in the game's run; what comes of it (the line, or why not) shows in the log."""
        token = self._token
        if token is None:
            raise IllegalChoiceError("the game is not running: nobody to chat with")
        token.run_sync_soon(self.chat.say, text)

    def _answer(self, text: str) -> None:
        token, answers = self._token, self._answers
        if token is None or answers is None:
            raise IllegalChoiceError("the game is not running")
        self._asking = False
        token.run_sync_soon(answers.send_nowait, text)

    @property
    def copyable(self) -> Sequence[tuple[str, str]]:
        """The host's invites, to copy whole (``console.copying``): the player's, and the
        spectators' when they are admitted."""
        return self._copyable

    def _say(self, text: str) -> None:
        line = text.strip()
        words = line.split()
        if (
            len(words) == 3
            and words[0] == "dbnet"
            and words[1] in _INVITES
            and looks_like_invite(words[2])
        ):
            self._copyable.append((_INVITES[words[1]], line))
            self._log.append(LogLine(LogKind.COPY, None, "", line))
            if len(self._copyable) == 1:
                self._note("(type 'invite' to show it alone, to copy it whole)")
            return
        if text.startswith("connected to "):
            name = text.removeprefix("connected to ").split(" (")[0]
            path = text.rpartition(" via ")[2] if " via " in text else ""
            self._state = f"connected to {name}" + (f" via {path}" if path else "")
        elif text.startswith("path: ") and self._state.startswith("connected to "):
            self._state = f"{self._state.split(' via ')[0]} via {text.removeprefix('path: ')}"
        elif text.startswith(("connection lost", "connection failed", "cannot reach")):
            self._state = "reconnecting..."
        self._note(text)

    def _publish(self) -> None:
        """Show the game as it is now and wake the screen (from a trio task, on the
        screen's loop: the redraw comes once the task yields)."""
        net = self.__dict__.get("net")  # None while the game session is being made
        if net is not None and net.game is not None and not self._asking:
            self._view = net.game.peer.view()
        if self._done is not None:  # in the game's run
            self._take_clocks()
        super()._publish()

    async def _tick(self) -> None:
        """In a game with a clock, redraw the clocks every second."""
        while True:
            if self._take_clocks():
                super()._publish()
            await trio.sleep(1.0)

    def _take_clocks(self) -> bool:
        """Note the game's clocks as the run sees them now (in the run); whether it has any."""
        net = self.__dict__.get("net")
        view = None if net is None else net.clocks.view
        if view is None:
            return False
        try:
            now = int(trio.current_time() * 1000)
        except RuntimeError:  # not in the game's run
            return False
        self._clocks = (view.reading(now), view.running, time.monotonic())
        return True


def _placeholder(net: GameSession) -> Game:
    """What to draw before the game exists: the game being resumed, or the standard map
    with this side's warband in both seats until the opponent's arrives."""
    if net.game is not None:
        return net.game.peer.view()
    from dbnet.catalog import load_map

    assert net.new_game is not None
    warband = net.new_game.warband
    return Game(GameSetup(load_map(), (warband, warband), options=net.new_game.options))


def run_network(
    make: Callable[[LocalPlayer], GameSession],
    run: Runner,
    player: LocalPlayer,
    *,
    build_seconds: float = 600.0,
    change_terms: Callable[[list[str]], str | None] | None = None,
) -> int:
    """Play a network game full screen (see ``NetworkSession``); returns the exit code of
    docs/network.md for how the game ended (as the line interface does), or 1 after an
    internal error and 130 on Ctrl-C."""
    from dbnet.console.app import EXIT_DONE
    from dbnet.console.launch import run_session

    session = NetworkSession(make, run, player)
    session.build_seconds = build_seconds
    session.change_terms = change_terms
    code = run_session(session)
    return session.exit_code() if code == EXIT_DONE else code
