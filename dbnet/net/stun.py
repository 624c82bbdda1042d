"""Learning this side's public endpoint from a STUN server (RFC 8489, formerly 5389).

A STUN binding request is a 20-byte header: the type ``0x0001``, a body length of 0,
the magic cookie ``0x2112A442`` and a random 96-bit transaction id. The server answers
a binding success response (type ``0x0101``) with the same cookie and transaction id,
whose XOR-MAPPED-ADDRESS attribute is the address and port the request came from, as
the server saw it (port XORed with the cookie's high 16 bits, address with the cookie
and, for IPv6, the transaction id); old servers send a plain MAPPED-ADDRESS instead.

The sans-IO part: ``binding_request`` and ``parse_binding_response``, which checks the
whole answer against strict limits: a hostile or broken answer is one ``StunError``
saying what is wrong, never another exception. FINGERPRINT is checked when present;
MESSAGE-INTEGRITY is not (a binding request to a public server carries no credentials).
The trio part: ``query``, over UDP, retransmitting a bounded number of times within a
bounded time; and ``learn_endpoint``, which asks in the background and reports the
answer. The setting: ``stun_setting`` (``--stun``, ``DBNET_STUN``, ``config.toml``,
``DEFAULT_STUN``). See ``docs/network.md`` section 14.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import struct
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Final

import trio

from dbnet.net.errors import NetError
from dbnet.net.groups import raise_single
from dbnet.net.setting import Address, AddressSettingError, address_setting, format_address
from dbnet.text import os_error_words

__all__ = [
    "DEFAULT_STUN",
    "MAGIC_COOKIE",
    "MAX_MESSAGE",
    "STUN_ENV",
    "Endpoint",
    "StunError",
    "StunSettingError",
    "StunTimeoutError",
    "binding_request",
    "learn_endpoint",
    "new_transaction_id",
    "parse_binding_response",
    "query",
    "stun_setting",
]

DEFAULT_STUN: Final[Address] = ("stun.l.google.com", 19302)
"""Google's public STUN server, the one WebRTC examples name (UDP only)."""
STUN_ENV: Final = "DBNET_STUN"

MAGIC_COOKIE: Final = 0x2112A442
HEADER_SIZE: Final = 20
MAX_MESSAGE: Final = 1280
"""The longest answer accepted, in bytes (a binding response is well under 200)."""
TRANSACTION_ID_SIZE: Final = 12

BINDING_REQUEST: Final = 0x0001
BINDING_SUCCESS: Final = 0x0101
BINDING_ERROR: Final = 0x0111

MAPPED_ADDRESS: Final = 0x0001
ERROR_CODE: Final = 0x0009
XOR_MAPPED_ADDRESS: Final = 0x0020
FINGERPRINT: Final = 0x8028
_FINGERPRINT_XOR: Final = 0x5354554E

# Comprehension-required attributes (types below 0x8000) this parser knows and may
# meet in a binding response: RFC 8489's, and RFC 3489's (RESPONSE-ADDRESS,
# CHANGE-REQUEST, SOURCE-ADDRESS, CHANGED-ADDRESS, PASSWORD, REFLECTED-FROM) that old
# servers still send. Any other one is an error (RFC 8489 section 7.3.3).
_KNOWN_REQUIRED: Final = frozenset(
    {0x0001, 0x0002, 0x0003, 0x0004, 0x0005, 0x0006, 0x0007, 0x0008, 0x0009, 0x000A}
    | {0x000B, 0x0014, 0x0015, 0x001C, 0x001D, 0x001E, 0x0020}
)

FIRST_WAIT: Final = 0.5
"""Seconds before the first retransmission (RFC 8489's initial RTO); each later wait doubles."""
ATTEMPTS: Final = 4
"""Requests sent at most (the first and three retransmissions)."""
QUERY_TIMEOUT: Final = 5.0
"""Seconds a query waits in all, whatever the attempts."""


