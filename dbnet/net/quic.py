"""A byte stream over QUIC on one UDP socket: aioquic's sans-IO ``QuicConnection``
driven by trio.

dbnet's channel (``net/stream.py``) runs over any ``trio.abc.Stream``; on TCP that is
the connection. Over UDP it is a ``QuicStream``: one QUIC connection carrying, in each
direction, one unidirectional stream, so either side may speak first as on TCP. QUIC
brings what a home-made transport over UDP would lack: reliable ordered delivery,
congestion control, loss recovery, keep-alive by its idle timeout.

QUIC's own TLS authenticates nothing for dbnet: each endpoint makes a throwaway
self-signed certificate when it starts and the client accepts any. dbnet's handshake,
keys and proofs then run inside the stream exactly as on TCP. The ALPN ``dbnet`` keeps
other QUIC software out before any of dbnet's bytes flow.

A ``QuicEndpoint`` (``open_quic_endpoint``) owns one bound UDP socket: ``connect``
opens a client connection to an address, and with ``accept=True`` ``accept`` returns
the connections peers opened; both on the same socket, as hole punching needs. The
endpoint routes each datagram by the peer's address. Datagrams that are not QUIC
(junk, or a packet that opens no connection) are ignored: the first is reported in
one line, the rest are counted. Limits: ``PENDING_LIMIT`` connections being opened by
peers at once, ``RECEIVE_LIMIT`` bytes received and not yet read per connection,
``connect_timeout`` to finish QUIC's handshake, ``idle_timeout`` of silence.
See ``docs/network.md`` section 14.
"""

from __future__ import annotations

import contextlib
import datetime
import math
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Final

import trio
from aioquic.buffer import Buffer  # type: ignore[attr-defined]  # re-exported, no __all__
from aioquic.quic import events
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.connection import QuicConnection
from aioquic.quic.packet import QuicPacketType, pull_quic_header
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from dbnet.net.errors import NetError
from dbnet.net.groups import raise_single
from dbnet.net.hosting import with_port

__all__ = [
    "ALPN",
    "CONNECT_TIMEOUT",
    "IDLE_TIMEOUT",
    "PENDING_LIMIT",
    "RECEIVE_LIMIT",
    "QuicEndpoint",
    "QuicError",
    "QuicStream",
    "QuicTimeoutError",
    "open_quic_endpoint",
]

ALPN: Final = "dbnet"
CONNECT_TIMEOUT: Final = 10.0
"""Seconds for QUIC's handshake, on either side."""
IDLE_TIMEOUT: Final = 30.0
"""Seconds without a packet from the peer before a connection counts as dead (QUIC
keeps a quiet but live connection alive by itself)."""
PENDING_LIMIT: Final = 16
"""Connections opened by peers and not yet accepted, at most; more are ignored."""
RECEIVE_LIMIT: Final = 4 * 1024 * 1024
"""Bytes received and not yet read, per connection; a peer sending more is cut off."""
DATAGRAM_SIZE: Final = 65536
"""The most bytes read from the socket at a time."""
LINGER: Final = 2.0
"""Seconds a closed stream waits for the peer to acknowledge its last bytes before the
connection is closed anyway (closing a QUIC connection drops what is not yet sent)."""
_SMALLEST_INITIAL: Final = 1200  # RFC 9000 section 14.1: a client's Initial is padded to this
_TIMER_SLACK: Final = 0.001
"""A timer this close is due now: trio's sleeps wake in whole milliseconds (epoll), and
QUIC's pacing asks for waits far shorter, which would each cost a millisecond."""
_ENDED_KEPT: Final = 64  # peers whose late datagrams are ignored without a report
_APPLICATION_ERROR: Final = 1  # the error code of a connection this side cut off

Address = tuple[str, int]


class QuicError(NetError):
    """A QUIC connection could not be opened. ``peer`` names the address."""

    def __init__(self, peer: str, problem: str) -> None:
        self.peer = peer
        self.problem = problem
        super().__init__(f"QUIC {peer}: {problem}")


class QuicTimeoutError(QuicError):
    """QUIC's handshake did not finish in time: the peer is silent, or not there."""


