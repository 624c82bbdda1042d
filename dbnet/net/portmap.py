"""Router port mapping for a listening port: PCP, NAT-PMP, then UPnP IGD.

A host behind a home router can ask the router to forward a public port to its
listening port. ``port_mapping`` asks, holds the mapping while its block runs (renewing
the lease at half its lifetime) and deletes it at the end, also when the block is
cancelled or interrupted (a shielded cleanup of at most ``CLEANUP_SECONDS``)::

    from dbnet.net.portmap import port_mapping, port_mapping_enabled

    async with port_mapping(7117, say=print, enabled=port_mapping_enabled(flag_off)) as m:
        if m is not None:  # tell the peer f"{m.external_address}:{m.external_port}"
            ...
        await serve()

The methods are tried one after the other within about ``TIMEOUT`` seconds: PCP (RFC
6887) to the default gateway (from ``/proc/net/route``), NAT-PMP (RFC 6886) when the
gateway does not speak PCP or does not answer it, then UPnP IGD through ``miniupnpc``
(blocking, so in a worker thread, with a bounded discovery delay). None of them raises
for the network's failures: when no method gives a mapping, ``say`` gets one line that
tells why (each method's reason) and the block gets ``None``. A mapping whose external
address is itself private or carrier-grade NAT space (RFC 1918, RFC 6598) cannot be
reached by a peer, nor can one no invite could carry (broadcast, multicast, link-local,
unspecified, a port of 0: a hostile router's answer): it is deleted and the block gets
``None`` with one line saying so, and the game goes on without it.

``DBNET_PORT_MAPPING=off`` (also ``0``, ``no``, ``false``) turns it off, as the ``flag_off``
of ``port_mapping_enabled`` does; then nothing is sent at all. The sans-IO messages are
in ``net.natpmp``.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from collections.abc import AsyncIterator, Callable
from collections.abc import Mapping as EnvMapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any, Protocol

import trio

from dbnet.text import os_error_words

from . import natpmp
from .errors import PortMappingError
from .hosting import with_port
from .invite import PathKind, candidate_problem

TIMEOUT = 2.5
"""About how long ``port_mapping`` tries before it gives up (seconds)."""

CLEANUP_SECONDS = 1.5
"""The most the deletion of a mapping may take at the end of the block."""

LIFETIME = 3600
"""The lease asked for (seconds); renewed at half of what the router grants."""

PMP_SECONDS = 0.75
"""How long PCP, then NAT-PMP, waits for the gateway's answer (retransmitting)."""

UPNP_DISCOVERY_MS = 1000
"""How long UPnP IGD discovery waits for answers (milliseconds)."""

OFF_WORDS = frozenset({"off", "0", "no", "false"})

_NOT_PUBLIC = tuple(
    ipaddress.ip_network(net)
    for net in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",  # RFC 6598, carrier-grade NAT
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.168.0.0/16",
    )
)


@dataclass(frozen=True, slots=True)
class Mapping:
    """A router forwards ``external_address:external_port`` to this host's
    ``internal_port``, for ``lifetime`` seconds at a time (0: until deleted)."""

    method: str  # "PCP" | "NAT-PMP" | "UPnP IGD"
    external_address: str
    external_port: int
    internal_port: int
    lifetime: int

    def __str__(self) -> str:
        return f"{self.external_address}:{self.external_port}"


def port_mapping_enabled(
    flag_off: bool = False, environ: EnvMapping[str, str] | None = None
) -> bool:
    """False when the command line's flag says so or ``DBNET_PORT_MAPPING`` is off."""
    value = (os.environ if environ is None else environ).get("DBNET_PORT_MAPPING", "")
    return not flag_off and value.strip().lower() not in OFF_WORDS


class _Lease(Protocol):
    mapping: Mapping

    async def renew(self) -> Mapping: ...

    async def delete(self) -> None: ...


@asynccontextmanager
async def port_mapping(
    internal_port: int,
    *,
    say: Callable[[str], None],
    enabled: bool = True,
    gateway: str | None = None,
    pmp: bool = True,
    upnp: bool = True,
    lifetime: int = LIFETIME,
) -> AsyncIterator[Mapping | None]:
    """Map a public TCP port of the router to ``internal_port`` while the block runs.

    Yields the ``Mapping``, or None after telling ``say`` one line why. ``gateway`` is
    the router to ask by PCP/NAT-PMP (default: the default route's); ``pmp=False``
    leaves PCP and NAT-PMP out, ``upnp=False`` UPnP IGD."""
    if not (enabled and port_mapping_enabled()):
        say("router port mapping: off")
        yield None
        return
    lease = await _acquire(internal_port, say, gateway if pmp else None, pmp, upnp, lifetime)
    if lease is None:
        yield None
        return
    try:
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_keep, lease, say)
                try:
                    yield lease.mapping
                finally:
                    nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:
            # The renewal never raises: the one exception is the block's own.
            raise group.exceptions[0] from None
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(CLEANUP_SECONDS) as cleanup:
            try:
                await lease.delete()
            except (PortMappingError, OSError) as exc:
                say(f"router port mapping: could not delete {lease.mapping}: {_words(exc)}")
        if cleanup.cancelled_caught:
            say(f"router port mapping: no answer deleting {lease.mapping}; it will expire")