class StunError(NetError):
    """The STUN server could not be asked or gave an answer that is not a binding
    response to our request. ``server`` names it, ``problem`` says what is wrong."""

    def __init__(self, server: str, problem: str) -> None:
        self.server = server
        self.problem = problem
        super().__init__(f"STUN server {server}: {problem}")


class StunTimeoutError(StunError):
    """No answer came in time."""


class StunSettingError(AddressSettingError):
    """A STUN setting that is not ``HOST:PORT``, ``[IPv6]:PORT`` or ``off``."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An address and UDP port as a STUN server saw them."""

    host: str
    port: int

    def __str__(self) -> str:
        return format_address((self.host, self.port))


# --- sans-IO ---------------------------------------------------------------------------


def new_transaction_id() -> bytes:
    """A fresh random transaction id (96 bits)."""
    return os.urandom(TRANSACTION_ID_SIZE)


def binding_request(transaction_id: bytes) -> bytes:
    """The binding request with ``transaction_id`` (12 bytes): a header, no attributes."""
    if len(transaction_id) != TRANSACTION_ID_SIZE:
        raise ValueError(f"a transaction id has {TRANSACTION_ID_SIZE} bytes")
    return struct.pack("!HHI", BINDING_REQUEST, 0, MAGIC_COOKIE) + transaction_id


class _BadAnswerError(Exception):
    """A problem of the answer, turned into a ``StunError`` naming the server."""


def parse_binding_response(data: bytes, transaction_id: bytes, *, server: str = "?") -> Endpoint:
    """The mapped address in ``data``, the answer to the binding request with
    ``transaction_id``; ``StunError`` (naming ``server``) if it is anything else."""
    try:
        return _parse(data, transaction_id)
    except _BadAnswerError as exc:
        raise StunError(server, str(exc)) from None


def _parse(data: bytes, transaction_id: bytes) -> Endpoint:
    size = len(data)
    if size < HEADER_SIZE:
        raise _BadAnswerError(
            f"a {size}-byte answer is shorter than a STUN header ({HEADER_SIZE} bytes)"
        )
    if size > MAX_MESSAGE:
        raise _BadAnswerError(
            f"a {size}-byte answer is longer than the limit of {MAX_MESSAGE} bytes"
        )
    kind, length, cookie = struct.unpack_from("!HHI", data)
    if kind & 0xC000:
        raise _BadAnswerError("not a STUN message (its first two bits are not zero)")
    if cookie != MAGIC_COOKIE:
        raise _BadAnswerError(f"the magic cookie is 0x{cookie:08x}, not 0x{MAGIC_COOKIE:08x}")
    if length != size - HEADER_SIZE:
        raise _BadAnswerError(
            f"the header announces {length} bytes of attributes, {size - HEADER_SIZE} came"
        )
    if length % 4:
        raise _BadAnswerError(f"the attributes' length {length} is not a multiple of 4")
    if data[8:HEADER_SIZE] != transaction_id:
        raise _BadAnswerError("the transaction id is not the one of our request")
    attributes = _attributes(data)
    if kind == BINDING_ERROR:
        raise _BadAnswerError(f"it refused the request: {_error_code(attributes.get(ERROR_CODE))}")
    if kind != BINDING_SUCCESS:
        raise _BadAnswerError(f"the answer's type is 0x{kind:04x}, not a binding success (0x0101)")
    if XOR_MAPPED_ADDRESS in attributes:
        return _address(attributes[XOR_MAPPED_ADDRESS], "XOR-MAPPED-ADDRESS", transaction_id)
    if MAPPED_ADDRESS in attributes:
        return _address(attributes[MAPPED_ADDRESS], "MAPPED-ADDRESS", None)
    raise _BadAnswerError("the answer has no XOR-MAPPED-ADDRESS nor MAPPED-ADDRESS")