def _certificate() -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A throwaway self-signed certificate (QUIC's TLS needs one; dbnet trusts none)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "dbnet")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .sign(key, hashes.SHA256())
    )
    return certificate, key


def _address(raw: Any) -> Address:
    """(host, port) of a socket address (an IPv6 one has two fields more)."""
    return str(raw[0]), int(raw[1])


def _broken(why: str) -> trio.BrokenResourceError:
    """The error of a dead connection; ``why`` rides as its cause (as an ``OSError``
    does on TCP), which ``net/stream.py`` tells the player."""
    error = trio.BrokenResourceError(why)
    error.__cause__ = ConnectionError(why)
    return error


class QuicStream(trio.abc.Stream):
    """One QUIC connection as a byte stream: ``send_all`` and ``receive_some`` as on a
    TCP connection, ``receive_some`` returning ``b""`` once the peer closed cleanly and
    raising ``trio.BrokenResourceError`` (with the reason) if the connection died.
    ``send_all`` hands the bytes to QUIC, which sends them as its congestion and flow
    control allow (dbnet's frames are small and answered, so nothing piles up)."""

    def __init__(
        self, endpoint: QuicEndpoint, quic: QuicConnection, peer: Address, *, client: bool
    ) -> None:
        self._endpoint = endpoint
        self._quic = quic
        self.peer = peer
        self.client = client
        self._send_stream: int | None = None
        self._peer_stream: int | None = None
        self._buffer = bytearray()
        self._fin = False  # the peer ended its stream
        self._broken: str | None = None  # why the connection is unusable
        self._terminated = False
        self._handshake_done = False
        self._closed = False  # this side called aclose
        self._linger_until: float | None = None  # aclose's wait for the last acks
        self._quic_closed = False  # QuicConnection.close was called
        self._close_sent = trio.Event()  # ... and its CONNECTION_CLOSE sent (or the end)
        self._ready = trio.Event()  # QUIC's handshake done, or the connection ended
        self._wakeup = trio.Event()  # the driver has work
        self._readable = trio.Event()  # data, the end or a break came

    @property
    def name(self) -> str:
        return with_port(*self.peer)

    # --- the stream ----------------------------------------------------------------

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint()
        self._check_usable()
        if self._send_stream is None:
            self._send_stream = self._quic.get_next_available_stream_id(is_unidirectional=True)
        self._quic.send_stream_data(self._send_stream, bytes(data))
        self._wake()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        while True:
            if self._closed:
                raise trio.ClosedResourceError("this QUIC stream was closed")
            if self._buffer:
                size = len(self._buffer) if max_bytes is None else max_bytes
                data = bytes(self._buffer[:size])
                del self._buffer[:size]
                return data
            if self._fin:
                return b""
            if self._broken is not None:
                raise _broken(self._broken)
            readable = self._readable
            await readable.wait()
            if readable is self._readable:
                self._readable = trio.Event()

    async def aclose(self) -> None:
        """End this side's stream, then close the connection once the peer has
        acknowledged every byte, or after ``LINGER`` seconds (the endpoint's tasks do
        it: this returns at once). The peer reads the end of the stream."""
        if not self._closed:
            self._closed = True
            if not self._terminated:
                if self._send_stream is None:
                    self._send_stream = self._quic.get_next_available_stream_id(
                        is_unidirectional=True
                    )
                self._quic.send_stream_data(self._send_stream, b"", end_stream=True)
                self._linger_until = trio.current_time() + LINGER
                self._wake()
            self._readable.set()
        await trio.lowlevel.checkpoint()

    def _all_acknowledged(self) -> bool:
        """Whether the peer acknowledged all this side sent: aioquic forgets a stream of
        ours once its data and end are acknowledged."""
        return self._send_stream is None or self._send_stream not in self._quic._streams

    def _check_usable(self) -> None:
        if self._closed:
            raise trio.ClosedResourceError("this QUIC stream was closed")
        if self._broken is not None:
            raise _broken(self._broken)
        if self._terminated:
            raise _broken("the QUIC connection has ended")

    # --- the driver ----------------------------------------------------------------

    def _wake(self) -> None:
        self._wakeup.set()

    def _datagram(self, data: bytes, now: float) -> None:
        self._quic.receive_datagram(data, self.peer, now)
        self._wake()

    async def _drive(self, sock: trio.socket.SocketType, deadline: float) -> None:
        """Run the connection until it ends: timers, events, datagrams out. Gives up
        (silently: ``connect`` reports it) if QUIC's handshake is not done by
        ``deadline``."""
        try:
            while not self._terminated:
                now = trio.current_time()
                timer = self._quic.get_timer()
                if timer is not None and now + _TIMER_SLACK >= timer:
                    now = max(now, timer)
                    self._quic.handle_timer(now)
                self._events()
                linger = self._linger_until
                if (
                    linger is not None
                    and not self._quic_closed
                    and (self._all_acknowledged() or now >= linger)
                ):
                    self._quic.close()
                    self._quic_closed = True
                for data, address in self._quic.datagrams_to_send(now):
                    with contextlib.suppress(OSError):  # a lost datagram: QUIC sends it again
                        await sock.sendto(data, address)
                if self._quic_closed:
                    self._close_sent.set()
                if self._terminated:
                    break
                timer = self._quic.get_timer()
                until = math.inf if timer is None else timer
                if not self._ready.is_set():
                    until = min(until, deadline)
                if self._linger_until is not None and not self._quic_closed:
                    # the acks may have come: aioquic forgets the stream as it sends
                    until = now if self._all_acknowledged() else min(until, self._linger_until)
                wakeup = self._wakeup
                with trio.move_on_at(until):
                    await wakeup.wait()
                if wakeup is self._wakeup:
                    self._wakeup = trio.Event()
                if not self._ready.is_set() and trio.current_time() >= deadline:
                    self._end("QUIC's handshake did not finish in time")
        finally:
            self._terminated = True
            self._ready.set()
            self._readable.set()
            self._close_sent.set()
            self._endpoint._forget(self)

    def _events(self) -> None:
        while (event := self._quic.next_event()) is not None:
            if isinstance(event, events.HandshakeCompleted):
                self._handshake_done = True
                self._ready.set()
                self._endpoint._established(self)
            elif isinstance(event, events.StreamDataReceived):
                self._stream_data(event)
            elif isinstance(event, events.StreamReset):
                self._cut(f"the peer reset its stream (error {event.error_code})")
            elif isinstance(event, events.ConnectionTerminated):
                if self._broken is None and not self._fin:
                    self._broken = self._termination(event)
                self._terminated = True
                self._ready.set()
            self._readable.set()

    def _stream_data(self, event: events.StreamDataReceived) -> None:
        if self._peer_stream is None and self._is_peer_unidirectional(event.stream_id):
            self._peer_stream = event.stream_id
        if event.stream_id != self._peer_stream:
            self._cut(f"the peer opened a second stream ({event.stream_id})")
            return
        self._buffer += event.data
        if len(self._buffer) > RECEIVE_LIMIT:
            self._cut(f"the peer sent more than {RECEIVE_LIMIT} bytes not yet read")
        elif event.end_stream:
            self._fin = True

    def _is_peer_unidirectional(self, stream_id: int) -> bool:
        # bit 0: 0 client-initiated, 1 server-initiated; bit 1: 1 unidirectional
        return stream_id & 2 == 2 and (stream_id & 1 == 1) == self.client

    def _termination(self, event: events.ConnectionTerminated) -> str:
        if event.reason_phrase == "Idle timeout":
            return f"no packet from {self.name} for {self._endpoint.idle_timeout:g} s"
        why = f": {event.reason_phrase}" if event.reason_phrase else ""
        return f"the QUIC connection with {self.name} ended (error {event.error_code}{why})"

    def _cut(self, why: str) -> None:
        """Close the connection for the peer's misbehaviour ``why``."""
        if self._broken is None:
            self._broken = why
        self._buffer.clear()
        self._quic.close(error_code=_APPLICATION_ERROR, reason_phrase=why[:100])
        self._quic_closed = True

    def _end(self, why: str) -> None:
        if self._broken is None:
            self._broken = why
        self._terminated = True


