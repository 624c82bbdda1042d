"""Fakes for the network tests: an in-memory handshake, a lossy stream, background tasks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Generic, TypeVar

import trio

from dbnet.net.errors import NetError
from dbnet.net.handshake import Handshake
from dbnet.protocol.identity import Identity

T = TypeVar("T")

# The fixed seeds of the identities the tests use (deterministic keys, readable failures).
ALICE = Identity.from_private_bytes(bytes(range(32)))
BOB = Identity.from_private_bytes(bytes(range(32, 64)))
MALLORY = Identity.from_private_bytes(bytes(range(64, 96)))

Tamper = Callable[[str, bytes], bytes]
"""Called with the name of a handshake message and its payload; returns what to deliver."""

MESSAGES = ("preamble_i", "preamble_r", "message1", "message2", "message3")


def run_handshake(
    initiator: Handshake, responder: Handshake, tamper: Tamper | None = None
) -> dict[str, bytes]:
    """Run a handshake between two in-memory sides in the order the wire allows.

    Returns the payloads as sent (before ``tamper``), by name. Errors propagate.
    """

    def deliver(name: str, payload: bytes) -> bytes:
        sent[name] = payload
        return tamper(name, payload) if tamper is not None else payload

    sent: dict[str, bytes] = {}
    preamble_i, message1 = initiator.start()
    (preamble_r,) = responder.start()
    assert initiator.receive(deliver("preamble_r", preamble_r)) == []
    assert responder.receive(deliver("preamble_i", preamble_i)) == []
    (message2,) = responder.receive(deliver("message1", message1))
    (message3,) = initiator.receive(deliver("message2", message2))
    assert initiator.done
    assert responder.receive(deliver("message3", message3)) == []
    assert responder.done
    return sent


def handshake_pair(
    a: Identity = ALICE, b: Identity = BOB, tamper: Tamper | None = None
) -> tuple[Handshake, Handshake]:
    """A finished handshake between ``a`` (initiator) and ``b`` (responder)."""
    initiator = Handshake(a, initiator=True)
    responder = Handshake(b, initiator=False)
    run_handshake(initiator, responder, tamper)
    return initiator, responder


class PassThroughStream(trio.abc.Stream):
    """A stream that hands everything to ``inner`` unchanged: subclasses override only
    what they change."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return bytes(await self.inner.receive_some(max_bytes))

    async def aclose(self) -> None:
        await self.inner.aclose()


class LossyStream(PassThroughStream):
    """A stream whose *incoming* bytes are damaged at fixed offsets, deterministically.

    Offsets count the bytes received from ``inner`` since the start (so they do not
    depend on how the bytes are cut into chunks). ``drop`` loses those bytes,
    ``corrupt`` flips their lowest bit, ``duplicate=(start, length)`` delivers that
    range a second time right after its last byte, and ``trickle`` hands out one byte
    per ``receive_some``. Sending passes through untouched.
    """

    def __init__(
        self,
        inner: trio.abc.Stream,
        *,
        drop: Collection[int] = (),
        corrupt: Collection[int] = (),
        duplicate: tuple[int, int] | None = None,
        trickle: bool = False,
    ) -> None:
        super().__init__(inner)
        self.drop = frozenset(drop)
        self.corrupt = frozenset(corrupt)
        self.duplicate = duplicate
        self.trickle = trickle
        self.received = 0  # bytes received from inner
        self.chunks = 0  # chunks handed out
        self._history = bytearray()
        self._pending = bytearray()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        limit = 1 if self.trickle else max_bytes
        while not self._pending:
            data = await self.inner.receive_some(limit)
            if not data:
                return b""
            self._pending += self._damage(data)
        size = len(self._pending) if limit is None else min(limit, len(self._pending))
        chunk = bytes(self._pending[:size])
        del self._pending[:size]
        self.chunks += 1
        return chunk

    def _damage(self, data: bytes | bytearray) -> bytearray:
        out = bytearray()
        for byte in data:
            offset = self.received
            self.received += 1
            self._history.append(byte)
            if offset not in self.drop:
                out.append(byte ^ 1 if offset in self.corrupt else byte)
            if self.duplicate is not None and offset == sum(self.duplicate) - 1:
                start, length = self.duplicate
                out += self._history[start : start + length]
        return out


def damaged(inner: trio.abc.Stream, kind: str, offset: int, length: int = 1) -> LossyStream:
    """``inner`` with one kind of damage ("drop", "corrupt" or "duplicate") at ``offset``."""
    span = range(offset, offset + length)
    if kind == "drop":
        return LossyStream(inner, drop=span)
    if kind == "corrupt":
        return LossyStream(inner, corrupt=span)
    assert kind == "duplicate", kind
    return LossyStream(inner, duplicate=(offset, length))


class Background(Generic[T]):
    """An async call run in a nursery; keeps its result or the NetError it raised."""

    def __init__(self, nursery: trio.Nursery, call: Callable[[], Awaitable[T]]) -> None:
        self.result: T | None = None
        self.error: NetError | None = None
        self.finished = trio.Event()
        nursery.start_soon(self._run, call)

    async def _run(self, call: Callable[[], Awaitable[T]]) -> None:
        try:
            self.result = await call()
        except NetError as exc:
            self.error = exc
        finally:
            self.finished.set()

    async def wait(self) -> T:
        """The result, once there; re-raises the NetError if there was one."""
        await self.finished.wait()
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result


