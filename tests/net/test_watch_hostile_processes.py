"""A host that shows a spectator someone else's game as its own (issue 29, item 2): a
real ``dbnet watch`` process against a hostile host process on loopback
(``hostile_host.py``: the real channel with its own key, a genuine replay of two other
keys, a made-up game id in its HELLO). The spectator checks that the key it
authenticated plays a seat of the OFFER and that the game id it was greeted with is the
OFFER's: else one line, exit 1, no replay saved. The same through a spectator invite.
The same script showing its own game under its own id is watched to the end (the
control: the refusals come from the checks, not from the script)."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from dbnet.match.keys import derive
from dbnet.net.invite import Candidate, Invite, PathKind
from dbnet.protocol.chat import chat_path
from dbnet.protocol.identity import Identity
from dbnet.replay.file import load_replay

from .processes import Dbnet

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
GAME = REPLAYS / "04-one-turn-to-win.dbnr"  # a genuine game between two keys of its own
PLAYER_A = derive(b"dbnet-replays:04-one-turn-to-win", "identity A")  # its private key
MALLORY = bytes(range(64, 96))  # the private key of helpers.MALLORY
SCRIPT = Path(__file__).with_name("hostile_host.py")
MADE_UP = bytes(range(32))
WATCH_SECRET = bytes(range(40, 56))
LIMIT = 120.0  # seconds, for both processes


async def watch_the_show(
    tmp_path: Path, key: bytes, game_id: bytes, *, invite: bool, chat: bool = False
) -> tuple[Dbnet, Dbnet, Path]:
    """The hostile host (the private ``key``, naming ``game_id``) and ``dbnet watch`` of it, with
    the host's spectator invite or with ``HOST:PORT --expect``; both have ended."""
    replay = tmp_path / "watched.dbnr"
    home = tmp_path / "eve"
    home.mkdir()
    identity = Identity.from_private_bytes(key)
    args = [str(SCRIPT), key.hex(), str(GAME), game_id.hex()]
    if invite:
        args.append(WATCH_SECRET.hex())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "HOSTILE_CHAT": str(int(chat))}
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            process = await trio.lowlevel.open_process(
                [sys.executable, *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=env,
            )
            host = Dbnet(process, "hostile host")
            nursery.start_soon(host._read)
            await host.listening.wait()
            assert host.port is not None
            if invite:
                where = Candidate(PathKind.LAN, ipaddress.ip_address("127.0.0.1"), host.port)
                line = Invite(identity.fingerprint, WATCH_SECRET, (where,), None, watch=True)
                target = [line.text()]
            else:
                target = [f"127.0.0.1:{host.port}", "--expect", identity.fingerprint]
            command = ["watch", *target, "--plain", "--replay", str(replay)]
            watcher = await Dbnet.start(nursery, "watch", home, command)
            await watcher.wait()
            await host.wait()
    return host, watcher, replay


def refusal(watcher: Dbnet) -> str:
    assert watcher.code == 1, watcher.output()
    assert "Traceback" not in watcher.output()
    lines = [line for line in watcher.lines if line.startswith("dbnet watch:")]
    assert len(lines) == 1, watcher.output()
    return lines[0]


@pytest.mark.parametrize("invite", [False, True], ids=["expect", "invite"])
async def test_a_host_showing_another_pairs_game_is_refused(tmp_path: Path, invite: bool) -> None:
    host, watcher, replay = await watch_the_show(tmp_path, MALLORY, MADE_UP, invite=invite)
    line = refusal(watcher)
    assert "which it does not play" in line
    assert Identity.from_private_bytes(MALLORY).fingerprint in line
    assert not watcher.saw("wins")
    assert not replay.exists()  # nothing saved as if it were the host's game
    assert host.saw("listening on port")


async def test_another_pairs_game_under_its_own_id_is_refused_too(tmp_path: Path) -> None:
    game_id = load_replay(GAME).header.game_id
    _, watcher, replay = await watch_the_show(tmp_path, MALLORY, game_id, invite=False)
    assert "which it does not play" in refusal(watcher)
    assert not replay.exists()


@pytest.mark.parametrize("invite", [False, True], ids=["expect", "invite"])
async def test_a_players_own_game_under_a_made_up_id_is_refused(
    tmp_path: Path, invite: bool
) -> None:
    _, watcher, replay = await watch_the_show(tmp_path, PLAYER_A, MADE_UP, invite=invite)
    line = refusal(watcher)
    assert f"the host's HELLO named the game {MADE_UP.hex()[:16]}" in line
    assert not replay.exists()


async def test_a_players_own_game_under_its_own_id_is_watched(tmp_path: Path) -> None:
    game_id = load_replay(GAME).header.game_id
    _, watcher, replay = await watch_the_show(tmp_path, PLAYER_A, game_id, invite=True)
    assert watcher.code == 0, watcher.output()
    assert watcher.saw("every entry verified")
    assert load_replay(replay).records == load_replay(GAME).records


async def test_a_chat_line_the_host_forged_in_its_opponents_name_is_refused(
    tmp_path: Path,
) -> None:
    """Issue 30, item 14: the host relays the players' chat lines to its spectators, each
    signed by its sender; a line it signed itself in B's name is refused in one line, its
    own line is shown (and kept beside the watcher's replay), and the watch goes on."""
    game_id = load_replay(GAME).header.game_id
    _, watcher, replay = await watch_the_show(tmp_path, PLAYER_A, game_id, invite=True, chat=True)
    assert watcher.code == 0, watcher.output()
    assert watcher.saw("(A) says: my own line"), watcher.output()
    refused = [line for line in watcher.lines if line.startswith("chat: a line is refused")]
    assert len(refused) == 1, watcher.output()
    assert "chat line 1 of B is not signed by B's key for this game" in refused[0]
    assert not watcher.saw("admit")
    assert watcher.saw("every entry verified")
    assert chat_path(replay).read_text().count("\n") == 1  # the genuine line only
