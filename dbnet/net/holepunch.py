"""Hole punching over trio: a side's punching sockets (``PunchDoor``) and one attempt
over a relayed connection (``punch``). The rules are ``net.punch``'s; docs/network.md,
section 14, tells the whole story.

A ``PunchDoor`` lives as long as the session: a UDP socket for IPv4 (and one for IPv6
when this side tells IPv6 candidates), each carrying a QUIC endpoint (``net.quic``)
whose connections outlive the attempt that opened them. Its candidates are learnt
lazily, at the first relayed connection: the STUN answer (asked from the very socket
QUIC then uses, so the NAT mapping it learnt is the one the peer punches), and the
global IPv6 addresses with the IPv6 socket's port.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from functools import partial

import trio

from dbnet.net.errors import NetError
from dbnet.net.groups import raise_single
from dbnet.net.handshake import HOST, JOINER
from dbnet.net.link import Link, Timing
from dbnet.net.messages import Punch
from dbnet.net.punch import (
    MAX_PUNCH_CANDIDATES,
    PROBE,
    PROBE_INTERVAL,
    PROBES,
    PUNCH_TIMEOUT,
    PunchCandidate,
    PunchCandidateError,
    is_probe,
    own_ipv6_candidates,
    punched_path,
)
from dbnet.net.quic import QuicEndpoint, QuicStream, open_quic_endpoint
from dbnet.net.race import NoRouteError, Route, race
from dbnet.net.setting import Address, format_address
from dbnet.net.stream import SecureStream, open_channel, with_key
from dbnet.net.stun import StunError, query
from dbnet.protocol.identity import Identity
from dbnet.text import printable

__all__ = ["PunchDoor", "punch", "punching", "start_punch"]

Say = Callable[[str], None]


class PunchDoor:
    """This side's hole-punching sockets for a session, run in ``nursery``.

    ``host``: this side accepts QUIC connections (the host), else it opens them (the
    joiner). ``stun``: the server that tells the IPv4 socket's public endpoint (None:
    no IPv4 candidate). ``ipv6``: this side's IPv6 addresses a peer may reach (the
    host's invite's; a joiner's own, told only to a host that told IPv6 candidates).
    ``bind4``/``bind6``: where the sockets listen; with ``tell_bound`` the IPv4
    socket's own address is a candidate too (tests on loopback). ``report`` hears
    ``--verbose``'s lines."""

    def __init__(
        self,
        nursery: trio.Nursery,
        *,
        host: bool,
        stun: Address | None,
        ipv6: Sequence[str] = (),
        report: Say,
        bind4: str = "0.0.0.0",
        bind6: str = "::",
        tell_bound: bool = False,
    ) -> None:
        self.host = host
        self.stun = stun
        self.ipv6 = tuple(ipv6)
        self.report = report
        self._nursery = nursery
        self._bind4, self._bind6, self._tell_bound = bind4, bind6, tell_bound
        self._lock = trio.Lock()
        self._endpoints: dict[int, QuicEndpoint] = {}  # by address version (4, 6)
        self._v4: tuple[PunchCandidate, ...] | None = None
        self._v6: tuple[PunchCandidate, ...] | None = None
        self._heard: set[tuple[str, int]] = set()
        self._probe_came = trio.Event()
        self._expected: dict[tuple[str, int], trio.MemorySendChannel[QuicStream]] = {}
        """A host's: where the attempt waiting for a connection from each candidate
        (the joiner's, each spectator's) is told of it."""

    # --- candidates ----------------------------------------------------------------------

    async def candidates(self, *, ipv6: bool) -> tuple[PunchCandidate, ...]:
        """This side's candidates (learnt at the first call): the IPv4 one, and with
        ``ipv6`` the IPv6 ones; at most ``MAX_PUNCH_CANDIDATES``."""
        async with self._lock:
            if self._v4 is None:
                self._v4 = await self._learn_v4()
            if ipv6 and self._v6 is None:
                self._v6 = await self._open_v6()
        found = self._v4 + ((self._v6 or ()) if ipv6 else ())
        return found[:MAX_PUNCH_CANDIDATES]

    async def _learn_v4(self) -> tuple[PunchCandidate, ...]:
        sock = await self._bound(socket.AF_INET, self._bind4)
        if sock is None:
            return ()
        found: list[PunchCandidate] = []
        if self._tell_bound:
            host, port = sock.getsockname()[:2]
            found.append(_candidate(host, port))
        if self.stun is not None:
            try:
                seen = await query(self.stun, sock=sock)
            except StunError as exc:
                self.report(f"hole punching: no public IPv4 endpoint: {exc}")
            else:
                self.report(
                    f"hole punching: this side's UDP socket is seen at {seen} "
                    f"(STUN {format_address(self.stun)})"
                )
                try:
                    found.append(_candidate(seen.host, seen.port))
                except (ValueError, PunchCandidateError) as exc:
                    self.report(f"hole punching: STUN's answer {seen} cannot be used: {exc}")
        await self._serve(sock, 4)
        return tuple(dict.fromkeys(found))

    async def _open_v6(self) -> tuple[PunchCandidate, ...]:
        if not self.ipv6:
            return ()
        sock = await self._bound(socket.AF_INET6, self._bind6)
        if sock is None:
            return ()
        await self._serve(sock, 6)
        return own_ipv6_candidates(self.ipv6, sock.getsockname()[1])

    async def _bound(self, family: int, where: str) -> trio.socket.SocketType | None:
        sock = trio.socket.socket(family, socket.SOCK_DGRAM)
        try:
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            await sock.bind((where, 0))
        except OSError as exc:
            sock.close()
            self.report(f"hole punching: no UDP socket for IPv{4 if family == 2 else 6}: {exc}")
            return None
        return sock

    async def _serve(self, sock: trio.socket.SocketType, version: int) -> None:
        endpoint = await self._nursery.start(self._endpoint, sock)
        self._endpoints[version] = endpoint
        if self.host:
            self._nursery.start_soon(self._dispatch, endpoint)

    async def _dispatch(self, endpoint: QuicEndpoint) -> None:
        """Hand each QUIC connection peers open to the attempt that expects it (by the
        candidate it comes from); close any other with one line."""
        while True:
            stream = await endpoint.accept()
            wants = self._expected.get(_endpoint_of(stream.peer))
            try:
                if wants is None:
                    raise trio.WouldBlock
                wants.send_nowait(stream)
            except (trio.WouldBlock, trio.BrokenResourceError):
                self.report(f"hole punching: refused QUIC from {stream.name}: no peer named it")
                await trio.aclose_forcefully(stream)

    @contextlib.contextmanager
    def expecting(
        self, candidates: Sequence[PunchCandidate]
    ) -> Iterator[trio.MemoryReceiveChannel[QuicStream]]:
        """While the body runs, the QUIC connections from ``candidates`` (a host's)."""
        send, receive = trio.open_memory_channel[QuicStream](MAX_PUNCH_CANDIDATES)
        taken = [c.endpoint for c in candidates if c.endpoint not in self._expected]
        for endpoint in taken:
            self._expected[endpoint] = send
        try:
            yield receive
        finally:
            for endpoint in taken:
                del self._expected[endpoint]

    async def _endpoint(
        self,
        sock: trio.socket.SocketType,
        task_status: trio.TaskStatus[QuicEndpoint] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        with sock:
            async with open_quic_endpoint(
                sock, accept=self.host, report=self._ignored, other=self._probe
            ) as endpoint:
                task_status.started(endpoint)
                await trio.sleep_forever()

    def _ignored(self, line: str) -> None:
        self.report(f"hole punching: {line}")

    # --- probes --------------------------------------------------------------------------

    def _probe(self, data: bytes, peer: tuple[str, int]) -> bool:
        if not is_probe(data):
            return False
        if len(self._heard) < 64:  # bounded whatever the senders
            self._heard.add(_endpoint_of(peer))
        self._probe_came.set()
        self._probe_came = trio.Event()
        return True

    def heard(self, candidate: PunchCandidate) -> bool:
        """Whether a probe came from ``candidate``."""
        return candidate.endpoint in self._heard

    async def hear(self, candidate: PunchCandidate) -> None:
        """Wait for a probe from ``candidate``."""
        while not self.heard(candidate):
            await self._probe_came.wait()

    def reaches(self, candidate: PunchCandidate) -> bool:
        """Whether this side has a socket of the candidate's family."""
        return candidate.address.version in self._endpoints

    async def probe(self, candidates: Sequence[PunchCandidate]) -> None:
        """Send ``PROBES`` probes to each of ``candidates``, ``PROBE_INTERVAL`` apart."""
        for _ in range(PROBES):
            for candidate in candidates:
                sock = self._endpoints[candidate.address.version].sock
                with contextlib.suppress(OSError):  # e.g. no route: the others may do
                    await sock.sendto(PROBE, candidate.endpoint)
            await trio.sleep(PROBE_INTERVAL)

    async def connect(self, candidate: PunchCandidate, timeout: float) -> QuicStream:
        """A QUIC connection to ``candidate``, once a probe from it came."""
        await self.hear(candidate)
        endpoint = self._endpoints[candidate.address.version]
        return await endpoint.connect(candidate.endpoint, timeout=timeout)


def _candidate(host: str, port: int) -> PunchCandidate:
    return PunchCandidate(ipaddress.ip_address(host), port)


def _endpoint_of(peer: tuple[str, int]) -> tuple[str, int]:
    return (str(ipaddress.ip_address(peer[0].split("%")[0])), peer[1])


# --- one attempt -----------------------------------------------------------------------------


async def punch(
    link: Link,
    door: PunchDoor,
    theirs_in: trio.MemoryReceiveChannel[Punch],
    identity: Identity,
    timing: Timing,
    report: Say,
    switch: Callable[[SecureStream], None],
    peer: str = "joiner",
) -> None:
    """One hole-punching attempt over ``link`` (relayed; the peer's PUNCH comes in
    ``theirs_in``): ``switch`` to the punched path once it is authenticated with the
    key ``link`` plays with, or ``report`` one line why not. Bounded by
    ``PUNCH_TIMEOUT``. ``peer`` names the other side to a host: "joiner", "spectator"."""

    async def attempt() -> str | None:
        """Why the attempt failed, or None once it switched."""
        if door.host:
            ours = await door.candidates(ipv6=bool(door.ipv6))
            await link.send(Punch(ours))
            theirs = (await theirs_in.receive()).candidates
        else:
            theirs = (await theirs_in.receive()).candidates
            ours = await door.candidates(ipv6=any(c.address.version == 6 for c in theirs))
            await link.send(Punch(ours))
        usable = [c for c in theirs if door.reaches(c)][:MAX_PUNCH_CANDIDATES]
        if not ours:
            return "this side has no candidate (no STUN answer, no IPv6 address)"
        if not usable:
            told = "told no candidate" if not theirs else "told none of this side's families"
            return f"the {peer if door.host else 'host'} {told}"
        async with trio.open_nursery() as nursery:
            nursery.start_soon(door.probe, usable)
            try:
                if door.host:
                    secure = await _accepted(
                        door, usable, link.peer_key, peer, identity, timing, report
                    )
                else:
                    secure = await _connected(door, usable, link.peer_key, identity, timing, report)
            except NoRouteError as exc:
                return printable(str(exc))
            nursery.cancel_scope.cancel()
        switch(secure)
        return None

    with trio.move_on_after(PUNCH_TIMEOUT) as scope:
        why = await attempt()
    if scope.cancelled_caught:
        why = f"no direct path opened within {PUNCH_TIMEOUT:g} s"
    if why is not None:
        report(f"hole punching failed: {why}; the game stays on the relay")


def start_punch(
    nursery: trio.Nursery,
    link: Link,
    door: PunchDoor,
    identity: Identity,
    timing: Timing,
    switch: Callable[[SecureStream], None],
    peer: str = "joiner",
) -> trio.MemorySendChannel[Punch]:
    """Start ``punch`` over ``link`` in ``nursery``; where to hand it the peer's PUNCH."""
    send, receive = trio.open_memory_channel[Punch](1)
    nursery.start_soon(punch, link, door, receive, identity, timing, door.report, switch, peer)
    return send


async def _connected(
    door: PunchDoor,
    candidates: Sequence[PunchCandidate],
    host_key: bytes,
    identity: Identity,
    timing: Timing,
    report: Say,
) -> SecureStream:
    """The joiner's side: QUIC to each candidate a probe came from, the first whose
    handshake proves the host's key wins."""

    async def authenticate(stream: trio.abc.Stream, route: Route) -> SecureStream:
        return await _authenticated(stream, identity, timing, JOINER, route.path, host_key, "host")

    routes = [
        Route(punched_path(c), str(c), partial(door.connect, c, PUNCH_TIMEOUT)) for c in candidates
    ]
    return await race(
        routes, authenticate, timeout=PUNCH_TIMEOUT, report=lambda line: report(f"punch: {line}")
    )


async def _accepted(
    door: PunchDoor,
    candidates: Sequence[PunchCandidate],
    peer_key: bytes,
    peer: str,
    identity: Identity,
    timing: Timing,
    report: Say,
) -> SecureStream:
    """The host's side: the first QUIC connection from one of the peer's candidates
    whose handshake proves the peer's key (a joiner's or a spectator's); one line for
    each that does not. It waits until the attempt's time is up."""
    wanted = {c.endpoint: c for c in candidates}
    with door.expecting(candidates) as arrivals:
        async for stream in arrivals:
            candidate = wanted[_endpoint_of(stream.peer)]
            path = punched_path(candidate)
            try:
                return await _authenticated(stream, identity, timing, HOST, path, peer_key, peer)
            except NetError as exc:
                report(f"hole punching: {candidate}: {printable(str(exc))}")
    raise NoRouteError([f"no QUIC connection came from the {peer}"])


async def _authenticated(
    stream: trio.abc.Stream,
    identity: Identity,
    timing: Timing,
    role: str,
    path: str,
    key: bytes,
    who: str,
) -> SecureStream:
    """dbnet's channel over a punched QUIC stream, this side ``role`` (the joiner opens
    the handshake), whose peer must have ``key`` (``who``'s)."""
    secure = await open_channel(
        stream,
        identity,
        initiator=role == JOINER,
        role=role,
        handshake_timeout=timing.handshake_timeout,
        frame_timeout=timing.frame_timeout,
        path=path,
    )
    return await with_key(secure, key, who)


@asynccontextmanager
async def punching(
    *,
    host: bool,
    stun: Address | None,
    ipv6: Sequence[str],
    report: Say,
    enabled: bool,
) -> AsyncIterator[PunchDoor | None]:
    """A ``PunchDoor`` while the body runs (its sockets closed after), or None when not
    ``enabled`` (no relay: a game that cannot be relayed needs no punching)."""
    if not enabled:
        yield None
        return
    try:
        async with trio.open_nursery() as nursery:
            yield PunchDoor(nursery, host=host, stun=stun, ipv6=ipv6, report=report)
            nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        raise_single(group)  # the body's own error, as if no nursery were here
        raise
