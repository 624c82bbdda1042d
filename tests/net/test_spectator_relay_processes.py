"""Spectators through the real magic-wormhole transit relay on loopback, with real
``dbnet`` processes: ``dbnet host --spectators 1 --relay R`` prints a spectator invite
that lists the relay, and keeps a second door waiting there with the watch secret's
token. A watcher whose invite's direct paths are all dead (rewritten so) watches the
whole game through the relay, verified, and names the winner. Before it, strangers
who learned the spectators' token come through that door: one that says HELLO is
refused by the seat, one that sends WATCH without a proof is refused as a spectator;
the door keeps waiting. ``--relay off`` keeps a watcher off the relay. Nothing is sent
beyond 127.0.0.1; waits are bounded."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path

import trio

from dbnet.net.invite import Candidate, Invite, PathKind
from dbnet.net.messages import Bye, Hello, Watch
from dbnet.net.relay import open_relayed, relay_side, relay_token
from dbnet.net.spectators import RELAY_NEEDS_INVITE
from dbnet.net.stream import RELAY, open_channel

from .helpers import MALLORY
from .processes import Dbnet, verify_command
from .sessions import JOINER_NONCE
from .test_invite_processes import CLOSED_PORT, INVITE
from .test_processes import GAME_TIMEOUT, forget_played_games, until_listening
from .test_session_hostile import B_WARBAND, send
from .test_spectator_processes import WINNER, named, until_said
from .test_spectators import until_bye

WATCH_INVITE = re.compile(r"^  dbnet watch (DB\w+)$")


def host_args(replay: Path, relay: tuple[str, int]) -> list[str]:
    return [
        "host", "--port", "0", "--address", "127.0.0.1", "--relay", f"{relay[0]}:{relay[1]}",
        "--spectators", "1", "--bot", "greedy", "--plain", "--seed", "37", "--turns-to-win",
        "2", "--name", "alice", "--replay", str(replay), "--adjourn-after", "60",
    ]  # fmt: skip


def join_args(replay: Path, invite: str) -> list[str]:
    return [
        "join", invite, "--bot", "greedy", "--plain", "--seed", "37", "--name", "bob",
        "--replay", str(replay), "--adjourn-after", "60",
    ]  # fmt: skip


def watch_args(invite: str, relay: str, replay: Path) -> list[str]:
    """The tests' environment has the relay off: ``--relay`` turns it on (the address
    taken is the invite's), or keeps it off."""
    return ["watch", invite, "--relay", relay, "--verbose", "--plain", "--replay", str(replay)]


def invites(host: Dbnet) -> tuple[Invite, Invite]:
    [seat] = [m.group(1) for line in host.lines if (m := INVITE.match(line))]
    [watch] = [m.group(1) for line in host.lines if (m := WATCH_INVITE.match(line))]
    return Invite.parse(seat), Invite.parse(watch)


def without_direct_paths(invite: Invite) -> str:
    """The same spectator invite (key, secret, relay) with its direct paths replaced by
    one where nothing listens: only the relay can work."""
    dead = Candidate(PathKind.LAN, ipaddress.ip_address("127.0.0.1"), CLOSED_PORT)
    return Invite(invite.fingerprint, invite.secret, (dead,), invite.relay, watch=True).text()


async def through_the_spectators_door(
    relay: tuple[str, int], invite: Invite, message: Hello | Watch
) -> Bye | None:
    """Mallory, who learned the spectators' relay token (not the secret), comes through
    the host's door for spectators and sends ``message``: the host's BYE."""
    token = relay_token(invite.secret)
    stream = await open_relayed(relay, token, relay_side(token, "joiner"), timeout=10)
    secure = await open_channel(stream, MALLORY, initiator=True, path=RELAY)
    try:
        await send(secure, message)
        return await until_bye(secure)
    finally:
        await secure.aclose()


async def test_a_spectator_watches_through_the_relay_only(
    tmp_path: Path, homes: Path, real_relay: tuple[str, int]
) -> None:
    forget_played_games(homes)
    eve, carol = tmp_path / "eve", tmp_path / "carol"
    eve.mkdir()
    carol.mkdir()
    replays = {who: tmp_path / f"{who}.dbnr" for who in ("alice", "bob", "eve")}
    relay = f"{real_relay[0]}:{real_relay[1]}"
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice", host_args(replays["alice"], real_relay)
            )
            await until_listening(host)
            seat, watch = invites(host)
            # both invites list the relay; their secrets, hence their tokens, differ
            assert watch.watch
            assert not seat.watch
            assert seat.relay == watch.relay == real_relay
            assert relay_token(seat.secret) != relay_token(watch.secret)
            # strangers with the spectators' token: the seat refuses a HELLO, the
            # spectators a WATCH without proof; the door keeps waiting
            hello = Hello("mallory", None, 0, B_WARBAND, nonce=JOINER_NONCE)
            seat_bye = await through_the_spectators_door(real_relay, watch, hello)
            watch_bye = await through_the_spectators_door(real_relay, watch, Watch("mallory"))
            # without the relay, a watcher with dead direct paths cannot reach the host
            dead = without_direct_paths(watch)
            off = await Dbnet.start(
                nursery, "watch", carol, watch_args(dead, "off", tmp_path / "carol.dbnr")
            )
            assert await off.wait() == 1, off.output()
            watcher = await Dbnet.start(
                nursery, "watch", eve, watch_args(dead, relay, replays["eve"])
            )
            await until_said(host, "is watching via relay")
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob", join_args(replays["bob"], seat.text())
            )
            codes = [await process.wait() for process in (host, joiner, watcher)]
            nursery.cancel_scope.cancel()
    outputs = "\n\n".join(p.output() for p in (host, joiner, watcher))
    assert codes == [0, 0, 0], outputs
    assert Invite.parse(dead).direct[0].port == CLOSED_PORT
    # the strangers were refused, each in one line of the host's
    assert seat_bye is not None
    assert not seat_bye.done
    assert seat_bye.reason == "the relay path needs the invite: use dbnet join INVITE"
    assert watch_bye is not None
    assert not watch_bye.done
    assert watch_bye.reason == RELAY_NEEDS_INVITE
    assert host.saw("a peer came through the relay without proof of the invite's secret")
    assert host.saw(f"refused a spectator, mallory ({MALLORY.fingerprint}): {RELAY_NEEDS_INVITE}")
    # --relay off: the direct paths only, and one line saying the host cannot be reached
    assert off.saw("the invite lists 1 paths to the host: direct (LAN) 127.0.0.1:9")
    [failure] = [line for line in off.lines if line.startswith("dbnet watch:")]
    assert "cannot reach the host" in failure
    # the watcher came through the relay only, verified everything and names the winner
    assert watcher.saw("the invite lists 2 paths to the host: direct (LAN) 127.0.0.1:9, relay ")
    assert watcher.saw(f"path failed: direct (LAN) to 127.0.0.1:{CLOSED_PORT}")
    assert any(
        line.startswith("watching the game") and " via relay;" in line for line in watcher.lines
    ), watcher.output()
    assert watcher.saw("every entry verified")
    assert WINNER.match(watcher.lines[-1]), watcher.output()
    [result] = [line for line in host.lines if re.match(r"[AB] wins", line)]
    assert named(result) == watcher.lines[-1]
    for path in replays.values():
        checked = verify_command(path)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert f"{path}: complete:" in checked.stdout
    assert replays["eve"].read_bytes() == replays["alice"].read_bytes()
