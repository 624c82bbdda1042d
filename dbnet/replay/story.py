"""A replay file, checked then re-played: each valid entry with the rolls it completed and
the story events it told (``match.story``), for ``dbnet replay``, ``dbnet export`` and the
full-screen viewer. The file is read as ``dbnet verify`` reads it (``replay.checked``),
so a hostile file costs what verifying it costs, and nothing past the first invalid
record is re-played."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dbnet.engine import Game, GameSetup
from dbnet.errors import DbnetError
from dbnet.match.story import Event, Narrator
from dbnet.protocol.log import GameLog, Roll
from dbnet.replay.checked import CheckedReplay, check_bytes, read_checked
from dbnet.replay.file import decode_header
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.wire import codec
from dbnet.wire.codec import (
    AcceptBody,
    Entry,
    OfferBody,
    ReplayHeader,
)


@dataclass(frozen=True, slots=True)
class Told:
    """One valid entry of the file, re-played: the rolls it completed and what happened."""

    record: int
    entry: Entry
    hash: bytes
    rolls: tuple[Roll, ...]
    events: tuple[Event, ...]
    turn: int


@dataclass(slots=True)
class Story:
    """What a replay file holds, as far as it is valid."""

    where: str
    verdict: Verdict
    header: ReplayHeader | None = None
    setup: GameSetup | None = None
    keys: tuple[bytes, bytes] | None = None
    entries: list[Told] = field(default_factory=list)
    narrator: Narrator | None = None

    @property
    def stops_at(self) -> int | None:
        """The invalid record, if the file is invalid."""
        if self.verdict.status is not VerdictStatus.INVALID:
            return None
        return 0 if self.verdict.record is None else self.verdict.record

    @property
    def game(self) -> Game | None:
        return None if self.narrator is None else self.narrator.game

    @property
    def names(self) -> tuple[str | None, str | None]:
        """The names A signed in the OFFER and B in the ACCEPT (None where the entry is
        missing or of a protocol version before 3, which had no names)."""
        bodies = [told.entry.body for told in self.entries[:2]]
        a = bodies[0] if bodies and isinstance(bodies[0], OfferBody) else None
        b = bodies[1] if len(bodies) > 1 and isinstance(bodies[1], AcceptBody) else None
        return (None if a is None else a.name, None if b is None else b.name)


def read_story(data: bytes, *, where: str) -> Story:
    """Verify ``data`` (a replay file's bytes), then re-play its valid records."""
    return story_of(check_bytes(data, where=where), where=where)


def story_of(checked: CheckedReplay, *, where: str) -> Story:
    """Re-play the records the verifier accepted (``dbnet.replay.checked``): an invalid
    file is told up to the record before the invalid one, and nothing past it is read."""
    story = Story(where, checked.verdict)
    records = checked.records
    try:
        if records:
            story.header = decode_header(records[0], where=where)
        if len(records) < 2:
            return story
        log = GameLog.start(records[1])
    except DbnetError:
        return story  # cannot happen for records the verifier accepted
    offer = log.decoded[0].body
    assert isinstance(offer, OfferBody)
    story.setup = offer.setup
    story.keys = log.keys
    narrator = Narrator(offer.setup)
    story.narrator = narrator
    story.entries.append(_told(1, log, 0, ()))
    for index, record in enumerate(records[2:], start=2):
        before = len(log.rolls)
        turn = narrator.game.turn
        try:
            log.append(record, atomic=False)
        except DbnetError:
            break  # cannot happen for records the verifier accepted
        rolls = tuple(log.rolls[before:])
        story.entries.append(_told(index, log, turn, rolls, tuple(narrator.follow(log))))
    return story


def _told(
    record: int, log: GameLog, turn: int, rolls: tuple[Roll, ...], events: tuple[Event, ...] = ()
) -> Told:
    signed = log.entries[-1]
    return Told(
        record=record,
        entry=log.decoded[-1],
        hash=codec.entry_hash(signed.signed),
        rolls=rolls,
        events=events,
        turn=max(turn, 1),
    )


def load_story(path: Path) -> Story:
    """The story of the file at ``path``, read as ``dbnet verify`` reads it.

    Raises:
        ReplayError: the file cannot be read (``read_checked``'s limits).
    """
    return story_of(read_checked(path), where=str(path))
