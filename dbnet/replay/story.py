"""A replay file, checked and told: each valid entry with the rolls it completed and the
story events it told (``match.story``), for ``dbnet replay``, ``dbnet export`` and the
full-screen viewer. The file is read as ``dbnet verify`` reads it (``replay.checked``),
and told as it is verified, so a hostile file costs what verifying it costs, and
nothing past the first invalid record is told."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dbnet.engine import Game, GameSetup
from dbnet.errors import DbnetError
from dbnet.match.story import Event, Narrator
from dbnet.protocol.log import GameLog
from dbnet.protocol.rolls import Roll
from dbnet.replay.checked import CheckedReplay, check_bytes
from dbnet.replay.file import decode_header, load_bytes
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.wire.bodies import AcceptBody, OfferBody
from dbnet.wire.entries import Entry, entry_hash
from dbnet.wire.replay_header import ReplayHeader


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
    """Verify ``data`` (a replay file's bytes) and tell its valid records as the verifier
    applies them: the story costs no second play of the game."""
    narrators: list[Narrator] = []

    def attach(log: GameLog) -> None:
        narrator = Narrator(log.game.setup)
        narrator.attach(log)
        narrators.append(narrator)

    checked = check_bytes(data, where=where, attach=attach)
    return story_of(checked, where=where, narrator=narrators[0] if narrators else None)


def story_of(checked: CheckedReplay, *, where: str, narrator: Narrator | None = None) -> Story:
    """The story of the records the verifier accepted (``dbnet.replay.checked``), as
    ``narrator`` told them while they were verified (``read_story``). An invalid file is
    told up to the record before the invalid one, and nothing past it is read: its
    valid records are told again on a log of their own (the verifier's went on past them,
    to check the signatures after the rules), as they are without ``narrator``."""
    story = Story(where, checked.verdict)
    records = checked.records
    try:
        if records:
            story.header = decode_header(records[0], where=where)
    except DbnetError:
        return story  # cannot happen for records the verifier accepted
    if len(records) < 2:
        return story
    if narrator is None or narrator.log is None or story.stops_at is not None:
        narrator = _retold(records)
        if narrator is None:
            return story  # cannot happen for records the verifier accepted
    log = narrator.log
    assert log is not None
    offer = log.decoded[0].body
    assert isinstance(offer, OfferBody)
    story.setup = offer.setup
    story.keys = log.keys
    story.narrator = narrator
    told_at, events = narrator.told_at, narrator.events
    story.entries.append(_told(log, 0, 0, ()))
    for seq in range(1, len(log.entries)):
        (start, turn), (end, _) = told_at[seq - 1], told_at[seq]
        rolls = tuple(log.rolls[log.rolls_at[seq - 1] : log.rolls_at[seq]])
        story.entries.append(_told(log, seq, turn, rolls, tuple(events[start:end])))
    return story


def _retold(records: tuple[bytes, ...]) -> Narrator | None:
    """A narrator that told ``records`` (the header, then valid entries) on a new log."""
    try:
        log = GameLog.start(records[1])
    except DbnetError:
        return None
    narrator = Narrator(log.game.setup)
    narrator.attach(log)
    for record in records[2:]:
        try:
            log.append(record, atomic=False)
        except DbnetError:
            break
    return narrator


def _told(
    log: GameLog, seq: int, turn: int, rolls: tuple[Roll, ...], events: tuple[Event, ...] = ()
) -> Told:
    return Told(
        record=seq + 1,
        entry=log.decoded[seq],
        hash=entry_hash(log.entries[seq].signed),
        rolls=rolls,
        events=events,
        turn=max(turn, 1),
    )


def load_story(path: Path) -> Story:
    """The story of the file at ``path``, read as ``dbnet verify`` reads it.

    Raises:
        ReplayError: the file cannot be read (``load_bytes``'s limits).
    """
    return read_story(load_bytes(path), where=str(path))
