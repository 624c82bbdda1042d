"""The secure stream over trio streams: memory pairs, a lossy wrapper, a virtual clock, TCP."""

from __future__ import annotations

import random
import re
from functools import partial

import pytest
import trio
import trio.testing

from dbnet.net.errors import (
    AuthenticationError,
    ChannelError,
    ConnectionClosedError,
    FrameError,
    HandshakeError,
    LocalNetError,
    NetError,
    PeerTimeoutError,
    VersionMismatchError,
)
from dbnet.net.framing import MAX_FRAME, MAX_PLAINTEXT, frame
from dbnet.net.handshake import SUPPORTED_VERSIONS, encode_preamble
from dbnet.net.stream import SecureStream, open_channel

from .helpers import ALICE, BOB, Background, LossyStream, damaged

# What the initiator sends before its first encrypted frame: preamble (versions 4 and 3),
# message 1, message 3.
INITIATOR_HANDSHAKE_BYTES = (4 + 7 + 2 * len(SUPPORTED_VERSIONS)) + (4 + 32) + (4 + 112)


async def secure_pair(
    a_stream: trio.abc.Stream, b_stream: trio.abc.Stream, *, frame_timeout: float = 10.0
) -> tuple[SecureStream, SecureStream]:
    """ALICE opens (initiator) over ``a_stream``, BOB accepts over ``b_stream``."""
    async with trio.open_nursery() as nursery:
        b = Background(
            nursery,
            partial(open_channel, b_stream, BOB, initiator=False, frame_timeout=frame_timeout),
        )
        a = await open_channel(a_stream, ALICE, initiator=True, frame_timeout=frame_timeout)
        return a, await b.wait()


async def receive_until_error(stream: SecureStream, received: list[bytes]) -> NetError:
    """Receive into ``received`` until an error; return it."""
    while True:
        try:
            received.append(await stream.receive())
        except NetError as exc:
            return exc


# --- the happy paths ---------------------------------------------------------------------


async def test_handshake_and_messages_both_ways() -> None:
    a, b = await secure_pair(*trio.testing.memory_stream_pair())
    assert a.peer_key == BOB.public_key
    assert b.peer_key == ALICE.public_key
    assert a.version == b.version == SUPPORTED_VERSIONS[0] == 5
    assert a.transcript == b.transcript
    for i in range(10):
        await a.send(b"ping %d" % i)
        assert await b.receive() == b"ping %d" % i
        await b.send(b"pong %d" % i)
        assert await a.receive() == b"pong %d" % i
    await a.send(b"")
    assert await b.receive() == b""


async def test_over_a_stream_with_no_buffer() -> None:
    """Both sides send their preamble first; on a lockstep stream that must not deadlock."""
    a, b = await secure_pair(*trio.testing.lockstep_stream_pair())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(a.send, b"over lockstep")
        assert await b.receive() == b"over lockstep"
    async with trio.open_nursery() as nursery:
        nursery.start_soon(b.send, b"and back")
        assert await a.receive() == b"and back"


async def test_concurrent_senders_never_interleave() -> None:
    a, b = await secure_pair(*trio.testing.lockstep_stream_pair())
    payloads = {bytes([i]) * (1000 + i) for i in range(20)}
    received: set[bytes] = set()
    async with trio.open_nursery() as nursery:
        for payload in payloads:
            nursery.start_soon(a.send, payload)
        for _ in payloads:
            received.add(await b.receive())
    assert received == payloads


async def test_a_message_at_the_cap_passes_and_one_above_is_refused() -> None:
    a, b = await secure_pair(*trio.testing.memory_stream_pair())
    largest = random.Random(1).randbytes(MAX_PLAINTEXT)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(a.send, largest)
        assert await b.receive() == largest
    with pytest.raises(FrameError, match=f"{MAX_PLAINTEXT + 1} bytes is more than the limit"):
        await a.send(bytes(MAX_PLAINTEXT + 1))
    await a.send(b"still in step")  # the refused message used no nonce
    assert await b.receive() == b"still in step"


async def test_a_frame_announced_above_the_cap_is_refused_unread() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    _, b = await secure_pair(a_stream, b_stream)
    await a_stream.send_all((MAX_FRAME + 1).to_bytes(4, "big"))  # and no body at all
    with pytest.raises(FrameError, match=f"announces {MAX_FRAME + 1} bytes, more than the limit"):
        await b.receive()


