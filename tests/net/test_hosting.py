"""Listening on IPv4 and IPv6 with one port, and the addresses ``dbnet host`` gives out."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import trio

from dbnet.net import hosting
from dbnet.net.hosting import (
    listener_port,
    listening,
    parse_fib_trie,
    parse_if_inet6,
    reachable_addresses,
    with_port,
)

# Shapes of the Linux files, from a machine with one Ethernet interface.
FIB_TRIE = """\
Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
     +-- 192.0.2.0/24 2 0 2
        +-- 192.0.2.0/30 2 0 2
           |-- 192.0.2.0
              /24 link UNICAST
           |-- 192.0.2.2
              /32 host LOCAL
        |-- 192.0.2.255
           /32 link BROADCAST
     |-- 169.254.7.7
        /32 host LOCAL
Local:
  +-- 0.0.0.0/0 3 0 5
           |-- 192.0.2.2
              /32 host LOCAL
"""

IF_INET6 = """\
00000000000000000000000000000001 01 80 10 80       lo
fe8000000000000000fc00fffe000001 04 40 20 80     eth0
fd000000000000000000000000000002 04 40 00 82     eth0
20010db8000000000000000000000007 04 40 00 40     eth0
20010db8000000000000000000000009 04 40 00 00     eth0
not a line
"""


def test_fib_trie_gives_the_local_addresses() -> None:
    found = [str(a) for a in parse_fib_trie(FIB_TRIE)]
    assert found == ["127.0.0.1", "192.0.2.2", "169.254.7.7", "192.0.2.2"]


def test_if_inet6_gives_global_addresses_not_tentative() -> None:
    found = [str(a) for a in parse_if_inet6(IF_INET6)]
    assert found == ["fd00::2", "2001:db8::9"]  # ::1 and fe80:: are not global scope


def test_reachable_addresses_leave_out_loopback_and_link_local(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "fib_trie").write_text(FIB_TRIE)
    (tmp_path / "if_inet6").write_text(IF_INET6)
    monkeypatch.setattr(hosting, "FIB_TRIE", tmp_path / "fib_trie")
    monkeypatch.setattr(hosting, "IF_INET6", tmp_path / "if_inet6")
    assert reachable_addresses() == ["192.0.2.2", "2001:db8::9", "fd00::2"]


def test_without_the_kernel_files_the_resolver_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hosting, "FIB_TRIE", tmp_path / "missing")
    monkeypatch.setattr(hosting, "IF_INET6", tmp_path / "missing too")

    def getaddrinfo(*args: object, **kwargs: object) -> list[tuple[object, ...]]:
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.1.1", 0)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("198.51.100.4", 0)),
            (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("fe80::1%eth0", 0, 0, 2)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    assert reachable_addresses() == ["198.51.100.4"]


def test_no_address_found_is_an_empty_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hosting, "FIB_TRIE", tmp_path / "missing")
    monkeypatch.setattr(hosting, "IF_INET6", tmp_path / "missing too")

    def getaddrinfo(*args: object, **kwargs: object) -> list[tuple[object, ...]]:
        raise socket.gaierror("no name")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    assert reachable_addresses() == []


def test_with_port_brackets_ipv6() -> None:
    assert with_port("192.0.2.2", 7117) == "192.0.2.2:7117"
    assert with_port("2001:db8::9", 7117) == "[2001:db8::9]:7117"


async def test_port_zero_gives_every_family_the_same_port() -> None:
    async with listening(0) as listeners:
        assert listeners
        ports = {listener_port(listener) for listener in listeners}
        assert len(ports) == 1
        (port,) = ports
        assert port > 0
        # and it is a real listener: a connection on loopback reaches it
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.aclose()
