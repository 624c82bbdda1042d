"""Clocks in real processes on loopback: ``dbnet host --clock 10`` against ``dbnet join``,
bots on both sides. Both exit 0, both replays verify, and the JSON export shows every
entry's clock readings. Waits are bounded; nothing asserts on time beyond the readings'
own arithmetic."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import trio

from dbnet.replay.file import load_replay
from dbnet.wire.versions import DISPUTE_VERSION

from .processes import Dbnet, verify_command

GAME_TIMEOUT = 90.0  # seconds: a hang guard only


async def until_listening(process: Dbnet) -> int:
    while process.port is None:
        if process.finished.is_set():
            raise AssertionError(f"{process.name} ended before listening:\n{process.output()}")
        await trio.sleep(0.02)
    return process.port


async def test_a_loopback_game_with_a_clock(tmp_path: Path, homes: Path) -> None:
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(
                nursery, "host", homes / "alice",
                ["host", "--port", "0", "--open", "--address", "127.0.0.1", "--clock", "10",
                 "--bot", "greedy", "--plain", "--turns-to-win", "2", "--name", "alice", "--replay",
                 str(host_replay)],
            )  # fmt: skip
            port = await until_listening(host)
            joiner = await Dbnet.start(
                nursery, "join", homes / "bob",
                ["join", f"127.0.0.1:{port}", "--bot", "greedy", "--plain", "--name", "bob",
                 "--replay", str(joiner_replay)],
            )  # fmt: skip
            await host.wait()
            await joiner.wait()
    for process in (host, joiner):
        assert process.code == 0, f"{process.name} exited {process.code}:\n{process.output()}"
    assert joiner.saw("a clock of 10 min")
    assert host.saw("clocks: A ")
    for path in (host_replay, joiner_replay):
        result = verify_command(path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"{path}: complete:" in result.stdout
        assert load_replay(path).header.format == DISPUTE_VERSION  # a clocked game
    assert host_replay.read_bytes() == joiner_replay.read_bytes()
    exported = subprocess.run(
        [sys.executable, "-m", "dbnet", "export", "--format", "json", str(host_replay)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    document = json.loads(exported.stdout)
    assert document["clock"] == {"base_ms": 600_000, "increment_ms": 0}
    entries = document["entries"]
    assert entries[0]["clock"] is None  # the OFFER: the clocks start after the ACCEPT
    assert entries[1]["clock"] == {"A": 600_000, "B": 600_000}
    for entry in entries[2:]:
        clock = entry["clock"]
        assert set(clock) == {"A", "B"}
        assert 0 < clock["A"] <= 600_000
        assert 0 < clock["B"] <= 600_000
    # bots think quickly: the game took less than its clocks
    assert min(entries[-1]["clock"].values()) > 500_000
