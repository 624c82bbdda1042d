"""The players' chat in a network game: the rate limit, and the plumbing between the front
end, the channel, the chat file beside the replay and the spectators (docs/network.md
section 12).

``ChatRoom`` is one player's side. The front end calls ``say(text)`` (``say TEXT`` in the
line interface, the chat line of the full-screen client); the game session runs ``serve``
beside each connection's game (it binds the room to the game and the link and sends the
lines said) and hands it every CHAT the peer sends (``receive``). Each line is signed
(``dbnet.protocol.chat``), appended to ``REPLAY.chat`` and shown with its sender's name,
escaped. A peer whose channel version is older than ``CHAT_VERSION`` is told nothing (it
could not read CHAT); this player is told in one line that chat is off. A peer's line
that is forged, too long or faster than the rate limit is dropped with one line: chat
never ends the game.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import trio

from dbnet.engine import Player
from dbnet.errors import DbnetError
from dbnet.net.handshake import CHAT_VERSION
from dbnet.net.messages import Chat
from dbnet.protocol.chat import (
    ChatError,
    ChatLine,
    append_chat,
    chat_path,
    read_chat,
    sign_line,
    verify_line,
)
from dbnet.protocol.identity import Identity
from dbnet.text import os_error_words, printable

__all__ = ["RATE_LINES", "RATE_SECONDS", "ChatRoom", "RateLimit"]

RATE_LINES: Final = 5
"""Chat lines a player may send at once..."""
RATE_SECONDS: Final = 10.0
"""...and the seconds in which the allowance comes back."""


@dataclass(slots=True)
class RateLimit:
    """A token bucket: ``lines`` at once, refilled at ``lines`` per ``seconds``; the time
    is the caller's (sans-IO)."""

    lines: int = RATE_LINES
    seconds: float = RATE_SECONDS
    _tokens: float = -1.0
    _at: float = 0.0

    def allow(self, now: float) -> bool:
        """Whether one more line may pass at ``now`` (it is counted if so)."""
        if self._tokens < 0:
            self._tokens, self._at = float(self.lines), now
        rate = self.lines / self.seconds
        self._tokens = min(float(self.lines), self._tokens + (now - self._at) * rate)
        self._at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True


@dataclass(frozen=True, slots=True)
class _Game:
    identity: Identity
    game_id: bytes
    me: Player
    keys: tuple[bytes, bytes]
    names: tuple[str, str]
    path: Path | None


