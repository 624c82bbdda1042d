"""Equivocation evidence: two entries one player signed for one slot of one game.

A peer that signs two different entries with the same sequence number has
cheated (docs/network.md, section 3). When a session catches it, it saves the
proof beside the replay, as ``<replay stem>.equivocation-<seq>.dbnr``, framed as
a replay file is (docs/replay-format.md) but with its own magic::

    evidence = EVIDENCE_MAGIC record record record record
    EVIDENCE_MAGIC = b"DBNEQUV1"
    record 0: the replay header (as in the replay)
    record 1: the OFFER, entry 0 (it names the game id and both players' keys)
    record 2: the entry with that sequence number held first (as in the replay)
    record 3: the other entry, received later

``check_evidence`` (run by ``dbnet verify`` on a file with this magic) proves it:
the header and the OFFER are checked as a verifier checks them, and records 2 and
3 must be two different entries of that game with the same sequence number and
author, each validly signed by that author's key. The file is written whole
(a temporary file, fsynced, then linked into place), never over another file.

``prove`` gives what proven evidence establishes, as a ``Proof`` (the game, the key that
signed twice and the place): ``dbnet event`` and ``dbnet verify`` apply it
(``replay.forks``), whether it comes from an evidence file or from two copies of a game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dbnet.engine import Player
from dbnet.errors import DbnetError
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.identity import fingerprint, verify
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import EXTENSION, LENGTH_SIZE, create_file, iter_records
from dbnet.replay.verify import GAME_ID_HEX_DIGITS, ReplayVerifier, Verdict, VerdictStatus
from dbnet.wire.entries import decode_signed_entry, entry_hash, signing_message
from dbnet.wire.replay_header import ReplayHeader, decode_replay_header, encode_replay_header

__all__ = [
    "EVIDENCE_MAGIC",
    "Proof",
    "check_evidence",
    "evidence_bytes",
    "evidence_path",
    "prove",
    "read_evidence",
    "save_evidence",
]

EVIDENCE_MAGIC: Final = b"DBNEQUV1"
_RECORDS: Final = 4


@dataclass(frozen=True, slots=True)
class Proof:
    """What equivocation evidence proves: the player in ``seat`` (0 is A, 1 is B) of the
    game ``game_id`` (hex, whole), whose key is ``key`` (hex, fingerprint ``fingerprint``),
    signed two different entries with sequence number ``seq``, of hashes ``entries`` (hex);
    ``files`` are where the two entries were found (an evidence file, or two copies)."""

    game_id: str
    seat: int
    key: str
    fingerprint: str
    seq: int
    entries: tuple[str, str]
    files: tuple[str, ...]

    @property
    def player(self) -> str:
        """``A`` or ``B``."""
        return Player(self.seat).name

    def describe(self) -> str:
        """``B (FINGERPRINT) signed two different entries with sequence number 5``."""
        return (
            f"{self.player} ({self.fingerprint}) signed two different entries with sequence "
            f"number {self.seq}"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player,
            "fingerprint": self.fingerprint,
            "key": self.key,
            "seq": self.seq,
            "entries": list(self.entries),
            "files": list(self.files),
        }


def evidence_path(replay: Path, seq: int) -> Path:
    """Where the evidence of an equivocation at ``seq`` goes: beside ``replay``, named
    after it; ``-2``, ``-3``... added if that name is taken (another proof)."""
    stem = replay.name.removesuffix(EXTENSION)
    path = replay.with_name(f"{stem}.equivocation-{seq}{EXTENSION}")
    n = 2
    while path.exists():
        path = replay.with_name(f"{stem}.equivocation-{seq}-{n}{EXTENSION}")
        n += 1
    return path


def save_evidence(
    replay: Path, header: ReplayHeader, offer: bytes, first: bytes, second: bytes
) -> Path:
    """Save the proof that ``first`` and ``second`` were signed for one slot beside
    ``replay``, written whole; the path it was saved at.

    Raises:
        ReplayError: the file cannot be written (naming it and the reason).
    """
    _, entry = decode_signed_entry(first)
    path = evidence_path(replay, entry.seq)
    create_file(path, evidence_bytes(encode_replay_header(header), offer, first, second))
    return path


def evidence_bytes(header: bytes, offer: bytes, first: bytes, second: bytes) -> bytes:
    """The bytes of an evidence file: ``header`` (the replay header's record), the OFFER
    and the two entries, framed."""
    records = (header, offer, first, second)
    return EVIDENCE_MAGIC + b"".join(len(r).to_bytes(LENGTH_SIZE, "big") + r for r in records)


def read_evidence(data: bytes, *, where: str) -> tuple[ReplayHeader, bytes, bytes, bytes]:
    """The header, the OFFER and the two entry records of an evidence file (framing
    only; ``check_evidence`` proves them).

    Raises:
        ReplayError: a bad magic, bad framing, not four records, a bad header.
    """
    records = [record for _, _, record in iter_records(data, where=where, magic=EVIDENCE_MAGIC)]
    if len(records) != _RECORDS:
        raise ReplayError(where, f"{len(records)} records, not the {_RECORDS} of evidence")
    header = decode_replay_header(records[0])
    return header, records[1], records[2], records[3]


def check_evidence(data: bytes, *, where: str) -> Verdict:
    """The verdict on an evidence file's bytes: *equivocation* (proven: ``seq`` and, in
    ``reason``, who signed twice) or *invalid* at the record that fails. Never raises
    for bad input."""
    return prove(data, where=where)[0]


def prove(data: bytes, *, where: str, files: tuple[str, ...] = ()) -> tuple[Verdict, Proof | None]:
    """``check_evidence``'s verdict on ``data``, and what it proves (None when it proves
    nothing); the proof was found in ``files`` (default: ``where``). Never raises for bad
    input."""
    verifier = ReplayVerifier(where)
    offsets: list[int] = []
    records: list[bytes] = []
    try:
        for index, offset, record in iter_records(data, where=where, magic=EVIDENCE_MAGIC):
            if index >= _RECORDS:
                raise ReplayError(
                    where,
                    f"more than the {_RECORDS} records of evidence",
                    record=index,
                    offset=offset,
                )
            offsets.append(offset)
            records.append(record)
            if index < 2:
                verifier.add(record)  # the header, then the OFFER, as a verifier checks them
    except ReplayError as exc:
        return _invalid(where, exc.record, exc.offset, exc.problem), None
    except InvalidEntryError as exc:
        return _invalid(where, len(offsets) - 1, offsets[-1], exc.reason), None
    if len(records) != _RECORDS:
        reason = f"{len(records)} records, not the {_RECORDS} of evidence"
        return _invalid(where, None, None, reason), None
    log = verifier.log
    assert log is not None
    entries = []
    for index in (2, 3):
        try:
            signed, entry = decode_signed_entry(records[index])
        except DbnetError as exc:
            return _invalid(where, index, offsets[index], f"malformed: {exc}"), None
        if entry.game_id != log.game_id:
            return _invalid(where, index, offsets[index], "an entry of another game"), None
        if not 0 <= entry.author <= 1:
            return _invalid(
                where, index, offsets[index], f"author {entry.author} is no player"
            ), None
        key = log.keys[entry.author]
        if not verify(key, signed.signature, signing_message(signed.signed)):
            who = Player(entry.author).name
            bad = f"bad signature: not signed by {who}'s key"
            return _invalid(where, index, offsets[index], bad), None
        entries.append((signed, entry))
    (first_signed, first), (second_signed, second) = entries
    if (first.seq, first.author) != (second.seq, second.author):
        differ = "the two entries differ in sequence number or author: no proof"
        return _invalid(where, 3, offsets[3], differ), None
    if first_signed.signed == second_signed.signed:
        same = "the two entries are the same entry: no proof"
        return _invalid(where, 3, offsets[3], same), None
    who = Player(first.author).name
    key = log.keys[first.author]
    proof = Proof(
        game_id=log.game_id.hex(),
        seat=first.author,
        key=key.hex(),
        fingerprint=fingerprint(key),
        seq=first.seq,
        entries=(
            entry_hash(first_signed.signed).hex(),
            entry_hash(second_signed.signed).hex(),
        ),
        files=files or (where,),
    )
    verdict = Verdict(
        where=where,
        status=VerdictStatus.EQUIVOCATION,
        entries=2,
        game_id=log.game_id.hex()[:GAME_ID_HEX_DIGITS],
        players=(fingerprint(log.keys[0]), fingerprint(log.keys[1])),
        seq=first.seq,
        reason=(
            f"{who} signed two different entries with sequence number {first.seq} "
            f"(records 2 and 3), proof that {who} ({fingerprint(key)}) cheated"
        ),
    )
    return verdict, proof


def _invalid(where: str, record: int | None, offset: int | None, reason: str) -> Verdict:
    return Verdict(
        where=where,
        status=VerdictStatus.INVALID,
        entries=0,
        record=record,
        offset=offset,
        reason=f"equivocation evidence: {reason}",
    )
