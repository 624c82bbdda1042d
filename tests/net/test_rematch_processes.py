"""Rematches between real ``dbnet host`` and ``dbnet join`` processes on loopback: with
``--rematch 1`` on both sides two games are played over one connection, each its own
complete replay with its own game id; a side without ``--rematch`` declines; a ``--seed``
game refuses in one line. The chat goes on in the next game: each game's lines are kept
beside its own replay, numbered from 1, and verify against it."""

from __future__ import annotations

from pathlib import Path

import trio

from dbnet.net.watch import STAY_HINT
from dbnet.protocol.chat import chat_path, read_chat
from dbnet.protocol.log import GameLog
from dbnet.replay.file import load_replay

from .processes import Dbnet, verify_command
from .test_chat_processes import say
from .test_invite_processes import invite_of
from .test_processes import GAME_TIMEOUT, SEED, TURNS, forget_played_games, until_listening
from .test_watch_end_processes import JOIN_LINE, WATCH_LINE, invite


def host_args(replay: Path, *extra: str) -> list[str]:
    return [
        "host", "--port", "0", "--address", "127.0.0.1", "--bot", "greedy", "--plain",
        "--turns-to-win", TURNS, "--name", "alice", "--replay", str(replay),
        "--adjourn-after", "60", *extra,
    ]  # fmt: skip


def join_args(replay: Path, invite: str, *extra: str) -> list[str]:
    return [
        "join", invite, "--bot", "greedy", "--plain", "--name", "bob", "--replay", str(replay),
        "--adjourn-after", "60", *extra,
    ]  # fmt: skip


async def play(
    tmp_path: Path, homes: Path, host_extra: list[str], join_extra: list[str]
) -> tuple[Dbnet, Dbnet]:
    forget_played_games(homes)
    with trio.fail_after(2 * GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice", host_args(tmp_path / "alice.dbnr", *host_extra)
            )
            invite = await invite_of(host)
            args = join_args(tmp_path / "bob.dbnr", invite, *join_extra)
            joiner = await Dbnet.start(nursery, "join", homes / "bob", args)
            await host.wait()
            await joiner.wait()
    return host, joiner


