"""The NAT-PMP and PCP codec: requests byte for byte, replies read strictly."""

from __future__ import annotations

import struct

import pytest

from dbnet.net import natpmp
from dbnet.net.errors import PortMappingError
from dbnet.net.natpmp import MappingRefusedError, MapReply, UnsupportedVersionError

NONCE = bytes(range(12))


def natpmp_map_reply(result: int = 0, internal: int = 7117, external: int = 7117) -> bytes:
    return struct.pack("!BBHIHHI", 0, 130, result, 99, internal, external, 3600)


def pcp_map_reply(
    result: int = 0,
    *,
    nonce: bytes = NONCE,
    protocol: int = natpmp.TCP,
    internal: int = 7117,
    external: int = 7117,
    address: str = "::ffff:203.0.113.10",
    lifetime: int = 3600,
    options: bytes = b"",
) -> bytes:
    import ipaddress

    header = struct.pack("!BBBBII12x", 2, 0x81, 0, result, lifetime, 77)
    body = struct.pack(
        "!12sB3xHH16s", nonce, protocol, internal, external, ipaddress.ip_address(address).packed
    )
    return header + body + options


def test_natpmp_requests_are_the_rfc_layouts() -> None:
    assert natpmp.natpmp_address_request() == b"\x00\x00"
    assert natpmp.natpmp_map_request(7117, 7118, 3600) == bytes.fromhex(
        "0002 0000 1bcd 1bce 00000e10".replace(" ", "")
    )
    assert natpmp.natpmp_map_request(7117, 0, 0, natpmp.UDP)[1] == 1


def test_a_pcp_map_request_is_the_rfc_layout() -> None:
    request = natpmp.pcp_map_request("192.0.2.18", NONCE, 7117, 7117, 3600)
    assert len(request) == 60
    assert request[:8] == bytes.fromhex("0201000000000e10")
    assert request[8:24] == bytes(10) + b"\xff\xff" + bytes([192, 0, 2, 18])
    assert request[24:36] == NONCE
    assert request[36] == natpmp.TCP
    assert struct.unpack_from("!HH", request, 40) == (7117, 7117)
    assert request[44:] == bytes(10) + b"\xff\xff" + bytes(4)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: natpmp.natpmp_map_request(0, 1, 1), "internal port"),
        (lambda: natpmp.natpmp_map_request(1, 70000, 1), "external port"),
        (lambda: natpmp.natpmp_map_request(1, 1, -1), "lifetime"),
        (lambda: natpmp.natpmp_map_request(1, 1, 1, protocol=1), "TCP or UDP"),
        (lambda: natpmp.pcp_map_request("192.0.2.1", b"x", 1, 1, 1), "nonce"),
    ],
)
def test_bad_requests_are_refused_here(call: object, message: str) -> None:
    assert callable(call)
    with pytest.raises(ValueError, match=message):
        call()


def test_natpmp_replies_are_read() -> None:
    address = struct.pack("!BBHI4s", 0, 128, 0, 5, bytes([203, 0, 113, 10]))
    assert natpmp.parse_natpmp_address(address) == ("203.0.113.10", 5)
    assert natpmp.parse_natpmp_map(natpmp_map_reply(), internal_port=7117) == MapReply(
        7117, 7117, 3600, 99
    )


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        (b"", PortMappingError, "a reply is 16 bytes, got 0"),
        (natpmp_map_reply()[:15], PortMappingError, "got 15"),
        (natpmp_map_reply() + b"\x00", PortMappingError, "got 17"),
        (b"\x01" + natpmp_map_reply()[1:], PortMappingError, "version 1"),
        (natpmp_map_reply()[:1] + b"\x81" + natpmp_map_reply()[2:], PortMappingError, "opcode"),
        (natpmp_map_reply(result=2), MappingRefusedError, r"NOT_AUTHORIZED \(2\)"),
        (natpmp_map_reply(result=1), UnsupportedVersionError, "UNSUPPORTED_VERSION"),
        (natpmp_map_reply(result=77), MappingRefusedError, r"unknown result \(77\)"),
        (natpmp_map_reply(internal=80), PortMappingError, "internal port 80"),
    ],
)
def test_hostile_natpmp_map_replies_are_named(
    reply: bytes, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        natpmp.parse_natpmp_map(reply, internal_port=7117)


def test_a_zero_public_address_is_refused() -> None:
    with pytest.raises(PortMappingError, match=r"0\.0\.0\.0"):
        natpmp.parse_natpmp_address(struct.pack("!BBHI4s", 0, 128, 0, 5, bytes(4)))


def test_a_pcp_reply_is_read_with_options_after_it() -> None:
    reply = natpmp.parse_pcp_map(pcp_map_reply(options=bytes(8)), nonce=NONCE, internal_port=7117)
    assert reply == MapReply(7117, 7117, 3600, 77, "203.0.113.10")


@pytest.mark.parametrize(
    ("reply", "error", "message"),
    [
        (b"\x02", PortMappingError, "shorter than a header"),
        (pcp_map_reply()[:59], PortMappingError, "59 bytes"),
        (pcp_map_reply(options=b"\x00\x00"), PortMappingError, "multiple of 4"),
        (pcp_map_reply(options=bytes(1100)), PortMappingError, "1160 bytes"),
        (b"\x03" + pcp_map_reply()[1:], PortMappingError, "version 3"),
        (pcp_map_reply()[:1] + b"\x01" + pcp_map_reply()[2:], PortMappingError, "opcode byte 1"),
        (pcp_map_reply(result=8), MappingRefusedError, r"NO_RESOURCES \(8\)"),
        (pcp_map_reply(result=1), UnsupportedVersionError, "UNSUPP_VERSION"),
        (pcp_map_reply(nonce=bytes(12)), PortMappingError, "nonce"),
        (pcp_map_reply(protocol=natpmp.UDP), PortMappingError, "protocol UDP"),
        (pcp_map_reply(internal=80), PortMappingError, "internal port 80"),
        (struct.pack("!BBHI", 0, 128, 1, 0), UnsupportedVersionError, "NAT-PMP only"),
    ],
)
def test_hostile_pcp_replies_are_named(reply: bytes, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        natpmp.parse_pcp_map(reply, nonce=NONCE, internal_port=7117)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (MapReply(7117, 0, 3600, 0), "without an external port"),
        (MapReply(7117, 7117, 0, 0), "lifetime of 0"),
        (MapReply(7117, 7117, 60, 0, "0.0.0.0"), "not a host's"),
        (MapReply(7117, 7117, 60, 0, "224.0.0.1"), "not a host's"),
    ],
)
def test_a_success_must_grant_something_usable(reply: MapReply, message: str) -> None:
    with pytest.raises(PortMappingError, match=message):
        natpmp.check_granted(reply, "PCP")


ROUTES = """\
Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t1000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
eth0\t00000000\t110200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
"""


def test_the_default_gateway_comes_from_the_route_table() -> None:
    assert natpmp.default_gateway(ROUTES) == "192.0.2.17"
    assert natpmp.default_gateway(ROUTES.splitlines()[0]) is None
    assert natpmp.default_gateway("header\neth0 00000000 zz 0003\n") is None
    down = ROUTES.replace("\t0003\t", "\t0002\t")
    assert natpmp.default_gateway(down) is None
