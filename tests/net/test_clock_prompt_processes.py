"""The line interface of a network game: both clocks at every prompt of a timed game, from
the first turn, a warning when a clock is under a minute, and 'help' with the step's
rules. Real processes on loopback: a person hosting at the line interface (its stdin a
pipe) against a bot."""

from __future__ import annotations

import re
from pathlib import Path

import trio

from .processes import Dbnet
from .test_clock_processes import until_listening

GAME_TIMEOUT = 30.0  # seconds: a hang guard only
CLOCKS = re.compile(r"^clocks: A (\d+:\d\d(?:\.\d)?)  B (\d+:\d\d(?:\.\d)?)")


async def shown(host: Dbnet, count: int) -> None:
    """Wait until ``count`` clock lines were shown (a prompt each)."""
    while len([line for line in host.lines if CLOCKS.match(line)]) < count:
        if host.finished.is_set():
            raise AssertionError(f"the host ended:\n{host.output()}")
        await trio.sleep(0.05)


async def test_the_clocks_show_at_every_prompt_and_warn_under_a_minute(
    tmp_path: Path, homes: Path
) -> None:
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice",
                ["host", "--open", "--port", "0", "--address", "127.0.0.1", "--clock", "0.95",
                 "--plain",
                 "--turns-to-win", "2", "--name", "alice", "--replay", str(tmp_path / "a.dbnr")],
                stdin=True,
            )  # fmt: skip
            port = await until_listening(host)
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob",
                ["join", f"127.0.0.1:{port}", "--bot", "greedy", "--plain", "--name", "bob",
                 "--replay", str(tmp_path / "b.dbnr")],
            )  # fmt: skip
            await shown(host, 1)
            await host.type_line("help")  # the step's rules, then its choices
            await host.until_saw("Spawn phase: spend spawn points")
            await host.type_line("done")  # ends the spawn phase: the next prompt, turn 1
            await shown(host, 2)
            await host.type_line("resign")
            assert await host.wait() == 0, host.output()
            assert await joiner.wait() == 0, joiner.output()
    out = host.lines
    clocks = [i for i, line in enumerate(out) if CLOCKS.match(line)]
    turns = [i for i, line in enumerate(out) if line.strip().startswith("Turn 1 ")]
    assert clocks, host.output()
    assert not turns or clocks[0] < turns[0], "the clocks came only at the end of turn 1"
    warnings = [line for line in out if line.startswith("warning: ")]
    assert sorted(warnings, key=lambda w: "opponent" in w) == [
        *[w for w in warnings if "your clock (A)" in w],
        *[w for w in warnings if "opponent's clock (B)" in w],
    ]
    assert len(warnings) == 2, warnings  # once each player, not at every prompt
    assert any(
        re.fullmatch(r"warning: your clock \(A\) is under a minute: 0:5\d left", w)
        for w in warnings
    )
