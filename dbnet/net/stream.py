"""The secure channel over a trio stream: the handshake, then encrypted frames.

``open_channel`` runs the handshake of ``dbnet.net.handshake`` over any
``trio.abc.Stream`` (a TCP connection, a relay, a memory stream in tests) and
returns a ``SecureStream`` that sends and receives whole messages.

Time limits: the handshake must finish within ``handshake_timeout``, and each
frame after it must arrive in full within ``frame_timeout`` of its first byte
(a peer that trickles a frame cannot hold the connection). ``receive()`` itself
waits as long as it takes for a frame to *start*: a silent peer is detected by
the layer above, which sends PINGs and puts its own time limit around
``receive()``. Cancelling ``receive()`` loses nothing; cancelling ``send()``
leaves the stream unable to send (the peer would see a broken frame).

Every failure is a ``NetError``; trio's ``BrokenResourceError`` and
``ClosedResourceError`` and ``OSError`` from the stream become
``ConnectionClosedError``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import trio

from dbnet.net.errors import (
    AuthenticationError,
    ConnectionClosedError,
    FrameError,
    HandshakeError,
    LocalNetError,
    NetError,
    PeerTimeoutError,
)
from dbnet.net.framing import MAX_FRAME, MAX_HANDSHAKE_FRAME, FrameReader, frame
from dbnet.net.handshake import SUPPORTED_VERSIONS, Channel, Handshake
from dbnet.protocol.identity import Identity, fingerprint
from dbnet.text import os_error_words

__all__ = ["DIRECT", "RECEIVE_SIZE", "RELAY", "SecureStream", "open_channel", "with_key"]

DIRECT = "direct"
"""The path of a connection made straight to the other side (its kind unknown)."""
RELAY = "relay"
"""The path of a connection through a relay."""

RECEIVE_SIZE = 65536
"""The most bytes asked of the stream at a time."""

_QUOTE = 16  # bytes of unexpected input quoted in a message
_FLUSH_TIMEOUT = 1.0  # how long a failed handshake waits for its preamble to go out


async def open_channel(
    stream: trio.abc.Stream,
    identity: Identity,
    *,
    initiator: bool,
    versions: Sequence[int] = SUPPORTED_VERSIONS,
    handshake_timeout: float = 10.0,
    frame_timeout: float = 10.0,
    path: str = DIRECT,
    role: str | None = None,
) -> SecureStream:
    """Run the handshake over ``stream``; the secure stream that wraps it. ``path``
    names the way the stream came (``direct (LAN)``, ``relay``...), for the player;
    ``role`` is this side's (``handshake.HOST`` or ``JOINER``; None: the initiator joins).

    The caller must then check ``peer_key`` (known peers, an expected fingerprint).
    If the handshake fails, ``stream`` is closed.

    Raises:
        PeerTimeoutError: the handshake did not finish within ``handshake_timeout``.
        HandshakeError: the peer does not speak dbnet, has no version in common
            (``VersionMismatchError``) or failed authentication (``AuthenticationError``).
        FrameError: a handshake frame above ``MAX_HANDSHAKE_FRAME`` bytes was announced.
        ConnectionClosedError: the connection ended during the handshake.
        LocalNetError: bad ``versions``.
    """
    handshake = Handshake(identity, initiator=initiator, versions=versions, role=role)
    receiver = _Receiver(stream, FrameReader(MAX_HANDSHAKE_FRAME))
    try:
        with trio.fail_after(handshake_timeout):
            await _run_handshake(stream, handshake, receiver)
    except trio.TooSlowError:
        await trio.aclose_forcefully(stream)
        raise PeerTimeoutError(
            f"the handshake (waiting for {handshake.waiting_for})", handshake_timeout
        ) from None
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    receiver.reader.max_size = MAX_FRAME
    channel = handshake.channel()
    return SecureStream(stream, channel, receiver, frame_timeout=frame_timeout, path=path)


async def with_key(secure: SecureStream, key: bytes, who: str) -> SecureStream:
    """``secure`` if its peer has ``key`` (``who``'s: "joiner", "host"), else it is
    closed and ``AuthenticationError`` names both keys."""
    if secure.peer_key != key:
        await trio.aclose_forcefully(secure)
        raise AuthenticationError(
            f"the peer there has the key {fingerprint(secure.peer_key)}, not the {who}'s "
            f"{fingerprint(key)}"
        )
    return secure


async def _run_handshake(
    stream: trio.abc.Stream, handshake: Handshake, receiver: _Receiver
) -> None:
    """Send in a task of its own while receiving, so that two peers that both send
    first cannot block each other on a stream with no buffer."""
    outgoing, to_send = trio.open_memory_channel[bytes](math.inf)
    flushed = trio.Event()

    async def send_all() -> None:
        async with to_send:
            async for data in to_send:
                where = f"during the handshake (waiting for {handshake.waiting_for})"
                await _send(stream, data, f"cannot send {where}")
        flushed.set()

    def queue(payloads: list[bytes]) -> None:
        if payloads:
            outgoing.send_nowait(b"".join(frame(p, max_size=MAX_HANDSHAKE_FRAME) for p in payloads))

    try:
        async with trio.open_nursery(strict_exception_groups=True) as nursery:
            nursery.start_soon(send_all)
            with outgoing:
                queue(handshake.start())
                try:
                    while not handshake.done:
                        payload = await _receive_handshake_frame(handshake, receiver)
                        queue(handshake.receive(payload))
                except HandshakeError:
                    # Let our preamble out, so that the peer can tell its user why too.
                    outgoing.close()
                    with trio.move_on_after(_FLUSH_TIMEOUT):
                        await flushed.wait()
                    raise
    except BaseExceptionGroup as group:
        errors, others = group.split(NetError)
        if errors is None or others is not None:
            raise
        raise _most_telling(errors)  # noqa: B904 (the group stays as the context)


async def _receive_handshake_frame(handshake: Handshake, receiver: _Receiver) -> bytes:
    where = f"during the handshake (waiting for {handshake.waiting_for})"
    try:
        return await receiver.next_payload(math.inf, where)
    except FrameError as exc:
        if handshake.peer_versions is not None:
            raise
        raise HandshakeError(
            f"handshake: the peer's first bytes {receiver.head!r} are not a dbnet preamble "
            f"frame ({exc}): the peer does not speak dbnet"
        ) from exc


def _most_telling(group: BaseExceptionGroup[NetError]) -> NetError:
    """The first error that says more than "the connection closed", else the first."""
    leaves = list(_leaves(group))
    return next((e for e in leaves if not isinstance(e, ConnectionClosedError)), leaves[0])


def _leaves(group: BaseExceptionGroup[NetError]) -> Iterator[NetError]:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc


class SecureStream(trio.abc.AsyncResource):
    """Whole messages over an encrypted, authenticated channel. Make one with ``open_channel``.

    One task may send while another receives; concurrent senders are served in turn,
    their frames never interleaved.
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        channel: Channel,
        receiver: _Receiver,
        *,
        frame_timeout: float,
        path: str = DIRECT,
    ) -> None:
        self.path = path
        """The way this connection came: ``direct``, ``direct (LAN)``, ``relay``..."""
        self._stream = stream
        self._channel = channel
        self._receiver = receiver
        self._frame_timeout = frame_timeout
        self._send_lock = trio.StrictFIFOLock()
        self._send_failure: str | None = None
        self._receiving = False
        self._unread: bytes | None = None  # a message given back (``unread``)

    def __repr__(self) -> str:
        return f"<SecureStream {self._channel!r}>"

    @property
    def peer_key(self) -> bytes:
        """The peer's Ed25519 identity key, authenticated by the handshake."""
        return self._channel.peer_key

    @property
    def version(self) -> int:
        """The channel version both sides chose."""
        return self._channel.version

    @property
    def role(self) -> str:
        """This side's role on this connection: ``handshake.HOST`` or ``JOINER``."""
        return self._channel.role

    @property
    def transcript(self) -> bytes:
        """The handshake's final transcript hash, the same on both sides."""
        return self._channel.transcript

    async def send(self, payload: bytes) -> None:
        """Encrypt ``payload`` and send it as one frame.

        Raises:
            FrameError: ``payload`` is longer than ``MAX_PLAINTEXT``.
            ConnectionClosedError: the connection is closed or broken, or an earlier
                send was interrupted (the stream is out of step).
            ChannelError: the channel has used all its nonces.
        """
        await self.send_many((payload,))

    async def send_many(self, payloads: Sequence[bytes]) -> None:
        """Send each of ``payloads`` as a frame of its own, all in one write to the
        stream (cheaper than one write each); fails as ``send`` does."""
        async with self._send_lock:
            if self._send_failure is not None:
                raise ConnectionClosedError(f"cannot send: {self._send_failure}")
            data = b"".join(frame(self._channel.encrypt(payload)) for payload in payloads)
            try:
                await _send(self._stream, data, "cannot send")
            except BaseException as exc:
                # The frames' nonces are spent and part may be out: nothing can follow.
                self._send_failure = (
                    f"an earlier send failed part way ({exc or 'it was interrupted'}); "
                    "the stream is out of step and must be closed"
                )
                raise

    async def receive(self) -> bytes:
        """The next message. Waits as long as it takes for a frame to start.

        Raises:
            PeerTimeoutError: a frame did not complete within ``frame_timeout`` of its
                first byte.
            ConnectionClosedError: the peer closed the connection (``mid_frame`` tells
                whether it cut a frame off) or the connection broke.
            ChannelError: a frame failed authentication: changed, dropped or replayed.
            FrameError: a frame above ``MAX_FRAME`` bytes was announced.
            LocalNetError: another task is receiving.
        """
        if self._receiving:
            raise LocalNetError("receive(): another task is already receiving on this stream")
        if self._unread is not None:
            message, self._unread = self._unread, None
            return message
        self._receiving = True
        try:
            payload = await self._receiver.next_payload(self._frame_timeout, "")
            return self._channel.decrypt(payload)
        finally:
            self._receiving = False

    def unread(self, message: bytes) -> None:
        """Give back ``message``, the last one received: the next ``receive`` returns it
        again (a host reads a connection's first message to tell a player from a
        spectator, then hands the stream on whole)."""
        if self._unread is not None:
            raise LocalNetError("unread(): a message was given back already")
        self._unread = message

    async def aclose(self) -> None:
        """Close the underlying stream (the peer sees the connection closed)."""
        await self._stream.aclose()


