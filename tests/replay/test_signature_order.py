"""``verify_replay`` checks signatures after the rules, in one loop; the verdict must be
the one checking each signature in its place would give.

The reference is ``ReplayVerifier.add``, which checks every record's signature before
moving on. Each variant below combines a bad signature with another problem, before,
at or after it, and both ways must name the same record for the same reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from dbnet.engine import Player
from dbnet.errors import DbnetError
from dbnet.protocol.errors import InvalidEntryError
from dbnet.replay.file import iter_records
from dbnet.replay.verify import ReplayVerifier, Verdict, VerdictStatus, verify_replay
from dbnet.wire.bodies import PlayBody
from dbnet.wire.entries import (
    SignedEntry,
    decode_signed_entry,
    encode_entry,
    encode_signed_entry,
    replace,
    signing_message,
)

from .helpers import RecordedGame, write_replay

Records = list[bytes]


def one_by_one(data: bytes) -> tuple[int | None, str]:
    """The record and reason of the first problem, each signature checked in its place."""
    verifier = ReplayVerifier("v")
    current: int | None = None
    try:
        for index, _offset, record in iter_records(data, where="v"):
            current = index
            verifier.add(record)
    except InvalidEntryError as exc:
        return current, exc.reason
    except DbnetError as exc:
        return getattr(exc, "record", current), str(getattr(exc, "problem", exc))
    verdict = verifier.verdict()
    return verdict.record, verdict.reason or verdict.status.value


def in_one_run(verdict: Verdict) -> tuple[int | None, str]:
    return verdict.record, verdict.reason or verdict.status.value


def resign(record: bytes, game: RecordedGame, *, forge: bool, state: bytes | None = None) -> bytes:
    """``record`` signed again: by the other player (``forge``) or its author, with the
    body's state hash replaced by ``state`` if given (a PLAY entry)."""
    _, entry = decode_signed_entry(record)
    if state is not None:
        assert isinstance(entry.body, PlayBody)
        entry = replace(entry, body=replace(entry.body, state=state))
    author = Player(entry.author)
    signer = game.identities[author.other if forge else author]
    body = encode_entry(entry)
    return encode_signed_entry(SignedEntry(body, signer.sign(signing_message(body))))


def play_index(game: RecordedGame, start: int) -> int:
    """The first PLAY entry at or after ``start``."""
    for i in range(start, len(game.records)):
        if isinstance(decode_signed_entry(game.records[i])[1].body, PlayBody):
            return i
    raise AssertionError("no PLAY entry")


Variant = Callable[[RecordedGame, int], Records]


def forged(game: RecordedGame, k: int) -> Records:
    records = list(game.records)
    records[k] = resign(records[k], game, forge=True)
    return records


def forged_then_deleted(game: RecordedGame, k: int) -> Records:
    records = forged(game, k)
    del records[k + 2]
    return records


def deleted_then_forged(game: RecordedGame, k: int) -> Records:
    records = list(game.records)
    records[k + 2] = resign(records[k + 2], game, forge=True)
    del records[k]
    return records


def forged_with_a_wrong_state(game: RecordedGame, k: int) -> Records:
    """Bad signature and desync in one record: the signature comes first."""
    records = list(game.records)
    records[k] = resign(records[k], game, forge=True, state=bytes(32))
    return records


def signed_with_a_wrong_state(game: RecordedGame, k: int) -> Records:
    """Good signature, desync: the desync is reported."""
    records = list(game.records)
    records[k] = resign(records[k], game, forge=False, state=bytes(32))
    return records


def forged_then_desync(game: RecordedGame, k: int) -> Records:
    records = forged(game, k)
    later = play_index(game, k + 1)
    records[later] = resign(records[later], game, forge=False, state=bytes(32))
    return records


def desync_then_forged(game: RecordedGame, k: int) -> Records:
    records = list(game.records)
    later = play_index(game, k + 1)
    records[later] = resign(records[later], game, forge=True)
    records[k] = resign(records[k], game, forge=False, state=bytes(32))
    return records


def truncated_after_forged(game: RecordedGame, k: int) -> Records:
    return forged(game, k)[: k + 1]


VARIANTS: list[Variant] = [
    forged,
    forged_then_deleted,
    deleted_then_forged,
    forged_with_a_wrong_state,
    signed_with_a_wrong_state,
    forged_then_desync,
    desync_then_forged,
    truncated_after_forged,
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.__name__)
def test_deferred_signatures_give_the_verdict_of_checks_in_place(
    tmp_path: Path, short_game: RecordedGame, variant: Variant
) -> None:
    reasons: set[str] = set()
    for n, start in enumerate((2, 5, len(short_game.records) // 2)):
        k = play_index(short_game, start)
        data = write_replay(tmp_path / f"{n}.dbnr", short_game.header, variant(short_game, k))
        verdict = verify_replay(data, where="v")
        assert verdict.status is VerdictStatus.INVALID
        assert in_one_run(verdict) == one_by_one(data)
        reasons.add(verdict.reason or "")
    assert reasons  # the variants really differ in what they report:
    if variant in (forged, forged_then_deleted, forged_with_a_wrong_state, forged_then_desync):
        assert all(r.startswith("bad signature") for r in reasons), reasons
    if variant in (signed_with_a_wrong_state, desync_then_forged):
        assert all("desync" in r for r in reasons), reasons


def test_a_good_replay_is_complete_both_ways(short_game: RecordedGame) -> None:
    verdict = verify_replay(short_game.data, where="v")
    assert verdict.status is VerdictStatus.COMPLETE
    assert one_by_one(short_game.data) == in_one_run(verdict)


def test_a_snapshot_carries_its_unchecked_signatures(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    """Records run into a verifier and then copied: the copy still checks their
    signatures (the tamper tests check flips from such copies)."""
    k = play_index(short_game, 3)
    data = write_replay(tmp_path / "f.dbnr", short_game.header, forged(short_game, k))
    frames = list(iter_records(data, where="v"))
    verifier = ReplayVerifier("v")
    for _index, offset, record in frames[: k + 2]:  # the header, then entries 0 to k
        verifier._add(record, offset)
    twin = verifier.copy()
    verdict = twin.run(data, frames[k + 2][1])
    assert verdict.status is VerdictStatus.INVALID
    assert verdict.record == k + 1  # record 0 is the header
    assert (verdict.reason or "").startswith("bad signature")


@pytest.mark.parametrize("k", [2, 5, 13])
def test_a_bad_signature_at_record_k_counts_k_minus_1_valid_entries(
    tmp_path: Path, full_game: RecordedGame, k: int
) -> None:
    """The signatures are checked after the rules: the entries checked past the bad one
    must not count as valid (it said "record 13 ... 110 valid entries")."""
    records = list(full_game.records)
    signed, _ = decode_signed_entry(records[k - 1])  # record k is entry k - 1
    bad = bytearray(signed.signature)
    bad[0] ^= 1
    records[k - 1] = encode_signed_entry(SignedEntry(signed.signed, bytes(bad)))
    data = write_replay(tmp_path / "bad.dbnr", full_game.header, records)
    verdict = verify_replay(data, where="bad")
    assert verdict.status is VerdictStatus.INVALID
    assert verdict.record == k
    assert "bad signature" in (verdict.reason or "")
    assert verdict.entries == k - 1  # entries 0 to k - 2, as for any other invalid record
    assert one_by_one(data)[0] == k
