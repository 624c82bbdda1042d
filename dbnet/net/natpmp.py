"""NAT-PMP (RFC 6886) and PCP (RFC 6887) MAP messages, sans-IO: bytes in, values out.

The requests a client sends to its gateway's port 5351 are built by
``natpmp_address_request``, ``natpmp_map_request`` and ``pcp_map_request``; the replies
are read by ``parse_natpmp_address``, ``parse_natpmp_map`` and ``parse_pcp_map``, which
check every field against the request they answer and raise ``PortMappingError`` with
the field and the reason for anything else: a short or long datagram, another version or
opcode, a refusal (with the result code's name), a reply for another port, protocol or
nonce, a success without a port or lifetime. A NAT-PMP-only gateway answers a PCP request
with NAT-PMP's "unsupported version": ``UnsupportedVersionError``, the signal to fall back.

``default_gateway`` reads the IPv4 default route from ``/proc/net/route`` (no traffic).
The exchanges themselves (retries, timeouts, renewal) are in ``net.portmap``.
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass
from pathlib import Path

from .errors import PortMappingError

PORT = 5351
"""The port a NAT-PMP or PCP gateway listens on."""

TCP = 6
UDP = 17

NATPMP_VERSION = 0
PCP_VERSION = 2
PCP_MAP = 1
PCP_MAX_SIZE = 1100

NATPMP_RESULTS = {
    0: "SUCCESS",
    1: "UNSUPPORTED_VERSION",
    2: "NOT_AUTHORIZED",
    3: "NETWORK_FAILURE",
    4: "OUT_OF_RESOURCES",
    5: "UNSUPPORTED_OPCODE",
}
PCP_RESULTS = {
    0: "SUCCESS",
    1: "UNSUPP_VERSION",
    2: "NOT_AUTHORIZED",
    3: "MALFORMED_REQUEST",
    4: "UNSUPP_OPCODE",
    5: "UNSUPP_OPTION",
    6: "MALFORMED_OPTION",
    7: "NETWORK_FAILURE",
    8: "NO_RESOURCES",
    9: "UNSUPP_PROTOCOL",
    10: "USER_EX_QUOTA",
    11: "CANNOT_PROVIDE_EXTERNAL",
    12: "ADDRESS_MISMATCH",
    13: "EXCESSIVE_REMOTE_PEERS",
}

_NATPMP_OPCODES = {UDP: 1, TCP: 2}
_ANY_IPV4 = ipaddress.IPv6Address("::ffff:0.0.0.0").packed


class MappingRefusedError(PortMappingError):
    """The gateway answered our request with a result code other than success."""


class UnsupportedVersionError(MappingRefusedError):
    """The gateway does not speak the version asked (a NAT-PMP gateway asked in PCP)."""


@dataclass(frozen=True, slots=True)
class MapReply:
    """A gateway's granted mapping: ``external_address`` is None in a NAT-PMP map reply
    (NAT-PMP tells it in its own reply to ``natpmp_address_request``)."""

    internal_port: int
    external_port: int
    lifetime: int
    epoch: int
    external_address: str | None = None


def _check_port(port: int, what: str, *, zero: bool = False) -> None:
    if not (0 if zero else 1) <= port <= 0xFFFF:
        raise ValueError(f"{what} must be a port number, got {port}")


def _check_lifetime(lifetime: int) -> None:
    if not 0 <= lifetime <= 0xFFFFFFFF:
        raise ValueError(f"lifetime must fit 32 bits, got {lifetime}")


def _protocol_name(protocol: int) -> str:
    return {TCP: "TCP", UDP: "UDP"}.get(protocol, str(protocol))


# -- NAT-PMP ------------------------------------------------------------------------------


def natpmp_address_request() -> bytes:
    """Ask the gateway its public address (RFC 6886 section 3.2)."""
    return struct.pack("!BB", NATPMP_VERSION, 0)


def natpmp_map_request(
    internal_port: int, external_port: int, lifetime: int, protocol: int = TCP
) -> bytes:
    """Ask for (``lifetime`` > 0) or delete (``lifetime`` 0) a mapping (section 3.3)."""
    _check_port(internal_port, "internal port")
    _check_port(external_port, "suggested external port", zero=True)
    _check_lifetime(lifetime)
    if protocol not in _NATPMP_OPCODES:
        raise ValueError(f"NAT-PMP maps TCP or UDP, not protocol {protocol}")
    opcode = _NATPMP_OPCODES[protocol]
    return struct.pack("!BBHHHI", NATPMP_VERSION, opcode, 0, internal_port, external_port, lifetime)


def _natpmp_header(data: bytes, size: int, opcode: int, what: str) -> int:
    """The epoch of a successful NAT-PMP reply, its size, version and opcode checked."""
    if len(data) >= 4 and data[0] == NATPMP_VERSION and data[1] == 128 + opcode:
        result = struct.unpack_from("!H", data, 2)[0]
        if result != 0:
            name = NATPMP_RESULTS.get(result, "unknown result")
            error = UnsupportedVersionError if result == 1 else MappingRefusedError
            raise error(f"NAT-PMP {what}: the gateway refused: {name} ({result})")
    if len(data) != size:
        raise PortMappingError(f"NAT-PMP {what}: a reply is {size} bytes, got {len(data)}")
    if data[0] != NATPMP_VERSION:
        raise PortMappingError(f"NAT-PMP {what}: version {data[0]}, expected {NATPMP_VERSION}")
    if data[1] != 128 + opcode:
        raise PortMappingError(f"NAT-PMP {what}: opcode {data[1]}, expected {128 + opcode}")
    epoch: int = struct.unpack_from("!I", data, 4)[0]
    return epoch


def parse_natpmp_address(data: bytes) -> tuple[str, int]:
    """The gateway's public IPv4 address and its epoch (seconds since its mappings began)."""
    epoch = _natpmp_header(data, 12, 0, "public address reply")
    address = ipaddress.IPv4Address(data[8:12])
    if address.is_unspecified:
        raise PortMappingError("NAT-PMP public address reply: the address is 0.0.0.0")
    return str(address), epoch


