"""``dbnet host`` prints an invite and ``dbnet join INVITE`` plays through it: real
processes on loopback, and the real magic-wormhole transit relay on loopback. The
paths across routers are proven in the NAT lab (tests/lab); here: the direct path, the
relay when every direct path is dead (the invite rewritten so), the relay cut mid-game
and started again, and a mistyped invite."""

from __future__ import annotations

import ipaddress
import os
import re
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
import trio

from dbnet.net.invite import Candidate, Invite, PathKind

from .conftest import start_relay
from .processes import Dbnet, replay_records
from .test_processes import (
    GAME_TIMEOUT,
    SEED,
    TURNS,
    Game,
    assert_complete,
    forget_played_games,
)

INVITE = re.compile(r"^  dbnet join (DB\w+)$")
CLOSED_PORT = 9  # discard: nothing listens there on loopback, the connection is refused


def host_args(replay: Path, relay: tuple[str, int]) -> list[str]:
    return [
        "host", "--port", "0", "--address", "127.0.0.1", "--relay", f"{relay[0]}:{relay[1]}",
        "--bot", "greedy", "--seed", SEED, "--turns-to-win", TURNS, "--name", "alice",
        "--replay", str(replay), "--adjourn-after", "60",
    ]  # fmt: skip


def join_args(replay: Path, invite: str, relay: tuple[str, int]) -> list[str]:
    """The joiner's relay flag only turns the relay on (the tests' environment has it
    off): the address it takes is the invite's."""
    return [
        "join", invite, "--relay", f"{relay[0]}:{relay[1]}", "--verbose", "--bot", "greedy",
        "--seed", SEED, "--name", "bob", "--replay", str(replay), "--adjourn-after", "60",
    ]  # fmt: skip


async def invite_of(host: Dbnet) -> str:
    """The invite the host printed (it prints it before it says it listens)."""
    while host.port is None:
        if host.finished.is_set():
            raise AssertionError(f"the host ended before listening:\n{host.output()}")
        await trio.sleep(0.02)
    [invite] = [m.group(1) for line in host.lines if (m := INVITE.match(line))]
    return invite


def without_direct_paths(text: str) -> str:
    """The same invite (key, secret, relay) with its direct paths replaced by one where
    nothing listens: only the relay can work."""
    invite = Invite.parse(text)
    dead = Candidate(PathKind.LAN, ipaddress.ip_address("127.0.0.1"), CLOSED_PORT)
    return Invite(invite.fingerprint, invite.secret, (dead,), invite.relay).text()


def connected_line(process: Dbnet) -> str:
    [line] = [line for line in process.lines if line.startswith("connected")][:1]
    return line


async def play_through_invite(
    tmp_path: Path,
    homes: Path,
    relay: tuple[str, int],
    *,
    direct: bool,
) -> Game:
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice", host_args(host_replay, relay)
            )
            invite = await invite_of(host)
            if not direct:
                invite = without_direct_paths(invite)
            args = join_args(joiner_replay, invite, relay)
            joiner = await Dbnet.start(nursery, "join", homes / "bob", args)
            await host.wait()
            await joiner.wait()
    return Game(host, joiner, host_replay, joiner_replay, proxy=None)  # type: ignore[arg-type]


async def test_join_with_the_invite_plays_over_the_direct_path(
    tmp_path: Path, homes: Path, real_relay: tuple[str, int]
) -> None:
    game = await play_through_invite(tmp_path, homes, real_relay, direct=True)
    assert_complete(game, command=False)
    assert game.host.saw("send your opponent this line")
    connected = r"connected to alice \([A-Z2-7-]{19}\) via direct \(LAN\)"
    assert re.fullmatch(connected, connected_line(game.joiner))
    assert game.joiner.saw("the invite lists 2 paths to the host: direct (LAN) 127.0.0.1:")
    saved = homes / "alice" / "invite.txt"  # to copy whole, where the screen wraps it
    assert game.host.saw(f"  (it is also in {saved}, to copy whole)")
    assert Invite.parse(saved.read_text().removeprefix("dbnet join ")) == Invite.parse(
        next(m.group(1) for line in game.host.lines if (m := INVITE.match(line)))
    )
    assert saved.stat().st_mode & 0o777 == 0o600  # it holds the game's secret
    assert not game.joiner.saw("path failed")


async def test_when_no_direct_path_works_the_game_goes_through_the_relay(
    tmp_path: Path, homes: Path, real_relay: tuple[str, int]
) -> None:
    game = await play_through_invite(tmp_path, homes, real_relay, direct=False)
    assert_complete(game, command=False)
    assert connected_line(game.joiner).endswith(" via relay")
    assert connected_line(game.host).endswith(" via relay")
    assert game.joiner.saw(
        f"path failed: direct (LAN) to 127.0.0.1:{CLOSED_PORT}: the connection was refused"
    )
    # the same game as over the direct path: the relay changes nothing of it
    again = tmp_path / "direct"
    again.mkdir()
    direct = await play_through_invite(again, homes, real_relay, direct=True)
    assert replay_records(direct.host_replay) == replay_records(game.host_replay)


