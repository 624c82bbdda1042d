"""One connection's messages: typed, timed and watched (docs/network.md).

A ``Link`` wraps the ``SecureStream`` of one connection and adds what the game
session needs from it, whatever the game: messages as ``dbnet.net.messages``
values, a PING after ``ping_after`` seconds without sending, a peer taken for
gone after ``dead_after`` seconds without a message (this catches half-open
connections and hung peers, which TCP alone never reports), a send that has to
finish within ``dead_after`` too (a peer that stops reading cannot stall us),
and a budget for messages that do not advance the game (a flood).
"""

from __future__ import annotations

import statistics
from collections import deque
from contextlib import suppress
from dataclasses import dataclass
from typing import Final

import trio

from dbnet.net.errors import NetError, PeerTimeoutError
from dbnet.net.messages import MAX_REASON_LEN, Bye, Message, Ping, decode_message, encode_message
from dbnet.net.stream import SecureStream

__all__ = ["BACKOFF", "FloodError", "Link", "PeerSilentError", "Timing"]

BACKOFF: Final = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Seconds between reconnection attempts that fail (the last one repeats)."""

_CLOSE_TIMEOUT: Final = 1.0  # the most a goodbye or a close may take
_ROUND_TRIPS: Final = 9  # the PING round trips kept for the estimate (their median)
_STUCK: Final = "sending a message (the peer stopped reading)"


@dataclass(frozen=True, slots=True)
class Timing:
    """The session's clocks, in seconds, and its flood limit (tests shorten them)."""

    ping_after: float = 5.0
    """Send a PING after this long without sending anything."""
    dead_after: float = 20.0
    """The peer is gone after this long without a message, or a send stuck this long."""
    adjourn_after: float = 300.0
    """Adjourn the game after this long without the peer."""
    hello_timeout: float = 10.0
    """HELLO (and a new game's OFFER) must come within this long of the handshake."""
    handshake_timeout: float = 10.0
    frame_timeout: float = 10.0
    backoff: tuple[float, ...] = BACKOFF
    flood_rate: float = 20.0
    """Messages a second that do not advance the game (PINGs, PONGs, entries we hold)..."""
    flood_burst: int = 100
    """...and how many of them may come at once before the peer counts as flooding."""


class PeerSilentError(NetError):
    """Nothing came from the peer for ``dead_after`` seconds: the connection is taken for dead."""


class FloodError(NetError):
    """The peer sent more messages that do not advance the game than the budget allows."""


class Link:
    """One connection's messages: typed sends and receives, heartbeats, dead-peer timeout,
    flood budget."""

    def __init__(self, stream: SecureStream, timing: Timing) -> None:
        self.stream = stream
        self.timing = timing
        self.sent = 0  # messages sent, for the benchmark's count of frames
        self._last_send = trio.current_time()
        self._tokens = 0
        self._budget = float(timing.flood_burst)
        self._budget_at = trio.current_time()
        self._stuck: float | None = None  # the time limit a send missed
        self._pings: dict[int, float] = {}  # PINGs not answered yet: token -> when sent
        self._round_trips: deque[int] = deque(maxlen=_ROUND_TRIPS)  # ms

    @property
    def peer_key(self) -> bytes:
        return self.stream.peer_key

    async def send(self, message: Message, *, timeout: float | None = None) -> None:
        """Send ``message``, whole: a send in progress is not cut off by a cancellation
        (a frame cut off would leave the stream unable to send even a BYE), only by its
        time limit, ``timeout`` or else ``dead_after``.

        Raises:
            PeerTimeoutError: the send did not finish in time (the peer stopped reading).
            NetError: the connection is broken or closed.
        """
        if self._stuck is not None:  # an earlier send timed out: say so again
            raise PeerTimeoutError(_STUCK, self._stuck)
        seconds = self.timing.dead_after if timeout is None else timeout
        with trio.CancelScope(shield=True):
            try:
                with trio.fail_after(seconds):
                    await self.stream.send(encode_message(message))
            except trio.TooSlowError:
                self._stuck = seconds
                raise PeerTimeoutError(_STUCK, seconds) from None
            except NetError:
                if self._stuck is not None:  # it waited behind the send that timed out
                    raise PeerTimeoutError(_STUCK, self._stuck) from None
                raise
        self.sent += 1
        self._last_send = trio.current_time()
        await trio.lowlevel.checkpoint_if_cancelled()

    async def receive(self) -> Message:
        """The next message.

        Raises:
            PeerSilentError: nothing came for ``dead_after`` seconds.
            MessageError: the message is malformed (the peer breaks the protocol).
            NetError: the connection broke, was closed, or a frame was bad or too slow.
        """
        seconds = self.timing.dead_after
        with trio.move_on_after(seconds):
            return decode_message(await self.stream.receive())
        raise PeerSilentError(f"the peer was silent for {seconds:g} s")

    def charge(self) -> None:
        """Count one message that did not advance the game against the flood budget.

        Raises:
            FloodError: the budget is spent.
        """
        now = trio.current_time()
        rate, burst = self.timing.flood_rate, self.timing.flood_burst
        self._budget = min(float(burst), self._budget + (now - self._budget_at) * rate)
        self._budget_at = now
        self._budget -= 1.0
        if self._budget < 0:
            raise FloodError(
                f"the peer flooded the connection: more than {burst} messages that do not "
                f"advance the game, faster than {rate:g} a second"
            )

    async def heartbeat(self) -> None:
        """Send a PING whenever nothing was sent for ``ping_after`` seconds (forever)."""
        while True:
            due = self._last_send + self.timing.ping_after
            if trio.current_time() >= due:
                await self.ping()
                continue
            await trio.sleep_until(due)

    async def ping(self) -> None:
        """Send a PING now; its PONG (``pong``) measures a round trip."""
        self._tokens += 1
        self._pings = {t: at for t, at in self._pings.items() if t > self._tokens - 8}
        self._pings[self._tokens] = trio.current_time()
        await self.send(Ping(self._tokens))

    def pong(self, token: int) -> None:
        """A PONG came: the round trip of the PING it answers (an unknown token counts
        nothing: the peer cannot make the estimate smaller than its own answers are)."""
        sent = self._pings.pop(token, None)
        if sent is not None:
            self._round_trips.append(int((trio.current_time() - sent) * 1000))

    @property
    def round_trip_ms(self) -> int:
        """The estimated round trip: the median of the last PING round trips, in ms (0
        before any)."""
        trips = self._round_trips
        return int(statistics.median_low(trips)) if trips else 0

    async def say_bye(self, reason: str) -> None:
        """Tell the peer why this side hangs up (best effort: the connection may be gone)."""
        first_line = reason.splitlines()[0] if reason else ""
        with suppress(NetError):
            await self.send(Bye(False, first_line[:MAX_REASON_LEN]), timeout=_CLOSE_TIMEOUT)

    async def close(self) -> None:
        with trio.move_on_after(_CLOSE_TIMEOUT):
            await self.stream.aclose()
