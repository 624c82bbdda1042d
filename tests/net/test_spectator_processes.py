"""Real ``dbnet`` processes on loopback (issue 17, item 3): ``dbnet host --clock 10
--spectators 1`` and ``dbnet join`` (greedy bots) watched by ``dbnet watch
127.0.0.1:PORT --expect FP --plain``. All three exit 0, the watcher's output ends with
the winner, every replay verifies and its JSON export shows the clocks; a second
watcher is refused in one line; the invites of the two roles are not interchangeable.
Waits are bounded (a hang fails the test); nothing is sent beyond 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import trio

from dbnet.net.invite import Invite

from .processes import Dbnet, verify_command
from .test_processes import GAME_TIMEOUT, forget_played_games, until_listening

FINGERPRINT = re.compile(r"your key fingerprint is ([A-Z2-7-]+)")
WATCH_LINE = re.compile(r"dbnet watch (DB\w+)")
WINNER = re.compile(r"^(alice \(A\)|bob \(B\)) wins")
NAMES = {"A": "alice (A)", "B": "bob (B)"}


def named(result: str) -> str:
    """A player's result line (``A wins, 2 turns won to 0.``) as the watcher says it."""
    return re.sub(r"\b([AB])\b", lambda m: NAMES[m.group(1)], result)


def host_args(replay: Path) -> list[str]:
    return [
        "host", "--port", "0", "--open", "--address", "127.0.0.1", "--clock", "10",
        "--spectators", "1",
        "--bot",
        "greedy", "--plain", "--seed", "31", "--turns-to-win", "2", "--name", "alice",
        "--replay", str(replay), "--adjourn-after", "60",
    ]  # fmt: skip


def join_args(replay: Path, port: int) -> list[str]:
    return [
        "join", f"127.0.0.1:{port}", "--bot", "greedy", "--plain", "--seed", "31",
        "--name", "bob", "--replay", str(replay), "--adjourn-after", "60",
    ]  # fmt: skip


def watch_args(port: int, expect: str, replay: Path) -> list[str]:
    return ["watch", f"127.0.0.1:{port}", "--expect", expect, "--plain", "--replay", str(replay)]


def host_fingerprint(host: Dbnet) -> str:
    found = FINGERPRINT.search(host.output())
    assert found is not None, host.output()
    return found.group(1)


async def until_said(process: Dbnet, text: str) -> None:
    while not process.saw(text):
        if process.finished.is_set():
            raise AssertionError(f"{process.name} ended first:\n{process.output()}")
        await trio.sleep(0.02)


async def test_a_loopback_game_watched_by_a_spectator(tmp_path: Path, homes: Path) -> None:
    forget_played_games(homes)
    eve, carol = tmp_path / "eve", tmp_path / "carol"
    eve.mkdir()
    carol.mkdir()
    replays = {who: tmp_path / f"{who}.dbnr" for who in ("alice", "bob", "eve")}
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(replays["alice"]))
            port = await until_listening(host)
            expect = host_fingerprint(host)
            watcher = await Dbnet.start(
                nursery, "watch", eve, watch_args(port, expect, replays["eve"])
            )
            await until_said(host, " is watching via ")  # eve has the one place
            extra = await Dbnet.start(
                nursery, "watch", carol, watch_args(port, expect, tmp_path / "carol.dbnr")
            )
            assert await extra.wait() == 1, extra.output()
            wrong = await Dbnet.start(
                nursery, "watch", carol, watch_args(port, "AAAA-AAAA-AAAA-AAAA", tmp_path / "x")
            )
            assert await wrong.wait() == 1, wrong.output()
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob", join_args(replays["bob"], port)
            )
            codes = [await process.wait() for process in (host, joiner, watcher)]
            nursery.cancel_scope.cancel()
    assert codes == [0, 0, 0], "\n\n".join(p.output() for p in (host, joiner, watcher))
    # the refused watcher says which refusal, in one line
    refusals = [line for line in extra.lines if line.startswith("dbnet watch:")]
    assert len(refusals) == 1, extra.output()
    assert "the game is full" in refusals[0]
    refusals = [line for line in wrong.lines if line.startswith("dbnet watch:")]
    assert len(refusals) == 1, wrong.output()
    assert "not the expected AAAA-AAAA-AAAA-AAAA" in refusals[0]
    assert "wrong key" in refusals[0]
    # the watcher's output ends with the winner, as the players' does, by the name it signed
    assert WINNER.match(watcher.lines[-1]), watcher.output()
    [won] = [line for line in host.lines if re.match(r"[AB] wins", line)]
    assert named(won) == watcher.lines[-1], (won, watcher.output())
    assert watcher.saw("the players: alice (A), key ")
    assert watcher.saw(" against bob (B), key ")
    assert watcher.saw("alice (A): ")
    assert watcher.saw("bob (B): ")
    assert watcher.saw("every entry verified")
    for path in replays.values():
        result = verify_command(path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{path}: complete:" in result.stdout
    assert replays["eve"].read_bytes() == replays["alice"].read_bytes()
    # the JSON export shows the game's clock and every entry's signed reading
    exported = dbnet(homes / "alice", "export", str(replays["bob"]), "--format", "json")
    assert exported.returncode == 0, exported.stderr
    document = json.loads(exported.stdout)
    assert document["clock"] == {"base_ms": 600_000, "increment_ms": 0}
    readings = [e["clock"] for e in document["entries"][1:]]
    assert readings[0] == {"A": 600_000, "B": 600_000}  # the ACCEPT: no clock ran yet
    assert all(0 <= r["A"] <= 600_000 and 0 <= r["B"] <= 600_000 for r in readings)
    assert any(r["A"] < 600_000 for r in readings)  # time was charged as the game went


def dbnet(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "DBNET_HOME": str(home), "DBNET_RELAY": "off"},
    )


def test_the_invites_of_players_and_spectators_do_not_mix(tmp_path: Path, homes: Path) -> None:
    """``dbnet join`` refuses a spectator invite, ``dbnet watch`` a player's, each in one
    line (exit 2), before any connection."""
    invite = Invite.parse(
        "DB158CSM7NBFRCAYQEV4F000G40R45S0M30E209185GR38E1WA01G5804BHQTBK881800018D400GVE0J6HB"
        "7H6NWVV08R14D2PF01CP03H9PGH46BME9GPWWVHA9EGQ6TRB7D5HJTXVFE9PPGVVCCMQ68AJVRFM5MES50QY"
    )  # docs/network.md's worked example
    watch = Invite(invite.fingerprint, invite.secret, invite.direct, None, watch=True)
    joined = dbnet(homes / "bob", "join", watch.text(), "--plain")
    assert joined.returncode == 2, joined.stdout + joined.stderr
    assert joined.stderr.count("\n") == 1
    assert "spectator invite" in joined.stderr
    assert "never takes a seat" in joined.stderr
    watched = dbnet(tmp_path, "watch", invite.text(), "--plain")
    assert watched.returncode == 2, watched.stdout + watched.stderr
    assert watched.stderr.count("\n") == 1
    assert "a player's invite" in watched.stderr
