"""The reversed connection: the host connects to a joiner whose router maps a port.

When only the joiner's router maps a port (PCP, NAT-PMP, UPnP IGD: ``net.portmap``),
a host behind any NAT can reach the joiner, but not the other way. So a joiner
listens (``ReverseDoor``), asks its router for a mapping, and once it plays over the
relay tells the host its mapped address in a CANDIDATES message (``net.messages``),
inside the authenticated channel they already share. The host tries those candidates
(``dial_back``) and, when one answers the handshake with the very key it plays with,
both sides move the game to that connection (``GameSession.switch_to``).

The reversed connection is authenticated like every other path: the same channel
handshake, this side the host whoever connected (the roles travel in the handshake,
channel version 4), then the same HELLOs with the same proofs of the invite's secret
(the joiner proves it, and the host proves it too). A joiner's door admits only the
host whose key the invite names; anyone else who finds the port gets one line in the
joiner's log and is closed, never the game. The host sends nothing but a handshake to
a candidate, tries at most ``MAX_DIALS`` of them, once per relayed connection, each
for at most ``DIAL_TIMEOUT``, and only addresses a candidate rule admits
(``invite.candidate_problem``, checked when the message is decoded).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Final

import trio

from dbnet.net.errors import NetError
from dbnet.net.gate import Gate
from dbnet.net.handshake import HOST, JOINER
from dbnet.net.hosting import ListenError, listener_port, listening, with_port
from dbnet.net.invite import Candidate, PathKind
from dbnet.net.link import Link, Timing
from dbnet.net.messages import Candidates as CandidatesMessage
from dbnet.net.portmap import port_mapping
from dbnet.net.race import Route, race
from dbnet.net.stream import SecureStream, open_channel, with_key
from dbnet.protocol.identity import Identity, fingerprint, same_fingerprint
from dbnet.text import printable

__all__ = [
    "CANDIDATES_VERSION",
    "DIAL_TIMEOUT",
    "HOST_PATH",
    "JOINER_PATH",
    "MAPPING_WAIT",
    "MAX_DIALS",
    "SPECTATOR_PATH",
    "ReverseDoor",
    "dial_back",
    "dial_failure",
    "joiner_door",
    "mapped_candidates",
    "send_candidates",
    "try_candidates",
]

MAX_DIALS: Final = 4
"""The most candidates of one CANDIDATES message the host tries."""
DIAL_TIMEOUT: Final = 5.0
"""The most one candidate may take to connect and finish the handshake."""
HOST_PATH: Final = "direct (the joiner's port mapping)"
"""The path the host is told of a connection it made to the joiner."""
SPECTATOR_PATH: Final = "direct (the spectator's port mapping)"
"""...and of one it made to a spectator."""
JOINER_PATH: Final = "direct (your port mapping)"
"""The path the joiner is told of a connection its host made to it."""
MAPPING_WAIT: Final = 5.0
"""The most a joiner on the relay waits for its router's answer before it goes on
without candidates (``net.portmap`` gives up within about 3.5 s)."""

CANDIDATES_VERSION: Final = 4
"""The first channel version that carries CANDIDATES."""

Candidates = Callable[[], Awaitable[tuple[Candidate, ...]]]
"""Where a joiner listens, once its router answered (``GameSession.own_candidates``)."""


def mapped_candidates(mapping: tuple[str, int] | None) -> tuple[Candidate, ...]:
    """The candidates a joiner sends for its router's ``mapping`` (external address and
    port), none without one."""
    if mapping is None:
        return ()
    return (Candidate(PathKind.MAPPING, ipaddress.ip_address(mapping[0]), mapping[1]),)


class ReverseDoor:
    """A joiner's listeners, where only its host gets in: each connection gets the
    handshake (this side the joiner) side by side with the others, within the host's
    gate's limits (``net.gate``), and one whose peer is not the host ``host`` (a key
    fingerprint: the invite's) is closed with one line to ``say``. Authenticated
    streams wait in ``arrivals``."""

    def __init__(
        self,
        identity: Identity,
        host: str,
        say: Callable[[str], None],
        *,
        handshake_timeout: float = 10.0,
        frame_timeout: float = 10.0,
    ) -> None:
        self.host = host
        self.say = say
        self._send, self.arrivals = trio.open_memory_channel[trio.abc.Stream | SecureStream](4)
        self._authenticated, self._checked = trio.open_memory_channel[
            trio.abc.Stream | SecureStream
        ](4)
        self._gate = Gate(
            identity,
            self._authenticated,
            lambda line: say(f"your port: {line}"),
            handshake_timeout=handshake_timeout,
            frame_timeout=frame_timeout,
            role=JOINER,
            path=JOINER_PATH,
        )

    async def serve(self, listeners: Sequence[trio.SocketListener]) -> None:
        """Accept on ``listeners`` for ever; the host's authenticated connections go to
        ``arrivals``."""
        async with trio.open_nursery() as nursery:
            for listener in listeners:
                nursery.start_soon(self._gate.serve, listener, nursery)
            async for stream in self._checked:
                assert isinstance(stream, SecureStream)  # the gate hands on only those
                found = fingerprint(stream.peer_key)
                if not same_fingerprint(self.host, found):
                    self.say(
                        f"your port: refused a connection from {found}, which is not the "
                        f"host {self.host} you are joining"
                    )
                    await trio.aclose_forcefully(stream)
                    continue
                try:
                    self._send.send_nowait(stream)
                except trio.WouldBlock:
                    await trio.aclose_forcefully(stream)


async def dial_back(
    candidates: Sequence[Candidate],
    identity: Identity,
    joiner: bytes,
    *,
    timeout: float = DIAL_TIMEOUT,
    handshake_timeout: float = 10.0,
    frame_timeout: float = 10.0,
    report: Callable[[str], None] | None = None,
    path: str = HOST_PATH,
) -> SecureStream:
    """The host's connection to the first of the joiner's ``candidates`` (at most
    ``MAX_DIALS``) whose handshake proves the key ``joiner``, this side the host.

    Raises:
        NoRouteError: none did (``report`` heard one line for each).
    """

    async def authenticate(stream: trio.abc.Stream, route: Route) -> SecureStream:
        secure = await open_channel(
            stream,
            identity,
            initiator=True,
            role=HOST,
            handshake_timeout=handshake_timeout,
            frame_timeout=frame_timeout,
            path=route.path,
        )
        return await with_key(secure, joiner, "joiner")

    routes = [
        Route(
            path,
            with_port(str(c.address), c.port),
            partial(trio.open_tcp_stream, str(c.address), c.port),
        )
        for c in candidates[:MAX_DIALS]
    ]
    return await race(routes, authenticate, timeout=timeout, report=report)


async def send_candidates(link: Link, candidates: Candidates, say: Callable[[str], None]) -> None:
    """A joiner (or spectator) on the relay tells its host where it listens, once its
    router answered, if it does; one line if the host's dbnet is too old to use them."""
    found = await candidates()
    if not found:
        return
    if link.stream.version < CANDIDATES_VERSION:
        say(
            f"the host's dbnet speaks channel version {link.stream.version}: it cannot "
            "connect to your port mapping, so the game stays on the relay"
        )
        return
    await link.send(CandidatesMessage(found))


