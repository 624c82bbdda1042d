"""What every full-screen app of the console shares: its prompt-toolkit application,
built one way, and the terminal's size; and, for the apps that end with an exit code (the
play client, the replay viewer), key handlers whose internal errors end the app cleanly,
the traceback kept to show once the terminal is restored.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Callable
from typing import Any, Final

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindingsBase, KeyPressEvent
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import Output

from dbnet.console import screen

EXIT_ERROR: Final = 1  # an internal error ended the app (its traceback: ``error``)
EXIT_INTERRUPTED: Final = 130  # Ctrl-C, as a shell reports SIGINT


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

    def open(self, app: Application[int]) -> None:
        """Take ``app`` (made by ``application``) as this app's."""
        self.app = app
        self.error = None

    @property
    def size(self) -> tuple[int, int]:
        """The terminal's columns and rows, now."""
        return screen.terminal_size(self.app)

    def run(self) -> int:
        """Run until the app exits (``run_async``)."""
        return asyncio.run(self.run_async())

    async def run_async(self) -> int:
        """Run until the app exits: its exit code, or EXIT_ERROR after an internal error
        (kept in ``error``); the terminal is restored either way."""
        try:
            code = await self.app.run_async(pre_run=self.starting)
        except Exception:
            self.error = traceback.format_exc()
            return EXIT_ERROR
        return code if self.error is None else EXIT_ERROR

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
