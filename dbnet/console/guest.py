"""trio in guest mode on the screen's asyncio loop: trio's tasks and prompt-toolkit's
screen take turns on one thread, so nothing the screen reads (a log, a view, a state) is
ever changed under it. ``GuestRun`` is what the network game's and the spectator's
console sessions share: starting the run, waking the screen, the numbered log, closing."""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Final

import trio

from dbnet.console.session import LogKind, LogLine, tell
from dbnet.match.story import Event

CLOSE_TIMEOUT: Final = 10.0
"""Seconds ``aclose`` waits for the trio run to end once cancelled."""


def start_guest(
    main: Callable[[], Awaitable[object]], woken: Callable[[], None]
) -> tuple[asyncio.AbstractEventLoop, asyncio.Future[object]]:
    """Start ``main`` as trio's guest on the running asyncio loop; the loop and a future
    that gets trio's outcome when the run ends (``woken`` is called then too)."""
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[object] = loop.create_future()

    def done(outcome: object) -> None:
        if not finished.done():
            finished.set_result(outcome)
        woken()

    trio.lowlevel.start_guest_run(
        main,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=done,
        host_uses_signal_set_wakeup_fd=True,
    )
    return loop, finished


class GuestRun(abc.ABC):
    """A console session whose work is one trio run (``_run``) in guest mode: the log it
    tells, the screen's wake-ups, and closing (cancelling the run, then waiting for it)."""

    def __init__(self) -> None:
        self._log: list[LogLine] = []
        self._numbered = 0
        self._closed = False
        self._done: asyncio.Future[object] | None = None  # the trio run's end, once started
        self._token: trio.lowlevel.TrioToken | None = None
        self._cancel: trio.CancelScope | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self._on_change: Callable[[], None] | None = None  # the screen's redraw

    @abc.abstractmethod
    async def _run(self) -> None:
        """The session's work, inside the run's cancel scope."""

    def _start(self) -> None:
        self._loop, self._done = start_guest(self._main, self._woken)

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            self._cancel = scope
            if self._closed:  # closed before the run began
                scope.cancel()
            await self._run()
        self._ended(cancelled=scope.cancelled_caught)

    def _ended(self, *, cancelled: bool) -> None:
        """After the run (``cancelled``: by ``close``): show how it ended."""
        self._publish()

    def close(self) -> None:
        """Stop the work (cancel its trio run); ``aclose`` also waits for it to end."""
        if self._closed:
            return
        self._closed = True
        token, scope = self._token, self._cancel
        if token is not None and scope is not None and not self._finished():
            with suppress(trio.RunFinishedError):  # finished already
                token.run_sync_soon(scope.cancel)

    async def aclose(self) -> None:
        self.close()
        if self._done is not None and not self._done.done():
            with suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._done), CLOSE_TIMEOUT)

    def _finished(self) -> bool:
        return self._done is not None and self._done.done()

    def _on_events(self, events: list[Event]) -> None:
        """The story's events in the log, each but a turn's result numbered."""
        self._numbered = tell(self._log, events, self._numbered)
        self._publish()

    def _note(self, words: str) -> None:
        self._log.append(LogLine(LogKind.NOTE, None, "", words))
        self._publish()

    def _publish(self) -> None:
        """Wake the screen (from a trio task, on the screen's loop: the redraw comes once
        the task yields)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon(self._woken)

    def _woken(self) -> None:
        """On the screen's loop: wake ``advance`` and redraw, even while a person is
        deciding (a lost connection, a reconnection, a note must show at once)."""
        self._wake.set()
        if self._on_change is not None:
            self._on_change()