def _attributes(data: bytes) -> dict[int, bytes]:
    """Each attribute's value (the first of a type counts); checks lengths, unknown
    comprehension-required types and FINGERPRINT."""
    found: dict[int, bytes] = {}
    offset = HEADER_SIZE
    while offset < len(data):
        if len(data) - offset < 4:
            raise _BadAnswerError(f"an attribute header at byte {offset} is cut off")
        kind, length = struct.unpack_from("!HH", data, offset)
        start = offset + 4
        end = start + length
        if end > len(data):
            raise _BadAnswerError(
                f"attribute 0x{kind:04x} at byte {offset} announces {length} bytes, "
                f"{len(data) - start} remain"
            )
        if kind < 0x8000 and kind not in _KNOWN_REQUIRED:
            raise _BadAnswerError(
                f"unknown comprehension-required attribute 0x{kind:04x} at byte {offset}"
            )
        if kind == FINGERPRINT:
            _check_fingerprint(data, offset, data[start:end])
        found.setdefault(kind, data[start:end])
        offset = end + (-length % 4)
    return found


def _check_fingerprint(data: bytes, offset: int, value: bytes) -> None:
    if len(value) != 4:
        raise _BadAnswerError(f"FINGERPRINT has {len(value)} bytes, not 4")
    if offset + 8 != len(data):
        raise _BadAnswerError("FINGERPRINT is not the last attribute")
    # The CRC covers the message up to the attribute, with the header's length as sent.
    expected = (zlib.crc32(data[:offset]) ^ _FINGERPRINT_XOR) & 0xFFFFFFFF
    if int.from_bytes(value, "big") != expected:
        raise _BadAnswerError("FINGERPRINT does not match the message (corrupted)")


def _address(value: bytes, name: str, transaction_id: bytes | None) -> Endpoint:
    if len(value) < 4:
        raise _BadAnswerError(f"{name} has {len(value)} bytes, too few for an address")
    family, port = value[1], int.from_bytes(value[2:4], "big")
    raw = value[4:]
    sizes = {1: 4, 2: 16}
    if family not in sizes:
        raise _BadAnswerError(
            f"{name} has the address family 0x{family:02x}, not IPv4 (1) or IPv6 (2)"
        )
    if len(raw) != sizes[family]:
        version = 4 if family == 1 else 6
        raise _BadAnswerError(
            f"{name} holds {len(raw)} address bytes, an IPv{version} address has {sizes[family]}"
        )
    if transaction_id is not None:
        port ^= MAGIC_COOKIE >> 16
        mask = MAGIC_COOKIE.to_bytes(4, "big") + transaction_id
        raw = bytes(a ^ b for a, b in zip(raw, mask, strict=False))
    if port == 0:
        raise _BadAnswerError(f"{name} says port 0")
    host = ipaddress.ip_address(raw)
    return Endpoint(str(host), port)


def _error_code(value: bytes | None) -> str:
    if value is None or len(value) < 4:
        return "a binding error response without ERROR-CODE"
    code = (value[2] & 0x07) * 100 + value[3]
    reason = value[4:128].decode("utf-8", "replace")
    return f"error {code} {reason!r}" if reason else f"error {code}"


# --- trio ------------------------------------------------------------------------------


async def query(
    server: Address,
    *,
    sock: trio.socket.SocketType | None = None,
    first_wait: float = FIRST_WAIT,
    attempts: int = ATTEMPTS,
    timeout: float = QUERY_TIMEOUT,
) -> Endpoint:
    """This side's endpoint as ``server`` sees a UDP request from ``sock`` (a bound UDP
    socket; by default a new one on any free port, closed after). Sends up to
    ``attempts`` requests, waiting ``first_wait`` seconds and twice as long after each,
    all within ``timeout`` seconds. Datagrams from other addresses are ignored, and so
    are the server's answers to another transaction (a late answer to an earlier query
    from the same socket): the transaction id must match.

    Raises:
        StunTimeoutError: no answer in time.
        StunError: the server's name cannot be resolved, sending failed, or its answer
            is not a binding response to this request.
    """
    name = format_address(server)
    own = sock is None
    if sock is None:
        family = await _family(server, name)
        sock = trio.socket.socket(family, socket.SOCK_DGRAM)
        await sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", 0))
    try:
        target = await _resolve(server, sock.family, name)
        transaction_id = new_transaction_id()
        request = binding_request(transaction_id)
        stale = [0]  # answers to another transaction, ignored
        with trio.move_on_after(timeout):
            wait = first_wait
            for _ in range(attempts):
                try:
                    await sock.sendto(request, target)
                except OSError as exc:
                    raise StunError(name, f"cannot send: {os_error_words(exc)}") from None
                with trio.move_on_after(wait):
                    return await _answer(sock, target, transaction_id, name, stale)
                wait *= 2
            await trio.sleep_forever()  # the last wait lasts until the timeout
        others = f"; {stale[0]} answers to another request ignored" if stale[0] else ""
        raise StunTimeoutError(
            name, f"no answer within {timeout:g} s ({attempts} requests at most{others})"
        )
    finally:
        if own:
            sock.close()


