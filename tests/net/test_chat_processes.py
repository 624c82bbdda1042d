"""The players' chat (issue 30, item 14) between real ``dbnet host`` and ``dbnet join``
processes on loopback, in the line interface (``say TEXT``), watched by a real ``dbnet
watch`` admitted with the host's spectator invite. Each sees the other's lines with the
sender's name; the spectator sees both; a flood is dropped with one line and the game
completes; the chat file beside each replay verifies (``dbnet verify``) and the replays
are the same bytes. An older joiner (channel version 3, forced with
``DBNET_CHANNEL_VERSION=3``) is told in one line that chat is off and the game goes on.
Waits are bounded (a hang fails the test); nothing is sent beyond 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import trio

from dbnet.protocol.chat import chat_path

from .processes import Dbnet, verify_command
from .test_processes import GAME_TIMEOUT, forget_played_games, until_listening

JOIN_LINE = re.compile(r"dbnet join (DB\w+)")
WATCH_LINE = re.compile(r"dbnet watch (DB\w+)")


async def invite(process: Dbnet, pattern: re.Pattern[str]) -> str:
    while not (found := pattern.search(process.output())):
        if process.finished.is_set():
            raise AssertionError(f"{process.name} ended first:\n{process.output()}")
        await trio.sleep(0.02)
    return found.group(1)


async def watched_chat(
    nursery: trio.Nursery, homes: Path, eve: Path, replays: dict[str, Path], delay: int = 0
) -> tuple[Dbnet, Dbnet, Dbnet]:
    """alice hosting (its stdin a pipe; spectators ``delay`` entries behind), eve
    watching from before the game, then bob joining (``--plain``, its stdin a pipe)."""
    host = await Dbnet.start(
        nursery, "host", homes / "alice", host_args(replays["alice"], delay), stdin=True
    )
    await until_listening(host)
    watcher = await Dbnet.start(
        nursery, "watch", eve,
        ["watch", await invite(host, WATCH_LINE), "--plain", "--replay", str(replays["eve"])],
    )  # fmt: skip
    await host.until_saw("is watching via")
    joiner = await Dbnet.start(
        nursery, "join", homes / "bob",
        ["join", await invite(host, JOIN_LINE), "--plain", "--name", "bob",
         "--replay", str(replays["bob"]), "--adjourn-after", "60"],
        stdin=True,
    )  # fmt: skip
    return host, watcher, joiner


async def say(process: Dbnet, text: str, echo: str) -> None:
    """Type ``say TEXT`` until the process shows its own line (``echo``): a line said
    before the game has started is refused ("the opponent is not connected")."""
    for _ in range(100):
        refused = sum("not connected" in line for line in process.lines)
        await process.type_line(f"say {text}")
        # Typed again only once refused: a slow echo (a loaded machine) is waited for,
        # else the line would be said twice.
        for _ in range(1500):  # 30 s
            if process.saw(echo):
                return
            if sum("not connected" in line for line in process.lines) > refused:
                break
            await trio.sleep(0.02)
        else:
            break
        await trio.sleep(0.1)
    raise AssertionError(f"{process.name} never said {text!r}:\n{process.output()}")


def host_args(replay: Path, delay: int = 0) -> list[str]:
    return [
        "host", "--port", "0", "--address", "127.0.0.1", "--plain", "--name", "alice",
        "--spectators", "1", "--spectator-delay", str(delay), "--replay", str(replay),
        "--adjourn-after", "60",
    ]  # fmt: skip


async def test_players_chat_and_a_spectator_sees_it(tmp_path: Path, homes: Path) -> None:
    forget_played_games(homes)
    eve = tmp_path / "eve"
    eve.mkdir()
    replays = {who: tmp_path / f"{who}.dbnr" for who in ("alice", "bob", "eve")}
    with trio.fail_after(GAME_TIMEOUT * 2):
        async with trio.open_nursery() as nursery:
            host, watcher, joiner = await watched_chat(nursery, homes, eve, replays)
            await say(host, "good luck, bob", "alice (you) says: good luck, bob")
            await joiner.until_saw("alice says: good luck, bob")
            await joiner.type_line("say clear\x1b[2J")
            await joiner.until_saw("chat: not sent, a chat line is one line of printable text")
            await say(joiner, "thanks, alice", "bob (you) says: thanks, alice")
            await host.until_saw("bob says: thanks, alice")
            for n in range(12):  # a flood: the allowance is 5 lines in 10 s
                await joiner.type_line(f"say spam {n}")
            await joiner.until_saw("bob (you) says: spam 2")
            await joiner.until_saw("chat: not sent, at most 5 lines in 10 s")
            await host.until_saw("bob says: spam 2")
            await watcher.until_saw("bob (B) says: spam 2")
            for player in (host, joiner):  # whoever is asked first resigns
                await player.type_line("resign")
            codes = [await process.wait() for process in (host, joiner, watcher)]
    outputs = "\n\n".join(p.output() for p in (host, joiner, watcher))
    assert codes == [0, 0, 0], outputs
    assert watcher.saw("alice (A) says: good luck, bob"), outputs
    assert watcher.saw("bob (B) says: thanks, alice"), outputs
    assert not any("\x1b" in line for p in (host, joiner, watcher) for line in p.lines)
    # the flood: one line, at most the allowance through, the game completed
    assert sum("chat: not sent, at most" in line for line in joiner.lines) == 1, joiner.output()
    spam = [line for line in host.lines if "bob says: spam" in line]
    assert 3 <= len(spam) <= 4, host.output()  # 5 lines in all with "thanks"
    assert replays["alice"].read_bytes() == replays["bob"].read_bytes()
    for who, path in replays.items():
        assert chat_path(path).exists(), who
        result = verify_command(path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{chat_path(path)}: " in result.stdout, result.stdout
        assert " chat lines, each signed by its sender" in result.stdout, result.stdout


async def test_the_spectator_delay_holds_chat_back(tmp_path: Path, homes: Path) -> None:
    """With ``--spectator-delay 1000`` the spectator sees no entry until the game ends, and
    so no chat line either (a line would tell what the players see); at the end it gets
    the whole game, then the lines."""
    forget_played_games(homes)
    eve = tmp_path / "eve"
    eve.mkdir()
    replays = {who: tmp_path / f"{who}.dbnr" for who in ("alice", "bob", "eve")}
    with trio.fail_after(GAME_TIMEOUT * 2):
        async with trio.open_nursery() as nursery:
            host, watcher, joiner = await watched_chat(nursery, homes, eve, replays, 1000)
            await say(host, "good luck, bob", "alice (you) says: good luck, bob")
            await say(joiner, "thanks, alice", "bob (you) says: thanks, alice")
            await host.until_saw("bob says: thanks, alice")
            await trio.sleep(1.0)  # time enough for a line that is not held back
            assert not watcher.saw("says:"), watcher.output()
            for player in (host, joiner):
                await player.type_line("resign")
            codes = [await process.wait() for process in (host, joiner, watcher)]
    outputs = "\n\n".join(p.output() for p in (host, joiner, watcher))
    assert codes == [0, 0, 0], outputs
    said = [n for n, line in enumerate(watcher.lines) if " says: " in line]
    verified = [n for n, line in enumerate(watcher.lines) if "every entry verified" in line]
    assert len(said) == 2, watcher.output()
    assert watcher.lines[said[0]].endswith("alice (A) says: good luck, bob")
    assert watcher.lines[said[1]].endswith("bob (B) says: thanks, alice")
    assert verified, watcher.output()
    resigned = [n for n, line in enumerate(watcher.lines) if "resign" in line.lower()]
    assert resigned, watcher.output()
    assert said[0] > resigned[0], watcher.output()  # after the game, not during it


async def test_an_older_joiner_plays_on_without_chat(
    tmp_path: Path, homes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forget_played_games(homes)
    replays = {who: tmp_path / f"{who}.dbnr" for who in ("alice", "bob")}
    with trio.fail_after(GAME_TIMEOUT * 2):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice", host_args(replays["alice"]), stdin=True
            )
            await until_listening(host)
            monkeypatch.setenv("DBNET_CHANNEL_VERSION", "3")
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob",
                ["join", await invite(host, JOIN_LINE), "--plain", "--name", "bob",
                 "--replay", str(replays["bob"]), "--adjourn-after", "60", "--bot", "greedy"],
            )  # fmt: skip
            monkeypatch.delenv("DBNET_CHANNEL_VERSION")
            await host.until_saw("chat: off for this game")
            await host.type_line("say hello")
            await host.until_saw("chat: not sent, the opponent's dbnet is older")
            await host.type_line("resign")
            codes = [await process.wait() for process in (host, joiner)]
    outputs = "\n\n".join(p.output() for p in (host, joiner))
    assert codes == [0, 0], outputs
    [off] = [line for line in host.lines if "chat: off" in line]
    assert "channel version 3" in off, off
    assert "the game goes on without chat" in off, off
    assert replays["alice"].read_bytes() == replays["bob"].read_bytes()
