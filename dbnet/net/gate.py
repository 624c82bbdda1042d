"""The host's door: connections are authenticated side by side before one is played with.

A host plays one connection at a time, but the handshake of a connection that has not
authenticated yet must not hold the door: nine idle TCP connections handled one after
another would keep the real joiner out for minutes. So every new connection gets its
handshake at once, in a task of its own, with the handshake's deadline; only a
connection that finished it (a ``SecureStream`` with a proven key) goes on to the
session. Limits keep a flood from using this: at most ``PER_ADDRESS`` handshakes from
one address at a time and ``MAX_PENDING`` in all; a new connection always gets its
handshake, and the oldest one over a limit is dropped for it. A real handshake takes
one round trip, so the joiner who comes last still gets in, even from an address
(a shared router) that a stranger floods too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final

import trio

from dbnet.net.errors import NetError, VersionMismatchError
from dbnet.net.handshake import HOST
from dbnet.net.stream import DIRECT, SecureStream, open_channel
from dbnet.protocol.identity import Identity
from dbnet.text import printable

PER_ADDRESS: Final = 4
"""Handshakes one address may have going at once; a new one drops its oldest."""
MAX_PENDING: Final = 64
"""Handshakes going at once in all; a new connection drops the oldest beyond this."""


class Gate:
    """Runs the handshakes of a host's new connections; authenticated ones go to ``out``.
    ``role`` is this side's in the handshakes (a joiner's door has one too:
    ``net.reverse``), ``path`` what the connections accepted are called."""

    def __init__(
        self,
        identity: Identity,
        out: trio.MemorySendChannel[trio.abc.Stream | SecureStream],
        say: Callable[[str], None],
        *,
        handshake_timeout: float,
        frame_timeout: float,
        role: str = HOST,
        path: str = DIRECT,
    ) -> None:
        self.identity = identity
        self.role = role
        self.path = path
        self.out = out
        self.say = say
        self.handshake_timeout = handshake_timeout
        self.frame_timeout = frame_timeout
        self._pending: deque[tuple[str, trio.CancelScope]] = deque()

    def pending_from(self, address: str) -> int:
        """Handshakes going on with ``address`` now."""
        return sum(1 for who, _ in self._pending if who == address)

    async def serve(self, listener: trio.SocketListener, nursery: trio.Nursery) -> None:
        """Accept connections on ``listener`` for ever, a handshake task each in
        ``nursery`` (within the limits above)."""
        while True:
            try:
                stream = await listener.accept()
            except OSError:
                await trio.sleep(0.1)  # e.g. out of file descriptors: wait, do not spin
                continue
            self.admit(stream, _address(stream), nursery, self.path)

    def admit(
        self, stream: trio.abc.Stream, address: str, nursery: trio.Nursery, path: str = DIRECT
    ) -> None:
        """Start the handshake of ``stream`` (from ``address``, which came by ``path``)
        in ``nursery``, within the limits above."""
        if self.pending_from(address) >= PER_ADDRESS:
            self._drop(next(p for p in self._pending if p[0] == address))
        if len(self._pending) >= MAX_PENDING:
            self._drop(self._pending[0])
        scope = trio.CancelScope()
        self._pending.append((address, scope))
        nursery.start_soon(self._authenticate, stream, address, scope, path)

    def _drop(self, pending: tuple[str, trio.CancelScope]) -> None:
        self._pending.remove(pending)
        pending[1].cancel()

    async def _authenticate(
        self, stream: trio.abc.Stream, address: str, scope: trio.CancelScope, path: str
    ) -> None:
        secure = None
        with scope:
            try:
                secure = await open_channel(
                    stream,
                    self.identity,
                    initiator=False,
                    handshake_timeout=self.handshake_timeout,
                    frame_timeout=self.frame_timeout,
                    path=path,
                    role=self.role,
                )
            except VersionMismatchError as exc:
                self.say(f"refused a connection: {printable(str(exc))}")
            except NetError as exc:
                self.say(f"connection failed: {printable(str(exc))}")
        if (address, scope) in self._pending:
            self._pending.remove((address, scope))
        if secure is None:
            await trio.aclose_forcefully(stream)  # dropped for a newer one, or failed
            return
        try:
            self.out.send_nowait(secure)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            await trio.aclose_forcefully(secure)


def _address(stream: trio.SocketStream) -> str:
    """The peer's IP address (its port left out: one machine, one address)."""
    try:
        peer = stream.socket.getpeername()
    except OSError:
        return "?"
    return str(peer[0]) if isinstance(peer, tuple) else str(peer)
