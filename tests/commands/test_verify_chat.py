"""``dbnet verify`` checks the players' chat file beside a replay (issue 30, item 14): the
real command on a shipped replay, with a chat file signed by its player A's key."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from dbnet.engine import Player
from dbnet.match.keys import derive
from dbnet.protocol.chat import append_chat, chat_path, sign_line
from dbnet.protocol.identity import Identity
from dbnet.replay.file import load_replay

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
GAME = REPLAYS / "04-one-turn-to-win.dbnr"
PLAYER_A = Identity.from_private_bytes(derive(b"dbnet-replays:04-one-turn-to-win", "identity A"))


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_chat_file_is_verified_and_a_forged_line_fails(tmp_path: Path) -> None:
    replay = tmp_path / "game.dbnr"
    shutil.copyfile(GAME, replay)
    game_id = load_replay(replay).header.game_id
    append_chat(chat_path(replay), sign_line(PLAYER_A, game_id, Player.A, 1, 3, "good luck"))
    result = verify(replay)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{chat_path(replay)}: 1 chat line, each signed by its sender" in result.stdout
    # A signs a line in B's name: the file no longer verifies, and the replay still does
    append_chat(chat_path(replay), sign_line(PLAYER_A, game_id, Player.B, 1, 3, "I resign"))
    result = verify(replay)
    assert result.returncode == 1, result.stdout
    assert f"{replay}: complete" in result.stdout
    assert (
        f"{chat_path(replay)}: the chat does not verify: game.dbnr.chat line 2: chat line 1 "
        "of B is not signed by B's key for this game: forged or altered"
    ) in result.stdout
    assert "Traceback" not in result.stderr
    assert replay.read_bytes() == GAME.read_bytes()