async def test_tcp_on_loopback() -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    echoed: list[bytes] = []

    async def serve(stream: trio.SocketStream) -> None:
        secure = await open_channel(stream, BOB, initiator=False)
        async with secure:
            for _ in range(3):
                message = await secure.receive()
                echoed.append(message)
                await secure.send(message.upper())

    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(partial(trio.serve_listeners, serve, listeners))
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            async with await open_channel(stream, ALICE, initiator=True) as secure:
                assert secure.peer_key == BOB.public_key
                for word in (b"one", b"two", b"x" * 60_000):
                    await secure.send(word)
                    assert await secure.receive() == word.upper()
            nursery.cancel_scope.cancel()
    assert echoed == [b"one", b"two", b"x" * 60_000]


# --- handshake failures ------------------------------------------------------------------


async def test_garbage_instead_of_a_preamble() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    await a_stream.send_all(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n")
    with pytest.raises(HandshakeError) as info:
        await open_channel(b_stream, BOB, initiator=False)
    message = str(info.value)
    assert "the peer's first bytes b'GET / HTTP/1.1\\r\\n' are not a dbnet preamble" in message
    assert "the peer does not speak dbnet" in message
    assert isinstance(info.value.__cause__, FrameError)


async def test_a_small_frame_that_is_not_a_preamble() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    await a_stream.send_all(frame(b"SSH-2.0-OpenSSH_9.6"))
    with pytest.raises(HandshakeError, match=r"first frame b'SSH-2.0-OpenSSH_' is not a dbnet"):
        await open_channel(b_stream, BOB, initiator=False)


async def test_an_oversized_handshake_frame_is_refused_unread(
    autojump_clock: trio.testing.MockClock,
) -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    await a_stream.send_all(
        frame(encode_preamble(SUPPORTED_VERSIONS)) + b"\x00\x10\x00\x00"
    )  # 1 MiB, no body
    with pytest.raises(FrameError, match="announces 1048576 bytes, more than the limit of 1024"):
        await open_channel(b_stream, BOB, initiator=False)
    assert trio.current_time() == 0  # refused at once, not after waiting for the body


async def test_no_common_version() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        b = Background(nursery, partial(open_channel, b_stream, BOB, initiator=False, versions=[6]))
        with pytest.raises(VersionMismatchError, match=r"speaks versions \[5, 4, 3\].*\[6\]"):
            await open_channel(a_stream, ALICE, initiator=True)
        await b.finished.wait()
    assert isinstance(b.error, VersionMismatchError)


async def test_a_handshake_that_never_finishes(autojump_clock: trio.testing.MockClock) -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    await b_stream.send_all(frame(encode_preamble(SUPPORTED_VERSIONS)))  # a preamble, then silence
    with pytest.raises(PeerTimeoutError) as info:
        await open_channel(a_stream, ALICE, initiator=True, handshake_timeout=7)
    assert trio.current_time() == 7
    assert str(info.value) == (
        "the handshake (waiting for handshake message 2) did not complete within 7 s: "
        "the peer is too slow"
    )
    with pytest.raises(trio.ClosedResourceError):
        await a_stream.send_all(b"x")  # a failed handshake closes the stream


async def test_a_peer_that_says_nothing(autojump_clock: trio.testing.MockClock) -> None:
    _, b_stream = trio.testing.memory_stream_pair()
    with pytest.raises(PeerTimeoutError, match=r"waiting for the peer's preamble.*within 10 s"):
        await open_channel(b_stream, BOB, initiator=False)
    assert trio.current_time() == 10


async def test_the_peer_hangs_up_during_the_handshake() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    await b_stream.send_all(frame(encode_preamble(SUPPORTED_VERSIONS)) + b"\x00\x00")
    await b_stream.send_eof()
    with pytest.raises(ConnectionClosedError) as info:
        await open_channel(a_stream, ALICE, initiator=True)
    assert info.value.mid_frame
    assert str(info.value).startswith(
        "the peer closed the connection in the middle of a frame during the handshake "
        "(waiting for handshake message 2): 2 bytes of it had arrived"
    )


async def test_the_peer_vanishes_during_the_handshake() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    await b_stream.aclose()
    with pytest.raises(ConnectionClosedError) as info:
        await open_channel(a_stream, ALICE, initiator=True)
    # whichever of sending and receiving notices first
    assert re.match(
        r"(cannot send|the peer closed the connection) during the handshake \(waiting for "
        r"the peer's preamble\)",
        str(info.value),
    ), str(info.value)


class _ResetStream(trio.abc.Stream):
    """A stream whose connection was reset."""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        raise trio.BrokenResourceError from ConnectionResetError(104, "Connection reset by peer")

    async def wait_send_all_might_not_block(self) -> None:
        pass

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        raise ConnectionResetError(104, "Connection reset by peer")

    async def aclose(self) -> None:
        pass


async def test_os_errors_become_connection_closed_in_words() -> None:
    with pytest.raises(ConnectionClosedError) as info:
        await open_channel(_ResetStream(), ALICE, initiator=True)
    said = str(info.value)
    assert "the connection broke: the other side dropped the connection" in said
    assert "Errno" not in said
    assert "Error" not in said
    assert isinstance(info.value.__cause__, OSError | trio.BrokenResourceError)


class _BrokenPipeStream(_ResetStream):
    """A stream whose other side has closed: sending breaks the pipe."""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        raise trio.BrokenResourceError from BrokenPipeError(32, "Broken pipe")

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.sleep_forever()


async def test_a_broken_pipe_is_said_in_words() -> None:
    with pytest.raises(ConnectionClosedError) as info:
        await open_channel(_BrokenPipeStream(), ALICE, initiator=True)
    said = str(info.value)
    assert said.endswith(": the connection broke: the other side closed the connection")
    assert "BrokenPipeError" not in said
    assert "Errno" not in said


async def test_a_forged_message_2_fails_authentication() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    await b_stream.send_all(frame(encode_preamble(SUPPORTED_VERSIONS)) + frame(bytes(range(144))))
    with pytest.raises(AuthenticationError, match="message 2 failed authentication"):
        await open_channel(a_stream, ALICE, initiator=True)


# --- time limits and closing after the handshake ----------------------------------------


async def test_a_slowloris_frame_times_out(autojump_clock: trio.testing.MockClock) -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    _, b = await secure_pair(a_stream, b_stream, frame_timeout=4)
    await trio.sleep(100)
    await a_stream.send_all(b"\x00")  # one byte of a frame, then nothing
    start = trio.current_time()
    with pytest.raises(PeerTimeoutError) as info:
        await b.receive()
    assert trio.current_time() - start == 4
    assert str(info.value) == (
        "a frame from the peer (1 bytes of it received) did not complete within 4 s: "
        "the peer is too slow"
    )


async def test_a_trickle_too_slow_for_one_frame(autojump_clock: trio.testing.MockClock) -> None:
    """Bytes keep coming, one a second, but the frame is not whole 10 s after its start."""
    a_stream, b_stream = trio.testing.memory_stream_pair()
    _, b = await secure_pair(a_stream, b_stream)

    async def drip() -> None:
        for byte in frame(bytes(100)):
            await a_stream.send_all(bytes([byte]))
            await trio.sleep(1)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(drip)
        start = trio.current_time()
        with pytest.raises(PeerTimeoutError, match=r"\(10 bytes of it received\).*within 10 s"):
            await b.receive()
        assert trio.current_time() - start == 10
        nursery.cancel_scope.cancel()


async def test_the_time_limit_runs_from_each_frame_s_first_byte(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A frame that starts in the chunk ending the one before gets its own full time."""
    a_stream, b_stream = trio.testing.memory_stream_pair()
    a, b = await secure_pair(a_stream, b_stream, frame_timeout=8)
    await a.send(b"first")
    await a.send(b"second")
    raw = await b_stream.receive_some()  # both frames, taken off the wire to be fed slowly
    assert len(raw) == 2 * (4 + 16) + len(b"first") + len(b"second")
    start = trio.current_time()
    async with trio.open_nursery() as nursery:
        receiving = Background(nursery, b.receive)
        await a_stream.send_all(raw[:10])  # frame 0 starts at `start`
        await trio.sleep(5)
        cut = 4 + len(b"first") + 16 + 1  # the rest of frame 0 and one byte of frame 1
        await a_stream.send_all(raw[10:cut])
        assert await receiving.wait() == b"first"
    with pytest.raises(PeerTimeoutError, match="1 bytes of it received"):
        await b.receive()
    assert trio.current_time() - start == 5 + 8


async def test_a_silent_peer_between_frames_is_waited_for(
    autojump_clock: trio.testing.MockClock,
) -> None:
    a, b = await secure_pair(*trio.testing.memory_stream_pair())
    with trio.move_on_after(3600) as scope:
        await b.receive()
    assert scope.cancelled_caught  # no time limit of its own: the caller puts one around it
    await a.send(b"after an hour")
    assert await b.receive() == b"after an hour"  # the cancelled receive lost nothing


async def test_a_cancelled_receive_mid_frame_loses_nothing(
    autojump_clock: trio.testing.MockClock,
) -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    a, b = await secure_pair(a_stream, b_stream)
    await a.send(b"first")
    with trio.move_on_after(1):
        assert await b.receive() == b"first"
        await b.receive()
    await a.send(b"second")
    assert await b.receive() == b"second"


async def test_the_peer_closes_between_frames() -> None:
    a, b = await secure_pair(*trio.testing.memory_stream_pair())
    await a.send(b"bye")
    await a.aclose()
    assert await b.receive() == b"bye"
    with pytest.raises(ConnectionClosedError) as info:
        await b.receive()
    assert str(info.value) == "the peer closed the connection"
    assert not info.value.mid_frame


async def test_the_peer_closes_mid_frame() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    _, b = await secure_pair(a_stream, b_stream)
    await a_stream.send_all(frame(bytes(50))[:20])
    await a_stream.aclose()
    with pytest.raises(ConnectionClosedError) as info:
        await b.receive()
    assert info.value.mid_frame
    assert str(info.value) == (
        "the peer closed the connection in the middle of a frame: 20 bytes of it had arrived"
    )


async def test_a_broken_or_closed_stream_becomes_connection_closed() -> None:
    a, b = await secure_pair(*trio.testing.memory_stream_pair())
    await b.aclose()
    with pytest.raises(ConnectionClosedError, match="cannot send: the connection broke"):
        await a.send(b"into the void")
    with pytest.raises(ConnectionClosedError, match="send failed part way"):
        await a.send(b"again")
    with pytest.raises(ConnectionClosedError, match="closed by this side"):
        await b.receive()


async def test_a_cancelled_send_leaves_the_stream_unable_to_send(
    autojump_clock: trio.testing.MockClock,
) -> None:
    a, b = await secure_pair(*trio.testing.lockstep_stream_pair())
    with trio.move_on_after(0.01):
        await a.send(b"nobody reads this")  # lockstep: blocks until the peer reads
    with pytest.raises(ConnectionClosedError, match="out of step and must be closed"):
        await a.send(b"next")
    assert b.peer_key == ALICE.public_key


async def test_two_tasks_cannot_receive_at_once() -> None:
    _, b = await secure_pair(*trio.testing.memory_stream_pair())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(b.receive)
        await trio.testing.wait_all_tasks_blocked()
        with pytest.raises(LocalNetError, match="another task is already receiving"):
            await b.receive()
        nursery.cancel_scope.cancel()


# --- a lossy network ---------------------------------------------------------------------

PAYLOADS = [b"message %d " % i * (i + 1) for i in range(8)]
FRAME_STARTS = [
    INITIATOR_HANDSHAKE_BYTES + sum(4 + len(p) + 16 for p in PAYLOADS[:i])
    for i in range(len(PAYLOADS) + 1)
]
TOTAL = FRAME_STARTS[-1]


async def _deliver_through(
    lossy: LossyStream, a_stream: trio.abc.Stream
) -> tuple[list[bytes], NetError]:
    """ALICE sends PAYLOADS then hangs up; BOB receives through ``lossy`` until an error.
    Returns what BOB received and the error."""
    received: list[bytes] = []
    async with trio.open_nursery() as nursery:

        async def alice() -> None:
            secure = await open_channel(a_stream, ALICE, initiator=True)
            for payload in PAYLOADS:
                await secure.send(payload)
            await secure.aclose()

        Background(nursery, alice)
        b = await open_channel(lossy, BOB, initiator=False)
        error = await receive_until_error(b, received)
    return received, error


async def test_a_byte_at_a_time_still_works() -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    lossy = LossyStream(b_stream, trickle=True)
    async with trio.open_nursery() as nursery:
        alice = Background(nursery, partial(open_channel, a_stream, ALICE, initiator=True))
        b = await open_channel(lossy, BOB, initiator=False)
        a = await alice.wait()
    for payload in PAYLOADS:
        await a.send(payload)
    assert [await b.receive() for _ in PAYLOADS] == PAYLOADS
    assert lossy.chunks == TOTAL


def _damage_cases() -> list[tuple[str, int, int]]:
    """(kind, offset, length) in the encrypted part of what BOB receives, from a fixed seed."""
    rng = random.Random(20240501)
    cases: list[tuple[str, int, int]] = []
    for _ in range(6):
        cases.append(("drop", rng.randrange(FRAME_STARTS[0], TOTAL), 1))
        cases.append(("corrupt", rng.randrange(FRAME_STARTS[0], TOTAL), 1))
        start = rng.randrange(FRAME_STARTS[0], TOTAL - 1)
        cases.append(("duplicate", start, rng.randrange(1, TOTAL - start)))
    return cases


@pytest.mark.parametrize(("kind", "offset", "length"), _damage_cases())
async def test_damaged_bytes_never_deliver_a_wrong_message(
    kind: str, offset: int, length: int, autojump_clock: trio.testing.MockClock
) -> None:
    a_stream, b_stream = trio.testing.memory_stream_pair()
    received, error = await _deliver_through(damaged(b_stream, kind, offset, length), a_stream)
    assert received == PAYLOADS[: len(received)]
    assert len(received) < len(PAYLOADS)
    if isinstance(error, ConnectionClosedError):
        assert error.mid_frame  # a clean end would mean the damage went unnoticed
    else:
        assert isinstance(error, ChannelError | FrameError | PeerTimeoutError), error


@pytest.mark.parametrize("frame_index", range(len(PAYLOADS) - 1))
async def test_a_replayed_or_dropped_frame_is_a_channel_error(
    frame_index: int, autojump_clock: trio.testing.MockClock
) -> None:
    start, end = FRAME_STARTS[frame_index], FRAME_STARTS[frame_index + 1]
    a_stream, b_stream = trio.testing.memory_stream_pair()
    replay = LossyStream(b_stream, duplicate=(start, end - start))
    received, error = await _deliver_through(replay, a_stream)
    assert received == PAYLOADS[: frame_index + 1]
    assert isinstance(error, ChannelError)
    assert f"incoming frame {frame_index + 1} failed authentication" in str(error)
    a_stream, b_stream = trio.testing.memory_stream_pair()
    received, error = await _deliver_through(
        LossyStream(b_stream, drop=range(start, end)), a_stream
    )
    assert received == PAYLOADS[:frame_index]
    assert isinstance(error, ChannelError)
    assert f"incoming frame {frame_index} failed authentication" in str(error)


@pytest.mark.parametrize("seed", range(6))
async def test_damage_during_the_handshake_fails_it(
    seed: int, autojump_clock: trio.testing.MockClock
) -> None:
    rng = random.Random(seed)
    offset = rng.randrange(INITIATOR_HANDSHAKE_BYTES)
    kind = rng.choice(["drop", "corrupt", "duplicate"])
    a_stream, b_stream = trio.testing.memory_stream_pair()
    async with trio.open_nursery() as nursery:
        alice = Background(nursery, partial(open_channel, a_stream, ALICE, initiator=True))
        with pytest.raises(NetError):
            await open_channel(damaged(b_stream, kind, offset, 1), BOB, initiator=False)
        await alice.finished.wait()


async def test_the_lossy_stream_is_a_proper_stream_when_it_does_no_harm() -> None:
    async def pair() -> tuple[LossyStream, LossyStream]:
        a, b = trio.testing.memory_stream_pair()
        return LossyStream(a), LossyStream(b)

    await trio.testing.check_two_way_stream(pair, None)