async def _answer(
    sock: trio.socket.SocketType,
    target: tuple[object, ...],
    transaction_id: bytes,
    name: str,
    stale: list[int],
) -> Endpoint:
    while True:
        try:
            data, source = await sock.recvfrom(MAX_MESSAGE + 1)
        except OSError as exc:  # e.g. an ICMP port unreachable reported on Linux
            raise StunError(name, f"cannot receive: {os_error_words(exc)}") from None
        if source[:2] != target[:2]:
            continue
        if len(data) >= HEADER_SIZE and data[8:HEADER_SIZE] != transaction_id:
            stale[0] += 1
            continue
        return parse_binding_response(data, transaction_id, server=name)


async def _family(server: Address, name: str) -> int:
    infos = await _lookup(server, 0, name)
    families = [info[0] for info in infos]
    return socket.AF_INET if socket.AF_INET in families else int(families[0])


async def _resolve(server: Address, family: int, name: str) -> tuple[object, ...]:
    infos = await _lookup(server, family, name)
    return infos[0][1]


async def _lookup(server: Address, family: int, name: str) -> list[tuple[int, tuple[object, ...]]]:
    host, port = server
    try:
        infos = await trio.socket.getaddrinfo(host, port, family, socket.SOCK_DGRAM)
    except (OSError, UnicodeError) as exc:
        why = os_error_words(exc) if isinstance(exc, OSError) else str(exc)
        raise StunError(name, f"cannot resolve {host}: {why}") from None
    found = [(int(info[0]), tuple(info[4])) for info in infos]
    if not found:
        raise StunError(name, f"{host} has no address of this socket's family")
    return found


@asynccontextmanager
async def learn_endpoint(
    server: Address | None, say: Callable[[str], None], *, finish: bool = False
) -> AsyncIterator[None]:
    """Ask ``server`` for this side's public endpoint in the background while the body
    runs, and ``say`` the answer or why there is none. Nothing is asked when ``server``
    is None. When the body ends, the query is cancelled, or with ``finish`` waited for
    (at most ``QUERY_TIMEOUT``)."""
    if server is None:
        yield
        return

    async def ask() -> None:
        name = format_address(server)
        try:
            endpoint = await query(server)
        except StunError as exc:
            say(f"public endpoint unknown: {exc}")
            return
        say(f"public endpoint (STUN {name}): {endpoint}")

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ask)
            yield
            if not finish:
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise_single(group)  # the body's own error, as if no nursery were here
        raise


# --- the setting -----------------------------------------------------------------------


def stun_setting(flag: str | None) -> Address | None:
    """The STUN server to ask (None: none). The first that is set wins: the ``--stun``
    flag, ``DBNET_STUN`` (empty counts as not set), ``stun = "HOST:PORT"`` in
    ``config.toml``, and last ``DEFAULT_STUN``; as ``relay_setting`` does for the relay.
    ``StunSettingError`` names the flag, variable or file and line whose value is bad."""
    return address_setting(
        flag,
        option="--stun",
        env=STUN_ENV,
        key="stun",
        default=DEFAULT_STUN,
        what="a STUN server address",
        error=StunSettingError,
    )
