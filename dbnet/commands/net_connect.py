"""How the two players of ``dbnet host``, ``join`` and ``resume`` meet: the host listens,
maps a port on its router, prints its invite (saved in ``invite.txt`` too) and its
spectators' and waits at every door (the relay's too); the joiner dials the invite's
paths, raced, or HOST:PORT, keeping a door of its own where its host may connect to it."""

from __future__ import annotations

import argparse
import functools
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from dbnet.commands.series import Series
from dbnet.files import replace_atomically
from dbnet.net.holepunch import punching
from dbnet.net.hosting import (
    listener_port,
    listening,
    reachable_addresses,
    with_port,
)
from dbnet.net.invite import Candidate, Invite, InviteError
from dbnet.net.portmap import port_mapping, port_mapping_enabled
from dbnet.net.rendezvous import (
    Door,
    host_candidates,
    invite_connector,
    invite_routes,
    relay_door,
)
from dbnet.net.reverse import joiner_door
from dbnet.net.session import GameSession
from dbnet.net.session_values import Outcome
from dbnet.net.spectators import Spectating
from dbnet.net.stream import SecureStream
from dbnet.net.stun import stun_setting
from dbnet.protocol.identity import (
    Identity,
    config_dir,
)
from dbnet.text import counted

INVITE_FILE = "invite.txt"
"""Where the host's last invite is saved in its dbnet folder."""


async def _join(
    args: argparse.Namespace,
    session: GameSession,
    invite: Invite | None,
    use_relay: bool,
    connect: Callable[[], Awaitable[trio.abc.Stream | SecureStream]],
    first: SecureStream | None = None,
) -> Outcome:
    """Join with ``connect`` (``first``: a rematch's connection, played first); with an
    invite that has a relay, also keep a door where the host may connect to this side
    (its router's port mapping, ``dbnet.net.reverse``), unless --no-port-mapping or
    DBNET_PORT_MAPPING=off."""
    relayed = invite is not None and invite.relay is not None and use_relay
    own_ipv6 = [a for a in reachable_addresses() if ":" in a] if relayed else []
    async with punching(
        host=False,
        stun=stun_setting(args.stun),
        ipv6=own_ipv6,
        report=_verbose(args, session.player.say),
        enabled=relayed,
    ) as punch_door:
        session.punch_door = punch_door
        if not relayed or not port_mapping_enabled(args.no_port_mapping):
            return await session.join(connect, first)
        return await _join_with_door(session, invite, connect, first)


async def _join_with_door(
    session: GameSession,
    invite: Invite | None,
    connect: Callable[[], Awaitable[trio.abc.Stream | SecureStream]],
    first: SecureStream | None,
) -> Outcome:
    """``session.join``, with a door where the host may connect to this side."""
    assert invite is not None
    async with trio.open_nursery() as nursery:
        door = functools.partial(
            joiner_door,
            session.player.identity,
            invite.fingerprint,
            session.player.say,
            session.switch_to,
            handshake_timeout=session.timing.handshake_timeout,
            frame_timeout=session.timing.frame_timeout,
        )
        session.own_candidates = await nursery.start(door)
        outcome = await session.join(connect, first)
        nursery.cancel_scope.cancel()
    return outcome


def _verbose(args: argparse.Namespace, say: Callable[[str], None]) -> Callable[[str], None]:
    """``say`` with ``--verbose``, else nothing."""
    return say if args.verbose else _silent


def _silent(line: str) -> None:
    pass


def _seat_invite(address: object) -> Invite | None:
    """The invite given to join with, if any; a spectator invite never takes a seat."""
    if not isinstance(address, Invite):
        return None
    if address.watch:
        raise InviteError(
            "this is a spectator invite (for dbnet watch): it never takes a seat; ask the "
            "host for the line it printed for its opponent (dbnet join INVITE)"
        )
    return address


async def _host(args: argparse.Namespace, series: Series, relay: tuple[str, int] | None) -> Outcome:
    """Listen, map a port on the router, print an invite (this machine's paths now; the
    game's secret, the same when it is resumed) and serve the game on every door (and the
    rematches agreed, on the same doors)."""
    session = series.current
    say = session.player.say
    enabled = port_mapping_enabled(args.no_port_mapping)
    async with listening(args.port) as listeners:
        port = listener_port(listeners[0])
        async with port_mapping(port, say=say, enabled=enabled) as mapping:
            if mapping is not None:
                say(f"your router forwards {mapping} here ({mapping.method}) while you play")
            external = (
                None if mapping is None else (mapping.external_address, mapping.external_port)
            )
            addresses = args.address_given or _own_addresses(listeners)
            secret = session.invite_secret = session.own_invite_secret()
            candidates = host_candidates(addresses, port, external)
            invite = Invite(session.player.identity.fingerprint, secret, candidates, relay)
            say("send your opponent this line (it names your key and carries a one-game secret):")
            say(f"  dbnet join {invite.text()}")
            saved = _save_invite(f"dbnet join {invite.text()}\n")
            if saved is not None:
                say(f"  (it is also in {saved}, to copy whole)")
            doors = [] if relay is None else [relay_door(relay, secret, say)]
            if args.spectators:
                doors += _admit_spectators(args, session, candidates, relay)
            _show_addresses(say, listeners, args.open, session.player.expect)
            if relay is not None:
                say(f"also waiting at the relay {with_port(*relay)}")
            async with punching(
                host=True,
                stun=stun_setting(args.stun),
                ipv6=[a for a in addresses if ":" in a],
                report=_verbose(args, say),
                enabled=relay is not None,
            ) as punch_door:

                def host(game: GameSession, first: SecureStream | None) -> Awaitable[Outcome]:
                    game.punch_door = punch_door
                    return game.host(listeners, doors, first)

                return await series.play(host)