def parse_natpmp_map(data: bytes, *, internal_port: int, protocol: int = TCP) -> MapReply:
    """The mapping a NAT-PMP gateway granted for the request of ``internal_port``."""
    opcode = _NATPMP_OPCODES[protocol]
    epoch = _natpmp_header(data, 16, opcode, "map reply")
    internal, external, lifetime = struct.unpack_from("!HHI", data, 8)
    if internal != internal_port:
        raise PortMappingError(
            f"NAT-PMP map reply: for internal port {internal}, we asked for {internal_port}"
        )
    return MapReply(internal, external, lifetime, epoch)


# -- PCP ----------------------------------------------------------------------------------


def _mapped(address: str) -> bytes:
    """An address as PCP carries it: IPv4 as IPv4-mapped IPv6."""
    parsed = ipaddress.ip_address(address)
    if isinstance(parsed, ipaddress.IPv4Address):
        return ipaddress.IPv6Address(f"::ffff:{parsed}").packed
    return parsed.packed


def _unmapped(packed: bytes) -> str:
    address = ipaddress.IPv6Address(packed)
    return str(address.ipv4_mapped or address)


def pcp_map_request(
    client_address: str,
    nonce: bytes,
    internal_port: int,
    external_port: int,
    lifetime: int,
    protocol: int = TCP,
) -> bytes:
    """A PCP MAP request (RFC 6887 sections 7.1 and 11.1) from ``client_address`` (the
    source address of the datagram, which the gateway checks); ``lifetime`` 0 deletes the
    mapping of the same ``nonce``, port and protocol."""
    if len(nonce) != 12:
        raise ValueError(f"a PCP mapping nonce is 12 bytes, got {len(nonce)}")
    _check_port(internal_port, "internal port")
    _check_port(external_port, "suggested external port", zero=True)
    _check_lifetime(lifetime)
    header = struct.pack("!BBHI16s", PCP_VERSION, PCP_MAP, 0, lifetime, _mapped(client_address))
    body = struct.pack("!12sB3xHH16s", nonce, protocol, internal_port, external_port, _ANY_IPV4)
    return header + body


