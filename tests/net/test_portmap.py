"""``port_mapping`` against a fake PCP / NAT-PMP gateway on loopback: the fallback, the
one line on failure, hostile replies set aside, renewal, and deletion on cancellation."""

from __future__ import annotations

import socket
import struct
from collections.abc import Awaitable, Callable

import pytest
import trio

from dbnet.net import natpmp, portmap
from dbnet.net.portmap import Mapping, port_mapping, port_mapping_enabled

from .test_natpmp import pcp_map_reply

Handler = Callable[[bytes], list[bytes]]


@pytest.mark.parametrize(
    ("value", "flag", "enabled"),
    [("", False, True), ("on", False, True), ("", True, False)]
    + [(word, False, False) for word in ("off", "OFF", "0", "no", "false", " False ")],
)
def test_port_mapping_enabled(value: str, flag: bool, enabled: bool) -> None:
    assert port_mapping_enabled(flag, {"DBNET_PORT_MAPPING": value}) is enabled


class Gateway:
    """A UDP server on 127.0.0.1 that answers each request with ``handler``'s replies and
    records what it received."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.received: list[bytes] = []
        self.sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    async def serve(self, *, task_status: trio.TaskStatus[int]) -> None:
        with self.sock:
            await self.sock.bind(("127.0.0.1", 0))
            task_status.started(self.sock.getsockname()[1])
            while True:
                data, peer = await self.sock.recvfrom(2048)
                self.received.append(data)
                for reply in self.handler(data):
                    await self.sock.sendto(reply, peer)


Serve = Callable[[Handler], Awaitable[Gateway]]


@pytest.fixture
async def serve(nursery: trio.Nursery, monkeypatch: pytest.MonkeyPatch) -> Serve:
    # on: the gateway here is the test's own, on loopback (tests/conftest.py turns it off)
    monkeypatch.setenv("DBNET_PORT_MAPPING", "on")
    monkeypatch.setattr(portmap, "PMP_SECONDS", 0.3)

    async def start(handler: Handler) -> Gateway:
        gateway = Gateway(handler)
        port = await nursery.start(gateway.serve)
        monkeypatch.setattr(natpmp, "PORT", port)
        return gateway

    return start


def pcp_gateway(data: bytes) -> list[bytes]:
    """miniupnpd's PCP: echo the nonce, grant what was asked."""
    if data[0] != 2:
        return []
    lifetime = struct.unpack_from("!I", data, 4)[0]
    nonce = data[24:36]
    internal, external = struct.unpack_from("!HH", data, 40)
    return [pcp_map_reply(nonce=nonce, internal=internal, external=external, lifetime=lifetime)]


def natpmp_gateway(data: bytes) -> list[bytes]:
    """A NAT-PMP-only gateway (RFC 6886): PCP gets "unsupported version"."""
    if data[0] != 0:
        return [struct.pack("!BBHI", 0, 128 + data[1], 1, 0)]
    if data[1] == 0:
        return [struct.pack("!BBHI4s", 0, 128, 0, 1, bytes([203, 0, 113, 10]))]
    internal, external, lifetime = struct.unpack_from("!HHI", data, 4)
    return [struct.pack("!BBHIHHI", 0, 130, 0, 1, internal, external or 9000, lifetime)]


async def test_pcp_maps_and_deletes_at_exit(serve: Serve) -> None:
    gateway = await serve(pcp_gateway)
    said: list[str] = []
    async with port_mapping(7117, say=said.append, gateway="127.0.0.1", upnp=False) as got:
        assert got == Mapping("PCP", "203.0.113.10", 7117, 7117, 3600)
    assert said == []
    assert [struct.unpack_from("!I", r, 4)[0] for r in gateway.received] == [3600, 0]


async def test_a_natpmp_gateway_is_asked_in_natpmp(serve: Serve) -> None:
    gateway = await serve(natpmp_gateway)
    async with port_mapping(7117, say=print, gateway="127.0.0.1", upnp=False) as got:
        assert got == Mapping("NAT-PMP", "203.0.113.10", 7117, 7117, 3600)
    delete = gateway.received[-1]
    assert delete == natpmp.natpmp_map_request(7117, 0, 0)


