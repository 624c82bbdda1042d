"""What every full-screen app of the console shares: its prompt-toolkit application,
built one way, and the terminal's size; and, for the apps that end with an exit code (the
play client, the replay viewer), key handlers whose internal errors end the app cleanly,
the traceback kept to show once the terminal is restored; and drawing that cannot fail:
a part of the screen whose drawing raises is drawn as one line saying so, and the app
goes on (an error while drawing would otherwise reach prompt-toolkit's own handler, which
prints the traceback over the full screen and waits for an Enter that never comes).
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from typing import Any, Final, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindingsBase, KeyPressEvent
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import Output

from dbnet.console import screen
from dbnet.interrupts import STOP_SIGNALS

T = TypeVar("T")

EXIT_ERROR: Final = 1  # an internal error ended the app (its traceback: ``error``)


def application(
    layout: Layout,
    key_bindings: KeyBindingsBase,
    *,
    colour: bool | None,
    input: Input | None,
    output: Output | None,
    mouse: bool = False,
) -> Application[Any]:
    """A full-screen application: in colour unless ``colour`` is False (None: unless
    NO_COLOR is set), on ``input`` and ``output`` (None: the terminal's)."""
    style, depth = screen.style(not screen.no_color() if colour is None else colour)
    return Application(
        layout=layout,
        key_bindings=key_bindings,
        style=style,
        color_depth=depth,
        full_screen=True,
        mouse_support=mouse,
        input=input,
        output=output,
    )


class FullScreen:
    """A full-screen app that ends with an exit code. A subclass builds its layout and
    keys, then ``open``s the application they make; its key handlers go through
    ``guard``."""

    app: Application[int]
    error: str | None
    """An internal error's traceback, to show after the app (which then ends with
    EXIT_ERROR)."""

    drawing_error: str | None
    """The last failure to draw a part of the screen, in one line (None: none)."""

    def open(self, app: Application[int]) -> None:
        """Take ``app`` (made by ``application``) as this app's."""
        self.app = app
        self.error = None
        self.drawing_error = None

    def safely(self, what: str, draw: Callable[[], T], instead: Callable[[str], T]) -> T:
        """``draw()``; when it raises, ``instead(line)`` with the one ``line`` that says
        what could not be drawn (also kept in ``drawing_error``, and told by
        ``drawing_failed``)."""
        try:
            return draw()
        except Exception as exc:
            words = str(exc).splitlines()[0] if str(exc) else ""
            line = f"Could not draw the {what}: {type(exc).__name__}" + (
                f": {words}" if words else ""
            )
            if line != self.drawing_error:
                self.drawing_error = line
                self.drawing_failed(line)
            return instead(line)

    def drawing_failed(self, line: str) -> None:
        """A part of the screen could not be drawn (``line`` says which and why): nothing
        more, unless overridden (the play client says it on its status line)."""

    @property
    def size(self) -> tuple[int, int]:
        """The terminal's columns and rows, now."""
        return screen.terminal_size(self.app)

    def run(self) -> int:
        """Run until the app exits (``run_async``)."""
        return asyncio.run(self.run_async())

    async def run_async(self) -> int:
        """Run until the app exits: its exit code, or EXIT_ERROR after an internal error
        (kept in ``error``); the terminal is restored either way. SIGTERM and SIGHUP end
        it as ``stopped`` says, on the event loop (never a KeyboardInterrupt inside
        prompt-toolkit)."""
        loop = asyncio.get_running_loop()
        handled = []
        for number in STOP_SIGNALS:
            try:
                loop.add_signal_handler(number, self.stopped, number)
            except (NotImplementedError, RuntimeError, ValueError):  # no such handlers here
                continue
            handled.append(number)
        try:
            code = await self.app.run_async(pre_run=self.starting)
        except Exception:
            self.error = traceback.format_exc()
            return EXIT_ERROR
        finally:
            for number in handled:
                loop.remove_signal_handler(number)
        return code if self.error is None else EXIT_ERROR

    def stopped(self, number: int) -> None:
        """SIGTERM or SIGHUP (``number``) came: leave with 128 plus its number, as a shell
        reports a process it ended (overridden to save a game and say how it resumes)."""
        future = self.app.future
        if future is not None and not future.done():
            self.app.exit(result=128 + number)

    def starting(self) -> None:
        """Called once the app runs, before its first key: nothing, unless overridden."""

    def crash(self, text: str) -> None:
        """An internal error (``text``, its traceback): leave the full screen, keeping it."""
        self.error = text
        future = self.app.future
        if future is not None and not future.done():
            self.app.exit(result=EXIT_ERROR)

    def guard(self, handler: Callable[[], object]) -> Callable[[KeyPressEvent], None]:
        """A key handler that runs ``handler``; an internal error in it ends the app
        cleanly (``crash``) instead of leaving prompt-toolkit's prompt on the screen."""

        def guarded(event: KeyPressEvent) -> None:
            try:
                handler()
            except Exception:
                self.crash(traceback.format_exc())

        return guarded

    def screen_text(self) -> str:
        """The screen as plain text at the terminal's size (tests and captures)."""
        return screen.screen_text(self.app)
