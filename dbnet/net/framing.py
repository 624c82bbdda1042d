"""Length-prefixed frames over a byte stream, sans-IO.

A frame is ``u32 big-endian length || payload``, the length counting the
payload only. A length of zero, or above the reader's current limit, is refused
as soon as the four length bytes are in, before any byte of the body is kept,
so a hostile peer cannot make us buffer more than one frame of the allowed size.

The limit can change between frames: handshake frames are capped at
``MAX_HANDSHAKE_FRAME``, the encrypted frames after it at ``MAX_FRAME``.
"""

from __future__ import annotations

from typing import Final

from dbnet.net.errors import FrameError, LocalNetError
from dbnet.wire.values import MAX_MESSAGE_SIZE

__all__ = [
    "LENGTH_SIZE",
    "MAX_FRAME",
    "MAX_HANDSHAKE_FRAME",
    "MAX_LENGTH",
    "MAX_PLAINTEXT",
    "TAG_SIZE",
    "FrameReader",
    "frame",
]

LENGTH_SIZE: Final = 4
MAX_LENGTH: Final = 2**32 - 1
MAX_HANDSHAKE_FRAME: Final = 1024
# A transport message wraps a signed game record of up to MAX_MESSAGE_SIZE bytes.
MAX_PLAINTEXT: Final = MAX_MESSAGE_SIZE + 1024
TAG_SIZE: Final = 16  # the Poly1305 tag of an encrypted frame
MAX_FRAME: Final = MAX_PLAINTEXT + TAG_SIZE


def frame(payload: bytes, *, max_size: int = MAX_FRAME) -> bytes:
    """``payload`` with its length prefix.

    Raises:
        FrameError: ``payload`` is longer than ``max_size``: the peer would refuse it.
        LocalNetError: ``payload`` is empty (a zero length is refused by every reader).
    """
    if not payload:
        raise LocalNetError("cannot send an empty frame: a zero length prefix is refused")
    if len(payload) > max_size:
        raise FrameError(
            f"outgoing frame: {len(payload)} bytes is more than the limit of {max_size} bytes"
        )
    return len(payload).to_bytes(LENGTH_SIZE, "big") + payload


class FrameReader:
    """Cuts received bytes into frame payloads.

    Use ``feed(data)`` to get every payload completed by ``data``, or
    ``receive_data(data)`` and then ``next_frame()`` one at a time when the limit
    may change between two frames of the same chunk. After a ``FrameError`` the
    reader is unusable: the stream is out of step and must be dropped.
    """

    __slots__ = ("_buffer", "_failure", "_length", "_max_size", "_start")

    def __init__(self, max_size: int) -> None:
        self._buffer = bytearray()
        self._start = 0  # offset in _buffer of the first byte not handed out yet
        self._length: int | None = None  # the length of the frame at _start, once read
        self._failure: str | None = None
        self._max_size = _check_limit(max_size)

    def __repr__(self) -> str:
        return f"<FrameReader max_size={self._max_size} buffered={self.buffered}>"

    @property
    def max_size(self) -> int:
        """The largest payload accepted; a new limit applies from the next length prefix read."""
        return self._max_size

    @max_size.setter
    def max_size(self, value: int) -> None:
        self._max_size = _check_limit(value)

    @property
    def buffered(self) -> int:
        """How many received bytes are not handed out yet."""
        return len(self._buffer) - self._start

    @property
    def in_frame(self) -> bool:
        """Whether some bytes of an incomplete (or not yet handed out) frame are buffered."""
        return self.buffered > 0

    def feed(self, data: bytes | bytearray) -> list[bytes]:
        """Add ``data`` and return the payloads of every frame now complete, in order.

        Raises:
            FrameError: a length prefix of zero or above ``max_size``.
        """
        self.receive_data(data)
        payloads: list[bytes] = []
        while (payload := self.next_frame()) is not None:
            payloads.append(payload)
        return payloads

    def receive_data(self, data: bytes | bytearray) -> None:
        """Add ``data``; check the length prefix of the frame at the head if it is complete.

        Raises:
            FrameError: that length prefix is zero or above ``max_size``.
        """
        self._check_usable()
        if self._start:
            del self._buffer[: self._start]  # at most one partial frame is moved
            self._start = 0
        self._buffer += data
        self._head_length()

    def next_frame(self) -> bytes | None:
        """The next complete payload, or None if more bytes are needed.

        Raises:
            FrameError: the next length prefix is zero or above ``max_size``.
        """
        self._check_usable()
        length = self._head_length()
        if length is None or self.buffered < LENGTH_SIZE + length:
            return None
        begin = self._start + LENGTH_SIZE
        payload = bytes(self._buffer[begin : begin + length])
        self._start = begin + length
        self._length = None
        if self._start == len(self._buffer):
            self._buffer.clear()
            self._start = 0
        return payload

    def _head_length(self) -> int | None:
        if self._length is None and self.buffered >= LENGTH_SIZE:
            length = int.from_bytes(self._buffer[self._start : self._start + LENGTH_SIZE], "big")
            if length == 0:
                self._fail("incoming frame: the length prefix is 0; empty frames are not allowed")
            if length > self._max_size:
                self._fail(
                    f"incoming frame: the length prefix announces {length} bytes, more than "
                    f"the limit of {self._max_size} bytes; refused before reading the body"
                )
            self._length = length
        return self._length

    def _fail(self, message: str) -> None:
        self._failure = message
        self._buffer = bytearray()
        self._start = 0
        raise FrameError(message)

    def _check_usable(self) -> None:
        if self._failure is not None:
            raise LocalNetError(
                f"this frame reader failed earlier and cannot be used: {self._failure}"
            )


def _check_limit(value: int) -> int:
    if type(value) is not int or not 1 <= value <= MAX_LENGTH:
        raise LocalNetError(f"a frame limit is from 1 to {MAX_LENGTH} bytes, not {value!r}")
    return value
