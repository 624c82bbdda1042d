"""Length-prefixed frames: the reader's limits, chunking and failure."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.net.errors import FrameError, LocalNetError, NetError
from dbnet.net.framing import (
    MAX_FRAME,
    MAX_HANDSHAKE_FRAME,
    MAX_LENGTH,
    MAX_PLAINTEXT,
    FrameReader,
    frame,
)
from dbnet.wire.values import MAX_MESSAGE_SIZE


def test_constants() -> None:
    assert MAX_HANDSHAKE_FRAME == 1024
    assert MAX_PLAINTEXT == MAX_MESSAGE_SIZE + 1024
    assert MAX_FRAME == MAX_PLAINTEXT + 16


def test_frame_is_a_big_endian_length_and_the_payload() -> None:
    assert frame(b"abc") == b"\x00\x00\x00\x03abc"
    assert frame(bytes(300)) == b"\x00\x00\x01\x2c" + bytes(300)


def test_frame_refuses_empty_and_oversized_payloads() -> None:
    with pytest.raises(LocalNetError, match="empty frame"):
        frame(b"")
    with pytest.raises(FrameError, match=r"outgoing frame: 11 bytes is more than the limit of 10"):
        frame(bytes(11), max_size=10)
    assert frame(bytes(10), max_size=10)[:4] == b"\x00\x00\x00\x0a"
    with pytest.raises(FrameError, match=f"{MAX_FRAME + 1} bytes"):
        frame(bytes(MAX_FRAME + 1))


def test_feed_returns_every_complete_frame_in_order() -> None:
    reader = FrameReader(100)
    data = frame(b"one") + frame(b"two") + frame(b"three")[:5]
    assert reader.feed(data) == [b"one", b"two"]
    assert reader.in_frame
    assert reader.buffered == 5
    assert reader.feed(b"hree") == [b"three"]
    assert not reader.in_frame
    assert reader.buffered == 0


def test_one_byte_at_a_time() -> None:
    reader = FrameReader(100)
    data = frame(b"x" * 99) + frame(b"y")
    payloads: list[bytes] = []
    for i in range(len(data)):
        payloads += reader.feed(data[i : i + 1])
        assert reader.in_frame == (i + 1 not in (0, 103, 108))
    assert payloads == [b"x" * 99, b"y"]


def test_in_frame_and_buffered_while_a_frame_arrives() -> None:
    reader = FrameReader(10)
    assert not reader.in_frame
    assert reader.feed(b"\x00\x00") == []
    assert reader.in_frame
    assert reader.buffered == 2
    assert reader.feed(b"\x00\x02a") == []
    assert reader.buffered == 5
    assert reader.feed(b"b") == [b"ab"]
    assert (reader.in_frame, reader.buffered) == (False, 0)


def test_an_oversized_length_is_refused_before_any_body_byte() -> None:
    reader = FrameReader(MAX_HANDSHAKE_FRAME)
    assert reader.feed(b"\x7f\xff") == []
    with pytest.raises(FrameError) as info:
        reader.feed(b"\xff\xff")
    message = str(info.value)
    assert "2147483647 bytes" in message
    assert "limit of 1024 bytes" in message
    assert "before reading the body" in message
    assert reader.buffered == 0


def test_a_length_just_at_the_limit_is_accepted() -> None:
    reader = FrameReader(1024)
    assert reader.feed(frame(bytes(1024))) == [bytes(1024)]
    with pytest.raises(FrameError, match="1025 bytes, more than the limit of 1024"):
        reader.feed((1025).to_bytes(4, "big"))


def test_a_body_in_the_same_chunk_as_an_oversized_length_is_not_kept() -> None:
    reader = FrameReader(10)
    with pytest.raises(FrameError, match="11 bytes"):
        reader.feed(frame(b"ok") + frame(bytes(11)))
    assert reader.buffered == 0


def test_a_zero_length_is_refused() -> None:
    with pytest.raises(FrameError, match="length prefix is 0; empty frames are not allowed"):
        FrameReader(10).feed(b"\x00\x00\x00\x00")


def test_a_failed_reader_cannot_be_used_again() -> None:
    reader = FrameReader(10)
    with pytest.raises(FrameError):
        reader.feed(b"\x00\x00\x00\x00")
    with pytest.raises(LocalNetError, match=r"failed earlier.*length prefix is 0"):
        reader.feed(frame(b"ok"))
    with pytest.raises(LocalNetError):
        reader.next_frame()


def test_the_limit_can_change_between_frames_of_one_chunk() -> None:
    """The end of a handshake and the first, larger, encrypted frame may come together."""
    big = bytes(5000)
    data = frame(b"last handshake message") + frame(big)
    reader = FrameReader(MAX_HANDSHAKE_FRAME)
    reader.receive_data(data)
    assert reader.next_frame() == b"last handshake message"
    reader.max_size = MAX_FRAME
    assert reader.max_size == MAX_FRAME
    assert reader.next_frame() == big
    assert reader.next_frame() is None
    # feed() reads on under the limit in force, so there the big frame is refused
    with pytest.raises(FrameError, match="5000 bytes"):
        FrameReader(MAX_HANDSHAKE_FRAME).feed(data)


def test_a_lower_limit_applies_from_the_next_length_prefix() -> None:
    reader = FrameReader(100)
    reader.receive_data(frame(bytes(50))[:10])
    reader.max_size = 20  # the frame whose length is already read is still accepted
    assert reader.feed(bytes(44)) == [bytes(50)]
    with pytest.raises(FrameError, match="limit of 20"):
        reader.feed(frame(bytes(21)))


@pytest.mark.parametrize("limit", [0, -1, MAX_LENGTH + 1, True])
def test_bad_limits_are_refused(limit: int) -> None:
    with pytest.raises(LocalNetError, match="a frame limit is from 1 to 4294967295 bytes"):
        FrameReader(limit)
    reader = FrameReader(10)
    with pytest.raises(LocalNetError):
        reader.max_size = limit
    assert reader.max_size == 10


def test_many_frames_in_one_chunk_stay_linear() -> None:
    """20 000 frames in one chunk: the reader moves offsets, it does not re-slice."""
    payloads = [i.to_bytes(4, "big") for i in range(20_000)]
    reader = FrameReader(10)
    assert reader.feed(b"".join(frame(p) for p in payloads)) == payloads


@settings(max_examples=200)
@given(
    payloads=st.lists(st.binary(min_size=1, max_size=300), max_size=10),
    cuts=st.lists(st.integers(min_value=0, max_value=4000), max_size=20),
)
def test_any_chunking_gives_the_same_frames(payloads: list[bytes], cuts: list[int]) -> None:
    data = b"".join(frame(p) for p in payloads)
    points = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    reader = FrameReader(300)
    received: list[bytes] = []
    for start, end in itertools.pairwise(points):
        received += reader.feed(data[start:end])
    assert received == payloads
    assert not reader.in_frame


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=64), max_size=8))
def test_random_bytes_give_frames_or_a_frame_error(chunks: list[bytes]) -> None:
    reader = FrameReader(64)
    payloads: list[bytes] = []
    error: NetError | None = None
    try:
        for chunk in chunks:
            payloads += reader.feed(chunk)
    except NetError as exc:
        error = exc
    assert all(1 <= len(payload) <= 64 for payload in payloads)
    if error is not None:
        assert isinstance(error, FrameError)
        assert "limit of 64 bytes" in str(error) or "length prefix is 0" in str(error)
