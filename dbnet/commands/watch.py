"""``dbnet watch``: follow a network game as a spectator, every entry verified.

``dbnet watch INVITE`` (the host's spectator invite: it names the host's key and
carries the spectator secret) or ``dbnet watch HOST:PORT --expect FINGERPRINT``. The
game is shown as it is played, each entry checked first with the checks of ``dbnet
verify``: in the full-screen client at a terminal (``dbnet.console.watch``), else (or
with ``--plain``) told in lines, the last of which names the winner. ``--replay PATH``
saves it.

Exit codes: 0 the game was watched to its end; 1 the host refused this spectator (no
place left, a wrong key or proof, the game over), dropped it, sent something invalid,
or the connection broke; 2 bad arguments; 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys

import trio

from dbnet.match.render import describe_result
from dbnet.match.story import Event
from dbnet.net.hosting import with_port
from dbnet.net.invite import Invite, InviteError
from dbnet.net.rendezvous import invite_connector
from dbnet.net.stream import SecureStream
from dbnet.net.watch import Connect, WatchError, Watching
from dbnet.protocol.identity import Identity, same_fingerprint
from dbnet.replay.errors import ReplayError
from dbnet.text import printable

EXIT_WATCHED = 0
EXIT_FAILED = 1


def _say(text: str) -> None:
    print(printable(text), flush=True)


def _show_events(events: list[Event]) -> None:
    for event in events:
        print(f"  {printable(str(event))}", flush=True)


def _default_name() -> str:
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = "spectator"
    cleaned = "".join(ch for ch in login if ch.isalnum() or ch in "_.-")[:32]
    return cleaned if cleaned and cleaned[0].isalnum() else "spectator"


def run_watch(args: argparse.Namespace) -> int:
    if args.replay is not None and os.path.lexists(args.replay):
        raise ReplayError(str(args.replay), "already exists; a replay file is never overwritten")
    expect: str | None = args.expect
    secret: bytes | None = None
    connect: Connect
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
        identity = Identity.load_or_create()
        connect = invite_connector(invite, identity, relay=False)
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
        args.name or _default_name(),
        say=_say,
        on_events=_show_events,
        expect=expect,
        secret=secret,
        replay_path=args.replay,
    )
    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        from dbnet.console.watch import run_watch_screen

        return run_watch_screen(watching, connect)
    _say(f"watching {target}; your key fingerprint is {identity.fingerprint}")
    try:
        trio.run(watching.run, connect)
    except WatchError as exc:
        print(f"dbnet watch: {printable(str(exc))}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        watching.close()
    log = watching.log
    assert log is not None
    _say("every entry verified: signatures, hash chain, dice, re-simulation")
    if args.replay is not None:
        _say(f"replay: {args.replay}")
    _say(describe_result(log.game))
    return EXIT_WATCHED