async def _acquire(
    internal_port: int,
    say: Callable[[str], None],
    gateway: str | None,
    pmp: bool,
    upnp: bool,
    lifetime: int,
) -> _Lease | None:
    reasons: list[str] = []
    gateway = gateway or (natpmp.default_gateway() if pmp else None)
    lease: _Lease | None = None
    with trio.move_on_after(TIMEOUT + 1):
        if not pmp:
            pass
        elif gateway is None:
            reasons.append("PCP/NAT-PMP: no default gateway")
        else:
            try:
                lease = await _PmpLease.open(gateway, internal_port, lifetime)
            except (PortMappingError, OSError) as exc:
                reasons.append(_words(exc))
        if lease is None and upnp:
            try:
                lease = await _UpnpLease.open(internal_port, lifetime)
            except PortMappingError as exc:
                reasons.append(f"UPnP IGD: {exc}")
    if lease is None:
        say(f"router port mapping: none ({'; '.join(reasons) or 'no answer'})")
        return None
    problem = _unreachable(lease.mapping)
    if problem is not None:
        with trio.move_on_after(CLEANUP_SECONDS):
            with suppress(PortMappingError, OSError):
                await lease.delete()
        say(f"router port mapping: none ({problem})")
        return None
    return lease


def _unreachable(mapping: Mapping) -> str | None:
    """Why no peer could connect to ``mapping`` (a router's mistake, or a hostile router's
    answer), or None: the mapping is one an invite can carry."""
    address = ipaddress.ip_address(mapping.external_address)
    if any(address in network for network in _NOT_PUBLIC):
        return (
            f"the router's external address {address} is behind another NAT, carrier-grade "
            "NAT perhaps: no peer could reach the mapping"
        )
    problem = candidate_problem(PathKind.MAPPING, address, mapping.external_port)
    if problem is not None:
        granted = with_port(str(address), mapping.external_port)
        return f"{mapping.method} granted {granted}, which no peer can reach: {problem}"
    return None


async def _keep(lease: _Lease, say: Callable[[str], None]) -> None:
    """Renew the lease at half its lifetime until cancelled; tell the first failure of a
    streak and any change of the external address or port."""
    failing = False
    while lease.mapping.lifetime > 0:
        await trio.sleep(max(lease.mapping.lifetime / 2, 1) if not failing else 10)
        before = lease.mapping
        try:
            with trio.fail_after(TIMEOUT):
                after = await lease.renew()
        except (PortMappingError, OSError, trio.TooSlowError) as exc:
            if not failing:
                say(f"router port mapping: renewing {before} failed: {_words(exc)}")
            failing = True
            continue
        failing = False
        if str(after) != str(before):
            say(f"router port mapping: the router moved the mapping from {before} to {after}")


