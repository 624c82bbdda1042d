"""Equivocation evidence files (``dbnet.replay.evidence``): saved whole, proven by
``check_evidence`` and ``dbnet verify``, refused when they prove nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.engine import Player
from dbnet.replay.errors import ReplayError
from dbnet.replay.evidence import EVIDENCE_MAGIC, check_evidence, read_evidence, save_evidence
from dbnet.replay.verify import VerdictStatus
from dbnet.wire.bodies import PlayBody
from dbnet.wire.entries import (
    SignedEntry,
    decode_signed_entry,
    encode_entry,
    encode_signed_entry,
    replace,
    signing_message,
)

from .helpers import RecordedGame


def other_entry(game: RecordedGame, seq: int, *, signer: Player | None = None) -> bytes:
    """Entry ``seq`` of ``game`` with another state hash, signed by its author (or by
    ``signer``)."""
    _, entry = decode_signed_entry(game.records[seq])
    assert isinstance(entry.body, PlayBody)
    entry = replace(entry, body=replace(entry.body, state=bytes(32)))
    body = encode_entry(entry)
    who = Player(entry.author) if signer is None else signer
    return encode_signed_entry(SignedEntry(body, game.identities[who].sign(signing_message(body))))


def first_play(game: RecordedGame) -> int:
    return next(
        seq
        for seq, record in enumerate(game.records)
        if isinstance(decode_signed_entry(record)[1].body, PlayBody)
    )


def saved(tmp_path: Path, game: RecordedGame, first: bytes, second: bytes) -> Path:
    return save_evidence(tmp_path / "game.dbnr", game.header, game.records[0], first, second)


def test_two_entries_signed_for_one_slot_are_proven(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    seq = first_play(short_game)
    other = other_entry(short_game, seq)
    path = saved(tmp_path, short_game, short_game.records[seq], other)
    assert path == tmp_path / f"game.equivocation-{seq}.dbnr"
    data = path.read_bytes()
    assert data.startswith(EVIDENCE_MAGIC)
    assert read_evidence(data, where="e") == (
        short_game.header,
        short_game.records[0],
        short_game.records[seq],
        other,
    )
    verdict = check_evidence(data, where="e")
    assert verdict.status is VerdictStatus.EQUIVOCATION, verdict
    assert verdict.seq == seq
    assert verdict.game_id == short_game.header.game_id.hex()[:16]
    author = Player(decode_signed_entry(other)[1].author).name
    assert verdict.summary().startswith(
        f"equivocation proven: {author} signed two different entries with sequence number {seq}"
    )
    # a second proof for the same slot does not overwrite the first
    again = saved(tmp_path, short_game, short_game.records[seq], other)
    assert again == tmp_path / f"game.equivocation-{seq}-2.dbnr"
    assert path.read_bytes() == data
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("case", ["forged", "same", "another slot", "cut", "bit flip"])
def test_evidence_that_proves_nothing_is_invalid(
    tmp_path: Path, short_game: RecordedGame, case: str
) -> None:
    seq = first_play(short_game)
    first = short_game.records[seq]
    author = Player(decode_signed_entry(first)[1].author)
    second = {
        "forged": other_entry(short_game, seq, signer=author.other),
        "same": first,
        "another slot": short_game.records[seq + 1],
    }.get(case, other_entry(short_game, seq))
    data = saved(tmp_path, short_game, first, second).read_bytes()
    if case == "cut":
        data = data[:-3]
    elif case == "bit flip":
        data = data[:-1] + bytes([data[-1] ^ 1])  # the second entry's signature
    verdict = check_evidence(data, where="e")
    assert verdict.status is VerdictStatus.INVALID, verdict
    assert (verdict.reason or "").startswith("equivocation evidence: ")
    if case in ("forged", "bit flip"):
        assert verdict.record == 3
        assert "bad signature" in (verdict.reason or "")


def test_a_replay_is_not_evidence(short_game: RecordedGame) -> None:
    with pytest.raises(ReplayError, match="not a dbnet file of this kind"):
        read_evidence(short_game.data, where="e")
    assert check_evidence(short_game.data, where="e").status is VerdictStatus.INVALID


def test_dbnet_verify_checks_evidence(tmp_path: Path, short_game: RecordedGame) -> None:
    seq = first_play(short_game)
    path = saved(tmp_path, short_game, short_game.records[seq], other_entry(short_game, seq))
    result = subprocess.run(
        [sys.executable, "-m", "dbnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1  # not a verified game, though a proven cheat
    assert result.stdout.startswith(f"{path}: equivocation proven: ")
    assert "Traceback" not in result.stderr
