"""QUIC over UDP on loopback (aioquic driven by trio): dbnet's real channel handshake
over it in both roles, framed messages both ways, a peer that closes, a silent peer,
a peer that goes silent, and junk datagrams at the server's socket."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import pytest
import trio

from dbnet.net.errors import ConnectionClosedError
from dbnet.net.quic import (
    RECEIVE_LIMIT,
    QuicEndpoint,
    QuicStream,
    QuicTimeoutError,
    open_quic_endpoint,
)
from dbnet.net.stream import SecureStream, open_channel
from dbnet.protocol.identity import Identity

from .helpers import ALICE, BOB, Background

TEST_TIMEOUT = 30.0  # seconds: a hang guard only


async def udp_socket() -> trio.socket.SocketType:
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await sock.bind(("127.0.0.1", 0))
    return sock


@asynccontextmanager
async def quic_pair(
    *, idle_timeout: float = 30.0, reports: list[str] | None = None
) -> AsyncIterator[tuple[QuicStream, QuicStream, QuicEndpoint]]:
    """A client stream and the server's accepted stream over loopback UDP."""
    with await udp_socket() as server_sock, await udp_socket() as client_sock:
        async with (
            open_quic_endpoint(
                server_sock, accept=True, report=reports.append if reports is not None else None,
                idle_timeout=idle_timeout,
            ) as server,
            open_quic_endpoint(client_sock, idle_timeout=idle_timeout) as client,
        ):  # fmt: skip
            async with trio.open_nursery() as nursery:
                accepted = Background(nursery, server.accept)
                near = await client.connect(server.address)
                far = await accepted.wait()
            assert near.peer == server.address
            assert far.peer == client.address
            yield near, far, server


async def channel_pair(
    a_stream: trio.abc.Stream, a: Identity, b_stream: trio.abc.Stream, b: Identity
) -> tuple[SecureStream, SecureStream]:
    """``a`` opens (initiator) over ``a_stream``, ``b`` answers over ``b_stream``."""
    async with trio.open_nursery() as nursery:
        answered = Background(nursery, partial(open_channel, b_stream, b, initiator=False))
        opened = await open_channel(a_stream, a, initiator=True)
        return opened, await answered.wait()


@pytest.mark.parametrize("client_initiates", [True, False], ids=["client opens", "server opens"])
async def test_the_channel_handshake_and_messages_over_quic(client_initiates: bool) -> None:
    with trio.fail_after(TEST_TIMEOUT):
        async with quic_pair() as (near, far, _):
            if client_initiates:
                alice, bob = await channel_pair(near, ALICE, far, BOB)
            else:
                bob, alice = await channel_pair(far, BOB, near, ALICE)
            assert alice.peer_key == BOB.public_key
            assert bob.peer_key == ALICE.public_key
            assert alice.transcript == bob.transcript
            for i in range(20):
                await alice.send(b"ping %d" % i)
                assert await bob.receive() == b"ping %d" % i
                await bob.send(b"pong %d" % i * 100)
                assert await alice.receive() == b"pong %d" % i * 100
            big = bytes(range(256)) * 250  # many QUIC packets
            await bob.send(big)
            assert await alice.receive() == big


async def test_a_peer_that_closes_is_a_closed_connection() -> None:
    reports: list[str] = []
    with trio.fail_after(TEST_TIMEOUT):
        async with quic_pair(reports=reports) as (near, far, server):
            alice, bob = await channel_pair(near, ALICE, far, BOB)
            await alice.send(b"last words")
            await alice.aclose()
            assert await bob.receive() == b"last words"
            with pytest.raises(ConnectionClosedError) as info:
                await bob.receive()
            assert "\n" not in str(info.value)
            with pytest.raises(trio.ClosedResourceError):
                await near.receive_some()
            while server._connections:  # the server's side ends too (bounded: fail_after)
                await trio.sleep(0.01)
            # a datagram late after the end, from the peer's address: ignored without a line
            await near._endpoint.sock.sendto(b"late", server.address)
            while server.ignored == 0:
                await trio.sleep(0.01)
    assert reports == []


async def test_a_silent_peer_is_one_line_within_the_timeout() -> None:
    with trio.fail_after(TEST_TIMEOUT), await udp_socket() as silent:
        with await udp_socket() as sock:
            async with open_quic_endpoint(sock) as client:
                start = trio.current_time()
                with pytest.raises(QuicTimeoutError) as info:
                    await client.connect(silent.getsockname(), timeout=0.5)
                assert 0.45 <= trio.current_time() - start < 5.0
        port = silent.getsockname()[1]
    assert str(info.value) == f"QUIC 127.0.0.1:{port}: no QUIC answer within 0.5 s"


