"""A spectator's watch in the full-screen client: ``WatchSession``.

The watch is a ``dbnet.net.watch.Watching`` run by trio in guest mode on
prompt-toolkit's asyncio loop, as ``console.network`` runs a player's game: trio's
tasks and the screen take turns on one thread, so nothing the screen reads changes
while it is drawn. Each verified entry is told in the log and the board shows the
position after it; nobody at this keyboard plays (every seat is remote), so the prompt
only takes the screen's own commands (tabs, the log, quit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from dbnet.console.guest import GuestRun
from dbnet.console.session import LogLine
from dbnet.engine import Choice, Game, GameSetup, Player
from dbnet.errors import DbnetError, IllegalChoiceError
from dbnet.net.watch import Connect, WatchError, Watching
from dbnet.protocol.identity import fingerprint
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.text import printable

EXIT_WATCHED = 0
EXIT_FAILED = 1


class WatchSession(GuestRun):
    """The console's ``Session`` for a game watched as a spectator."""

    def __init__(self, watching: Watching, connect: Connect) -> None:
        super().__init__()
        watching.say = self._note
        watching.on_events = self._on_events
        watching.on_game_end = self._game_end
        chosen = watching.next_replay

        def next_replay(path: Path | None) -> Path | None:
            new = path if chosen is None else chosen(path)
            self._games += 1
            where = "" if new is None else f": replay {new}"
            self._note(f"the players play their next game{where}")
            return new

        watching.next_replay = next_replay
        self.watching = watching
        self._connect = connect
        self._state = "connecting..."
        self._failure: str | None = None
        self._watched = False
        self._view = _placeholder()
        self._games = 1  # the game watched now: 2 and on with --stay, in a rematch
        self._earlier: list[str] = []  # the replays of the games watched before it

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
        return True

    @property
    def is_closed(self) -> bool:
        return self._closed or self._watched or self._failure is not None

    @property
    def replay_path(self) -> Path | None:
        return self.watching.replay_path if self.watching.writer is not None else None

    @property
    def connection(self) -> str:
        return self._state

    @property
    def thinking(self) -> float | None:
        return None

    def seat_label(self, player: Player) -> str:
        """The name the player signed (or the host's name in its HELLO, for A in a game
        of a version before 3) and its key fingerprint."""
        log = self.watching.log
        key = "" if log is None else f" {fingerprint(log.keys[player])}"
        name = self.watching.names[player]
        if name:
            return f"{printable(name)}{key}"
        if player is Player.A and self.watching.host_name is not None:
            return f"{printable(self.watching.host_name)}{key}"
        return f"player {player.name}{key}"

    def is_local(self, player: Player) -> bool:
        return False

    def local_player(self) -> Player | None:
        return None

    def submit(self, text: str) -> Choice:
        raise IllegalChoiceError(f"a spectator does not play; {text!r} not played")

    def resign(self, player: Player) -> bool:
        raise IllegalChoiceError("a spectator does not play: nobody here can resign")

    async def advance(self, changed: Callable[[], None]) -> None:
        self._on_change = changed
        if self._done is None:
            self._start()
        while not self.is_closed:
            await self._wake.wait()
            self._wake.clear()
            changed()
        changed()

    async def aclose(self) -> None:
        await super().aclose()
        self.watching.close()

    @property
    def resumable(self) -> bool:
        return False

    def farewell(self) -> list[str]:
        lines: list[str] = []
        if self._failure is not None:
            lines.append(f"dbnet watch: {self._failure}")
        lines.extend(self._earlier)
        path = self.replay_path
        if path is not None:
            lines.append(f"Replay saved ({'complete' if self._watched else 'unfinished'}): {path}")
        return lines

    def exit_code(self) -> int:
        return EXIT_WATCHED if self._watched else EXIT_FAILED

    # --- the watch, run by trio in guest mode on the screen's loop ----------------------

    async def _run(self) -> None:
        try:
            verdict = await self.watching.run(self._connect)
            self._watched = True
            self._state = "game over" if self._games == 1 else f"game {self._games} over"
            result = self.watching.result_line(verdict)
            over = "complete" if verdict.status is VerdictStatus.COMPLETE else "over"
            done = f"The game is {over}; every entry was verified as it came."
            self._note(f"{done} {result}")
        except (WatchError, DbnetError) as exc:
            self._failure = str(exc)
            self._state = "stopped"
            self._note(f"The watch cannot go on: {exc}")

    def _game_end(self, verdict: Verdict) -> None:
        """A game of a rematch ended and the next starts (``--stay``): its end in the
        log; the screen shows the next game once its OFFER comes."""
        result = self.watching.result_line(verdict)
        self._note(f"Game {self._games} is over; every entry was verified as it came. {result}")
        self._numbered = 0  # the next game's entries are numbered from 1
        if self.watching.writer is not None:
            self._earlier.append(f"Replay saved (complete): {self.watching.writer.path}")

    def _ended(self, *, cancelled: bool) -> None:
        if cancelled:
            self._state = "closed"
        super()._ended(cancelled=cancelled)

    def _note(self, words: str) -> None:
        if words.startswith("watching the game"):
            self._state = "watching " + printable(self.watching.host_name or "the host")
            if self._games > 1:
                self._state += f", game {self._games}"
        super()._note(printable(words))

    def _publish(self) -> None:
        log = self.watching.log
        if log is not None:
            self._view = log.game.copy()
        super()._publish()


def _placeholder() -> Game:
    """What to draw before the game's OFFER arrives: the standard map and warbands."""
    from dbnet.catalog import default_warbands, load_catalog, load_map

    warbands = default_warbands(load_catalog())
    return Game(GameSetup(load_map(), (warbands[0], warbands[1])))


def run_watch_screen(watching: Watching, connect: Connect) -> int:
    """Watch full screen; the exit code of ``dbnet watch`` (1 after an internal error,
    130 on Ctrl-C)."""
    from dbnet.console.app import EXIT_DONE
    from dbnet.console.launch import run_session

    session = WatchSession(watching, connect)
    code = run_session(session)
    return session.exit_code() if code == EXIT_DONE else code