def _words(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return os_error_words(exc)
    if isinstance(exc, trio.TooSlowError):
        return "no answer in time"
    return str(exc)


# -- PCP and NAT-PMP ----------------------------------------------------------------------


async def _exchange(
    sock: trio.socket.SocketType, request: bytes, parse: Callable[[bytes], Any], what: str
) -> Any:
    """Send ``request`` (again at 0.25 s, 0.5 s, ...) until a reply parses, a refusal
    arrives, or ``PMP_SECONDS`` pass. A reply that does not parse (stale, or forged by a
    hostile host) is set aside and the wait goes on."""
    set_aside: PortMappingError | None = None
    interval = 0.25
    with trio.move_on_after(PMP_SECONDS):
        while True:
            await sock.send(request)
            with trio.move_on_after(interval):
                while True:
                    data = await sock.recv(natpmp.PCP_MAX_SIZE + 1)
                    try:
                        return parse(data)
                    except natpmp.MappingRefusedError:
                        raise
                    except PortMappingError as exc:
                        set_aside = exc
            interval *= 2
    last = f" (a reply was set aside: {set_aside})" if set_aside else ""
    raise PortMappingError(f"{what}: no answer in {PMP_SECONDS:g} s{last}")


@dataclass
class _PmpLease:
    """A mapping by PCP or NAT-PMP, on its own UDP socket to the gateway."""

    sock: trio.socket.SocketType
    method: str
    client: str
    nonce: bytes
    lifetime: int
    mapping: Mapping

    @classmethod
    async def open(cls, gateway: str, internal_port: int, lifetime: int) -> _PmpLease:
        sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            await sock.connect((gateway, natpmp.PORT))
            client = sock.getsockname()[0]
            lease = cls(sock, "PCP", client, secrets.token_bytes(12), lifetime, _no_mapping())
            why = ""
            try:
                lease.mapping = await lease._map(internal_port, internal_port)
                return lease
            except natpmp.UnsupportedVersionError:
                why = "PCP: not spoken"
            except PortMappingError as exc:
                if isinstance(exc, natpmp.MappingRefusedError):
                    raise
                why = str(exc)
            lease.method = "NAT-PMP"
            try:
                lease.mapping = await lease._map(internal_port, internal_port)
            except PortMappingError as exc:
                raise PortMappingError(f"{why}; {exc}") from None
            return lease
        except BaseException:
            sock.close()
            raise

    async def _map(self, internal_port: int, external_port: int) -> Mapping:
        if self.method == "PCP":
            request = natpmp.pcp_map_request(
                self.client, self.nonce, internal_port, external_port, self.lifetime
            )
            reply = await _exchange(
                self.sock,
                request,
                lambda data: natpmp.parse_pcp_map(
                    data, nonce=self.nonce, internal_port=internal_port
                ),
                "PCP",
            )
            reply = natpmp.check_granted(reply, "PCP")
            address = reply.external_address
        else:
            address, _ = await _exchange(
                self.sock,
                natpmp.natpmp_address_request(),
                natpmp.parse_natpmp_address,
                "NAT-PMP",
            )
            request = natpmp.natpmp_map_request(internal_port, external_port, self.lifetime)
            reply = await _exchange(
                self.sock,
                request,
                lambda data: natpmp.parse_natpmp_map(data, internal_port=internal_port),
                "NAT-PMP",
            )
            reply = natpmp.check_granted(reply, "NAT-PMP")
        assert address is not None
        return Mapping(self.method, address, reply.external_port, internal_port, reply.lifetime)

    async def renew(self) -> Mapping:
        self.mapping = await self._map(self.mapping.internal_port, self.mapping.external_port)
        return self.mapping

    async def delete(self) -> None:
        port = self.mapping.internal_port
        try:
            if self.method == "PCP":
                request = natpmp.pcp_map_request(self.client, self.nonce, port, 0, 0)
                await _exchange(
                    self.sock,
                    request,
                    lambda data: natpmp.parse_pcp_map(data, nonce=self.nonce, internal_port=port),
                    "PCP",
                )
            else:
                await _exchange(
                    self.sock,
                    natpmp.natpmp_map_request(port, 0, 0),
                    lambda data: natpmp.parse_natpmp_map(data, internal_port=port),
                    "NAT-PMP",
                )
        finally:
            self.sock.close()


def _no_mapping() -> Mapping:
    return Mapping("", "", 0, 0, 0)


# -- UPnP IGD -----------------------------------------------------------------------------


@dataclass
class _UpnpLease:
    """A mapping by UPnP IGD through miniupnpc (blocking calls, in a worker thread)."""

    client: Any
    lifetime: int
    mapping: Mapping

    @classmethod
    async def open(cls, internal_port: int, lifetime: int) -> _UpnpLease:
        client, mapping = await trio.to_thread.run_sync(_upnp_map, internal_port, lifetime)
        return cls(client, lifetime, mapping)

    async def renew(self) -> Mapping:
        _, mapping = await trio.to_thread.run_sync(
            _upnp_map, self.mapping.internal_port, self.lifetime, self.client
        )
        self.mapping = mapping
        return mapping

    async def delete(self) -> None:
        port = self.mapping.external_port
        await trio.to_thread.run_sync(_upnp_delete, self.client, port, abandon_on_cancel=True)


def _upnp_map(internal_port: int, lifetime: int, client: Any = None) -> tuple[Any, Mapping]:
    """Discover the IGD (unless ``client`` has) and map; PortMappingError says why not."""
    try:
        import miniupnpc
    except ImportError:
        raise PortMappingError("miniupnpc is not installed") from None
    try:
        if client is None:
            client = miniupnpc.UPnP()
            client.discoverdelay = UPNP_DISCOVERY_MS
            if client.discover() == 0:
                raise PortMappingError(f"no device answered in {UPNP_DISCOVERY_MS} ms")
            client.selectigd()
        try:
            client.addportmapping(
                internal_port, "TCP", client.lanaddr, internal_port, "dbnet", "", lifetime
            )
        except TypeError:  # a miniupnpc without the lease argument: until deleted
            client.addportmapping(internal_port, "TCP", client.lanaddr, internal_port, "dbnet", "")
            lifetime = 0
        address = client.externalipaddress()
    except PortMappingError:
        raise
    except Exception as exc:  # miniupnpc raises bare Exception with the UPnP error's words
        raise PortMappingError(str(exc) or type(exc).__name__) from None
    try:
        ipaddress.ip_address(address)
    except ValueError:
        _upnp_delete(client, internal_port)
        raise PortMappingError(
            f"the router gave no usable external address ({address!r})"
        ) from None
    mapping = Mapping("UPnP IGD", address, internal_port, internal_port, lifetime)
    return client, mapping


def _upnp_delete(client: Any, external_port: int) -> None:
    try:
        client.deleteportmapping(external_port, "TCP")
    except Exception as exc:  # miniupnpc's bare Exception
        raise PortMappingError(str(exc)) from None