def parse_pcp_map(
    data: bytes, *, nonce: bytes, internal_port: int, protocol: int = TCP
) -> MapReply:
    """The mapping a PCP gateway granted for the MAP request with ``nonce``."""
    if len(data) >= 2 and data[0] == NATPMP_VERSION:
        # A NAT-PMP gateway's answer to a version it does not know (RFC 6887 section 9).
        raise UnsupportedVersionError("PCP map reply: the gateway speaks NAT-PMP only")
    if len(data) < 4:
        raise PortMappingError(f"PCP map reply: {len(data)} bytes, shorter than a header")
    if data[0] != PCP_VERSION:
        raise PortMappingError(f"PCP map reply: version {data[0]}, expected {PCP_VERSION}")
    if data[1] != 0x80 | PCP_MAP:
        raise PortMappingError(f"PCP map reply: opcode byte {data[1]}, expected {0x80 | PCP_MAP}")
    result = data[3]
    if result != 0:
        name = PCP_RESULTS.get(result, "unknown result")
        error = UnsupportedVersionError if result == 1 else MappingRefusedError
        raise error(f"PCP map reply: the gateway refused: {name} ({result})")
    if len(data) < 60 or len(data) > PCP_MAX_SIZE or len(data) % 4:
        raise PortMappingError(
            f"PCP map reply: {len(data)} bytes; a MAP reply is 60 to {PCP_MAX_SIZE} bytes, "
            "a multiple of 4"
        )
    lifetime, epoch = struct.unpack_from("!II", data, 4)
    got_nonce, got_protocol, internal, external, address = struct.unpack_from(
        "!12sB3xHH16s", data, 24
    )
    if got_nonce != nonce:
        raise PortMappingError("PCP map reply: the nonce is not our request's")
    if got_protocol != protocol:
        raise PortMappingError(
            f"PCP map reply: protocol {_protocol_name(got_protocol)}, "
            f"we asked for {_protocol_name(protocol)}"
        )
    if internal != internal_port:
        raise PortMappingError(
            f"PCP map reply: for internal port {internal}, we asked for {internal_port}"
        )
    external_address = _unmapped(address)
    return MapReply(internal, external, lifetime, epoch, external_address)


# -- checks on a granted mapping ---------------------------------------------------------


def check_granted(reply: MapReply, method: str) -> MapReply:
    """A successful reply must give a port and a lifetime, and a usable address."""
    if reply.external_port == 0:
        raise PortMappingError(f"{method} map reply: success without an external port")
    if reply.lifetime == 0:
        raise PortMappingError(f"{method} map reply: success with a lifetime of 0")
    if reply.external_address is not None:
        address = ipaddress.ip_address(reply.external_address)
        if address.is_unspecified or address.is_multicast or address.is_loopback:
            raise PortMappingError(
                f"{method} map reply: external address {address} is not a host's"
            )
    return reply


# -- the gateway --------------------------------------------------------------------------


def default_gateway(route_table: str | None = None) -> str | None:
    """The IPv4 default gateway in ``/proc/net/route`` (or the given text of it), or None."""
    if route_table is None:
        try:
            route_table = Path("/proc/net/route").read_text(encoding="ascii")
        except OSError:
            return None
    for line in route_table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 4:
            continue
        destination, gateway, flags = fields[1], fields[2], fields[3]
        try:
            up_gateway = int(flags, 16) & 0x3 == 0x3  # RTF_UP | RTF_GATEWAY
            if destination == "00000000" and up_gateway:
                return str(ipaddress.IPv4Address(int(gateway, 16).to_bytes(4, "little")))
        except ValueError:
            continue
    return None