class ChatRoom:
    """One player's chat in a network game. ``show`` is given each line to show (escaped:
    it may hold the peer's text); ``forward`` (the host's spectators) each line said or
    received, once checked."""

    def __init__(
        self,
        show: Callable[[str], None],
        *,
        rate: RateLimit | None = None,
        peer_rate: RateLimit | None = None,
    ) -> None:
        self.show = show
        self.forward: Callable[[ChatLine], None] | None = None
        self.on_open: Callable[[], None] | None = None
        """Called as each connection's chat opens (the line interface starts reading)."""
        self._rate = rate or RateLimit()
        self._peer_rate = peer_rate or RateLimit()
        self._game: _Game | None = None
        self._version: int | None = None  # the current connection's, None: not connected
        self._outbox: list[ChatLine] = []
        self._wake = trio.Event()
        self._last = {Player.A: 0, Player.B: 0}  # the last seq of each seat
        self._flooding = False  # the peer's flood was said; quiet until it stops
        self._held_back = False  # this player's own flood was said
        self._told_old = False
        self._at_now: Callable[[], int] | None = None

    # --- the front end ------------------------------------------------------------------

    def say(self, text: str) -> None:
        """Sign ``text``, keep it and send it to the opponent; any refusal (no game, no
        connection, an older opponent, too long, too fast) is shown in one line."""
        game = self._game
        if game is None or self._version is None:
            self.show("chat: not sent, the opponent is not connected")
            return
        if self._version < CHAT_VERSION:
            self.show(f"chat: not sent, {self._old_words()}")
            return
        if not self._rate.allow(trio.current_time()):
            if not self._held_back:  # one line for a flood, not one a line
                self._held_back = True
                self.show(
                    f"chat: not sent, at most {self._rate.lines} lines in "
                    f"{self._rate.seconds:g} s; lines beyond are dropped until then"
                )
            return
        self._held_back = False
        try:
            line = sign_line(
                game.identity, game.game_id, game.me, self._last[game.me] + 1, self._at, text
            )
        except ChatError as exc:
            self.show(f"chat: not sent, {exc}")
            return
        self._keep(line)
        self._outbox.append(line)
        self._wake.set()

    # --- the session --------------------------------------------------------------------

    def bind(
        self,
        identity: Identity,
        game_id: bytes,
        me: Player,
        keys: tuple[bytes, bytes],
        names: tuple[str, str],
        path: Path | None,
    ) -> None:
        """The game this room is for: its id, this player's seat, both keys and names, and
        its replay (the chat file is beside it). A chat file there already (a resumed
        game) gives the numbers to go on from."""
        if self._game is not None and self._game.game_id == game_id:
            return
        self._game = _Game(identity, game_id, me, keys, names, path)
        self._last = {Player.A: 0, Player.B: 0}
        if path is not None and chat_path(path).exists():
            try:
                for line in read_chat(chat_path(path), game_id, keys):
                    self._last[line.seat] = line.seq
            except (ChatError, OSError) as exc:
                self.show(f"chat: the chat file {chat_path(path)} is not read: {exc}")

    async def serve(
        self, send: Callable[[Chat], Awaitable[None]], version: int, at: Callable[[], int]
    ) -> None:
        """Send the lines said, with ``send`` (the connection's), on a connection of channel
        ``version`` until cancelled (the connection ends); ``at`` says how many entries the
        log holds now."""
        self._version = version
        self._at_now = at
        if self.on_open is not None:
            self.on_open()
        if version < CHAT_VERSION and not self._told_old:
            self._told_old = True
            self.show(f"chat: off for this game, {self._old_words()}")
        self._outbox.clear()  # lines said while disconnected were refused
        try:
            while True:
                self._wake = trio.Event()
                while self._outbox:
                    await send(Chat(self._outbox.pop(0)))
                await self._wake.wait()
        finally:
            self._version = None
            self._at_now = None

    def receive(self, line: ChatLine) -> None:
        """A CHAT from the peer: checked, kept and shown, or dropped with one line."""
        game = self._game
        if game is None or (self._version is not None and self._version < CHAT_VERSION):
            return  # no CHAT on this channel: a bug of the peer's, not worth a line
        if line.seat is game.me:
            self.show("chat: a line from the opponent in this player's name is dropped")
            return
        if not self._peer_rate.allow(trio.current_time()):
            if not self._flooding:
                self._flooding = True
                self.show(
                    f"chat: {printable(game.names[line.seat.value])} sends more than "
                    f"{self._peer_rate.lines} lines in {self._peer_rate.seconds:g} s; "
                    "the lines beyond are dropped"
                )
            return
        self._flooding = False
        try:
            verify_line(line, game.game_id, game.keys)
        except ChatError as exc:
            self.show(f"chat: a line is refused: {exc}")
            return
        if line.seq <= self._last[line.seat]:
            self.show(f"chat: line {line.seq} came twice or out of order: dropped")
            return
        self._keep(line)

    # --- inside ---------------------------------------------------------------------------

    @property
    def _at(self) -> int:
        return 0 if self._at_now is None else self._at_now()

    def _old_words(self) -> str:
        return (
            f"the opponent's dbnet is older (channel version {self._version}, chat needs "
            f"{CHAT_VERSION}): the game goes on without chat"
        )

    def _keep(self, line: ChatLine) -> None:
        """Number, save, show and forward a line checked or signed here."""
        game = self._game
        assert game is not None
        self._last[line.seat] = line.seq
        if game.path is not None:
            try:
                append_chat(chat_path(game.path), line)
            except OSError as exc:
                self.show(f"chat: not saved in {chat_path(game.path)}: {os_error_words(exc)}")
        name = printable(game.names[line.seat.value])
        who = f"{name} (you)" if line.seat is game.me else name
        self.show(f"{who} says: {printable(line.text)}")
        if self.forward is not None:
            try:
                self.forward(line)
            except DbnetError as exc:
                self.show(f"chat: not shown to the spectators: {exc}")