class _Receiver:
    """Frames from a stream, each within a time limit from its first byte."""

    def __init__(self, stream: trio.abc.Stream, reader: FrameReader) -> None:
        self.stream = stream
        self.reader = reader
        self.head = b""  # the first bytes ever received, to quote
        self._started = 0.0  # when the first byte of the partial frame buffered arrived
        self._last_arrival = 0.0

    async def next_payload(self, frame_timeout: float, where: str) -> bytes:
        reader = self.reader
        while True:
            payload = reader.next_frame()
            if payload is not None:
                # Frames end in the last chunk received, so what is left came with it.
                self._started = self._last_arrival
                return payload
            data: bytes | bytearray | None = None
            if reader.in_frame:
                with trio.move_on_at(self._started + frame_timeout):
                    data = await self._receive_some(where)
                if data is None:
                    raise PeerTimeoutError(
                        f"a frame from the peer ({reader.buffered} bytes of it received)",
                        frame_timeout,
                    )
            else:
                data = await self._receive_some(where)
            now = trio.current_time()
            if not data:
                raise self._closed(where)
            if not reader.in_frame:
                self._started = now
            self._last_arrival = now
            if len(self.head) < _QUOTE:
                self.head += data[: _QUOTE - len(self.head)]
            reader.receive_data(data)

    async def _receive_some(self, where: str) -> bytes | bytearray:
        try:
            return await self.stream.receive_some(RECEIVE_SIZE)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ConnectionClosedError(
                _joined("cannot receive", where, _reason(exc)), mid_frame=self.reader.in_frame
            ) from exc

    def _closed(self, where: str) -> ConnectionClosedError:
        if self.reader.in_frame:
            return ConnectionClosedError(
                _joined(
                    "the peer closed the connection in the middle of a frame",
                    where,
                    f"{self.reader.buffered} bytes of it had arrived",
                ),
                mid_frame=True,
            )
        return ConnectionClosedError(_joined("the peer closed the connection", where, ""))


async def _send(stream: trio.abc.Stream, data: bytes, what: str) -> None:
    try:
        await stream.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        raise ConnectionClosedError(f"{what}: {_reason(exc)}") from exc


def _reason(exc: BaseException) -> str:
    """Why a send or receive failed, in words (no exception names, no errno)."""
    if isinstance(exc, trio.ClosedResourceError):
        return "the stream was closed by this side"
    cause = exc.__cause__ if isinstance(exc, trio.BrokenResourceError) else exc
    if cause is None or not str(cause):
        return "the connection broke"
    return f"the connection broke: {os_error_words(cause)}"


def _joined(what: str, where: str, detail: str) -> str:
    text = f"{what} {where}" if where else what
    return f"{text}: {detail}" if detail else text
