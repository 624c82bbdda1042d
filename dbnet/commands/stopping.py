"""SIGTERM and SIGHUP (a closed terminal, a logout, a service manager stopping dbnet) stop
a game in the line interfaces as Ctrl-C does: the game is saved (every entry already is,
as it is written) and the line that resumes it is printed; the exit code is 128 plus the
signal's number, as a shell reports a process ended by it (143 for SIGTERM, 129 for
SIGHUP; 130 for Ctrl-C).

Inside ``stopping()``, either signal raises ``KeyboardInterrupt`` where the program is,
or inside ``trio.run`` is handed to trio's handler of SIGINT (``KeyboardInterrupt`` where
trio can take it safely). The full-screen client
handles them on its own event loop (``console.fullscreen``).
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType

from dbnet.interrupts import EXIT_INTERRUPTED, STOP_SIGNALS


class Stop:
    """Which signal stopped the game, if one did (None: Ctrl-C, or none)."""

    def __init__(self) -> None:
        self.signal: int | None = None

    @property
    def exit_code(self) -> int:
        """128 plus the signal's number; 130 (SIGINT's) for Ctrl-C."""
        return EXIT_INTERRUPTED if self.signal is None else 128 + self.signal

    @property
    def words(self) -> str:
        """``interrupted``, or ``stopped by SIGTERM``."""
        if self.signal is None:
            return "interrupted"
        return f"stopped by {signal.Signals(self.signal).name}"


@contextmanager
def stopping() -> Iterator[Stop]:
    """SIGTERM and SIGHUP raise ``KeyboardInterrupt`` as Ctrl-C does, inside; the ``Stop``
    says which one came. The handlers before are put back on leaving."""
    stop = Stop()

    def handler(signum: int, frame: FrameType | None) -> None:
        if stop.signal is None:
            stop.signal = signum
        interrupt = signal.getsignal(signal.SIGINT)
        if callable(interrupt) and getattr(interrupt, "__module__", "").startswith("trio."):
            interrupt(signal.SIGINT, frame)  # trio's, inside trio.run: where it is safe
        else:
            raise KeyboardInterrupt  # (an asyncio loop's SIGINT handler does nothing here)

    before = {number: signal.signal(number, handler) for number in STOP_SIGNALS}
    try:
        yield stop
    finally:
        for number, old in before.items():
            signal.signal(number, old)


def say_safely(text: str, *, error: bool = False) -> None:
    """Print ``text``; after SIGHUP the terminal may be gone, and nothing is to be done."""
    with suppress(OSError, ValueError):
        print(text, file=sys.stderr if error else sys.stdout, flush=True)
