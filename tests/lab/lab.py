"""A lab of Linux network namespaces: an internet, NAT routers, LAN hosts, a transit relay.

Every namespace is named ``dbl-<pid>-<lab>-<role>``; a lab builds only what a test asks
for and ``Lab.close`` kills every process it started and deletes every namespace, also
after a failure. The lab is never linked to the machine's own network: veth pairs are
created directly inside lab namespaces (``ip -n A link add ... peer ... netns B``), and
no namespace has a route out of the lab. Addresses come from the documentation ranges:

==================  =========================================================================
``203.0.113.0/24``  the internet: one bridge in the ``inet`` namespace (``203.0.113.1``
                    and ``.2``, where coturn answers STUN with RFC 5780 change requests),
                    every public host and router WAN on it from ``.10`` on
``198.51.100.0/24`` carrier networks: ``/28`` slices behind a carrier-grade NAT
``192.0.2.0/24``    LANs: one ``/28`` per home router (router ``.1``, hosts from ``.2``)
``2001:db8::/64``   the IPv6 internet; ``2001:db8:<k>::/64`` the LAN of router ``k``
==================  =========================================================================

Router kinds (nftables, one ``inet filter`` table laid out as miniupnpd expects):

- ``cone``: masquerade, which keeps the source port when it is free: the mapping is
  endpoint-independent; a stateful firewall drops new inbound connections from the WAN.
- ``symmetric``: masquerade ``fully-random``: a new external port for every destination;
  the same stateful firewall.
- ``upnp``: ``cone`` plus Debian's miniupnpd on the LAN side (UPnP IGD, NAT-PMP, PCP).
  Every lab address is reserved, so miniupnpd learns its WAN is open by STUN (RFC 5780
  tests against the lab's coturn), then maps.
- ``cgnat``: an ``upnp`` router whose WAN sits behind a carrier ``cone`` router.
  miniupnpd's STUN test finds the carrier's filtering NAT and the mappings it offers are
  not reachable from the internet.
- ``ipv6``: ``cone`` for IPv4 plus routed global IPv6 (``2001:db8:<k>::/64``) behind a
  stateful IPv6 firewall that drops new inbound connections except TCP to the ports the
  router opens (``open_ports``, default 7117-7127): a home router with a configured
  pinhole, as a player opens one for a game server; what makes a direct IPv6 game
  possible.
- ``ipv6closed``: routed global IPv6 behind a stateful firewall that admits nothing
  inbound (a home router's default: no pinhole), and IPv4 behind a ``symmetric`` NAT,
  as on many mobile networks: only an IPv6 hole punch can make a direct path.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

RouterKind = Literal["cone", "symmetric", "upnp", "cgnat", "ipv6", "ipv6closed"]
IPV6_KINDS: tuple[RouterKind, ...] = ("ipv6", "ipv6closed")

AGENT = Path(__file__).with_name("agent.py")
DELAY = Path(__file__).with_name("delay.py")
"""The lab's one-way delay (NFQUEUE in user space): ``Namespace.delay``."""
"""The small programs the lab runs inside namespaces (whoami, listen, connect, record...)."""

STUN_ADDRESSES = ("203.0.113.1", "203.0.113.2")
STUN_PORT = 3478
RELAY_PORT = 4001
GAME_PORTS = (7117, 7127)
BRIDGE_MAC = "02:db:00:00:00:01"
"""Every bridge's own address (locally administered; each bridge is its own segment)."""

_labs = itertools.count(1)


