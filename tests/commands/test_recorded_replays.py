"""The recorded games in ``replays/``: each one verifies, and the script remakes them exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.codec import OfferBody
from dbnet.protocol.log import GameLog
from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus, verify_replay

from .terminal import isolated_env

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
COMMITTED = sorted(REPLAYS.glob("*.dbnr"))


def test_the_script_regenerates_every_replay_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "again"
    result = subprocess.run(
        [sys.executable, str(REPLAYS / "regenerate.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=isolated_env(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    made = sorted(out.iterdir())
    assert [p.name for p in made] == [p.name for p in COMMITTED]
    for ours, theirs in zip(COMMITTED, made, strict=True):
        assert ours.read_bytes() == theirs.read_bytes(), f"{ours.name} differs"
    assert result.stdout.splitlines() == [str(p) for p in made]


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_each_recorded_replay_is_a_complete_valid_game(path: Path) -> None:
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()


def test_the_recorded_games_cover_what_they_should() -> None:
    assert 4 <= len(COMMITTED) <= 6
    reasons, wins_needed, chains, keys = [], [], [], set()
    for path in COMMITTED:
        verdict = verify_replay(path.read_bytes(), where=str(path))
        reasons.append(verdict.reason)
        replay = load_replay(path)
        log = GameLog.start(replay.records[0])
        offer = log.decoded[0].body
        assert isinstance(offer, OfferBody)
        wins_needed.append(offer.setup.options.turns_to_win)
        chains.append(offer.chain)
        keys.add(replay.header.keys)
        assert replay.header.created == "2026-01-01T12:00:00Z"
    assert "resignation" in reasons
    assert 1 in wins_needed
    assert min(chains) < 16  # one game refills its dice chains
    assert len(keys) == len(COMMITTED)  # every game has its own players' keys
