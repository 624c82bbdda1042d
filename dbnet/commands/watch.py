"""``dbnet watch``: follow a network game as a spectator, every entry verified.

``dbnet watch INVITE`` (the host's spectator invite: it names the host's key and
carries the spectator secret) or ``dbnet watch HOST:PORT --expect FINGERPRINT`` (which
only a host with ``--open`` admits). With an invite the spectator races its direct
paths and its relay, as ``dbnet join INVITE`` does (``--relay off`` or
``DBNET_RELAY=off``: the direct paths only; ``--verbose`` says each path that failed,
and this side's public endpoint as the ``--stun`` server tells it), and on the relay
the host may connect to the spectator's port mapping, as to a joiner's
(``dbnet.net.reverse``; not with ``--no-port-mapping``). The game is shown as it is
played, each entry checked first with the checks of ``dbnet verify``: in the
full-screen client at a terminal (``dbnet.console.watch``), else (or with ``--plain``)
told in lines, the players called by the names they signed (``alice (A)``), the last
line naming the end (the winner, or the verifier's words).
``--replay PATH`` saves it. ``--stay`` stays for the players'
rematch, if they agree on one: the next game is watched on the same connection, its
replay beside the last (``NAME-2.dbnr``).

Exit codes: 0 the game was watched to its end; 1 the host refused this spectator (no
place left, a wrong key or proof, the game over), dropped it, sent something invalid,
or the connection broke; 2 bad arguments; 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys

import trio

from dbnet.commands.series import next_replay
from dbnet.match.keys import login_name
from dbnet.match.story import Event
from dbnet.net.holepunch import punching
from dbnet.net.hosting import reachable_addresses, with_port
from dbnet.net.invite import Invite, InviteError
from dbnet.net.portmap import port_mapping_enabled
from dbnet.net.relay import relay_setting
from dbnet.net.rendezvous import invite_connector, invite_routes
from dbnet.net.reverse import joiner_door
from dbnet.net.stream import SecureStream
from dbnet.net.stun import learn_endpoint, stun_setting
from dbnet.net.watch import Connect, WatchError, Watching
from dbnet.protocol.identity import Identity, same_fingerprint
from dbnet.replay.errors import ReplayError
from dbnet.replay.verify import Verdict
from dbnet.text import printable

EXIT_WATCHED = 0
EXIT_FAILED = 1


def _say(text: str) -> None:
    print(printable(text), flush=True)


def _show_events(events: list[Event]) -> None:
    for event in events:
        print(f"  {printable(str(event))}", flush=True)


def _door_wanted(args: argparse.Namespace, invite: Invite) -> bool:
    """Whether to keep a door where the host may connect to this spectator (its router's
    port mapping, ``dbnet.net.reverse``): with an invite's relay, unless
    --no-port-mapping or DBNET_PORT_MAPPING=off."""
    return (
        invite.relay is not None
        and relay_setting(args.relay) is not None
        and port_mapping_enabled(args.no_port_mapping)
    )


def run_watch(args: argparse.Namespace) -> int:
    if args.replay is not None and os.path.lexists(args.replay):
        raise ReplayError(str(args.replay), "already exists; a replay file is never overwritten")
    expect: str | None = args.expect
    stun = stun_setting(args.stun)  # for hole punching on the relay, and --verbose prints it
    secret: bytes | None = None
    connect: Connect
    notes: list[str] = []  # said through the watch's say, on whichever screen it is
    watching: Watching

    def watching_say(line: str) -> None:
        watching.say(line)  # on whichever screen the watch is shown

    if isinstance(args.address, Invite):
        invite = args.address
        if not invite.watch:
            raise InviteError(
                "this is a player's invite (for dbnet join), not a spectator invite: ask the "
                "host for the line it printed for spectators (dbnet watch INVITE)"
            )
        if expect is not None and not same_fingerprint(expect, invite.fingerprint):
            raise InviteError(
                f"--expect {expect} and the invite's host key {invite.fingerprint} differ"
            )
        expect, secret = invite.fingerprint, invite.secret
        use_relay = relay_setting(args.relay) is not None
        identity = Identity.load_or_create()
        routes = invite_routes(invite, relay=use_relay)
        paths = ", ".join(f"{route.path} {route.where}" for route in routes) or "none"
        notes.append(f"the invite lists {len(routes)} paths to the host: {paths}")
        report = (lambda line: watching.say(f"path failed: {line}")) if args.verbose else None
        connect = invite_connector(invite, identity, relay=use_relay, report=report)
        target = f"the host {invite.fingerprint} through its spectator invite"
    else:
        if expect is None:
            raise InviteError(
                "watching HOST:PORT needs --expect FINGERPRINT (the host's key fingerprint, "
                "which it prints), or use the host's spectator invite"
            )
        host, port = args.address
        identity = Identity.load_or_create()

        async def connect_direct() -> trio.abc.Stream | SecureStream:
            return await trio.open_tcp_stream(host, port)

        connect = connect_direct
        target = with_port(host, port)
    watching = Watching(
        identity,
        args.name or login_name("spectator"),
        say=_say,
        on_events=_show_events,
        expect=expect,
        secret=secret,
        replay_path=args.replay,
        stay=args.stay,
        next_replay=next_replay,
        on_game_end=lambda verdict: _said_end(watching, verdict),
    )
    if isinstance(args.address, Invite) and _door_wanted(args, args.address):
        watching.doors.append(
            functools.partial(joiner_door, identity, args.address.fingerprint, watching_say)
        )
    relayed = isinstance(args.address, Invite) and args.address.relay is not None
    if relayed and relay_setting(args.relay) is not None:  # the watch may start on the relay
        watching.punching = functools.partial(
            punching,
            host=False,
            stun=stun,
            ipv6=[a for a in reachable_addresses() if ":" in a],
            report=watching_say if args.verbose else _silent,
            enabled=True,
        )
    if notes:
        paths_known = connect

        async def connect_noting() -> trio.abc.Stream | SecureStream:
            for note in notes:
                watching.say(note)
            return await paths_known()

        connect = connect_noting
    if args.verbose and stun is not None:
        connect = _learning(connect, stun, watching)
    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        from dbnet.console.watch import run_watch_screen

        return run_watch_screen(watching, connect)
    _say(f"watching {target}; your key fingerprint is {identity.fingerprint}")
    try:
        verdict = trio.run(watching.run, connect)
    except WatchError as exc:
        print(f"dbnet watch: {printable(str(exc))}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        watching.close()
    _said_end(watching, verdict)
    return EXIT_WATCHED


def _silent(line: str) -> None:
    pass


def _said_end(watching: Watching, verdict: Verdict) -> None:
    """A watched game's end: verified, its replay, its result."""
    assert watching.log is not None
    _say("every entry verified: signatures, hash chain, dice, re-simulation")
    if watching.replay_path is not None:
        _say(f"replay: {watching.replay_path}")
    _say(watching.result_line(verdict))


def _learning(connect: Connect, stun: tuple[str, int], watching: Watching) -> Connect:
    """``connect``, asking ``stun`` for this side's public endpoint meanwhile (the first
    time only) and saying the answer."""
    asked = False

    async def connect_learning() -> trio.abc.Stream | SecureStream:
        nonlocal asked
        if asked:
            return await connect()
        asked = True
        async with learn_endpoint(stun, watching.say, finish=True):
            return await connect()

    return connect_learning
