"""Listening for an opponent: TCP listeners on IPv4 and IPv6, and the addresses to give out.

``listening(port)`` opens one listener per address family on the same port (a
port of 0 picks a free one, shared by all families); a port it cannot listen on
(in use by another program, or not allowed) is a ``ListenError``, and
``check_port(port)`` finds that out before anything is shown. ``reachable_addresses()``
finds this machine's own addresses that another machine could use, without any
network traffic: on Linux from the kernel's tables (``/proc/net/fib_trie`` for
IPv4, ``/proc/net/if_inet6`` for IPv6), elsewhere from the local resolver's
addresses for the host name. Loopback, link-local and unspecified addresses are
left out: an opponent on another machine cannot use them.
"""

from __future__ import annotations

import errno
import ipaddress
import itertools
import re
import socket
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Final

import trio

from dbnet.net.errors import NetError
from dbnet.text import os_error_words

__all__ = [
    "ListenError",
    "check_port",
    "listener_port",
    "listening",
    "parse_fib_trie",
    "parse_if_inet6",
    "reachable_addresses",
    "with_port",
]

FIB_TRIE: Final = Path("/proc/net/fib_trie")
IF_INET6: Final = Path("/proc/net/if_inet6")

_TRIE_NODE = re.compile(r"^\s*\|--\s+(\d{1,3}(?:\.\d{1,3}){3})\s*$")
_IF6_TENTATIVE: Final = 0x40
_IF6_DAD_FAILED: Final = 0x08
_IF6_GLOBAL_SCOPE: Final = 0x00

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class ListenError(NetError):
    """This machine cannot listen on ``port``: ``in_use`` when another program holds it."""

    def __init__(self, port: int, exc: OSError) -> None:
        self.port = port
        self.in_use = exc.errno == errno.EADDRINUSE
        why = "it is in use by another program" if self.in_use else os_error_words(exc)
        super().__init__(f"cannot listen on port {port}: {why}")


@asynccontextmanager
async def listening(port: int) -> AsyncIterator[list[trio.SocketListener]]:
    """TCP listeners on ``port`` for IPv4 and IPv6 (whatever the machine has), all on the
    same port, also when ``port`` is 0 (a free one). ``ListenError`` if it cannot."""
    try:
        listeners = await _open_listeners(port)
    except OSError as exc:
        raise ListenError(port, exc) from exc
    try:
        yield listeners
    finally:
        for listener in listeners:
            await listener.aclose()


def check_port(port: int) -> None:
    """``ListenError`` if ``listening(port)`` would fail now: opens the listeners and
    closes them again, so that a command can say so in one line before it starts a game
    (or the full-screen client) that would have no listener behind it."""

    async def probe() -> None:
        async with listening(port):
            pass

    trio.run(probe)


def listener_port(listener: trio.SocketListener) -> int:
    port: int = listener.socket.getsockname()[1]
    return port


async def _open_listeners(port: int) -> list[trio.SocketListener]:
    listeners = await trio.open_tcp_listeners(port)
    if port != 0 or len({listener_port(listener) for listener in listeners}) <= 1:
        return listeners
    # Port 0 gave each family a port of its own: move the others to the first one's.
    first, others = listeners[0], listeners[1:]
    chosen = listener_port(first)
    kept = [first]
    for other in others:
        family = other.socket.family
        await other.aclose()
        wildcard = "::" if family == socket.AF_INET6 else "0.0.0.0"
        try:
            kept += await trio.open_tcp_listeners(chosen, host=wildcard)
        except OSError:
            continue  # that family has the port taken: serve the others
    return kept


def reachable_addresses() -> list[str]:
    """This machine's IPv4 and IPv6 addresses that another machine may reach (IPv4
    first), found without network traffic; empty if none can be found."""
    found: list[IPAddress] = []
    with suppress(OSError, UnicodeDecodeError):
        found += parse_fib_trie(FIB_TRIE.read_text(encoding="ascii"))
    with suppress(OSError, UnicodeDecodeError):
        found += parse_if_inet6(IF_INET6.read_text(encoding="ascii"))
    if not found:
        found = _resolver_addresses()
    usable = [address for address in _unique(found) if _is_usable(address)]
    usable.sort(key=lambda address: (address.version, address.packed))
    return [str(address) for address in usable]


def with_port(address: str, port: int) -> str:
    """``192.0.2.7:7117`` or ``[2001:db8::7]:7117``."""
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def parse_fib_trie(text: str) -> list[ipaddress.IPv4Address]:
    """The local IPv4 addresses in the text of ``/proc/net/fib_trie``: each node line
    ``|-- A.B.C.D`` followed by a line ``/32 host LOCAL``."""
    out: list[ipaddress.IPv4Address] = []
    lines = text.splitlines()
    for line, following in itertools.pairwise(lines):
        match = _TRIE_NODE.match(line)
        if match and following.split() == ["/32", "host", "LOCAL"]:
            try:
                out.append(ipaddress.IPv4Address(match.group(1)))
            except ValueError:
                continue
    return out


def parse_if_inet6(text: str) -> list[ipaddress.IPv6Address]:
    """The global-scope IPv6 addresses in the text of ``/proc/net/if_inet6`` (address in
    32 hex digits, interface index, prefix length, scope, flags, interface name), less
    those still tentative or that failed duplicate address detection."""
    out: list[ipaddress.IPv6Address] = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 6 or len(fields[0]) != 32:
            continue
        try:
            address = ipaddress.IPv6Address(int(fields[0], 16))
            scope, flags = int(fields[3], 16), int(fields[4], 16)
        except ValueError:
            continue
        if scope == _IF6_GLOBAL_SCOPE and not flags & (_IF6_TENTATIVE | _IF6_DAD_FAILED):
            out.append(address)
    return out


def _resolver_addresses() -> list[IPAddress]:
    """The addresses the local resolver gives for this machine's name (e.g. macOS)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, proto=socket.IPPROTO_TCP)
    except OSError:
        return []
    out: list[IPAddress] = []
    for family, _, _, _, sockaddr in infos:
        if family in (socket.AF_INET, socket.AF_INET6):
            text = str(sockaddr[0]).split("%")[0]
            try:
                out.append(ipaddress.ip_address(text))
            except ValueError:
                continue
    return out


def _is_usable(address: IPAddress) -> bool:
    return not (
        address.is_loopback
        or address.is_link_local
        or address.is_unspecified
        or address.is_multicast
    )


def _unique(addresses: Iterable[IPAddress]) -> list[IPAddress]:
    return list(dict.fromkeys(addresses))