class QuicEndpoint:
    """QUIC connections on one bound UDP socket, opened by ``open_quic_endpoint``."""

    def __init__(
        self,
        sock: trio.socket.SocketType,
        nursery: trio.Nursery,
        *,
        accept: bool,
        report: Callable[[str], None] | None,
        connect_timeout: float,
        idle_timeout: float,
        other: Callable[[bytes, Address], bool] | None = None,
    ) -> None:
        self.sock = sock
        self._other = other
        self._nursery = nursery
        self._accepting = accept
        self._report = report
        self.connect_timeout = connect_timeout
        self.idle_timeout = idle_timeout
        self.ignored = 0
        """Datagrams ignored (not QUIC, or opening no connection)."""
        self._reported = 0  # ... of which not from a peer whose connection just ended
        self._connections: dict[Address, QuicStream] = {}
        self._ended: dict[Address, None] = {}  # the last peers whose connection ended
        self._pending = 0
        self._accepted_in, self._accepted_out = trio.open_memory_channel[QuicStream](PENDING_LIMIT)
        certificate, key = _certificate()
        self._server_configuration = self._configuration(is_client=False)
        self._server_configuration.certificate = certificate
        self._server_configuration.private_key = key

    @property
    def address(self) -> Address:
        return _address(self.sock.getsockname())

    def _configuration(self, *, is_client: bool) -> QuicConfiguration:
        return QuicConfiguration(
            is_client=is_client,
            alpn_protocols=[ALPN],
            idle_timeout=self.idle_timeout,
            verify_mode=ssl.CERT_NONE,  # QUIC's TLS authenticates nothing for dbnet
            max_stream_data=RECEIVE_LIMIT,
            max_data=RECEIVE_LIMIT,
        )

    async def connect(self, peer: Address, *, timeout: float | None = None) -> QuicStream:
        """A QUIC connection to ``peer`` from this endpoint's socket.

        Raises:
            QuicTimeoutError: QUIC's handshake did not finish within ``timeout`` (by
                default the endpoint's ``connect_timeout``).
            QuicError: the peer refused or closed the connection during it.
        """
        limit = self.connect_timeout if timeout is None else timeout
        peer = _address(peer)
        name = with_port(*peer)
        if peer in self._connections:
            raise QuicError(name, "this endpoint already has a connection with it")
        quic = QuicConnection(configuration=self._configuration(is_client=True))
        stream = QuicStream(self, quic, peer, client=True)
        quic.connect(peer, now=trio.current_time())
        self._connections[peer] = stream
        self._nursery.start_soon(stream._drive, self.sock, trio.current_time() + limit)
        try:
            await stream._ready.wait()
        except BaseException:  # cancelled: give the connection up
            stream._quic.close()
            stream._wake()
            raise
        if stream._terminated:
            if stream._broken == "QUIC's handshake did not finish in time":
                raise QuicTimeoutError(name, f"no QUIC answer within {limit:g} s")
            raise QuicError(name, stream._broken or "the connection ended during QUIC's handshake")
        return stream

    async def accept(self) -> QuicStream:
        """The next connection a peer opened (QUIC's handshake done)."""
        if not self._accepting:
            raise QuicError(with_port(*self.address), "this endpoint does not accept")
        stream = await self._accepted_out.receive()
        self._pending -= 1
        return stream

    # --- datagrams in --------------------------------------------------------------

    async def _receive(self) -> None:
        while True:
            try:
                data, raw = await self.sock.recvfrom(DATAGRAM_SIZE)
            except OSError:
                if self.sock.fileno() < 0:
                    return  # the socket was closed under the endpoint
                continue  # e.g. an ICMP error for an earlier datagram: not ours to act on
            peer = _address(raw)
            if self._other is not None and self._other(data, peer):
                continue  # not QUIC's: taken by the endpoint's owner (a punch's probe)
            stream = self._connections.get(peer)
            if stream is not None:
                stream._datagram(data, trio.current_time())
            elif self._accepting:
                self._open(data, peer)
            else:
                self._ignore(peer, len(data), "this endpoint has no connection with it")

    def _open(self, data: bytes, peer: Address) -> None:
        try:
            header = pull_quic_header(Buffer(data=data), host_cid_length=8)
        except ValueError:
            self._ignore(peer, len(data), "not a QUIC packet")
            return
        if header.packet_type != QuicPacketType.INITIAL or len(data) < _SMALLEST_INITIAL:
            self._ignore(peer, len(data), "not a QUIC packet that opens a connection")
            return
        if header.version not in self._server_configuration.supported_versions:
            self._ignore(peer, len(data), f"QUIC version 0x{header.version or 0:08x}")
            return
        if self._pending >= PENDING_LIMIT:
            self._ignore(peer, len(data), f"{PENDING_LIMIT} connections are being opened")
            return
        self._pending += 1
        quic = QuicConnection(
            configuration=self._server_configuration,
            original_destination_connection_id=header.destination_cid,
        )
        stream = QuicStream(self, quic, peer, client=False)
        self._connections[peer] = stream
        now = trio.current_time()
        self._nursery.start_soon(stream._drive, self.sock, now + self.connect_timeout)
        stream._datagram(data, now)

    def _ignore(self, peer: Address, size: int, why: str) -> None:
        self.ignored += 1
        if peer in self._ended:
            return  # the tail of a connection that ended (a late CONNECTION_CLOSE...)
        self._reported += 1
        if self._reported == 1 and self._report is not None:
            self._report(
                f"ignored a {size}-byte datagram from {with_port(*peer)}: {why} "
                "(further ones are counted, not reported)"
            )

    # --- connections' lives --------------------------------------------------------

    def _established(self, stream: QuicStream) -> None:
        if not stream.client:
            try:
                self._accepted_in.send_nowait(stream)
            except trio.WouldBlock:  # cannot happen: _pending bounds it
                stream._cut("too many connections waiting to be accepted")

    def _forget(self, stream: QuicStream) -> None:
        if self._connections.get(stream.peer) is stream:
            del self._connections[stream.peer]
            self._ended[stream.peer] = None
            if len(self._ended) > _ENDED_KEPT:
                del self._ended[next(iter(self._ended))]
        if not stream.client and not stream._handshake_done:
            self._pending -= 1

    async def _close_all(self) -> None:
        """Close every connection and wait (within ``LINGER``) until each one's
        CONNECTION_CLOSE is sent: the drivers are about to be cancelled."""
        streams = list(self._connections.values())
        for stream in streams:
            await stream.aclose()
        with trio.move_on_after(LINGER + 1.0):
            for stream in streams:
                await stream._close_sent.wait()


