"""A spectator of a game that ends on time (issue 30, item 2): real ``dbnet host``,
``dbnet join`` and ``dbnet watch`` processes on loopback. The joiner is a person who
never answers (its stdin stays open), so its clock (3 s) runs out and the host claims the
game on time. The watcher ends as the players' replays do: exit 0, its last line naming
the end in the verifier's words (a clock claim, never a win), and its replay verifies
as the players' do. Joiner and watcher come in by the invites the host prints.
Waits are bounded (a hang fails the test)."""

from __future__ import annotations

import re
from pathlib import Path

import trio

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


async def test_a_watched_game_that_ends_by_a_clock_claim(tmp_path: Path, homes: Path) -> None:
    forget_played_games(homes)
    eve = tmp_path / "eve"
    eve.mkdir()
    replays = {who: tmp_path / f"{who}.dbnr" for who in ("alice", "bob", "eve")}
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice",
                ["host", "--port", "0", "--address", "127.0.0.1", "--clock", "0.05",
                 "--spectators", "1", "--spectator-delay", "0", "--bot", "greedy", "--plain",
                 "--name", "alice", "--replay", str(replays["alice"])],
            )  # fmt: skip
            await until_listening(host)
            watcher = await Dbnet.start(
                nursery, "watch", eve,
                ["watch", await invite(host, WATCH_LINE), "--plain", "--replay",
                 str(replays["eve"])],
            )  # fmt: skip
            while not host.saw("is watching via"):
                assert not watcher.finished.is_set(), watcher.output()
                await trio.sleep(0.02)
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob",
                ["join", await invite(host, JOIN_LINE), "--plain", "--name", "bob",
                 "--replay", str(replays["bob"])],
                stdin=True,
            )  # fmt: skip
            codes = [await process.wait() for process in (host, joiner, watcher)]
    outputs = "\n\n".join(p.output() for p in (host, joiner, watcher))
    assert codes == [0, 0, 0], outputs
    assert host.saw("the opponent's clock ran out (B): you claim the game on time"), outputs
    assert not watcher.saw("the host said the game is over, but it is not"), outputs
    assert watcher.lines[-1].startswith(
        "the game ended with a clock claim, not acknowledged by the flagged player (not a "
        "result): A says B's clock ran out before B's entry "
    ), outputs
    assert not any("won" in line for line in watcher.lines[-3:])
    verdicts = []
    for path in replays.values():
        result = verify_command(path)
        assert result.returncode == 1, result.stdout  # a claim: no verified result
        verdicts.append(result.stdout.split(": ", 1)[1])
    assert verdicts[0] == verdicts[1] == verdicts[2], verdicts  # the same end, three copies
    assert replays["eve"].read_bytes()[8:] != b""
