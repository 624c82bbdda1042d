"""Lines to copy whole (an invite) shown alone, out of the full screen.

A full-screen client draws each row itself, so a line longer than its panel is cut
into rows the terminal knows nothing about: a copy off the screen gets pieces. Shown
alone, on the terminal's own screen (the full screen suspended), the line is one line
that the terminal wraps itself, and a copy of it (a mouse selection, ``tmux
capture-pane -J``) joins it whole; Enter goes back to the game."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from prompt_toolkit import PromptSession
from prompt_toolkit.application import in_terminal

from dbnet.text import printable

BACK: str = "Press Enter to go back to the game. "


@runtime_checkable
class Copyable(Protocol):
    """A session with lines to copy whole: each a label and the line."""

    @property
    def copyable(self) -> Sequence[tuple[str, str]]: ...


async def show_alone(lines: Sequence[tuple[str, str]]) -> None:
    """Suspend the full screen, print each label and its line alone (nothing before it
    on its row, nothing after), and wait for Enter (or Ctrl-C, Ctrl-D)."""
    async with in_terminal():
        print(flush=True)
        for label, line in lines:
            print(printable(label), flush=True)
            print(printable(line), flush=True)
            print(flush=True)
        with contextlib.suppress(KeyboardInterrupt, EOFError):
            await PromptSession[str]().prompt_async(BACK)
