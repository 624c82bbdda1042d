"""Tampering with a real replay is always caught, at the right record, with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.engine import Player
from dbnet.replay.file import MAGIC, ReplayFile, iter_records, load_bytes, read_replay
from dbnet.replay.verify import ReplayVerifier, Verdict, VerdictStatus, verify_replay
from dbnet.wire.entries import (
    SignedEntry,
    decode_signed_entry,
    encode_signed_entry,
    signing_message,
)
from dbnet.wire.values import decode

from .helpers import RecordedGame, write_replay


def assert_invalid(verdict: Verdict, record: int, reason: str) -> None:
    assert verdict.status is VerdictStatus.INVALID, verdict
    assert verdict.record == record, verdict
    assert verdict.reason is not None
    assert reason in verdict.reason, verdict


def test_every_single_byte_flip_is_invalid_at_the_record_holding_it(
    short_game: RecordedGame,
) -> None:
    """Exhaustive: every byte of a whole real replay, flipped (XOR 0xff).

    Records before the flipped one are unchanged, so each flip is checked from a
    snapshot of the verifier taken before the record that holds the byte; a sample is
    also checked from scratch and must give the very same verdict.
    """
    data = short_game.data
    frames = list(iter_records(data, where="flip"))
    starts: list[int] = []
    snapshots: list[ReplayVerifier] = []
    verifier = ReplayVerifier("flip")
    for _index, offset, content in frames:
        starts.append(offset)
        snapshots.append(verifier.copy())
        verifier.add(content)
    assert verifier.verdict().status is VerdictStatus.COMPLETE
    record = -1
    mutated = bytearray(data)
    for position in range(len(data)):
        while record + 1 < len(starts) and starts[record + 1] <= position:
            record += 1
        mutated[position] ^= 0xFF
        changed = bytes(mutated)
        mutated[position] ^= 0xFF
        if record < 0:  # the magic
            verdict = verify_replay(changed, where="flip")
            assert verdict.status is VerdictStatus.INVALID, position
            assert verdict.offset == 0
            continue
        verdict = snapshots[record].copy().run(changed, starts[record])
        assert verdict.status is VerdictStatus.INVALID, (position, verdict)
        assert verdict.record == record, (position, verdict)
        if position % 97 == 0:
            assert verify_replay(changed, where="flip") == verdict, position
    assert len(data) > 5000


def test_deleting_any_record(tmp_path: Path, short_game: RecordedGame) -> None:
    records = list(short_game.records)
    for k in range(len(records)):  # entry k is record k + 1
        kept = records[:k] + records[k + 1 :]
        data = write_replay(tmp_path / f"del{k}.dbnr", short_game.header, kept)
        verdict = verify_replay(data, where="del")
        if k == 0:
            assert_invalid(verdict, 1, "the first entry must be an OFFER")
        elif k == len(records) - 1:  # the COSIGN withheld: decided by the game's state
            assert verdict.status is VerdictStatus.DECIDED
            assert verdict.owed is not None
            assert verdict.owed.what == "cosign"
        else:
            assert_invalid(verdict, k + 1, f"out of order: sequence number {k + 1}, expected {k}")
            assert verdict.seq == k


def test_duplicating_any_record(tmp_path: Path, short_game: RecordedGame) -> None:
    records = list(short_game.records)
    for k in range(len(records)):
        doubled = records[: k + 1] + records[k:]
        data = write_replay(tmp_path / f"dup{k}.dbnr", short_game.header, doubled)
        verdict = verify_replay(data, where="dup")
        assert_invalid(verdict, k + 2, f"out of order: sequence number {k}, expected {k + 1}")


def test_swapping_neighbouring_records(tmp_path: Path, short_game: RecordedGame) -> None:
    records = list(short_game.records)
    for k in range(len(records) - 1):
        swapped = [*records[:k], records[k + 1], records[k], *records[k + 2 :]]
        data = write_replay(tmp_path / f"swap{k}.dbnr", short_game.header, swapped)
        verdict = verify_replay(data, where="swap")
        if k == 0:
            assert_invalid(verdict, 1, "the first entry must be an OFFER")
        else:
            assert_invalid(verdict, k + 1, f"out of order: sequence number {k + 1}, expected {k}")


def test_truncating_inside_every_record_is_a_torn_tail(short_game: RecordedGame) -> None:
    data = short_game.data
    frames = list(iter_records(data, where="cut"))
    for index, offset, record in frames:
        for cut in (
            offset + 1,
            offset + 4,
            offset + 4 + len(record) // 2,
            offset + 3 + len(record),
        ):
            verdict = verify_replay(data[:cut], where="cut")
            assert verdict.status is VerdictStatus.INVALID, (index, cut)
            assert verdict.record == index
            assert verdict.offset == offset
            assert verdict.reason is not None
            if index == 0:
                assert "header is incomplete" in verdict.reason or "truncated" in verdict.reason
            else:
                assert verdict.reason.startswith("truncated record (torn write)")


def test_records_of_another_game_are_refused(
    tmp_path: Path, short_game: RecordedGame, sibling_game: RecordedGame
) -> None:
    """Same two players, another game: each spliced-in record is refused (another game id)."""
    assert sibling_game.header.keys == short_game.header.keys
    assert sibling_game.header.game_id != short_game.header.game_id
    for k in range(1, min(len(short_game.records), len(sibling_game.records))):
        spliced = [*short_game.records[:k], sibling_game.records[k]]
        data = write_replay(tmp_path / f"splice{k}.dbnr", short_game.header, spliced)
        assert_invalid(
            verify_replay(data, where="splice"), k + 1, "belongs to another game (game id differs)"
        )
    # the other game's OFFER under this game's header: the header does not match it
    data = write_replay(tmp_path / "offer.dbnr", short_game.header, sibling_game.records)
    assert_invalid(verify_replay(data, where="offer"), 0, "the header's game id differs")


@pytest.mark.parametrize("k", [2, 5])
def test_a_wider_integer_inside_a_signed_entry_is_refused_even_when_signed(
    tmp_path: Path, short_game: RecordedGame, k: int
) -> None:
    """Entry k's ``seq`` rewritten as a uint32 (same value, other bytes), and signed
    again by its real author: the signature is good, the encoding is not canonical."""
    signed, entry = decode_signed_entry(short_game.records[k])
    seq_at = 1 + 1 + 2 + 32  # fixarray, v, bin8 header, game id
    assert signed.signed[seq_at] == k  # a positive fixint
    wide = signed.signed[:seq_at] + b"\xce" + k.to_bytes(4, "big") + signed.signed[seq_at + 1 :]
    assert decode(wide) == decode(signed.signed)  # the same value
    author = short_game.identities[Player(entry.author)]
    resigned = SignedEntry(wide, author.sign(signing_message(wide)))
    records = list(short_game.records)
    records[k] = encode_signed_entry(resigned)
    data = write_replay(tmp_path / "wide.dbnr", short_game.header, records)
    assert_invalid(verify_replay(data, where="wide"), k + 1, "not canonical msgpack")


def test_a_wider_length_in_the_record_wrapper_is_refused(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    """The signature's bin8 header written as bin16: same bytes signed, other record."""
    record = short_game.records[3]
    sig_header = record[-66:-64]
    assert sig_header == b"\xc4\x40"
    wide = record[:-66] + b"\xc5\x00\x40" + record[-64:]
    records = list(short_game.records)
    records[3] = wide
    data = write_replay(tmp_path / "wide.dbnr", short_game.header, records)
    assert_invalid(verify_replay(data, where="wide"), 4, "not canonical msgpack")


