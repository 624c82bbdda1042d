"""Fakes for the network tests: an in-memory handshake, a lossy stream, background tasks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from typing import Generic, TypeVar

import trio

from dbnet.identity import Identity
from dbnet.net.errors import NetError
from dbnet.net.handshake import Handshake

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


class LossyStream(trio.abc.Stream):
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
        self.inner = inner
        self.drop = frozenset(drop)
        self.corrupt = frozenset(corrupt)
        self.duplicate = duplicate
        self.trickle = trickle
        self.received = 0  # bytes received from inner
        self.chunks = 0  # chunks handed out
        self._history = bytearray()
        self._pending = bytearray()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

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

    async def aclose(self) -> None:
        await self.inner.aclose()

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