ENTRY_FRAME_MIN = 140
"""Bytes of payload: every encrypted frame carrying an entry is larger, while a PING, a
PONG, a BYE(done) and a REMATCH with dbnet's own reasons are smaller (the first frame
after the handshake is HELLO)."""


class FrameSplitter:
    """Follows one direction of a dbnet connection by its cleartext length prefixes
    (sans-IO): the handshake's frames (3 from the side that connects, 2 from the one that
    accepts), then HELLO, then one message a frame. ``feed`` returns the frames whose
    length became known, as (offset of the frame in the direction's bytes, payload
    length, whether it carries an entry)."""

    def __init__(self, handshake_frames: int) -> None:
        self.handshake_frames = handshake_frames
        self.offset = 0  # bytes fed so far
        self.frames = 0  # frames whose length is known
        self._start = 0  # where the current frame starts
        self._prefix = b""  # the bytes of its length prefix received so far
        self._left = 0  # payload bytes of the current frame still to come
        self.cut_pos: int | None = None  # where a Meter cuts this direction

    def feed(self, data: bytes) -> list[tuple[int, int, bool]]:
        found: list[tuple[int, int, bool]] = []
        i = 0
        while i < len(data):
            if self._left:
                take = min(self._left, len(data) - i)
                self._left -= take
                i += take
                continue
            if not self._prefix:
                self._start = self.offset + i
            take = min(4 - len(self._prefix), len(data) - i)
            self._prefix += data[i : i + take]
            i += take
            if len(self._prefix) == 4:
                length = int.from_bytes(self._prefix, "big")
                self._prefix = b""
                self._left = length
                first_message = self.handshake_frames + 1  # HELLO
                self.frames += 1
                entry = self.frames > first_message and length > ENTRY_FRAME_MIN
                found.append((self._start, length, entry))
        self.offset += len(data)
        return found


class Meter:
    """The bytes of one connection in both directions, and where to cut it.

    The connection is cut when ``cut_at`` bytes have passed (both directions counted
    together, in the order the two sides send them), or ``into`` bytes into the frame
    of entry ``entry`` (entries counted in both directions, from 0: on a first
    connection, entry k is the game's entry k). The send that reaches the cut delivers
    only the bytes before it. ``silent`` makes the cut a half-open connection (later
    bytes are lost, reads never return, nothing is closed); otherwise each side reads
    the bytes already on their way, then the end of the stream, and its sends fail.
    ``sever()`` cuts at once.
    """

    def __init__(
        self,
        cut_at: int | None = None,
        *,
        entry: int | None = None,
        into: int = 0,
        silent: bool = False,
    ) -> None:
        self.cut_at = cut_at
        self.entry = entry
        self.into = into
        self.silent = silent
        self.passed = 0
        self.entries = 0  # entry frames seen
        self.cut = False
        self.inner: list[trio.abc.Stream] = []

    def pair(
        self, joiner: trio.abc.Stream, host: trio.abc.Stream
    ) -> tuple[trio.abc.Stream, trio.abc.Stream]:
        """The joiner's and the host's ends of a ``memory_stream_pair``, metered together."""
        self.inner = [joiner, host]
        return MeteredStream(joiner, self, FrameSplitter(3)), MeteredStream(
            host, self, FrameSplitter(2)
        )

    def sever(self) -> None:
        """Cut the connection now (a no-op if it is cut already)."""
        if self.cut:
            return
        self.cut = True
        if not self.silent:
            for end in self.inner:
                # Each side reads what was already on its way, then the end of the stream.
                end.send_stream.close()  # type: ignore[attr-defined]

    def room(self, splitter: FrameSplitter, data: bytes) -> int:
        """How many bytes of ``data`` (about to be sent) pass before the cut."""
        room = len(data)
        if self.cut_at is not None:
            room = min(room, max(self.cut_at - self.passed, 0))
        start = splitter.offset
        for offset, length, is_entry in splitter.feed(data):
            if not is_entry:
                continue
            if self.entries == self.entry:
                # ``into`` > 0 always stops inside the frame, however long it is.
                splitter.cut_pos = offset + min(self.into, 4 + length - 1)
            self.entries += 1
        if splitter.cut_pos is not None:
            room = min(room, max(splitter.cut_pos - start, 0))
        return room


class MeteredStream(PassThroughStream):
    """One end of a connection whose bytes a ``Meter`` counts (and cuts)."""

    def __init__(self, inner: trio.abc.Stream, meter: Meter, splitter: FrameSplitter) -> None:
        super().__init__(inner)
        self.meter = meter
        self.splitter = splitter

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        meter = self.meter
        if meter.cut:
            if meter.silent:
                await trio.lowlevel.checkpoint()
                return
            raise trio.BrokenResourceError("the connection was cut")
        data = bytes(data)
        head = data[: meter.room(self.splitter, data)]
        if head:
            await self.inner.send_all(head)
            meter.passed += len(head)
        if len(head) < len(data):
            meter.sever()
            if not meter.silent:
                raise trio.BrokenResourceError("the connection was cut")

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self.meter.cut and self.meter.silent:
            await trio.sleep_forever()
        data = await self.inner.receive_some(max_bytes)
        if self.meter.cut and self.meter.silent:
            await trio.sleep_forever()  # cut while we waited: these bytes are lost
        return bytes(data)
