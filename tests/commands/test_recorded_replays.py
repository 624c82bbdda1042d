"""The recorded games in ``replays/``: each one verifies, and the script remakes them exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.protocol.log import GameLog
from dbnet.replay.file import load_replay
from dbnet.replay.verify import ReplayVerifier, VerdictStatus, verify_replay
from dbnet.wire.bodies import OfferBody, PlayBody

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
    assert 4 <= len(COMMITTED) <= 10
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


def test_some_recorded_games_show_abilities_at_work() -> None:
    """Games between the example ability warbands: abilities activated, targeted, blades
    assigned, special attacks and Fortunate's rerolls rolled, all in the signed log."""
    verbs: set[str] = set()
    rolls: set[str] = set()
    with_abilities = 0
    for path in COMMITTED:
        verifier = ReplayVerifier(str(path))
        verdict = verifier.run(path.read_bytes())
        assert verdict.status is VerdictStatus.COMPLETE
        log = verifier.log
        assert log is not None
        offer = log.decoded[0].body
        assert isinstance(offer, OfferBody)
        if any(m.abilities for w in offer.setup.warbands for m in w.minis):
            with_abilities += 1
        for entry in log.decoded:
            if isinstance(entry.body, PlayBody) and entry.body.decision is not None:
                verbs.add(entry.body.decision.split()[0])
        rolls |= {roll.kind for roll in log.rolls}
    assert with_abilities >= 3
    assert {"activate", "target", "blade", "reroll"} <= verbs
    assert {"special", "reroll"} <= rolls
