"""Where the two players meet: the host's doors and the joiner's routes to them.

The host listens on its ports (``dbnet.net.hosting``) and, when it has a relay,
keeps one connection waiting there (``relay_door``): each time the relay pairs
it with a joiner, the stream goes to the host's gate (the handshake) with the
path ``relay``, and another waits at once, so a stranger who holds the relay
token and is refused cannot keep the real joiner out. The joiner races every
route of the invite (``invite_routes`` and ``dbnet.net.race``); a route wins
once the handshake proved the key that the invite names.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Final

import trio

from dbnet.net.errors import AuthenticationError, WrongHostError
from dbnet.net.hosting import with_port
from dbnet.net.invite import MAX_CANDIDATES, Candidate, Invite, PathKind
from dbnet.net.race import ROUTE_TIMEOUT, NoRouteError, Route, race
from dbnet.net.relay import NoPeerError, RelayError, open_relayed, relay_side, relay_token
from dbnet.net.stream import RELAY, SecureStream, open_channel
from dbnet.protocol.identity import Identity, fingerprint
from dbnet.text import printable

__all__ = [
    "PATH_NAMES",
    "RELAY_RECONNECT",
    "Admit",
    "Door",
    "host_candidates",
    "invite_connector",
    "invite_routes",
    "relay_door",
]

Admit = Callable[[trio.abc.Stream, str, str], None]
"""Hands the host's gate a new stream: the stream, where it came from, its path."""
Door = Callable[[Admit], Awaitable[None]]
"""A way in to the host besides its listeners (the relay): runs for ever, admitting."""

PATH_NAMES: Final = {
    PathKind.LAN: "direct (LAN)",
    PathKind.IPV6: "direct (IPv6)",
    PathKind.MAPPING: "direct (port mapping)",
}
"""What the player is told of the direct path that won."""
RELAY_RECONNECT: Final = (1.0, 2.0, 5.0, 10.0, 30.0)
"""Seconds before the host tries the relay again after a failure (the last repeats)."""
RELAY_REFRESH: Final = 600.0
"""The host's waiting connection is made anew after this long, so routers on the way
do not forget it."""
_CONNECT_TIMEOUT: Final = 10.0


def relay_door(
    relay: tuple[str, int],
    secret: bytes,
    say: Callable[[str], None],
    *,
    refresh: float = RELAY_REFRESH,
    reconnect: Sequence[float] = RELAY_RECONNECT,
) -> Door:
    """The host's door at ``relay``: one connection always waiting there for the joiner
    whose invite has ``secret``. A relay that cannot be reached, or misbehaves, is said
    in one line (again only when it recovers and fails anew), never fatal."""
    token = relay_token(secret)
    side = relay_side(token, "host")
    where = with_port(*relay)

    async def door(admit: Admit) -> None:
        failures = 0
        while True:
            try:
                stream = await open_relayed(
                    relay, token, side, timeout=_CONNECT_TIMEOUT, wait=refresh
                )
            except NoPeerError:
                continue  # nobody came this long: wait anew on a fresh connection
            except RelayError as exc:
                error = exc
            else:
                if failures:
                    say(f"the relay {where} works again")
                failures = 0
                admit(stream, f"relay {where}", RELAY)
                continue
            if not failures:
                say(f"the relay cannot be used for now: {printable(str(error))}; trying again")
            failures += 1
            await trio.sleep(reconnect[min(failures, len(reconnect)) - 1])

    return door


def host_candidates(
    addresses: Sequence[str], port: int, mapping: tuple[str, int] | None = None
) -> tuple[Candidate, ...]:
    """The direct candidates an invite lists for a host listening on ``port``: its
    router's ``mapping`` (external address and port) first, then its own ``addresses``
    (IPv4 as LAN, IPv6 as IPv6), as many as an invite holds."""
    out: list[Candidate] = []
    if mapping is not None:
        out.append(Candidate(PathKind.MAPPING, ipaddress.ip_address(mapping[0]), mapping[1]))
    for text in addresses:
        address = ipaddress.ip_address(text)
        kind = PathKind.LAN if address.version == 4 else PathKind.IPV6
        if all((c.address, c.port) != (address, port) for c in out):
            out.append(Candidate(kind, address, port))
    return tuple(out[:MAX_CANDIDATES])


def invite_routes(invite: Invite, *, relay: bool = True) -> list[Route]:
    """The routes to the host that ``invite`` lists: each direct candidate, then its
    relay (unless ``relay`` is False: this side uses none)."""
    routes = [
        Route(
            PATH_NAMES[candidate.kind],
            with_port(str(candidate.address), candidate.port),
            partial(trio.open_tcp_stream, str(candidate.address), candidate.port),
        )
        for candidate in invite.direct
    ]
    if relay and invite.relay is not None:
        token = relay_token(invite.secret)
        side = relay_side(token, "joiner")
        routes.append(
            Route(
                RELAY,
                with_port(*invite.relay),
                partial(open_relayed, invite.relay, token, side, timeout=ROUTE_TIMEOUT),
            )
        )
    return routes


def invite_connector(
    invite: Invite,
    identity: Identity,
    *,
    relay: bool = True,
    handshake_timeout: float = 10.0,
    frame_timeout: float = 10.0,
    report: Callable[[str], None] | None = None,
) -> Callable[[], Awaitable[SecureStream]]:
    """A ``connect`` for ``GameSession.join``: races the invite's routes, each time it is
    called (the first connection and every reconnection). A route wins when the
    handshake proved the host's key to be the one the invite names; ``report`` hears
    a line for each route that failed. ``NoRouteError`` when none worked; a route that
    reached another key is not tried again (a key does not change by waiting), and
    ``WrongHostError`` when no route is left."""
    routes = invite_routes(invite, relay=relay)
    others: dict[Route, str] = {}  # the routes that reached another key: that key

    async def authenticate(stream: trio.abc.Stream, route: Route) -> SecureStream:
        secure = await open_channel(
            stream,
            identity,
            initiator=True,
            handshake_timeout=handshake_timeout,
            frame_timeout=frame_timeout,
            path=route.path,
        )
        found = fingerprint(secure.peer_key)
        if found != invite.fingerprint:
            await trio.aclose_forcefully(secure)
            others[route] = found
            raise AuthenticationError(
                f"the peer there has the key {found}, not the host's {invite.fingerprint} "
                "that the invite names"
            )
        return secure

    async def connect() -> SecureStream:
        left = [route for route in routes if route not in others]
        if left:
            try:
                return await race(left, authenticate, report=report)
            except NoRouteError:
                if any(route not in others for route in routes):
                    raise
        places: dict[str, list[str]] = {}  # each key found, and where
        for route, key in others.items():
            where = f"through the relay {route.where}" if route.relayed else f"at {route.where}"
            places.setdefault(key, []).append(where)
        found = "; ".join(f"{' and '.join(at)} has the key {key}" for key, at in places.items())
        raise WrongHostError(
            f"the invite names the host {invite.fingerprint}, but the dbnet reached {found}, "
            "and a key does not change by waiting: ask your opponent for the invite its dbnet "
            "printed for this game"
        )

    return connect