@asynccontextmanager
async def open_quic_endpoint(
    sock: trio.socket.SocketType,
    *,
    accept: bool = False,
    report: Callable[[str], None] | None = None,
    connect_timeout: float = CONNECT_TIMEOUT,
    idle_timeout: float = IDLE_TIMEOUT,
    other: Callable[[bytes, Address], bool] | None = None,
) -> AsyncIterator[QuicEndpoint]:
    """A ``QuicEndpoint`` on ``sock`` (a bound UDP socket, left open) while the body
    runs; its connections live as long as it does, and are closed when it ends.
    ``accept``: peers may open connections (``QuicEndpoint.accept``). ``report`` is
    told, once, of the first datagram ignored. ``other`` sees every datagram first and
    takes those that are not QUIC's (it returns True for them): the probes of a hole
    punch (``dbnet.net.punch``) share the socket with QUIC."""
    try:
        async with trio.open_nursery() as nursery:
            endpoint = QuicEndpoint(
                sock,
                nursery,
                accept=accept,
                report=report,
                connect_timeout=connect_timeout,
                idle_timeout=idle_timeout,
                other=other,
            )
            nursery.start_soon(endpoint._receive)
            try:
                yield endpoint
            finally:
                with trio.CancelScope(shield=True):
                    await endpoint._close_all()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise_single(group)  # the body's own error, as if no nursery were here
        raise