def assert_verifies(path: Path) -> None:
    result = verify_command(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{path}: complete:" in result.stdout


async def spectated_host(
    nursery: trio.Nursery, tmp_path: Path, homes: Path, started: list[Dbnet]
) -> Dbnet:
    """alice hosting with ``--rematch 1`` and one spectator's place, listening."""
    host = await Dbnet.start(
        nursery, "host", homes / "alice",
        host_args(tmp_path / "alice.dbnr", "--rematch", "1", "--spectators", "1"),
    )  # fmt: skip
    started.append(host)
    await until_listening(host)
    return host


async def scripted_joiner(
    nursery: trio.Nursery, tmp_path: Path, homes: Path, host: Dbnet, started: list[Dbnet]
) -> Dbnet:
    """bob joining ``host`` with ``--plain --rematch 1``, its stdin a pipe (a script)."""
    joiner = await Dbnet.start(
        nursery, "join", homes / "bob",
        ["join", await invite(host, JOIN_LINE), "--plain", "--rematch", "1", "--name",
         "bob", "--replay", str(tmp_path / "bob.dbnr"), "--adjourn-after", "60"],
        stdin=True,
    )  # fmt: skip
    started.append(joiner)
    return joiner


async def staying_watcher(
    nursery: trio.Nursery, tmp_path: Path, host: Dbnet, started: list[Dbnet]
) -> Dbnet:
    """eve watching ``host`` with its spectator invite, ``--plain --stay``."""
    watcher = await Dbnet.start(
        nursery, "watch", tmp_path / "eve",
        ["watch", await invite(host, WATCH_LINE), "--plain", "--stay", "--replay",
         str(tmp_path / "eve.dbnr")],
    )  # fmt: skip
    started.append(watcher)
    return watcher


async def test_two_games_over_one_connection_with_rematch_on_both_sides(
    tmp_path: Path, homes: Path
) -> None:
    host, joiner = await play(tmp_path, homes, ["--rematch", "1"], ["--rematch", "1"])
    for process in (host, joiner):
        assert process.code == 0, process.output()
        assert process.saw("rematch: both players want another game; it starts now")
        assert sum(line.startswith("connected to") for line in process.lines) == 2
        # one game more, and no third: --rematch 1 allows one (both decline: no word)
        assert sum("rematch" in line for line in process.lines) == 1, process.output()
    assert host.saw(f"replay: {tmp_path / 'alice.dbnr'}")
    assert host.saw(f"replay: {tmp_path / 'alice-2.dbnr'}")
    assert joiner.saw(f"replay: {tmp_path / 'bob-2.dbnr'}")
    first = [tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"]
    second = [tmp_path / "alice-2.dbnr", tmp_path / "bob-2.dbnr"]
    for a, b in (first, second):
        assert a.read_bytes() == b.read_bytes()  # both sides hold the same game
        assert_verifies(a)
    ids = {load_replay(path).header.game_id for path in (first[0], second[0])}
    assert len(ids) == 2  # fresh nonces: a new game id
    assert not (tmp_path / "alice-3.dbnr").exists()


async def test_a_side_without_rematch_declines_and_both_exit_after_one_game(
    tmp_path: Path, homes: Path
) -> None:
    host, joiner = await play(tmp_path, homes, ["--rematch", "1"], [])
    assert host.code == joiner.code == 0, host.output() + joiner.output()
    assert host.saw(
        "no rematch: the opponent declines: this side plays one game (dbnet host/join "
        "--rematch N allows N more)"
    )
    assert joiner.saw("no rematch: the opponent offers one, and this side declines")
    assert sum(line.startswith("connected to") for line in host.lines) == 1
    assert not (tmp_path / "alice-2.dbnr").exists()
    assert_verifies(tmp_path / "alice.dbnr")


async def test_a_seeded_game_refuses_a_rematch_in_one_line(tmp_path: Path, homes: Path) -> None:
    host, joiner = await play(
        tmp_path, homes, ["--rematch", "1", "--seed", SEED], ["--rematch", "1", "--seed", SEED]
    )
    assert host.code == joiner.code == 0, host.output() + joiner.output()
    refusal = "a --seed game cannot be rematched: it would repeat its game id (and its dice)"
    for process in (host, joiner):
        lines = [line for line in process.lines if refusal in line]
        assert len(lines) == 1, process.output()
        assert lines[0].startswith("no rematch: ")
    assert not (tmp_path / "alice-2.dbnr").exists()


def chat_of(replay: Path) -> list[tuple[int, str]]:
    """The lines of the chat file beside ``replay``, checked against that replay's game id
    and keys: (seq, text) each."""
    log = GameLog.start(load_replay(replay).records[0])
    return [(line.seq, line.text) for line in read_chat(chat_path(replay), log.game_id, log.keys)]


async def test_a_spectator_watches_the_next_game_with_the_same_invite(
    tmp_path: Path, homes: Path
) -> None:
    """Spectators are not carried over (each game's watch ends with it), but the host of a
    series admits them to the next game with the same spectator invite. The joiner is a
    script (``--plain``, its stdin a pipe) that chats (``say``) and resigns when it reads
    a line: the second game waits for its first decision until a real ``dbnet watch`` is
    in. Each game's chat is kept beside its own replay, numbered from 1 again."""
    forget_played_games(homes)
    eve = tmp_path / "eve"
    eve.mkdir()
    started: list[Dbnet] = []
    with trio.move_on_after(GAME_TIMEOUT) as limit:
        async with trio.open_nursery() as nursery:
            host = await spectated_host(nursery, tmp_path, homes, started)
            joiner = await scripted_joiner(nursery, tmp_path, homes, host, started)
            await say(joiner, "good luck", "bob (you) says: good luck")
            await host.until_saw("bob says: good luck")
            await joiner.type_line("resign")  # the first game
            await joiner.until_saw(f"replay: {tmp_path / 'bob-2.dbnr'}")  # the second waits
            watcher = await Dbnet.start(
                nursery, "watch", eve,
                ["watch", await invite(host, WATCH_LINE), "--plain", "--replay",
                 str(tmp_path / "eve.dbnr")],
            )  # fmt: skip
            started.append(watcher)
            await watcher.until_saw("Initiative: ")  # entries of the second game, verified
            await say(joiner, "once more", "bob (you) says: once more")
            await host.until_saw("bob says: once more")
            await watcher.until_saw("bob (B) says: once more")
            await joiner.type_line("resign")
            codes = [await process.wait() for process in (host, joiner, watcher)]
    outputs = "\n\n".join(f"{p.name}:\n{p.output()}" for p in started)
    assert not limit.cancelled_caught, outputs
    assert codes == [0, 0, 0], outputs
    assert load_replay(tmp_path / "eve.dbnr").header.game_id == (
        load_replay(tmp_path / "alice-2.dbnr").header.game_id
    )
    assert (tmp_path / "eve.dbnr").read_bytes() == (tmp_path / "alice-2.dbnr").read_bytes()
    assert watcher.saw(STAY_HINT)  # without --stay: told how to stay, and leaves
    assert_verifies(tmp_path / "eve.dbnr")
    for first, second in (("alice.dbnr", "alice-2.dbnr"), ("bob.dbnr", "bob-2.dbnr")):
        assert chat_of(tmp_path / first) == [(1, "good luck")], outputs
        assert chat_of(tmp_path / second) == [(1, "once more")], outputs
        result = verify_command(tmp_path / second)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{chat_path(tmp_path / second)}: 1 chat line, each signed" in result.stdout


async def test_a_spectator_with_stay_watches_both_games_over_one_connection(
    tmp_path: Path, homes: Path
) -> None:
    """``dbnet watch --stay`` stays connected when its game ends and is shown the next game
    of the rematch: a second replay beside its first (``eve-2.dbnr``), both byte for byte
    the host's. The joiner is a script that resigns when it reads a line, so the first
    game waits for the spectator."""
    forget_played_games(homes)
    eve = tmp_path / "eve"
    eve.mkdir()
    started: list[Dbnet] = []
    with trio.move_on_after(GAME_TIMEOUT) as limit:
        async with trio.open_nursery() as nursery:
            host = await spectated_host(nursery, tmp_path, homes, started)
            joiner = await scripted_joiner(nursery, tmp_path, homes, host, started)
            watcher = await staying_watcher(nursery, tmp_path, host, started)
            await watcher.until_saw("Initiative: ")  # the first game's entries, verified
            await joiner.type_line("resign")
            await joiner.until_saw(f"replay: {tmp_path / 'bob-2.dbnr'}")
            await watcher.until_saw(f"replay: {tmp_path / 'eve-2.dbnr'}")
            await joiner.type_line("resign")
            codes = [await process.wait() for process in (host, joiner, watcher)]
    outputs = "\n\n".join(f"{p.name}:\n{p.output()}" for p in started)
    assert not limit.cancelled_caught, outputs
    assert codes == [0, 0, 0], outputs
    assert watcher.saw("the game is over; staying in case the players agree on a rematch")
    for mine, hosts in (("eve.dbnr", "alice.dbnr"), ("eve-2.dbnr", "alice-2.dbnr")):
        assert (tmp_path / mine).read_bytes() == (tmp_path / hosts).read_bytes(), outputs
        assert_verifies(tmp_path / mine)
    assert not (tmp_path / "eve-3.dbnr").exists()
    assert sum(line.startswith("every entry verified") for line in watcher.lines) == 2


async def test_a_staying_spectator_is_told_there_is_no_next_game_and_exits_0(
    tmp_path: Path, homes: Path
) -> None:
    """No rematch agreed (the joiner allows none): the host tells a staying spectator so
    (BYE, not done) and it ends with its one game, exit code 0."""
    forget_played_games(homes)
    eve = tmp_path / "eve"
    eve.mkdir()
    started: list[Dbnet] = []
    with trio.move_on_after(GAME_TIMEOUT) as limit:
        async with trio.open_nursery() as nursery:
            host = await spectated_host(nursery, tmp_path, homes, started)
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob",
                ["join", await invite(host, JOIN_LINE), "--plain", "--name", "bob",
                 "--replay", str(tmp_path / "bob.dbnr"), "--adjourn-after", "60"],
                stdin=True,
            )  # fmt: skip
            started.append(joiner)
            watcher = await staying_watcher(nursery, tmp_path, host, started)
            await watcher.until_saw("Initiative: ")
            await joiner.type_line("resign")
            codes = [await process.wait() for process in (host, joiner, watcher)]
    outputs = "\n\n".join(f"{p.name}:\n{p.output()}" for p in started)
    assert not limit.cancelled_caught, outputs
    assert codes == [0, 0, 0], outputs
    assert watcher.saw("no next game: the players play no other game over this connection")
    assert (tmp_path / "eve.dbnr").read_bytes() == (tmp_path / "alice.dbnr").read_bytes()
    assert not (tmp_path / "eve-2.dbnr").exists()


async def test_a_staying_spectator_sees_both_games_of_two_bots(tmp_path: Path, homes: Path) -> None:
    """Host and joiner are bots (``--bot greedy --plain --rematch 1``); a real ``dbnet
    watch --stay``, admitted with the host's spectator invite before the joiner comes,
    stays for both games: two replays, each byte for byte the host's."""
    forget_played_games(homes)
    eve = tmp_path / "eve"
    eve.mkdir()
    started: list[Dbnet] = []
    with trio.move_on_after(2 * GAME_TIMEOUT) as limit:
        async with trio.open_nursery() as nursery:
            host = await spectated_host(nursery, tmp_path, homes, started)
            watcher = await staying_watcher(nursery, tmp_path, host, started)
            await host.until_saw("is watching via")
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob",
                join_args(tmp_path / "bob.dbnr", await invite(host, JOIN_LINE), "--rematch", "1"),
            )  # fmt: skip
            started.append(joiner)
            codes = [await process.wait() for process in (host, joiner, watcher)]
    outputs = "\n\n".join(f"{p.name}:\n{p.output()}" for p in started)
    assert not limit.cancelled_caught, outputs
    assert codes == [0, 0, 0], outputs
    for mine, hosts in (("eve.dbnr", "alice.dbnr"), ("eve-2.dbnr", "alice-2.dbnr")):
        assert (tmp_path / mine).read_bytes() == (tmp_path / hosts).read_bytes(), outputs
        assert_verifies(tmp_path / mine)
    assert not (tmp_path / "eve-3.dbnr").exists()
    assert watcher.saw("no next game: the players play no other game over this connection")
