"""The chat line of the full-screen client in a network game: a line of its own, ``say> ``,
shown in the entry's row while one chats (so the screen needs no more rows); Ctrl-T goes
to it (and back), Enter sends what it holds to the opponent (``NetworkSession.say_chat``)
and stays there, Escape goes back to the entry (which keeps what was typed in it). The
lines said and received show in the log, with the sender's name (``dbnet.net.chat``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, Filter, has_focus
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.processors import BeforeInput

if TYPE_CHECKING:
    from dbnet.console.app import ConsoleApp

__all__ = ["CHAT_KEY", "CHAT_PROMPT", "chat_bindings", "chat_line"]

CHAT_KEY = "c-t"
CHAT_PROMPT = "say> "


def chat_line(buffer: Buffer) -> Window:
    """The chat line's window."""
    return Window(
        BufferControl(buffer, input_processors=[BeforeInput(CHAT_PROMPT, style="class:chat")]),
        height=1,
    )


def chat_bindings(kb: KeyBindings, app: ConsoleApp, free: Filter) -> None:
    """Ctrl-T to the chat line and back, Enter sends, Escape back to the entry (``free``:
    no dialog open)."""
    can_chat = Condition(lambda: app.say_chat is not None)
    chatting = has_focus(app.chat_buffer) & free

    def toggle() -> None:
        app.chatting = not app.chatting
        app.app.layout.focus(app.chat_window if app.chatting else app.entry_window)

    def back() -> None:
        app.chatting = False
        app.app.layout.focus(app.entry_window)

    def send() -> None:
        text = app.chat_buffer.text
        app.chat_buffer.reset()
        if text.strip() and app.say_chat is not None:
            app.say_chat(text)

    kb.add(CHAT_KEY, filter=free & can_chat)(app.guard(toggle))
    kb.add("enter", filter=chatting)(app.guard(send))
    kb.add("escape", filter=chatting, eager=True)(app.guard(back))