async def test_the_relay_cut_mid_game_and_back_the_game_goes_on(
    tmp_path: Path, homes: Path, real_relay: tuple[str, int]
) -> None:
    """The relay process dies mid-game (both players lose the connection) and a new one
    starts on the same port: both find each other there again, through the same race,
    and the game ends as the uncut one, nothing lost or repeated."""
    directory = tmp_path / "relay"
    directory.mkdir()
    relay_process, port = start_relay(directory)
    relay = ("127.0.0.1", port)
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    forget_played_games(homes)
    try:
        with trio.fail_after(GAME_TIMEOUT * 2):
            async with trio.open_nursery() as nursery:
                host = await Dbnet.start(
                    nursery, "host", homes / "alice", host_args(host_replay, relay)
                )
                invite = without_direct_paths(await invite_of(host))
                args = join_args(joiner_replay, invite, relay)
                joiner = await Dbnet.start(nursery, "join", homes / "bob", args)
                while not joiner.saw("connected to alice"):
                    await trio.sleep(0.02)
                while len(joiner.lines) < 12:  # some of the game's story has been told
                    await trio.sleep(0.02)
                relay_process.kill()
                relay_process.wait(timeout=10)
                while not joiner.saw("connection lost"):
                    await trio.sleep(0.02)
                relay_process = restart_relay(directory, port)
                await host.wait()
                await joiner.wait()
    finally:
        relay_process.kill()
        relay_process.wait(timeout=10)
    game = Game(host, joiner, host_replay, joiner_replay, proxy=None)  # type: ignore[arg-type]
    assert_complete(game, command=False)
    assert sum(line.startswith("connected") for line in joiner.lines) >= 2
    assert all(line.endswith("via relay") for line in joiner.lines if line.startswith("connected"))
    uncut = tmp_path / "uncut"
    uncut.mkdir()
    reference = await play_through_invite(uncut, homes, real_relay, direct=True)
    assert replay_records(reference.host_replay) == replay_records(host_replay)


async def test_a_host_killed_and_resumed_prints_an_invite_with_the_same_secret(
    tmp_path: Path, homes: Path, real_relay: tuple[str, int]
) -> None:
    """The host dies mid-game (SIGKILL) and ``dbnet resume`` hosts again: its new invite
    has this machine's paths now and the game's own secret, so the joiner, still
    racing the first invite's paths (here the relay alone), finds it at the same relay
    token; the game is finished, and both replays verify complete and are the same."""
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT * 2):
        async with trio.open_nursery() as nursery:
            args = host_args(host_replay, real_relay)
            host = await Dbnet.start(nursery, "host", homes / "alice", args)
            first = await invite_of(host)
            args = join_args(joiner_replay, without_direct_paths(first), real_relay)
            joiner = await Dbnet.start(nursery, "join", homes / "bob", args)
            while len(joiner.lines) < 12:  # some of the game's story has been told
                await trio.sleep(0.02)
            host.kill()
            await host.wait()
            resume = ["resume", str(host_replay), "--port", "0", "--address", "127.0.0.1"]
            resume += ["--relay", f"{real_relay[0]}:{real_relay[1]}", "--bot", "greedy"]
            resume += ["--adjourn-after", "60"]
            again = await Dbnet.start(nursery, "resume", homes / "alice", resume)
            second = await invite_of(again)
            await again.wait()
            await joiner.wait()
    assert again.code == 0, again.output()
    assert joiner.code == 0, joiner.output()
    before, after = Invite.parse(first), Invite.parse(second)
    assert after.secret == before.secret
    assert after.relay == before.relay
    assert after.direct != before.direct  # another port: the paths are this run's
    assert connected_line(again).endswith(" via relay")
    game = Game(host, joiner, host_replay, joiner_replay, proxy=None)  # type: ignore[arg-type]
    host.code = 0  # the killed one's part was finished by `again`
    assert_complete(game, command=False)


def restart_relay(directory: Path, port: int) -> subprocess.Popen[bytes]:
    """The transit relay again on ``port`` of 127.0.0.1 (the one that was killed)."""
    command = ["transitrelay", f"--port=tcp:{port}:interface=127.0.0.1"]
    return subprocess.Popen(
        [sys.executable, "-m", "twisted", *command],
        cwd=directory,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def join_command(home: Path, invite: str) -> subprocess.CompletedProcess[str]:
    """``dbnet join INVITE`` as a person types it (it stops before any network use)."""
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "join", invite],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "DBNET_HOME": str(home)},
    )