async def test_a_peer_that_goes_silent_ends_the_connection_after_the_idle_timeout() -> None:
    """The client's datagrams reach the server through a UDP relay on loopback that
    stops relaying after the channel's handshake: the server sees silence."""
    with trio.fail_after(TEST_TIMEOUT), await udp_socket() as relay:  # noqa: SIM117
        with await udp_socket() as server_sock, await udp_socket() as client_sock:
            relaying = True

            async def relay_datagrams() -> None:
                client_address = client_sock.getsockname()
                while True:
                    data, source = await relay.recvfrom(65536)
                    if not relaying:
                        continue
                    if source == client_address:
                        await relay.sendto(data, server_sock.getsockname())
                    else:
                        await relay.sendto(data, client_address)

            async with (
                trio.open_nursery() as nursery,
                open_quic_endpoint(server_sock, accept=True, idle_timeout=1.0) as server,
                open_quic_endpoint(client_sock, idle_timeout=1.0) as client,
            ):
                nursery.start_soon(relay_datagrams)
                accepted = Background(nursery, server.accept)
                near = await client.connect(relay.getsockname())
                # the server sees the relay's address, and answers there
                alice, bob = await channel_pair(near, ALICE, await accepted.wait(), BOB)
                await alice.send(b"hello")
                assert await bob.receive() == b"hello"
                relaying = False
                start = trio.current_time()
                with pytest.raises(
                    ConnectionClosedError,
                    match=r"the connection broke: no packet from 127\.0\.0\.1:\d+ for 1 s$",
                ):
                    await bob.receive()
                assert trio.current_time() - start < 5.0
                nursery.cancel_scope.cancel()


async def test_junk_datagrams_are_ignored_with_one_line() -> None:
    reports: list[str] = []
    with trio.fail_after(TEST_TIMEOUT):
        async with quic_pair(reports=reports) as (near, far, server):
            with await udp_socket() as stranger:
                for junk in (b"", b"\x00", b"junk" * 10, b"\xc0" + bytes(1300), bytes(range(256))):
                    await stranger.sendto(junk, server.address)
                await near.send_all(b"still here")  # the connection goes on
                assert await far.receive_some() == b"still here"
                # a second client still gets in
                async with open_quic_endpoint(stranger) as other, trio.open_nursery() as nursery:
                    accepted = Background(nursery, server.accept)
                    late = await other.connect(server.address)
                    await late.send_all(b"late")
                    assert await (await accepted.wait()).receive_some() == b"late"
            assert server.ignored == 5
    assert len(reports) == 1
    assert reports[0].startswith("ignored a 0-byte datagram from 127.0.0.1:")
    assert "\n" not in reports[0]


async def test_a_flood_of_unread_bytes_cuts_the_connection() -> None:
    with trio.fail_after(TEST_TIMEOUT):
        async with quic_pair() as (near, far, _):
            chunk = bytes(64 * 1024)
            for _ in range(RECEIVE_LIMIT // len(chunk) + 2):
                await near.send_all(chunk)
            cut = f"the peer sent more than {RECEIVE_LIMIT} bytes not yet read"
            with pytest.raises(trio.BrokenResourceError, match=cut):
                await until_broken(far)  # nobody reads on the far side
            with pytest.raises(trio.BrokenResourceError, match=rf"ended \(error 1: {cut}\)$"):
                await read_to_the_end(near)


async def until_broken(stream: QuicStream) -> None:
    for _ in range(200):
        await trio.sleep(0.05)
        await stream.send_all(b"")


async def read_to_the_end(stream: QuicStream) -> None:
    while await stream.receive_some():
        pass


async def test_over_ipv6_loopback() -> None:
    socks = [trio.socket.socket(trio.socket.AF_INET6, trio.socket.SOCK_DGRAM) for _ in "ab"]
    with socks[0], socks[1], trio.fail_after(TEST_TIMEOUT):
        for sock in socks:
            await sock.bind(("::1", 0))
        async with (
            open_quic_endpoint(socks[0], accept=True) as server,
            open_quic_endpoint(socks[1]) as client,
            trio.open_nursery() as nursery,
        ):
            accepted = Background(nursery, server.accept)
            near = await client.connect(server.address)
            alice, bob = await channel_pair(near, ALICE, await accepted.wait(), BOB)
            assert server.address[0] == "::1"
            assert near.name == f"[::1]:{server.address[1]}"
            await bob.send(b"over IPv6")
            assert await alice.receive() == b"over IPv6"
