"""Two real ``dbnet`` processes (bots) on loopback: a whole game, connections cut at more
than twenty points (mid-frame and mid-roll among them) by a proxy between them, and a
process killed with SIGKILL and resumed with ``dbnet resume``.

Both players' identities are fixed keys and both bots play with ``--seed``, so a game
cut anywhere must end exactly as the uninterrupted one: the same entries, the same
final state. Waits are bounded (a hang fails the test); nothing asserts on time.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives import serialization

from dbnet.engine import ChanceRequest
from dbnet.net.hosting import reachable_addresses, with_port
from dbnet.net.played import PLAYED_GAMES_FILE
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog
from dbnet.protocol.peer import RULES_VERSION
from dbnet.replay.file import ReplayWriter
from dbnet.replay.verify import VerdictStatus, verify_replay
from dbnet.wire.replay_header import ReplayHeader

from .helpers import Meter
from .processes import Dbnet, Proxy, final_state, replay_records, verify_command

GAME_TIMEOUT = 60.0  # seconds: a hang guard only (a game takes one or two)
TURNS = "2"
SEED = "11"
CUTS = 22


@dataclass
class Game:
    host: Dbnet
    joiner: Dbnet
    host_replay: Path
    joiner_replay: Path
    proxy: Proxy


def host_args(replay: Path, port: int = 0) -> list[str]:
    return [
        "host", "--port", str(port), "--open", "--bot", "greedy", "--seed", SEED,
        "--turns-to-win", TURNS, "--name", "alice", "--replay", str(replay),
        "--adjourn-after", "60",
    ]  # fmt: skip


def join_args(replay: Path, port: int) -> list[str]:
    return [
        "join", f"127.0.0.1:{port}", "--bot", "greedy", "--seed", SEED, "--name", "bob",
        "--replay", str(replay), "--adjourn-after", "60",
    ]  # fmt: skip


async def until_listening(process: Dbnet) -> int:
    while process.port is None:
        if process.finished.is_set():
            raise AssertionError(f"{process.name} ended before listening:\n{process.output()}")
        await trio.sleep(0.02)
    return process.port


async def play(
    tmp_path: Path,
    homes: Path,
    plans: list[Meter] | None = None,
    *,
    forget: bool = True,
    **proxy: object,
) -> Game:
    """A host and a joiner process, the joiner connecting through a ``Proxy``; returns
    once both have exited. With ``forget``, the homes' played games are forgotten first,
    so the seeded game can be played again."""
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    if forget:
        forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(host_replay))
            relay = Proxy(await until_listening(host), plans or [], **proxy)  # type: ignore[arg-type]
            await nursery.start(relay.run)
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob", join_args(joiner_replay, relay.port)
            )
            await host.wait()
            await joiner.wait()
            nursery.cancel_scope.cancel()
    return Game(host, joiner, host_replay, joiner_replay, relay)


def forget_played_games(homes: Path) -> None:
    """Let the seeded game be played again in these homes: each test here replays the
    same game on purpose (``--seed``), which dbnet otherwise refuses (a repeated game id
    would repeat its dice; ``test_a_repeated_game_id_is_refused_by_both_sides``)."""
    for who in ("alice", "bob"):
        (homes / who / PLAYED_GAMES_FILE).unlink(missing_ok=True)


def assert_complete(game: Game, *, command: bool = True) -> None:
    """Both exited 0 after a complete game; both replays verify complete (with ``dbnet
    verify``, or its function when ``command`` is false, to save a process) and are the
    same, byte for byte."""
    for process in (game.host, game.joiner):
        assert process.code == 0, f"{process.name} exited {process.code}:\n{process.output()}"
    for path in (game.host_replay, game.joiner_replay):
        if command:
            result = verify_command(path)
            assert result.returncode == 0, result.stdout + result.stderr
            assert f"{path}: complete:" in result.stdout
        else:
            verdict = verify_replay(path.read_bytes(), where=str(path))
            assert verdict.status is VerdictStatus.COMPLETE, verdict
    assert game.host_replay.read_bytes() == game.joiner_replay.read_bytes()


_REFERENCE: dict[Path, list[bytes]] = {}


async def reference(tmp_path: Path, homes: Path) -> list[bytes]:
    """The records of the uninterrupted game (played once per module)."""
    if homes not in _REFERENCE:
        where = tmp_path / "reference"
        where.mkdir()
        game = await play(where, homes)
        assert_complete(game)
        _REFERENCE[homes] = replay_records(game.host_replay)
    return _REFERENCE[homes]


def cut_points(records: list[bytes]) -> list[tuple[int, int]]:
    """``CUTS`` distinct places to cut the first connection: (entry, bytes into its
    frame; 0 is just before it). The OFFER and the ACCEPT; the other player's link
    right after up to eight arming entries (during the roll), before or inside its
    frame; and points spread over the rest of the game, mostly mid-frame."""
    log = GameLog.start(records[0])
    during_rolls: list[int] = []
    for seq, record in enumerate(records[1:], 1):
        log.append(record)
        if isinstance(log.game.pending, ChanceRequest) and seq + 1 < len(records):
            during_rolls.append(seq + 1)
    points = [(0, 40), (1, 77)]
    step = max(len(during_rolls) // 8, 1)
    for i, seq in enumerate(during_rolls[::step][:8]):
        points.append((seq, 0 if i % 2 else 90))
    taken = {seq for seq, _ in points}
    spread = [seq for seq in range(2, len(records)) if seq not in taken]
    want = CUTS - len(points)
    for i in range(want):
        seq = spread[i * len(spread) // want]
        points.append((seq, 0 if i % 3 == 0 else 13 + 29 * i))
    return points


# --- a whole game ----------------------------------------------------------------------------


async def test_two_processes_play_a_complete_game(tmp_path: Path, homes: Path) -> None:
    game = await play(tmp_path, homes)
    assert_complete(game)
    records = replay_records(game.host_replay)
    assert len(records) > 30
    # the host printed addresses to give out, the port, and its fingerprint
    assert game.host.saw("hosting; your key fingerprint is ")
    assert game.host.saw("  dbnet join DB1")  # the invite (test_invite_processes.py)
    port = game.proxy.target
    for address in reachable_addresses():  # this machine's own, not loopback
        assert game.host.saw(f"  {with_port(address, port)}"), game.host.output()
    assert not game.host.saw(f"0.0.0.0:{port}")
    assert not game.host.saw(f"127.0.0.1:{port}")
    assert game.host.saw(f"listening on port {game.proxy.target} (")
    assert game.joiner.saw("the host offers: ")
    assert game.host.saw(f"replay: {game.host_replay}")
    assert game.proxy.meters[0].entries == len(records)  # each entry crossed once
    assert len(game.proxy.meters) == 1


async def test_a_repeated_game_id_is_refused_by_both_sides(tmp_path: Path, homes: Path) -> None:
    """Issue 19, hole 1: the same two players and the same ``--seed`` on both sides make
    the same game id again; its dice would be the first game's, so the host refuses it
    before sending the OFFER and tells the joiner, who stops with one line and exit 1;
    the host writes no replay of it and waits on for another opponent."""
    (tmp_path / "first").mkdir()
    first = await play(tmp_path / "first", homes)
    assert_complete(first, command=False)
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(host_replay))
            port = await until_listening(host)
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob", join_args(joiner_replay, port)
            )
            assert await joiner.wait() == 1, joiner.output()
            while not host.saw("still waiting"):
                await trio.sleep(0.05)
            assert not host.finished.is_set()  # a refused joiner does not end the host's wait
            host.kill()
    assert host.saw("was played here before: refusing it"), host.output()
    assert joiner.saw("this game id was played before"), joiner.output()
    assert "Traceback" not in host.output() + joiner.output()
    assert not host_replay.exists()
    assert not joiner_replay.exists()


async def test_the_cut_points_cover_the_game(tmp_path: Path, homes: Path) -> None:
    records = await reference(tmp_path, homes)
    points = cut_points(records)
    entries = {seq for seq, _ in points}
    assert len(entries) == len(points) >= 20
    assert sum(into > 0 for _, into in points) >= 10  # mid-frame
    log = GameLog.start(records[0])
    armed = set()
    for seq, record in enumerate(records[1:], 1):
        log.append(record)
        if isinstance(log.game.pending, ChanceRequest):
            armed.add(seq + 1)
    assert len(entries & armed) >= 4  # between an arming entry and the other's link


@pytest.mark.parametrize("case", range(CUTS))
async def test_a_cut_connection_resumes_the_same_game(
    tmp_path: Path, homes: Path, case: int
) -> None:
    """The proxy cuts the first connection at one of the cut points; the joiner
    reconnects, the game resumes and ends exactly as the uninterrupted one."""
    expected = await reference(tmp_path, homes)
    seq, into = cut_points(expected)[case]
    game = await play(tmp_path, homes, [Meter(entry=seq, into=into)])
    assert game.proxy.meters[0].cut, f"entry {seq} never crossed the proxy"
    assert len(game.proxy.meters) >= 2, "the joiner never reconnected"
    assert_complete(game, command=False)
    assert replay_records(game.host_replay) == expected
    assert final_state(game.host_replay) == final_state(game.joiner_replay)
    assert game.joiner.saw("connection lost") or game.joiner.saw("connection failed")


# --- a crash --------------------------------------------------------------------------------


@pytest.mark.parametrize("victim", ["join", "host"])
async def test_a_killed_process_resumes_with_dbnet_resume(
    tmp_path: Path, homes: Path, victim: str
) -> None:
    """SIGKILL one player in the middle of the game, then ``dbnet resume`` its replay
    (the joiner with the host's address; the host listening on its port again): the
    game is finished and both replays verify complete and are the same."""
    expected = await reference(tmp_path, homes)
    kill_at = len(expected) // 2
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(host_replay))
            port = await until_listening(host)
            processes = {"host": host}

            def watch(entries: int) -> None:
                if entries >= kill_at and not killed.is_set():
                    processes[victim].kill()
                    killed.set()

            killed = trio.Event()
            relay = Proxy(port, watch=watch)
            await nursery.start(relay.run)
            processes["join"] = await Dbnet.start(
                nursery, "join", homes / "bob", join_args(joiner_replay, relay.port)
            )
            await killed.wait()
            dead = processes[victim]
            assert await dead.wait() == -9
            if victim == "join":
                args = ["resume", str(joiner_replay), f"127.0.0.1:{relay.port}"]
            else:
                args = ["resume", str(host_replay), "--port", str(port)]
            home = homes / ("bob" if victim == "join" else "alice")
            again = await Dbnet.start(
                nursery, "again", home, [*args, "--bot", "greedy", "--adjourn-after", "60"]
            )
            survivor = processes["host" if victim == "join" else "join"]
            assert await again.wait() == 0, again.output()
            assert await survivor.wait() == 0, survivor.output()
            nursery.cancel_scope.cancel()
    assert again.saw("resuming as ")
    game = Game(processes["host"], processes["join"], host_replay, joiner_replay, relay)
    game.host.code = game.joiner.code = 0  # the killed one's part was finished by `again`
    assert_complete(game)
    records = replay_records(host_replay)
    assert records[:kill_at] == expected[:kill_at]  # the game before the crash, unchanged


# --- no game -----------------------------------------------------------------------------------


async def test_a_joiner_that_never_reaches_its_host_stops_with_one_line(
    tmp_path: Path, homes: Path
) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            joiner = await Dbnet.start(
                nursery,
                "join",
                homes / "bob",
                ["join", f"127.0.0.1:{port}", "--bot", "greedy", "--adjourn-after", "1"],
            )
            assert await joiner.wait() == 1
    assert joiner.saw(
        "cannot reach the host: the connection was refused: nothing listens at that address "
        "and port; retrying in 0.25 s"
    )
    assert joiner.lines[-1] == "dbnet: the host could not be reached; no game was started"
    assert "Traceback" not in joiner.output()


async def test_resuming_a_missing_replay_is_one_clear_line(tmp_path: Path, homes: Path) -> None:
    missing = tmp_path / "nowhere.dbnr"
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            again = await Dbnet.start(
                nursery, "resume", homes / "bob", ["resume", str(missing), "127.0.0.1:9"]
            )
            assert await again.wait() == 2
    assert again.lines == [
        f"dbnet resume: {missing}: cannot open the file: No such file or directory"
    ]


# --- a replay that holds no entry (the disk filled before the OFFER fitted) ----------------------


def header_only(path: Path, homes: Path, who: str) -> Path:
    """A replay of ``who``'s holding only its header, as a full disk leaves one."""
    pem = (homes / who / "identity.key").read_bytes()
    key = serialization.load_pem_private_key(pem, None).public_key()
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    header = ReplayHeader(
        rules=RULES_VERSION,
        game_id=bytes(32),
        keys=(raw, Identity.from_private_bytes(bytes([9]) * 32).public_key),
        created="2026-01-01T00:00:00Z",
    )
    ReplayWriter.create(path, header).close()
    return path


async def test_a_replay_without_entries_is_replaced_by_a_new_game(
    tmp_path: Path, homes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--replay PATH`` naming a replay of ours that holds no entry starts the game there."""
    monkeypatch.setenv("DBNET_RELAY", "off")
    monkeypatch.setenv("DBNET_PORT_MAPPING", "off")
    header_only(tmp_path / "alice.dbnr", homes, "alice")
    header_only(tmp_path / "bob.dbnr", homes, "bob")
    game = await play(tmp_path, homes)
    assert_complete(game)


async def test_resuming_a_replay_without_entries_says_the_game_never_started(
    tmp_path: Path, homes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DBNET_RELAY", "off")
    monkeypatch.setenv("DBNET_PORT_MAPPING", "off")
    path = header_only(tmp_path / "empty.dbnr", homes, "bob")
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            again = await Dbnet.start(
                nursery, "resume", homes / "bob", ["resume", str(path), "127.0.0.1:9"]
            )
            assert await again.wait() == 2
    assert again.lines == [
        f"dbnet resume: {path}: the game never started (the file holds no entry, only its "
        "header): there is nothing to resume. Delete the file, or start a new game with "
        "--replay naming it"
    ]
    assert path.exists()
