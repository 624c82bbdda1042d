"""The line a host prints, pasted whole into ``dbnet join``: ``dbnet join "$(cat
invite.txt)"`` (one word holding ``dbnet join DB1...``) and ``dbnet join dbnet join
DB1...`` (the words as the shell splits them) both play the game. Real processes on
loopback."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from .processes import Dbnet
from .test_invite_processes import invite_of
from .test_processes import GAME_TIMEOUT, SEED, TURNS, Game, assert_complete, forget_played_games


@pytest.mark.parametrize("form", ["one-word", "words"])
async def test_the_whole_printed_line_joins(tmp_path: Path, homes: Path, form: str) -> None:
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host_args = [
                "host", "--port", "0", "--address", "127.0.0.1", "--bot", "greedy", "--seed",
                SEED, "--turns-to-win", TURNS, "--name", "alice", "--replay", str(host_replay),
                "--adjourn-after", "60",
            ]  # fmt: skip
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args)
            token = await invite_of(host)
            line = (homes / "alice" / "invite.txt").read_text(encoding="utf-8")
            assert line == f"dbnet join {token}\n"
            # "$(cat invite.txt)" is the file without its last newline, as one word
            pasted = [line.rstrip("\n")] if form == "one-word" else line.split()
            join_args = [
                "join", *pasted, "--bot", "greedy", "--seed", SEED, "--name", "bob",
                "--replay", str(joiner_replay), "--adjourn-after", "60",
            ]  # fmt: skip
            joiner = await Dbnet.start(nursery, "join", homes / "bob", join_args)
            if await joiner.wait() != 0:
                host.kill()  # it would wait for its opponent until the time limit
            await host.wait()
    game = Game(host, joiner, host_replay, joiner_replay, proxy=None)  # type: ignore[arg-type]
    assert_complete(game, command=False)
    assert joiner.saw("connected to alice"), joiner.output()
