"""SIGTERM and SIGHUP (a closed terminal, a logout) stop a network game as Ctrl-C does:
the game is saved, the line that resumes it is printed, and that line goes on with the
game. Real processes on loopback, real signals."""

from __future__ import annotations

import re
import shlex
import signal
from pathlib import Path

import pytest
import trio

from .processes import Dbnet, Proxy
from .test_processes import (
    GAME_TIMEOUT,
    Game,
    assert_complete,
    forget_played_games,
    host_args,
    join_args,
    until_listening,
)

RESUME = re.compile(r"Go on later with: (.+)$")
STOP_AT = 12  # entries: the game is under way


@pytest.mark.parametrize(
    ("victim", "number"),
    [("join", signal.SIGTERM), ("host", signal.SIGHUP)],
    ids=["joiner-SIGTERM", "host-SIGHUP"],
)
async def test_a_signal_saves_the_game_and_prints_the_line_that_resumes_it(
    tmp_path: Path, homes: Path, victim: str, number: signal.Signals
) -> None:
    host_replay, joiner_replay = tmp_path / "alice.dbnr", tmp_path / "bob.dbnr"
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args(host_replay))
            port = await until_listening(host)
            processes = {"host": host}
            signalled = trio.Event()

            def watch(entries: int) -> None:
                if entries >= STOP_AT and not signalled.is_set():
                    processes[victim].process.send_signal(number)
                    signalled.set()

            relay = Proxy(port, watch=watch)
            await nursery.start(relay.run)
            processes["join"] = await Dbnet.start(
                nursery, "join", homes / "bob", join_args(joiner_replay, relay.port)
            )
            await signalled.wait()
            stopped = processes[victim]
            assert await stopped.wait() == 128 + number, stopped.output()
            said = [line for line in stopped.lines if f"stopped by {number.name}" in line]
            assert len(said) == 1, stopped.output()
            found = RESUME.search(said[0])
            assert found, said[0]
            words = shlex.split(found.group(1).replace("[HOST:PORT]", "HOSTPORT"))
            home = homes / ("bob" if victim == "join" else "alice")
            assert words[0] == f"DBNET_HOME={home}"
            assert words[1:4] == [
                "dbnet",
                "resume",
                str(joiner_replay if victim == "join" else host_replay),
            ]
            # the printed line, with the opponent's address or this host's port
            if victim == "join":
                words[words.index("HOSTPORT")] = f"127.0.0.1:{relay.port}"
            else:
                words[words.index("HOSTPORT") : words.index("HOSTPORT") + 1] = ["--port", str(port)]
            again = await Dbnet.start(
                nursery, "again", home, [*words[2:], "--bot", "greedy", "--adjourn-after", "60"]
            )
            survivor = processes["host" if victim == "join" else "join"]
            assert await again.wait() == 0, again.output()
            assert await survivor.wait() == 0, survivor.output()
            nursery.cancel_scope.cancel()
    game = Game(processes["host"], processes["join"], host_replay, joiner_replay, relay)
    game.host.code = game.joiner.code = 0  # the stopped one's part was finished by `again`
    assert_complete(game, command=False)
