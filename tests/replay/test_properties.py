"""Hypothesis: any bytes give a verdict (never an exception), and a changed replay never
verifies as complete unless its entries are exactly the original ones."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.engine import Player
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import MAGIC, read_replay
from dbnet.replay.verify import Verdict, VerdictStatus, verify_replay
from dbnet.wire.bodies import EntryKind, PlayBody
from dbnet.wire.entries import (
    Entry,
    SignedEntry,
    decode_signed_entry,
    encode_signed_entry,
    replace,
    signing_message,
)
from dbnet.wire.replay_header import encode_replay_header
from dbnet.wire.values import encode

from .helpers import RecordedGame

SETTINGS = settings(max_examples=150, deadline=None)


def read_or_error(data: bytes) -> None:
    """``read_replay`` either reads or raises ReplayError; anything else fails the test."""
    try:
        replay = read_replay(data, where="fuzz")
    except ReplayError as exc:
        message = str(exc)
    else:
        assert data.startswith(MAGIC)
        assert all(0 < len(r) <= 65536 for r in replay.records)
        return
    assert message.startswith("fuzz: ")


def framed(record: bytes) -> bytes:
    return len(record).to_bytes(4, "big") + record


@SETTINGS
@given(st.binary(max_size=600))
def test_random_bytes(data: bytes) -> None:
    read_or_error(data)
    verdict = verify_replay(data, where="fuzz")
    assert verdict.status is VerdictStatus.INVALID


@SETTINGS
@given(st.lists(st.binary(min_size=1, max_size=120), max_size=6), st.binary(max_size=6))
def test_random_records_after_the_magic(records: list[bytes], tail: bytes) -> None:
    data = MAGIC + b"".join(map(framed, records)) + tail
    read_or_error(data)
    assert isinstance(verify_replay(data, where="fuzz"), Verdict)


@SETTINGS
@given(st.data())
def test_random_records_after_a_real_prefix(short_game: RecordedGame, data: st.DataObject) -> None:
    """Real header and first entries, then garbage records: never an exception."""
    keep = data.draw(st.integers(0, len(short_game.records)))
    garbage = data.draw(st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=3))
    header = encode_replay_header(short_game.header)
    blob = (
        MAGIC
        + framed(header)
        + b"".join(map(framed, short_game.records[:keep]))
        + b"".join(map(framed, garbage))
    )
    verdict = verify_replay(blob, where="fuzz")
    if keep < len(short_game.records):
        assert verdict.status is not VerdictStatus.COMPLETE
    assert verdict.entries <= keep + len(garbage)


edits = st.lists(
    st.tuples(st.sampled_from(["set", "insert", "delete"]), st.integers(0), st.integers(0, 255)),
    min_size=1,
    max_size=4,
)


@SETTINGS
@given(edits, st.integers(0))
def test_byte_mutations_of_a_real_replay(
    short_game: RecordedGame, changes: list[tuple[str, int, int]], cut: int
) -> None:
    original = short_game.data
    data = bytearray(original)
    for op, where, value in changes:
        at = where % (len(data) + 1)
        if op == "insert":
            data.insert(at, value)
        elif at < len(data):
            if op == "set":
                data[at] = value
            else:
                del data[at]
    if cut % 3 == 0:
        data = data[: cut % (len(data) + 1)]
    mutated = bytes(data)
    read_or_error(mutated)
    verdict = verify_replay(mutated, where="mutant")
    if verdict.status is VerdictStatus.COMPLETE:
        # only the header's informative ``created`` text is outside every signature
        replay = read_replay(mutated, where="mutant")
        assert replay.records == short_game.records
        assert dataclasses.replace(replay.header, created=short_game.header.created) == (
            short_game.header
        )


def _mutate_entry(entry: Entry, choice: int, noise: bytes) -> Entry:
    body = entry.body
    if choice == 0:
        return replace(entry, seq=entry.seq + 1)
    if choice == 1:
        return replace(entry, prev_hash=noise)
    if choice == 2:
        return replace(entry, author=1 - entry.author)
    if choice == 3 and isinstance(body, PlayBody):
        return replace(entry, body=replace(body, state=noise))
    if choice == 4 and isinstance(body, PlayBody) and body.links:
        (roll, _link), *rest = body.links
        links = ((roll, noise), *rest)
        return replace(entry, body=replace(body, links=links))
    if choice == 5 and isinstance(body, PlayBody):
        decision = "done" if body.decision != "done" else "shift"
        return replace(entry, body=replace(body, decision=decision))
    if choice == 6 and isinstance(body, PlayBody) and body.links:
        (roll, link), *rest = body.links
        links = ((roll + 1, link), *rest)
        return replace(entry, body=replace(body, links=links))
    return replace(entry, game_id=noise)


@SETTINGS
@given(st.data())
def test_a_changed_entry_signed_by_its_claimed_author_is_refused(
    short_game: RecordedGame, data: st.DataObject
) -> None:
    """A cheating peer changes one of its entries and signs it properly: refused at
    exactly that record (the chain or the re-simulation catches it)."""
    k = data.draw(st.integers(1, len(short_game.records) - 1), label="entry")
    choice = data.draw(st.integers(0, 7), label="change")
    noise = data.draw(st.binary(min_size=32, max_size=32), label="noise")
    _signed, entry = decode_signed_entry(short_game.records[k])
    changed = _mutate_entry(entry, choice, noise)
    signed_bytes = encode(changed.to_wire())
    author = short_game.identities[Player(changed.author)]
    record = encode_signed_entry(
        SignedEntry(signed_bytes, author.sign(signing_message(signed_bytes)))
    )
    records = [*short_game.records[:k], record, *short_game.records[k + 1 :]]
    header = encode_replay_header(short_game.header)
    blob = MAGIC + framed(header) + b"".join(map(framed, records))
    verdict = verify_replay(blob, where="cheat")
    if record == short_game.records[k]:
        assert verdict.status is VerdictStatus.COMPLETE
    else:
        assert verdict.status is VerdictStatus.INVALID
        assert verdict.record == k + 1
        assert verdict.seq == k
        assert entry.kind is not EntryKind.OFFER