def _which(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/sbin:/usr/bin")


def _run(argv: Sequence[str], *, input: str | None = None) -> str:
    done = subprocess.run(
        list(argv), input=input, capture_output=True, text=True, timeout=20, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


@dataclass(eq=False)
class Namespace:
    """One network namespace of a lab and the processes started in it."""

    lab: Lab
    name: str

    def ip(self, *args: str) -> str:
        return _run(["ip", "-n", self.name, *args])

    def nft(self, ruleset: str) -> None:
        _run(["ip", "netns", "exec", self.name, "nft", "-f", "-"], input=ruleset)

    def sysctl(self, key: str, value: str) -> None:
        _run(["ip", "netns", "exec", self.name, "sysctl", "-q", "-w", f"{key}={value}"])

    def agent_program(self, program: Path, *args: str) -> subprocess.Popen[str]:
        """Start ``program`` (a lab script) here and wait for its ``ready`` line."""
        process = self.popen([sys.executable, str(program), *args])
        _await_ready(process, f"{program.name} {' '.join(args)} in {self.name}")
        return process

    def command(self, argv: Sequence[str]) -> list[str]:
        """``argv`` as run inside this namespace."""
        return ["ip", "netns", "exec", self.name, *argv]

    def run(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 20,
        check: bool = True,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` here to its end (``env`` added to this process's environment)."""
        done = subprocess.run(
            self.command(argv),
            env=_environment(env),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"in {self.name}: {' '.join(argv)} exited {done.returncode}\n"
                f"stdout: {done.stdout}\nstderr: {done.stderr}"
            )
        return done

    def popen(
        self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, **options: object
    ) -> subprocess.Popen[str]:
        """Start ``argv`` here; the lab ends it at ``close`` (its whole process group)."""
        process: subprocess.Popen[str] = subprocess.Popen(  # type: ignore[call-overload]
            self.command(argv),
            env=_environment(env),
            text=True,
            start_new_session=True,
            **{"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **options},
        )
        self.lab.processes.append(process)
        return process

    def agent(self, *args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen[str]:
        """Start one of ``agent.py``'s programs and wait for its ``ready`` line."""
        process = self.popen([sys.executable, str(AGENT), *args], env=env)
        _await_ready(process, f"agent {' '.join(args)} in {self.name}")
        return process

    def run_agent(
        self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 20
    ) -> subprocess.CompletedProcess[str]:
        """Run one of ``agent.py``'s programs to its end (failure is not an error here)."""
        return self.run([sys.executable, str(AGENT), *args], env=env, timeout=timeout, check=False)


@dataclass(eq=False)
class Host(Namespace):
    """A machine: an internet host, or a LAN host behind ``router``."""

    address: str = ""
    address6: str | None = None
    router: Router | None = None


@dataclass(eq=False)
class Router(Namespace):
    """A home router: WAN on the internet (or on a carrier's LAN), a LAN bridge for hosts."""

    kind: RouterKind = "cone"
    index: int = 0
    wan_address: str = ""
    lan_address: str = ""
    carrier: Router | None = None
    hosts: list[Host] = field(default_factory=list)
    miniupnpd: subprocess.Popen[str] | None = None

    @property
    def public_address(self) -> str:
        """The address the internet sees this router's LAN come from."""
        return self.carrier.public_address if self.carrier else self.wan_address

    def host(self, name: str | None = None) -> Host:
        """A new LAN host behind this router."""
        return self.lab._lan_host(self, name)

    def cut(self) -> None:
        """Take the WAN link down (the connection to the internet is lost)."""
        self.ip("link", "set", "wan", "down")

    def restore(self) -> None:
        self.ip("link", "set", "wan", "up")
        if self.carrier is None:
            self.ip("route", "replace", "default", "via", "203.0.113.1")

    def ruleset(self) -> str:
        return _run(["ip", "netns", "exec", self.name, "nft", "list", "ruleset"])


@dataclass(eq=False)
class Relay:
    """The real magic-wormhole transit relay on an internet host, optionally recorded.

    With ``record``, a user-space recorder listens on the public port and forwards to the
    relay on loopback, appending every byte it sees (both directions) to ``capture_path``.
    """

    host: Host
    port: int
    capture_path: Path | None
    process: subprocess.Popen[str]

    @property
    def address(self) -> tuple[str, int]:
        return (self.host.address, self.port)

    def capture(self) -> bytes:
        """Every byte that crossed the relay so far (both directions, in arrival order)."""
        if self.capture_path is None:
            raise RuntimeError("the relay was started without record=True")
        return self.capture_path.read_bytes()

    def block(self) -> None:
        """Drop every packet to and from the relay's port (connections stall, as in a cut)."""
        port = self.port
        self.host.nft(
            "table inet block {\n"
            f"  chain input {{ type filter hook input priority -10; tcp dport {port} drop; }}\n"
            f"  chain output {{ type filter hook output priority -10; tcp sport {port} drop; }}\n"
            "}\n"
        )

    def unblock(self) -> None:
        self.host.nft("delete table inet block\n")

    def stop(self) -> None:
        """Kill the relay (its connections are reset)."""
        _end(self.process)

    def restart(self) -> None:
        """Start the relay again where it was (after ``stop``): a relay back from a crash."""
        inner = self.port + 1 if self.capture_path is not None else self.port
        interface = "127.0.0.1" if self.capture_path is not None else "0.0.0.0"
        self.process = _start_relay(self.host, inner, interface)


@dataclass(eq=False)
class Lab:
    """The namespaces, links and processes of one test; ``close`` ends them all."""

    tag: str
    workdir: Path
    namespaces: list[Namespace] = field(default_factory=list)
    processes: list[subprocess.Popen[str]] = field(default_factory=list)
    _public: Iterator[int] = field(default_factory=lambda: itertools.count(10))
    _ports: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _lans: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _carriers: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _stun: subprocess.Popen[str] | None = None

    @classmethod
    @contextlib.contextmanager
    def open(cls) -> Iterator[Lab]:
        """A new lab, closed at the end of the block whatever happens."""
        _remove_stale_namespaces()
        tag = f"dbl-{os.getpid()}-{next(_labs)}"
        with tempfile.TemporaryDirectory(prefix=f"{tag}-") as workdir:
            lab = cls(tag, Path(workdir))
            try:
                lab._build_internet()
                yield lab
            finally:
                lab.close()

    # -- building -------------------------------------------------------------------------

    def _namespace(
        self, role: str, cls: type[Namespace] = Namespace, **fields: object
    ) -> Namespace:
        name = f"{self.tag}-{role}"
        _run(["ip", "netns", "add", name])
        namespace = cls(self, name, **fields)
        self.namespaces.append(namespace)
        namespace.ip("link", "set", "lo", "up")
        for scope in ("all", "default"):  # addresses usable at once, no DAD wait
            namespace.sysctl(f"net.ipv6.conf.{scope}.accept_dad", "0")
        return namespace

    def _build_internet(self) -> None:
        self.internet = self._namespace("inet")
        inet = self.internet
        inet.ip(
            "link",
            "add",
            "name",
            "br0",
            "type",
            "bridge",
            "forward_delay",
            "0",
            "mcast_snooping",
            "0",
        )
        # A bridge without an address of its own takes its ports' lowest, and so changes
        # as routers plug in: a neighbour that learnt the old one sends into the void
        # until its cache expires (a carrier's STUN went unanswered for a minute).
        inet.ip("link", "set", "br0", "address", BRIDGE_MAC)
        inet.ip("addr", "add", "203.0.113.1/24", "dev", "br0")
        inet.ip("addr", "add", "203.0.113.2/24", "dev", "br0")
        inet.ip("addr", "add", "2001:db8::1/64", "dev", "br0", "nodad")
        inet.ip("link", "set", "br0", "up")
        inet.sysctl("net.ipv6.conf.all.forwarding", "1")

    def _plug(self, into: Namespace, bridge: str, node: Namespace, ifname: str) -> None:
        """A veth pair from ``node`` (named ``ifname``) to a port of ``bridge`` in ``into``."""
        port = f"p{next(self._ports)}"
        node.ip("link", "add", ifname, "type", "veth", "peer", "name", port, "netns", into.name)
        node.ip("link", "set", ifname, "gso_max_segs", "1")  # frames of one MTU: delay.py
        into.ip("link", "set", port, "gso_max_segs", "1")
        into.ip("link", "set", port, "master", bridge)
        into.ip("link", "set", port, "up")
        node.ip("link", "set", ifname, "up")

    def public_host(self, name: str = "pub") -> Host:
        """A host with a public address on the internet."""
        number = next(self._public)
        host = self._namespace(f"{name}{number}", Host, address=f"203.0.113.{number}")
        assert isinstance(host, Host)
        host.address6 = f"2001:db8::{number:x}"
        self._plug(self.internet, "br0", host, "eth0")
        host.ip("addr", "add", f"{host.address}/24", "dev", "eth0")
        host.ip("addr", "add", f"{host.address6}/64", "dev", "eth0", "nodad")
        host.ip("route", "add", "default", "via", "203.0.113.1")
        host.ip("-6", "route", "add", "default", "via", "2001:db8::1")
        return host

    def router(
        self, kind: RouterKind = "cone", *, open_ports: tuple[int, int] = GAME_PORTS
    ) -> Router:
        """A home router of ``kind`` on the internet; ``router.host()`` puts hosts behind."""
        carrier = self._carrier() if kind == "cgnat" else None
        index = next(self._lans)
        if index > 15:
            raise RuntimeError("a lab has room for 15 LANs")
        router = self._namespace(f"r{index}{kind}", Router, kind=kind, index=index)
        assert isinstance(router, Router)
        router.carrier = carrier
        if carrier is None:
            number = next(self._public)
            router.wan_address = f"203.0.113.{number}"
            self._plug(self.internet, "br0", router, "wan")
            router.ip("addr", "add", f"{router.wan_address}/24", "dev", "wan")
            router.ip("route", "add", "default", "via", "203.0.113.1")
        else:
            base = 16 * carrier.index
            router.wan_address = f"198.51.100.{base + 2}"
            self._plug(carrier, "lan", router, "wan")
            router.ip("addr", "add", f"{router.wan_address}/28", "dev", "wan")
            router.ip("route", "add", "default", "via", carrier.lan_address)
        router.lan_address = f"192.0.2.{16 * index + 1}"
        _lan_bridge(router)
        if kind in IPV6_KINDS:
            router.ip("addr", "add", f"2001:db8::{100 + index:x}/64", "dev", "wan", "nodad")
            router.ip("addr", "add", f"2001:db8:{index:x}::1/64", "dev", "lan", "nodad")
            router.ip("-6", "route", "add", "default", "via", "2001:db8::1")
            router.sysctl("net.ipv6.conf.all.forwarding", "1")
            self.internet.ip(
                "-6",
                "route",
                "add",
                f"2001:db8:{index:x}::/64",
                "via",
                f"2001:db8::{100 + index:x}",
            )
        router.nft(_router_rules(kind, open_ports))
        if kind in ("upnp", "cgnat"):
            self._start_miniupnpd(router)
        return router

    def delay_link(self, node: Namespace, ifname: str, seconds: float) -> None:
        """Delay ``node``'s link ``ifname`` (a veth to the internet's bridge) by
        ``seconds`` each way: the bridge's end moves into a new namespace, cut into the
        link, where ``delay.py`` passes each frame on that much later."""
        wire = self._namespace(f"w{next(self._ports)}")
        index = node.ip("-o", "link", "show", ifname).split("@if")[1].split(":")[0]
        end = next(  # the bridge's end of the link: the veth whose index node's end names
            line.split(":")[1].split("@")[0].strip()
            for line in self.internet.ip("-o", "link", "show").splitlines()
            if line.split(":")[0].strip() == index
        )
        self.internet.ip("link", "set", end, "nomaster")
        self.internet.ip("link", "set", end, "netns", wire.name)
        self._plug(self.internet, "br0", wire, "toinet")
        for name in (end, "toinet"):
            wire.ip("link", "set", name, "promisc", "on")
            wire.ip("link", "set", name, "up")
        wire.agent_program(DELAY, end, "toinet", str(seconds))

    def _carrier(self) -> Router:
        """A carrier-grade NAT (cone, stateful) with a ``198.51.100.0/28`` slice behind."""
        index = next(self._carriers)
        number = next(self._public)
        carrier = self._namespace(f"cg{index}", Router, kind="cone", index=index)
        assert isinstance(carrier, Router)
        carrier.wan_address = f"203.0.113.{number}"
        self._plug(self.internet, "br0", carrier, "wan")
        carrier.ip("addr", "add", f"{carrier.wan_address}/24", "dev", "wan")
        carrier.ip("route", "add", "default", "via", "203.0.113.1")
        carrier.lan_address = f"198.51.100.{16 * index + 1}"
        _lan_bridge(carrier)
        carrier.nft(_router_rules("cone", GAME_PORTS))
        return carrier

    def _lan_host(self, router: Router, name: str | None) -> Host:
        number = len(router.hosts) + 2
        role = name or f"h{router.index}x{number}"
        host = self._namespace(role, Host, router=router)
        assert isinstance(host, Host)
        host.address = f"192.0.2.{16 * router.index + number}"
        self._plug(router, "lan", host, "eth0")
        host.ip("addr", "add", f"{host.address}/28", "dev", "eth0")
        host.ip("route", "add", "default", "via", router.lan_address)
        if router.kind in IPV6_KINDS:
            host.address6 = f"2001:db8:{router.index:x}::{number:x}"
            host.ip("addr", "add", f"{host.address6}/64", "dev", "eth0", "nodad")
            host.ip("-6", "route", "add", "default", "via", f"2001:db8:{router.index:x}::1")
        router.hosts.append(host)
        return host

    def _ensure_stun(self) -> None:
        """coturn on the internet's two addresses (RFC 5780 answers need both)."""
        if self._stun is not None:
            return
        argv = [
            _which("turnserver") or "turnserver",
            "-n",
            *(f"--listening-ip={address}" for address in STUN_ADDRESSES),
            f"--listening-port={STUN_PORT}",
            f"--alt-listening-port={STUN_PORT + 1}",
            "--no-tls",
            "--no-dtls",
            "--no-cli",
            "--no-tcp-relay",
            "--simple-log",
            "--log-file=stdout",
            f"--pidfile={self.workdir / 'turnserver.pid'}",
            f"--db={self.workdir / 'turndb'}",
        ]
        self._stun = self.internet.popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_for(lambda: _udp_port_bound(self.internet, STUN_PORT), "coturn listening", seconds=10)

    def _start_miniupnpd(self, router: Router) -> None:
        self._ensure_stun()
        config = self.workdir / f"miniupnpd-{router.index}.conf"
        lan = f"192.0.2.{16 * router.index}/28"
        config.write_text(
            "ext_ifname=wan\n"
            "listening_ip=lan\n"
            "http_port=0\n"
            "enable_natpmp=yes\n"
            "enable_upnp=yes\n"
            "ipv6_disable=yes\n"
            "ext_perform_stun=yes\n"
            f"ext_stun_host={STUN_ADDRESSES[0]}\n"
            f"ext_stun_port={STUN_PORT}\n"
            "secure_mode=yes\n"
            "system_uptime=yes\n"
            f"lease_file={self.workdir / f'upnp-{router.index}.leases'}\n"
            f"uuid=3d3cec3a-8cf0-11e0-98ee-00{router.index:010x}\n"
            f"allow 1024-65535 {lan} 1024-65535\n"
            "deny 0-65535 0.0.0.0/0 0-65535\n",
            encoding="utf-8",
        )
        log = self.workdir / f"miniupnpd-{router.index}.log"
        with log.open("w") as output:
            router.miniupnpd = router.popen(
                [
                    _which("miniupnpd") or "miniupnpd",
                    "-d",
                    "-f",
                    str(config),
                    "-P",
                    str(self.workdir / f"miniupnpd-{router.index}.pid"),
                ],
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        _wait_for(
            lambda: (
                "Listening for NAT-PMP" in log.read_text(errors="replace")
                or router.miniupnpd is None
                or router.miniupnpd.poll() is not None
            ),
            f"miniupnpd in {router.name}",
            seconds=10,
        )
        if router.miniupnpd.poll() is not None:
            raise RuntimeError(f"miniupnpd in {router.name} ended: {log.read_text()}")

    def miniupnpd_log(self, router: Router) -> str:
        return (self.workdir / f"miniupnpd-{router.index}.log").read_text(errors="replace")

    def relay(self, *, record: bool = False) -> Relay:
        """The transit relay (``magic-wormhole-transit-relay``) on a new public host; and
        the lab's STUN server (coturn), which the players that meet there ask."""
        self._ensure_stun()
        host = self.public_host("relay")
        inner = RELAY_PORT + 1 if record else RELAY_PORT
        interface = "127.0.0.1" if record else "0.0.0.0"
        process = _start_relay(host, inner, interface)
        capture = None
        if record:
            capture = self.workdir / f"relay-{host.address}.bytes"
            host.agent("forward", str(RELAY_PORT), f"127.0.0.1:{inner}", "--record", str(capture))
        return Relay(host, RELAY_PORT, capture, process)

    # -- ending ---------------------------------------------------------------------------

    def close(self) -> None:
        """End every process (whole process groups), then delete every namespace."""
        for process in reversed(self.processes):
            _end(process)
        for namespace in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", namespace.name], capture_output=True, check=False)
        self.namespaces.clear()
        self.processes.clear()


def _router_rules(kind: RouterKind, open_ports: tuple[int, int]) -> str:
    """The router's nftables ruleset: the chains miniupnpd fills, a stateful forward
    filter, and the masquerade of its kind."""
    symmetric = kind in ("symmetric", "ipv6closed")
    masquerade = "masquerade fully-random" if symmetric else "masquerade"
    low, high = open_ports
    pinhole = (
        f'iifname "wan" meta nfproto ipv6 tcp dport {low}-{high} accept\n' if kind == "ipv6" else ""
    )
    return f"""
table inet filter {{
    chain miniupnpd {{ }}
    chain prerouting_miniupnpd {{ }}
    chain postrouting_miniupnpd {{ }}
    chain input {{
        type filter hook input priority 0; policy accept;
        iifname "wan" ct state established,related accept
        iifname "wan" meta l4proto {{ icmp, ipv6-icmp }} accept
        iifname "wan" udp sport {STUN_PORT}-{STUN_PORT + 1} accept
        iifname "wan" drop
    }}
    chain forward {{
        type filter hook forward priority 0; policy drop;
        ct state established,related accept
        ct state invalid drop
        iifname "lan" accept
        meta l4proto ipv6-icmp accept
        {pinhole}
        jump miniupnpd
    }}
    chain prerouting {{
        type nat hook prerouting priority -100; policy accept;
        jump prerouting_miniupnpd
    }}
    chain postrouting {{
        type nat hook postrouting priority 100; policy accept;
        jump postrouting_miniupnpd
        oifname "wan" meta nfproto ipv4 {masquerade}
    }}
}}
"""


def _lan_bridge(router: Router) -> None:
    """The router's LAN side: a bridge ``lan`` with its ``lan_address`` (a /28), up at once
    (no forwarding delay) and passing multicast (SSDP) to every port; forwarding on."""
    router.ip("link", "add", "name", "lan", "type", "bridge", "forward_delay", "0")
    router.ip("link", "set", "lan", "address", BRIDGE_MAC)  # fixed: see _build_internet
    router.ip("link", "set", "lan", "type", "bridge", "mcast_snooping", "0")
    router.ip("addr", "add", f"{router.lan_address}/28", "dev", "lan")
    router.ip("link", "set", "lan", "up")
    router.sysctl("net.ipv4.ip_forward", "1")


def _start_relay(host: Host, port: int, interface: str) -> subprocess.Popen[str]:
    """The real transit relay in ``host``, listening on ``interface``:``port``."""
    command = ["transitrelay", f"--port=tcp:{port}:interface={interface}"]
    process = host.popen(
        [sys.executable, "-m", "twisted", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _wait_for(lambda: _tcp_port_bound(host, port), "the transit relay listening", 15)
    return process


def _environment(extra: Mapping[str, str] | None) -> dict[str, str]:
    return {**os.environ, **(extra or {})}


def _end(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=3)
    for stream in (process.stdout, process.stderr, process.stdin):
        if stream is not None:
            stream.close()


def _await_ready(process: subprocess.Popen[str], what: str, seconds: float = 10) -> None:
    """Wait for the ``ready`` line an agent prints once it listens."""
    assert process.stdout is not None
    import selectors

    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            raise RuntimeError(f"{what}: not ready after {seconds} s")
    line = process.stdout.readline()
    if line.strip() != "ready":
        error = process.stderr.read() if process.stderr and process.poll() is not None else ""
        raise RuntimeError(f"{what}: said {line!r} instead of ready {error}")


def _wait_for(condition: object, what: str, seconds: float) -> None:
    assert callable(condition)
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"waited {seconds} s for {what}")
        time.sleep(0.05)


def _tcp_port_bound(namespace: Namespace, port: int) -> bool:
    out = namespace.run(["ss", "-Htln", f"sport = :{port}"], check=False).stdout
    return bool(out.strip())


def _udp_port_bound(namespace: Namespace, port: int) -> bool:
    out = namespace.run(["ss", "-Huln", f"sport = :{port}"], check=False).stdout
    return bool(out.strip())


def _remove_stale_namespaces() -> None:
    """Delete the namespaces of labs whose process is gone (a run killed mid-test)."""
    names = _run(["ip", "netns", "list"]).split()
    for name in names:
        parts = name.split("-")
        if len(parts) >= 3 and parts[0] == "dbl" and parts[1].isdigit():
            pid = int(parts[1])
            if pid != os.getpid() and not Path(f"/proc/{pid}").exists():
                subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)


def free_port() -> int:
    """An ephemeral port number (for processes inside namespaces, where it is surely free)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
