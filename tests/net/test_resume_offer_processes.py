"""Both players stopped right after the OFFER (their replays hold it alone), then both
resume with ``dbnet resume``: the joiner's new ACCEPT signs the name a fresh game signs
(its ``--name``), so it is the very ACCEPT it would have sent, the host takes it and the
game is played to its end. Real processes on loopback."""

from __future__ import annotations

from pathlib import Path

import trio

from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.wire.bodies import AcceptBody
from dbnet.wire.entries import decode_signed_entry

from .processes import Dbnet, replay_records
from .test_invite_processes import invite_of
from .test_processes import (
    GAME_TIMEOUT,
    Game,
    assert_complete,
    forget_played_games,
    play,
)


def offer_only(source: Path, target: Path) -> None:
    """``target``: the replay ``source`` was when it held the OFFER alone."""
    replay = load_replay(source)
    writer = ReplayWriter.create(target, replay.header)
    try:
        writer.append(replay.records[0])
    finally:
        writer.close()


async def test_both_players_resume_from_replays_holding_the_offer_alone(
    tmp_path: Path, homes: Path
) -> None:
    first = await play(tmp_path, homes)
    assert_complete(first, command=False)
    original = replay_records(first.host_replay)
    host_replay, joiner_replay = tmp_path / "alice-offer.dbnr", tmp_path / "bob-offer.dbnr"
    offer_only(first.host_replay, host_replay)
    offer_only(first.joiner_replay, joiner_replay)
    forget_played_games(homes)
    with trio.fail_after(GAME_TIMEOUT):
        async with trio.open_nursery() as nursery:
            common = ["--bot", "greedy", "--adjourn-after", "60"]
            host_args = [
                "resume", str(host_replay), "--port", "0", "--address", "127.0.0.1",
                "--name", "alice", *common,
            ]  # fmt: skip
            host = await Dbnet.start(nursery, "host", homes / "alice", host_args)
            # before its ACCEPT is logged, the joiner takes its seat with the invite only
            invite = await invite_of(host)
            join_args = ["resume", str(joiner_replay), invite, "--name", "bob"]
            joiner = await Dbnet.start(nursery, "join", homes / "bob", [*join_args, *common])
            if await joiner.wait() != 0:
                host.kill()  # it would wait for its opponent until the time limit
            await host.wait()
    game = Game(host, joiner, host_replay, joiner_replay, proxy=first.proxy)
    assert_complete(game, command=False)
    records = replay_records(joiner_replay)
    accept = decode_signed_entry(records[1])[1].body
    assert isinstance(accept, AcceptBody)
    assert accept.name == "bob"
    assert records[:2] == original[:2]  # the very ACCEPT the fresh game sent
