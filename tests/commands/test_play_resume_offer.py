"""``dbnet play --resume`` of a local game whose file ended before B's ACCEPT (the OFFER
alone): the ACCEPT written now signs the name a fresh game signs (the bot's), so it is
the very ACCEPT of the game that never stopped. Real processes."""

from __future__ import annotations

from pathlib import Path

from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.wire.bodies import AcceptBody
from dbnet.wire.entries import decode_signed_entry

from .test_play import run_play


def test_a_local_game_resumed_from_its_offer_alone_signs_the_bot_s_name(tmp_path: Path) -> None:
    args = ("--plain", "--seed", "5", "--bot", "greedy")
    done = run_play(tmp_path, *args, "--replay", "whole.dbnr", stdin="quit\n")
    assert done.returncode == 0, done.stderr
    whole = load_replay(tmp_path / "whole.dbnr")
    cut = tmp_path / "cut.dbnr"
    writer = ReplayWriter.create(cut, whole.header)
    try:
        writer.append(whole.records[0])
    finally:
        writer.close()
    done = run_play(tmp_path, *args, "--resume", str(cut), stdin="quit\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    records = load_replay(cut).records
    accept = decode_signed_entry(records[1])[1].body
    assert isinstance(accept, AcceptBody)
    assert accept.name == "greedy-bot"
    assert records[1] == whole.records[1]  # the ACCEPT of the game that never stopped
