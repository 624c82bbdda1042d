"""The line interface's keyboard in a network game: one thread reads the person's lines for
the whole game, so ``say TEXT`` reaches the opponent at once, also while the opponent is
deciding; every other line waits for the next prompt (as a terminal would keep it).

The thread is never joined: when the game ends it may still be reading (the caller then
leaves with ``os._exit``, see ``dbnet.commands.net._finish``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import trio

from dbnet.net.chat import ChatRoom

__all__ = ["Keyboard", "chat_text"]

_EOF = None


def chat_text(line: str) -> str | None:
    """The text of a ``say TEXT`` line, else None."""
    text = line.strip()
    if text == "say" or text.startswith("say "):
        return text[4:]
    return None


class Keyboard:
    """The person's lines: ``line(prompt)`` is the next one that is not ``say``; ``say``
    lines go to ``chat`` as soon as they are read. ``started`` is set once the thread runs
    (it may then hold stdin's lock at exit)."""

    def __init__(
        self, read_line: Callable[[str], str], chat: ChatRoom, started: threading.Event
    ) -> None:
        self._read_line = read_line
        self._chat = chat
        self._started = started
        self._send, self._receive = trio.open_memory_channel[str | None](256)
        self._thread: threading.Thread | None = None
        chat.on_open = self.start  # reading from the game's start: say before a prompt

    def start(self) -> None:
        """Start reading (once; in the game's trio run)."""
        if self._thread is None:
            token = trio.lowlevel.current_trio_token()
            self._thread = threading.Thread(target=self._run, args=(token,), daemon=True)
            self._started.set()
            self._thread.start()

    async def line(self, prompt: str) -> str:
        """The next line that is not ``say``.

        Raises:
            EOFError: the input ended.
        """
        self.start()
        print(prompt, end="", flush=True)
        line = await self._receive.receive()
        if line is _EOF:
            self._send.send_nowait(_EOF)  # every later ask ends too
            raise EOFError
        return line

    def _run(self, token: trio.lowlevel.TrioToken) -> None:
        while True:
            try:
                line: str | None = self._read_line("")
            except (EOFError, OSError, ValueError):
                line = _EOF
            try:
                text = None if line is None else chat_text(line)
                if text is not None:
                    trio.from_thread.run_sync(self._chat.say, text, trio_token=token)
                else:
                    trio.from_thread.run_sync(self._send.send_nowait, line, trio_token=token)
            except (trio.RunFinishedError, trio.WouldBlock, trio.ClosedResourceError):
                return
            if line is None:
                return