async def test_hostile_replies_are_set_aside(serve: Serve) -> None:
    def hostile(data: bytes) -> list[bytes]:
        return [b"junk", pcp_map_reply(nonce=bytes(12)), *pcp_gateway(data)]

    await serve(hostile)
    async with port_mapping(7117, say=print, gateway="127.0.0.1", upnp=False) as got:
        assert got is not None
        assert got.method == "PCP"


async def test_no_answer_is_one_line_and_none(serve: Serve) -> None:
    await serve(lambda data: [b"junk"])
    said: list[str] = []
    async with port_mapping(7117, say=said.append, gateway="127.0.0.1", upnp=False) as got:
        assert got is None
    [line] = said
    assert line.startswith("router port mapping: none (PCP: no answer in 0.3 s (a reply was set")
    assert "NAT-PMP: no answer" in line


async def test_a_refusal_is_one_line(serve: Serve) -> None:
    await serve(lambda data: [pcp_map_reply(result=2, nonce=data[24:36])])
    said: list[str] = []
    async with port_mapping(7117, say=said.append, gateway="127.0.0.1", upnp=False) as got:
        assert got is None
    assert said == [
        "router port mapping: none (PCP map reply: the gateway refused: NOT_AUTHORIZED (2))"
    ]


async def test_a_private_external_address_is_no_mapping(serve: Serve) -> None:
    def behind_cgnat(data: bytes) -> list[bytes]:
        if struct.unpack_from("!I", data, 4)[0] == 0:
            return pcp_gateway(data)
        return [pcp_map_reply(nonce=data[24:36], address="::ffff:100.64.1.2")]

    gateway = await serve(behind_cgnat)
    said: list[str] = []
    async with port_mapping(7117, say=said.append, gateway="127.0.0.1", upnp=False) as got:
        assert got is None
    assert len(said) == 1
    assert "100.64.1.2 is behind another NAT" in said[0]
    assert len(gateway.received) == 2  # the mapping was deleted


@pytest.mark.parametrize(
    ("address", "shown", "why"),
    [
        ("::ffff:255.255.255.255", "255.255.255.255:7117", "the broadcast address"),
        ("fe80::1", "[fe80::1]:7117", "a link-local IPv6 address"),
    ],  # (an unspecified or multicast one is set aside as PCP's reply: test_natpmp.py)
)
async def test_a_mapping_no_peer_can_reach_is_deleted_with_one_line(
    serve: Serve, address: str, shown: str, why: str
) -> None:
    """A hostile (or broken) router grants the mapping under an address no invite can
    carry: the block gets None and one line, never an error that would end the host."""

    def hostile(data: bytes) -> list[bytes]:
        if struct.unpack_from("!I", data, 4)[0] == 0:
            return pcp_gateway(data)
        return [pcp_map_reply(nonce=data[24:36], address=address)]

    gateway = await serve(hostile)
    said: list[str] = []
    async with port_mapping(7117, say=said.append, gateway="127.0.0.1", upnp=False) as got:
        assert got is None
    assert len(said) == 1
    assert said[0].startswith(
        f"router port mapping: none (PCP granted {shown}, which no peer can reach: {why}"
    ), said
    assert len(gateway.received) == 2  # the mapping was deleted


async def test_the_lease_is_renewed_and_deleted_when_cancelled(
    serve: Serve, autojump_clock: trio.testing.MockClock
) -> None:
    def short(data: bytes) -> list[bytes]:
        lifetime = struct.unpack_from("!I", data, 4)[0]
        reply = pcp_gateway(data)[0]
        return [reply[:4] + struct.pack("!I", min(lifetime, 60)) + reply[8:]]

    gateway = await serve(short)
    with trio.move_on_after(100):
        async with port_mapping(7117, say=print, gateway="127.0.0.1", upnp=False) as got:
            assert got is not None
            assert got.lifetime == 60
            await trio.sleep_forever()
    lifetimes = [struct.unpack_from("!I", r, 4)[0] for r in gateway.received]
    assert lifetimes == [3600, 3600, 3600, 3600, 0]  # at 0, 30, 60, 90 s; deleted at 100


async def test_off_sends_nothing(serve: Serve, monkeypatch: pytest.MonkeyPatch) -> None:
    gateway = await serve(pcp_gateway)
    monkeypatch.setenv("DBNET_PORT_MAPPING", "off")
    said: list[str] = []
    async with port_mapping(7117, say=said.append, gateway="127.0.0.1") as got:
        assert got is None
    assert said == ["router port mapping: off"]
    assert gateway.received == []
