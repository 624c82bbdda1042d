"""Format versions, and the verdict on a game whose loser withholds the result.

Replay formats 1 (protocol 1: A's nonce alone in the game id) and 2 (protocol 2: no
signed names) are still verified: the replays shipped before versions 2 and 3 are kept
in ``fixtures/v1`` and ``fixtures/v2`` as they were recorded.
Issue 19, hole 4: a finished game whose FINAL or COSIGN is withheld verifies as
*decided* by re-simulation, so withholding a signature gains the loser nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.engine import Options, Player
from dbnet.match.peers import LocalMatch
from dbnet.protocol.log import Status
from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus, verify_replay
from dbnet.wire.replay_header import encode_replay_header
from dbnet.wire.values import decode, encode
from dbnet.wire.versions import REPLAY_FORMAT

from .helpers import chooser, header_for, new_match, play, write_replay

FIXTURES = Path(__file__).parent / "fixtures"
V1_REPLAYS = sorted((FIXTURES / "v1").glob("*.dbnr"))
V2_REPLAYS = sorted((FIXTURES / "v2").glob("*.dbnr"))
SHIPPED = sorted((Path(__file__).parents[2] / "replays").glob("*.dbnr"))


def dbnet(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dbnet", *args], capture_output=True, text=True, check=False
    )


def test_the_version_1_fixtures_are_the_eight_games_shipped_before_version_2() -> None:
    assert len(V1_REPLAYS) == 8
    assert [p.name for p in V1_REPLAYS] == [p.name for p in SHIPPED]


@pytest.mark.parametrize("path", V1_REPLAYS, ids=lambda p: p.stem)
def test_a_version_1_replay_still_verifies_complete(path: Path) -> None:
    replay = load_replay(path)
    assert (replay.header.format, replay.header.protocol) == (1, 1)
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()


def test_the_version_2_fixtures_are_the_eight_games_shipped_before_version_3() -> None:
    assert [p.name for p in V2_REPLAYS] == [p.name for p in SHIPPED]


@pytest.mark.parametrize("path", V2_REPLAYS, ids=lambda p: p.stem)
def test_a_version_2_replay_still_verifies_complete(path: Path) -> None:
    replay = load_replay(path)
    assert (replay.header.format, replay.header.protocol) == (2, 2)
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.COMPLETE, verdict.summary()


def test_the_shipped_replays_are_version_3_and_play_the_version_2_games_again() -> None:
    """Version 3 adds the signed names and nothing else: the same keys, nonces and bots
    give the same game id, dice and end as the version-2 recording of each game."""
    for path, old in zip(SHIPPED, V2_REPLAYS, strict=True):
        header = load_replay(path).header
        assert (header.format, header.protocol) == (REPLAY_FORMAT, 3) == (3, 3)
        assert header.game_id == load_replay(old).header.game_id
        new = verify_replay(path.read_bytes(), where=path.name)
        before = verify_replay(old.read_bytes(), where=old.name)
        assert (new.entries, new.winner, new.reason, new.turn) == (
            before.entries,
            before.winner,
            before.reason,
            before.turn,
        )


def test_dbnet_verify_takes_every_version_in_one_run() -> None:
    result = dbnet("verify", str(FIXTURES / "v1"), str(FIXTURES / "v2"), *map(str, SHIPPED))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "24 files: 24 complete" in result.stdout


def test_an_unknown_format_is_named(tmp_path: Path) -> None:
    data = bytearray(SHIPPED[0].read_bytes())
    header = encode_replay_header(load_replay(SHIPPED[0]).header)
    at = data.index(header)
    fields = decode(header)
    assert isinstance(fields, dict)
    fields["format"] = 5
    changed = encode(fields)
    assert len(changed) == len(header)
    data[at : at + len(header)] = changed
    path = tmp_path / "future.dbnr"
    path.write_bytes(bytes(data))
    result = dbnet("verify", str(path))
    assert result.returncode == 1
    said = result.stdout + result.stderr
    assert "unsupported replay format 5 (this dbnet reads 1, 2, 3, 4)" in said
    assert "Traceback" not in result.stderr


# --- hole 4: the loser withholds FINAL or COSIGN ------------------------------------------------


def finished(seed: int) -> LocalMatch:
    """A one-turn game played until its last move (FINAL is due, not written)."""
    match = new_match(Options(turns_to_win=1))
    play(match, chooser(("greedy", "random"), seed), lambda m: _status(m) is Status.FINAL_DUE)
    return match


def _status(match: LocalMatch) -> Status:
    return match.peers[Player.A].log.status


@pytest.mark.parametrize("withheld", ["final", "cosign"])
def test_a_withheld_signature_still_verifies_as_the_winners_game(
    tmp_path: Path, withheld: str
) -> None:
    match = finished(3)
    log = match.peers[Player.A].log
    if withheld == "cosign":
        match.step(chooser(("greedy", "random"), 3))  # FINAL, by the last move's author
        assert log.status is Status.COSIGN_DUE
    winner = log.game.winner
    assert winner is not None
    path = tmp_path / "withheld.dbnr"
    write_replay(path, header_for(log), match.records)
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.DECIDED, verdict.summary()
    assert verdict.ok
    assert verdict.winner == winner.name
    assert verdict.owed is not None
    assert verdict.owed.what == withheld
    assert "derived by re-simulation; not counter-signed" in verdict.summary()
    result = dbnet("verify", str(path))
    assert result.returncode == 0, result.stdout
    assert f"decided: {winner.name} won by" in result.stdout


def test_a_claim_after_the_game_is_over_changes_nothing(tmp_path: Path) -> None:
    """The winner, left waiting for the loser's COSIGN, records a timeout claim: the
    verdict is still the game's result, not a unilateral claim."""
    match = finished(4)
    log = match.peers[Player.A].log
    match.step(chooser(("greedy", "random"), 4))  # FINAL
    waiting = match.peers[log.final_author] if log.final_author is not None else None
    assert waiting is not None
    claim = waiting.claim_timeout()
    path = tmp_path / "claimed.dbnr"
    write_replay(path, header_for(log), [*match.records, claim])
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.DECIDED, verdict.summary()
    winner = log.game.winner
    assert winner is not None
    assert verdict.winner == winner.name