def _admit_spectators(
    args: argparse.Namespace,
    session: GameSession,
    candidates: tuple[Candidate, ...],
    relay: tuple[str, int] | None,
) -> list[Door]:
    """Admit ``--spectators`` (``--spectator-delay`` entries behind) and print their
    invite: its own secret, marked as a spectator's, with the same direct paths and
    relay as the player's. The door at the relay for spectators (none without a relay):
    its token is the watch secret's, so it never opens the seat's."""
    secret = session.own_watch_secret()
    session.spectating = Spectating(args.spectators, args.spectator_delay, secret, open=args.open)
    fp = session.player.identity.fingerprint
    invite = Invite(fp, secret, candidates, relay, watch=True)
    say = session.player.say
    behind = counted(args.spectator_delay, "entry", "entries")
    delay = f", {behind} behind" if args.spectator_delay else ""
    places = counted(args.spectators, "spectator")
    say(f"up to {places} may watch{delay} (this line never takes a seat):")
    say(f"  dbnet watch {invite.text()}")
    if args.open:  # else a place goes only to the holder of this invite
        say(f"  (or dbnet watch HOST:PORT --expect {fp}: this host is open)")
    if relay is None:
        return []

    def say_spectators(line: str) -> None:
        say(f"spectators' door: {line}")

    return [relay_door(relay, secret, say_spectators)]


def _save_invite(line: str) -> Path | None:
    """The invite's line in ``<config dir>/invite.txt`` (mode 0600: it holds the game's
    secret), where a long line is copied whole rather than off a wrapped screen; None if
    it cannot be written (the printed line is enough)."""
    path = config_dir() / INVITE_FILE
    try:
        replace_atomically(path, line.encode("ascii"), 0o600)
    except OSError:
        return None
    return path


def _dialer(
    args: argparse.Namespace, session: GameSession, identity: Identity, use_relay: bool
) -> Callable[[], Awaitable[trio.abc.Stream | SecureStream]]:
    """How the joiner reaches the host: the invite's paths raced, or HOST:PORT."""
    if not isinstance(args.address, Invite):
        host, port = args.address

        async def connect() -> trio.abc.Stream:
            return await trio.open_tcp_stream(host, port)

        return connect
    invite = args.address
    routes = invite_routes(invite, relay=use_relay)
    paths = ", ".join(f"{route.path} {route.where}" for route in routes) or "none"
    session.player.say(f"the invite lists {len(routes)} paths to the host: {paths}")
    report = (lambda line: session.player.say(f"path failed: {line}")) if args.verbose else None
    return invite_connector(
        invite,
        identity,
        relay=use_relay,
        handshake_timeout=session.timing.handshake_timeout,
        frame_timeout=session.timing.frame_timeout,
        report=report,
    )


def _target(address: tuple[str, int] | Invite) -> str:
    if isinstance(address, Invite):
        return f"the host {address.fingerprint} through its invite"
    return with_port(*address)


def _own_addresses(listeners: list[trio.SocketListener]) -> list[str]:
    """This machine's addresses (not loopback) in the families listened on."""
    families = {listener.socket.family for listener in listeners}
    wanted = {socket.AF_INET: ".", socket.AF_INET6: ":"}
    marks = tuple(mark for family, mark in wanted.items() if family in families)
    return [a for a in reachable_addresses() if any(m in a for m in marks)]


def _show_addresses(
    say: Callable[[str], None],
    listeners: list[trio.SocketListener],
    open_seat: bool,
    expect: str | None,
) -> None:
    """This machine's own addresses (not loopback) in the families listened on, and the
    port: for ``dbnet join HOST:PORT`` when that takes the seat (``--open``, or the key
    named by ``--expect``); else only as the invite's paths (only the invite seats)."""
    port = listener_port(listeners[0])
    families = {listener.socket.family for listener in listeners}
    addresses = [with_port(address, port) for address in _own_addresses(listeners)]
    if open_seat or expect is not None:
        who = "whoever comes first (--open)" if open_seat else f"only the key {expect}"
        if addresses:
            say(f"or, on the same network, one of these (with dbnet join HOST:PORT; {who}):")
            for address in addresses:
                say(f"  {address}")
        else:
            say(f"this machine's address could not be found: give the opponent it and port {port}")
    elif addresses:
        say(f"on the same network the invite reaches this machine at {', '.join(addresses)}")
    kinds = " and ".join(
        name for family, name in ((socket.AF_INET, "IPv4"), (socket.AF_INET6, "IPv6"))
        if family in families
    )  # fmt: skip
    say(f"listening on port {port} ({kinds}); waiting for the opponent...")