async def try_candidates(
    candidates: Sequence[Candidate],
    identity: Identity,
    joiner: bytes,
    timing: Timing,
    say: Callable[[str], None],
    switch: Callable[[SecureStream], None],
    path: str = HOST_PATH,
) -> None:
    """``dial_back``, then ``switch`` to the connection it made, or one line why none."""
    try:
        secure = await dial_back(
            candidates,
            identity,
            joiner,
            handshake_timeout=timing.handshake_timeout,
            frame_timeout=timing.frame_timeout,
            path=path,
        )
    except NetError as exc:
        say(dial_failure(exc))
        return
    switch(secure)


def dial_failure(exc: NetError) -> str:
    """The line the host says when no candidate of the joiner worked."""
    return f"could not connect to the joiner's port mapping: {printable(str(exc))}"


async def joiner_door(
    identity: Identity,
    host: str,
    say: Callable[[str], None],
    switch: Callable[[SecureStream], None],
    *,
    handshake_timeout: float = 10.0,
    frame_timeout: float = 10.0,
    task_status: trio.TaskStatus[Candidates] = trio.TASK_STATUS_IGNORED,
) -> None:
    """A joiner's door for ever: a listener on a free port, mapped by its router if the
    router can (the mapping deleted at the end), where only the host ``host`` (a key
    fingerprint) gets in; each of its connections goes to ``switch``. Started with
    ``nursery.start``, it gives the candidates to send the host (none without a
    mapping, or without a port to listen on: one line says why)."""
    known: list[Candidate] = []
    found = trio.Event()

    async def candidates() -> tuple[Candidate, ...]:
        with trio.move_on_after(MAPPING_WAIT):
            await found.wait()
        return tuple(known)

    try:
        async with listening(0) as listeners:
            door = ReverseDoor(
                identity,
                host,
                say,
                handshake_timeout=handshake_timeout,
                frame_timeout=frame_timeout,
            )
            async with trio.open_nursery() as nursery:
                nursery.start_soon(door.serve, listeners)
                task_status.started(candidates)
                port = listener_port(listeners[0])
                async with port_mapping(port, say=say) as mapping:
                    if mapping is not None:
                        address = (mapping.external_address, mapping.external_port)
                        known.extend(mapped_candidates(address))
                        say(
                            f"your router forwards {mapping} here ({mapping.method}): the host "
                            "may connect to you there if the relay is the only other way"
                        )
                    found.set()
                    async for stream in door.arrivals:
                        assert isinstance(stream, SecureStream)
                        switch(stream)
    except ListenError as exc:
        say(f"the host cannot connect to you: {exc}")
        found.set()
        task_status.started(candidates)