def test_a_mistyped_invite_names_the_typo(tmp_path: Path) -> None:
    invite = Invite.fresh(
        "KQ3X-7ZBD-M2LA-QX4P",
        (Candidate(PathKind.LAN, ipaddress.ip_address("127.0.0.1"), 7117),),
        ("127.0.0.1", 4001),
    ).text()
    wrong = "X" if invite[20] != "X" else "Y"
    typo = invite[:20] + wrong + invite[21:]
    result = join_command(tmp_path, typo)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().endswith(
        f"the invite has a typo: its character 21 is {wrong!r}, it should be {invite[20]!r}"
    ), result.stderr


@pytest.mark.parametrize("bad", ["DB1", "DB1-!!!!"])
def test_a_broken_invite_is_one_line_and_exit_2(tmp_path: Path, bad: str) -> None:
    result = join_command(tmp_path, bad)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "invite" in result.stderr


async def test_a_wrong_host_and_a_garbage_relay_end_their_paths_not_the_program(
    tmp_path: Path, homes: Path
) -> None:
    """The invite names a key that the dbnet host at its address does not have, and a
    'relay' that answers garbage: each path ends with its reason (with --verbose), the
    joiner says when no path is left and retries, then stops with one line; the host
    is not disturbed."""
    said: list[bytes] = []

    async def garbage_relay(stream: trio.SocketStream) -> None:
        said.append(await stream.receive_some(200))
        await stream.send_all(b"garbage\n")
        await stream.aclose()

    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            serve = partial(trio.serve_tcp, garbage_relay, 0, host="127.0.0.1")
            [listener] = await nursery.start(serve)
            relay_port = listener.socket.getsockname()[1]
            args = host_args(tmp_path / "alice.dbnr", ("127.0.0.1", CLOSED_PORT))
            host = await Dbnet.start(nursery, "host", homes / "alice", args)
            real = Invite.parse(await invite_of(host))
            stranger = "KQ3X-7ZBD-M2LA-QX4P"
            invite = Invite(stranger, real.secret, real.direct, ("127.0.0.1", relay_port)).text()
            join = [
                "join", invite, "--relay", "on.example:1", "--verbose", "--bot", "greedy",
                "--name", "bob", "--adjourn-after", "2",
            ]  # fmt: skip
            joiner = await Dbnet.start(nursery, "join", homes / "bob", join)
            assert await joiner.wait() == 1, joiner.output()
            assert not host.finished.is_set()
            host.kill()
            await host.wait()
            nursery.cancel_scope.cancel()
    host_port = real.direct[0].port
    assert joiner.saw(
        f"path failed: direct (LAN) to 127.0.0.1:{host_port}: the peer there has the key "
        f"{real.fingerprint}, not the host's {stranger} that the invite names"
    ), joiner.output()
    assert joiner.saw(
        f"path failed: relay to 127.0.0.1:{relay_port}: relay 127.0.0.1:{relay_port}: answered "
        "b'garbage' instead of ok"
    ), joiner.output()
    assert joiner.saw("cannot reach the host: no path to the host worked (2 tried: see --verbose)")
    assert joiner.output().count("retrying in") >= 1
    assert said
    assert said[0].startswith(b"please relay ")
    assert "Traceback" not in joiner.output()


async def test_a_relayed_game_moves_to_a_path_punched_between_two_processes(
    tmp_path: Path, homes: Path, real_relay: tuple[str, int], stun_server: tuple[str, int]
) -> None:
    """Issue 31, items 1 and 2, with real processes: no direct path of the invite works,
    so the game starts on the real relay; each side asks the STUN server (coturn, on
    loopback) from its punching socket, and the game moves to the QUIC path they punch,
    where it ends: both replays complete and the same."""
    stun = ["--stun", f"{stun_server[0]}:{stun_server[1]}"]
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            args = [*host_args(host_replay, real_relay), *stun, "--verbose"]
            host = await Dbnet.start(nursery, "host", homes / "alice", args)
            invite = without_direct_paths(await invite_of(host))
            args = [*join_args(joiner_replay, invite, real_relay), *stun]
            joiner = await Dbnet.start(nursery, "join", homes / "bob", args)
            await host.wait()
            await joiner.wait()
    game = Game(host, joiner, host_replay, joiner_replay, proxy=None)  # type: ignore[arg-type]
    assert_complete(game, command=False)
    for side in (host, joiner):
        connected = [line for line in side.lines if line.startswith("connected")]
        assert connected[0].endswith(" via relay"), side.output()
        assert side.saw("path: direct (hole punched)"), side.output()
        assert connected[-1].endswith(" via direct (hole punched)"), side.output()
        assert not side.saw("connection lost"), side.output()
    assert host.saw("hole punching: this side's UDP socket is seen at 127.0.0.1:"), host.output()