def test_an_unfinished_game_with_a_claim_is_labelled_unilateral(tmp_path: Path) -> None:
    match = new_match(Options(turns_to_win=1))
    play(match, chooser(("greedy", "random"), 5), lambda m: len(m.records) >= 6)
    log = match.peers[Player.A].log
    owes = log.expected_author()
    assert owes is not None
    claim = match.peers[owes.other].claim_timeout()
    path = tmp_path / "claim.dbnr"
    write_replay(path, header_for(log), [*match.records, claim])
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.CLAIM
    assert not verdict.ok
    assert verdict.summary().startswith(
        f"unilateral claim by {owes.other.name} (not a result; unverifiable): "
        f"{owes.other.name} says {owes.name}, who owed entry 6"
    )


V3_CLOCK_CLAIMS = sorted((FIXTURES / "v3").glob("clock-claim-*.dbnr"))


@pytest.mark.parametrize("path", V3_CLOCK_CLAIMS, ids=lambda p: p.stem)
def test_a_version_3_clock_claim_reads_as_a_claim_never_a_win(path: Path) -> None:
    """Version 3 has no DISPUTE: a clock claim of a version-3 file is read as every claim
    alone is from version 4 on, "not acknowledged by the flagged player", and names no
    winner (issue 29 item 4). ``owed`` is the entry the claim waited for and the flagged
    player who owed it: the late entry 5 in ``clock-claim-late`` (issue 29 item 8)."""
    replay = load_replay(path)
    assert (replay.header.format, replay.header.protocol) == (3, 3)
    verdict = verify_replay(path.read_bytes(), where=path.name)
    assert verdict.status is VerdictStatus.CLAIM, verdict.summary()
    assert (verdict.reason, verdict.claimant, verdict.winner) == ("clock", "A", None)
    assert (verdict.claim_reading, verdict.dispute_reading) == ((60_000, 0), None)
    assert verdict.summary() == (
        "clock claim, not acknowledged by the flagged player (not a result): A says B's "
        "clock ran out before B's entry 5, turn 1 (A's signed reading: A 1:00, B 0:00.0)"
    )
    assert verdict.owed is not None
    assert (verdict.owed.player, verdict.owed.seq, verdict.flagged_at) == ("B", 5, 5)
    assert verdict.owed.describe() == "a spawn decision"
    result = dbnet("verify", "--json", str(path))
    assert result.returncode == 1  # a claim is not a verified result
    document = json.loads(result.stdout)["verdicts"][0]
    assert document["winner"] is None
    assert document["readings"] == {"claim": {"A": 60_000, "B": 0}, "dispute": None}
    assert document["owed"]["player"] == "B"
