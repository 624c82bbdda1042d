"""Who takes the seat, with real ``dbnet`` processes on loopback (issue 29, item 3; issue
30, item 6).

A host that printed an invite seats only a joiner that proves the invite's secret, on
every direct path as on the relay: the address its spectator line carries plus a plain
``dbnet join HOST:PORT --expect FP`` is refused (IPv4 and IPv6), and so is a plain
``dbnet watch HOST:PORT --expect FP`` for a spectator place; the holder of the invite
then plays the whole game. ``--open`` seats the first joiner who reaches the port, as
before. A joiner that refuses the host's OFFER leaves no replay in the host's folder.
Waits are bounded (a hang fails the test)."""

from __future__ import annotations

import re
from pathlib import Path

import trio

from .processes import Dbnet, verify_command
from .test_processes import GAME_TIMEOUT, forget_played_games, until_listening
from .test_spectator_processes import host_fingerprint

INVITE = re.compile(r"^  dbnet join (DB\w+)$")


def host_args(replay: Path, *extra: str) -> list[str]:
    return [
        "host", "--port", "0", "--address", "127.0.0.1", "--spectators", "1", "--bot",
        "greedy", "--plain", "--seed", "41", "--turns-to-win", "2", "--name", "alice",
        "--replay", str(replay), "--adjourn-after", "60", *extra,
    ]  # fmt: skip


def bot(replay: Path, *extra: str) -> list[str]:
    return [
        "--bot", "greedy", "--plain", "--seed", "41", "--name", "bob", "--replay", str(replay),
        "--adjourn-after", "5", *extra,
    ]  # fmt: skip


def one_line(process: Dbnet, prefix: str) -> str:
    assert "Traceback" not in process.output()
    lines = [line for line in process.lines if line.startswith(prefix)]
    assert len(lines) == 1, process.output()
    return lines[0]


async def test_the_spectator_line_takes_no_seat_and_no_place(tmp_path: Path, homes: Path) -> None:
    forget_played_games(homes)
    alice, bob = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    with trio.fail_after(GAME_TIMEOUT * 2):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(alice))
            port = await until_listening(host)
            fp = host_fingerprint(host)
            [invite] = [m.group(1) for line in host.lines if (m := INVITE.match(line))]
            addresses = [f"127.0.0.1:{port}"]
            if host.saw("(IPv4 and IPv6)"):
                addresses.append(f"[::1]:{port}")
            strangers = []
            for n, address in enumerate(addresses):
                home = tmp_path / f"stranger{n}"
                home.mkdir()
                args = ["join", address, "--expect", fp, *bot(tmp_path / f"s{n}.dbnr")]
                strangers.append(await Dbnet.start(nursery, "stranger", home, args))
                assert await strangers[-1].wait() == 1, strangers[-1].output()
            carol = tmp_path / "carol"
            carol.mkdir()
            watch = ["watch", f"127.0.0.1:{port}", "--expect", fp, "--plain"]
            watcher = await Dbnet.start(nursery, "watch", carol, watch)
            assert await watcher.wait() == 1, watcher.output()
            assert not host.finished.is_set()
            assert not host.saw("connected to")
            joiner = await Dbnet.start(nursery, "join", homes / "bob", ["join", invite, *bot(bob)])
            codes = [await host.wait(), await joiner.wait()]
    assert codes == [0, 0], host.output() + "\n\n" + joiner.output()
    for stranger in strangers:
        line = one_line(stranger, "dbnet: the game cannot go on:")
        assert "this host seats only the holder of its invite: use dbnet join INVITE" in line
        assert not stranger.saw("the host offers")
    assert host.output().count("refused a connection: a joiner came without proof") == len(
        strangers
    )
    line = one_line(watcher, "dbnet watch:")
    assert "this host admits only holders of its spectator invite" in line
    # the lines the host printed: each that seats or watches carries the secret
    assert not host.saw("dbnet join HOST:PORT")
    assert not host.saw("dbnet watch HOST:PORT")
    assert host.saw("on the same network the invite reaches this machine at")
    for path in (alice, bob):
        result = verify_command(path)
        assert result.returncode == 0, result.stdout + result.stderr
    assert [p.name for p in tmp_path.glob("s*.dbnr")] == []


async def test_an_open_host_seats_a_plain_join_and_a_plain_watch(
    tmp_path: Path, homes: Path
) -> None:
    """``--open``, for a LAN party or a script: the first joiner who reaches the port
    takes the seat without the invite, and a spectator watches without its invite."""
    forget_played_games(homes)
    alice, bob, eve = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr", tmp_path / "eve.dbnr"
    (tmp_path / "eve").mkdir()
    with trio.fail_after(GAME_TIMEOUT * 2):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(alice, "--open"))
            port = await until_listening(host)
            fp = host_fingerprint(host)
            watch = ["watch", f"127.0.0.1:{port}", "--expect", fp, "--plain", "--replay", str(eve)]
            watcher = await Dbnet.start(nursery, "watch", tmp_path / "eve", watch)
            while not host.saw("is watching via"):
                assert not watcher.finished.is_set(), watcher.output()
                await trio.sleep(0.02)
            args = ["join", f"127.0.0.1:{port}", "--expect", fp, *bot(bob)]
            joiner = await Dbnet.start(nursery, "join", homes / "bob", args)
            codes = [await p.wait() for p in (host, joiner, watcher)]
    assert codes == [0, 0, 0], "\n\n".join(p.output() for p in (host, joiner, watcher))
    assert host.saw(f"(or dbnet watch HOST:PORT --expect {fp}: this host is open)")
    assert eve.read_bytes() == alice.read_bytes() == bob.read_bytes()


async def test_a_joiner_that_refuses_the_offer_leaves_no_file_behind(
    tmp_path: Path, homes: Path
) -> None:
    """The joiner expects another key and refuses the host before its ACCEPT: the host
    had written its OFFER ahead (a game must resume from an OFFER-only replay) and
    removes that file, so no unfinished game shows in ``dbnet verify`` or ``dbnet
    event``; the host goes on waiting, and the next joiner plays into the same path."""
    forget_played_games(homes)
    alice, bob = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    with trio.fail_after(GAME_TIMEOUT * 2):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(alice, "--open"))
            port = await until_listening(host)
            wrong = ["join", f"127.0.0.1:{port}", "--expect", "AAAA-AAAA-AAAA-AAAA", "--bot"]
            wrong += ["greedy", "--plain", "--replay", str(tmp_path / "never.dbnr")]
            # no --seed: a fresh nonce (the refused OFFER's game id is never played again)
            refusing = await Dbnet.start(nursery, "refusing", homes / "bob", wrong)
            assert await refusing.wait() == 1, refusing.output()
            await host.until_saw("no game with this joiner")
            with trio.move_on_after(10):  # it is removed right after that line
                while alice.exists():
                    await trio.sleep(0.02)
            assert not alice.exists(), host.output()
            assert host.saw(f"the refused OFFER's replay {alice} is removed")
            assert not host.finished.is_set()
            args = ["join", f"127.0.0.1:{port}", *bot(bob)]
            joiner = await Dbnet.start(nursery, "join", homes / "bob", args)
            codes = [await host.wait(), await joiner.wait()]
    assert codes == [0, 0], host.output() + "\n\n" + joiner.output()
    assert "not the expected AAAA-AAAA-AAAA-AAAA" in one_line(refusing, "dbnet: the game")
    assert alice.read_bytes() == bob.read_bytes()
    assert not (tmp_path / "never.dbnr").exists()