def test_a_valid_signature_from_the_wrong_player_is_refused(
    tmp_path: Path, short_game: RecordedGame
) -> None:
    """Entry 2 re-signed by the other player over the very same bytes."""
    signed, entry = decode_signed_entry(short_game.records[2])
    other = short_game.identities[Player(entry.author).other]
    records = list(short_game.records)
    records[2] = encode_signed_entry(
        SignedEntry(signed.signed, other.sign(signing_message(signed.signed)))
    )
    data = write_replay(tmp_path / "sig.dbnr", short_game.header, records)
    assert_invalid(verify_replay(data, where="sig"), 3, "bad signature")


def test_the_magic_alone_is_checked_first() -> None:
    verdict = verify_replay(b"DBNRPLY0" + b"\x00" * 40, where="m")
    assert verdict.status is VerdictStatus.INVALID
    assert (verdict.record, verdict.offset) == (None, 0)
    assert MAGIC not in b"DBNRPLY0"


LONG_REPLAY = (
    Path(__file__).resolve().parent / "fixtures" / "v1" / "07-mirror-vs-hive-abilities.dbnr"
)
"""A recorded game of 735 entries: many batches of the verifier's reading."""


@pytest.fixture(scope="module")
def long_game() -> ReplayFile:
    return read_replay(load_bytes(LONG_REPLAY), where=str(LONG_REPLAY))


@pytest.mark.parametrize("gap", [1, 63, 64, 200])
@pytest.mark.parametrize("later", ["malformed", "torn"])
def test_the_first_problem_in_the_file_is_the_verdict_whatever_comes_after_it(
    tmp_path: Path, long_game: ReplayFile, gap: int, later: str
) -> None:
    """The verifier reads entries in batches, yet the first problem ends the check
    (DESIGN.md section 4): an entry out of order, followed ``gap`` records later by a
    record that does not decode or by a torn tail, in its batch or a later one, is the
    verdict."""
    records = list(long_game.records)
    early = 70  # entry 70 is entry 69 again: out of order (record 71, the second batch)
    records[early] = records[early - 1]
    if later == "malformed":
        records[early + gap] = b"\xc1"  # never valid msgpack
        data = write_replay(tmp_path / "two.dbnr", long_game.header, records)
    else:
        kept = records[: early + gap + 1]
        data = write_replay(tmp_path / "two.dbnr", long_game.header, kept)[:-3]
    assert_invalid(verify_replay(data, where="two"), early + 1, "out of order")


@pytest.mark.parametrize("at", [2, 64, 65, 130, 734])
def test_a_record_that_does_not_decode_is_invalid_at_its_own_record_in_any_batch(
    tmp_path: Path, long_game: ReplayFile, at: int
) -> None:
    records = list(long_game.records)
    records[at] = b"\xc1"
    data = write_replay(tmp_path / "bad.dbnr", long_game.header, records)
    verdict = verify_replay(data, where="bad")
    assert_invalid(verdict, at + 1, "malformed")
    assert verdict.entries == at
