"""The standalone replay verifier: any bytes in, one ``Verdict`` out.

The checks, in file order (docs/replay-format.md, "What a verifier checks"):

1. Framing: the magic, then every record's length (1 to 64 KiB, within the file).
2. Record 0, the header: well formed, of a known format and protocol version.
3. Record 1, entry 0, the OFFER: ``GameLog.start`` (canonical bytes, schema, the
   game id recomputed from its contents, A's signature, a playable setup, the initial
   state hash); then the header must name the same game id, keys and rules.
4. Every later record, entry ``k`` in record ``k + 1``: ``GameLog.append`` (canonical
   bytes, schema, game id, sequence number, previous-entry hash, the author the
   rules name, the author's signature, every chain link and the arming rule, the
   decision's legality when the engine re-simulates the game with the derived dice,
   the recorded state hash, FINAL's result and score, COSIGN's head and winner,
   nothing after the log is closed).

The first problem ends the check: the verdict is *invalid* at that record, with the
reason. (For speed the entries are framed and decoded a batch at a time, and the
signatures checked after the rules, but every problem is reported as if each record had
been checked in full before the next was read.) Otherwise the verdict is what the log
says: *complete* (FINAL and COSIGN), *claim* (closed by a unilateral timeout claim) or
*unfinished* (who owes what next).
A torn tail (the file ends inside a record) is invalid at that record; the writer's
``ReplayWriter.resume`` repairs such a file by cutting the partial record off.

Only ``DbnetError`` is turned into a verdict: anything else is a bug and propagates.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

from dbnet.engine import ChanceRequest, Decision, Game, Player
from dbnet.errors import DbnetError
from dbnet.protocol.clock import format_clock
from dbnet.protocol.dice import ChainVerifier
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.identity import fingerprint
from dbnet.protocol.log import GameLog, Status
from dbnet.protocol.signatures import UncheckedSignature, first_invalid
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import HEADER_OFFSET, decode_header, iter_records
from dbnet.text import counted
from dbnet.wire.bodies import ClaimBody
from dbnet.wire.entries import Entry, SignedEntry, decode_signed_entry, is_frozen_value
from dbnet.wire.replay_header import ReplayHeader

__all__ = ["Owed", "ReplayVerifier", "Verdict", "VerdictStatus", "verify_replay"]

GAME_ID_HEX_DIGITS: Final = 16  # the short game id shown: the first 8 bytes in hex
_BATCH: Final = 64
"""Records framed and decoded together before they are checked: enough for the speed,
and a hostile file of many records costs little memory before its first bad one."""


class VerdictStatus(enum.Enum):
    COMPLETE = "complete"  # FINAL and COSIGN: the result is agreed and signed by both
    DECIDED = "decided"  # the game is over by re-simulation; FINAL or COSIGN was withheld
    UNFINISHED = "unfinished"  # valid so far; someone owes the next entry
    CLAIM = "claim"  # closed by a unilateral claim: timeout (never a win), or clock (on time)
    INVALID = "invalid"  # the first invalid record, with the reason
    EQUIVOCATION = "equivocation"  # an evidence file's proof (dbnet.replay.evidence)


@dataclass(frozen=True, slots=True)
class Owed:
    """The entry a player owes next: ``what`` is ``offer``, ``accept``, ``decision`` (of
    kind ``decision``), ``link`` (for roll ``roll``, of ``dice`` dice), ``final`` or
    ``cosign``; ``seq`` is the entry's sequence number."""

    player: str
    what: str
    seq: int
    decision: str | None = None
    roll: int | None = None
    dice: str | None = None

    def describe(self) -> str:
        """``a spawn decision``, ``the link for roll 7 (attack dice)``, ``the FINAL entry``."""
        if self.what == "decision":
            kind = self.decision or "pending"
            article = "an" if kind[:1] in "aeiou" else "a"
            return f"{article} {kind} decision"
        if self.what == "link":
            return f"the link for roll {self.roll} ({self.dice} dice)"
        return f"the {self.what.upper()} entry"

    def to_json(self) -> dict[str, object]:
        return {
            "player": self.player,
            "what": self.what,
            "seq": self.seq,
            "decision": self.decision,
            "roll": self.roll,
            "dice": self.dice,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What a replay proves. Fields that do not apply to the status are None (or empty).

    - ``complete``: ``winner`` ("A" or "B"), ``reason`` ("victory" or "resignation"),
      ``turns`` (conquest points (A, B) of every turn), ``turn`` (the last turn).
    - ``decided``: as ``complete``, but the result was not signed by both: the game's
      own state decides it (by re-simulation) and ``owed`` says what the withholding
      player did not write (the FINAL or COSIGN entry), so withholding gains nothing.
    - ``unfinished``: ``owed`` (who owes the next entry and what), ``turn`` reached.
    - ``claim``: ``claimant`` and ``owed`` (the entry it waited for, and who owed it). A
      clock claim (protocol version 3 and later) has ``reason`` "clock", ``flagged_at``
      (the entry before which the other player's clock ran out by the claimant's signed
      reading, ``claim_reading``) and no ``winner``: it is the claimant's word alone. With
      the flagged player's dispute after it (version 4), ``dispute_reading`` is that
      player's signed reading: a disputed clock claim.
    - ``invalid``: ``record`` (the record index in the file, 0 being the header),
      ``seq`` (the entry's sequence number, None for the header), ``offset`` (the
      record's byte offset) and ``reason``.

    Always: ``where`` (the file), ``entries`` (how many valid entries were read) and,
    once the OFFER was read, ``game_id`` (short hex) and ``players`` (A's and B's key
    fingerprints).
    """

    where: str
    status: VerdictStatus
    entries: int
    game_id: str | None = None
    players: tuple[str, str] | None = None
    turn: int | None = None
    turns: tuple[tuple[int, int], ...] = ()
    winner: str | None = None
    reason: str | None = None
    owed: Owed | None = None
    claimant: str | None = None
    flagged_at: int | None = None
    claim_reading: tuple[int, int] | None = None
    dispute_reading: tuple[int, int] | None = None
    record: int | None = None
    seq: int | None = None
    offset: int | None = None

    @property
    def ok(self) -> bool:
        """Only a finished, valid game counts as verified: complete, or decided by its
        state with the loser's (or winner's) signature withheld."""
        return self.status is VerdictStatus.COMPLETE or self.status is VerdictStatus.DECIDED

    def flagged(self) -> str | None:
        """A clock claim's flagged player ("A" or "B"): the claimant's opponent."""
        if self.reason != "clock" or self.claimant is None:
            return None
        return "B" if self.claimant == "A" else "A"

    @property
    def disputed(self) -> bool:
        """Whether this is a clock claim the flagged player disputed (protocol version 4)."""
        return self.dispute_reading is not None

    def score(self) -> str:
        """The conquest points of every turn, ``0-0 3-8`` (A's first)."""
        return " ".join(f"{a}-{b}" for a, b in self.turns)

    def summary(self) -> str:
        """The verdict in one line, without the file name."""
        status = self.status
        if status is VerdictStatus.COMPLETE:
            return (
                f"complete: {self.winner} won by {self.reason} on turn {self.turn} "
                f"(points by turn, A-B: {self.score()})"
            )
        if status is VerdictStatus.DECIDED:
            owed = self.owed
            assert owed is not None
            signer = "loser" if owed.player != self.winner else "winner"
            return (
                f"decided: {self.winner} won by {self.reason} on turn {self.turn} "
                f"(points by turn, A-B: {self.score()}), derived by re-simulation; not "
                f"counter-signed: the {signer} ({owed.player}) did not write {owed.describe()}"
            )
        if status is VerdictStatus.INVALID:
            if self.record is None:
                return f"invalid: {self.reason}"
            place = f"record {self.record}"
            extra = [] if self.seq is None else [f"entry {self.seq}"]
            if self.offset is not None:
                extra.append(f"byte {self.offset}")
            if extra:
                place += f" ({', '.join(extra)})"
            return f"invalid at {place}: {self.reason}"
        if status is VerdictStatus.EQUIVOCATION:
            return f"equivocation proven: {self.reason}"
        owed = self.owed
        assert owed is not None
        when = "" if self.turn is None else f", turn {self.turn}"
        if status is VerdictStatus.CLAIM and self.reason == "clock":
            flagged, claimant = self.flagged(), self.claimant
            said = (
                f"{claimant} says {flagged}'s clock ran out before {flagged}'s entry "
                f"{self.flagged_at}{when} ({claimant}'s signed reading: "
                f"{_reading_words(self.claim_reading)})"
            )
            if self.dispute_reading is not None:
                return (
                    f"disputed clock claim (not a result): {said}; {flagged} disputes it "
                    f"({flagged}'s signed reading: {_reading_words(self.dispute_reading)})"
                )
            return f"clock claim, not acknowledged by the flagged player (not a result): {said}"
        if status is VerdictStatus.CLAIM:
            return (
                f"unilateral claim by {self.claimant} (not a result; unverifiable): "
                f"{self.claimant} says {owed.player}, who owed entry {owed.seq}, "
                f"{owed.describe()}{when}, stopped answering"
            )
        return (
            f"unfinished after {counted(self.entries, 'entry', 'entries')}{when}: "
            f"{owed.player} owes entry "
            f"{owed.seq}, {owed.describe()}"
        )

    def to_json(self) -> dict[str, object]:
        """The verdict as plain JSON values; every key is always present."""
        return {
            "file": self.where,
            "status": self.status.value,
            "ok": self.ok,
            "entries": self.entries,
            "game_id": self.game_id,
            "players": None if self.players is None else dict(zip("AB", self.players, strict=True)),
            "turn": self.turn,
            "turns": [[a, b] for a, b in self.turns],
            "winner": self.winner,
            "reason": self.reason,
            "owed": None if self.owed is None else self.owed.to_json(),
            "claimant": self.claimant,
            "flagged_at": self.flagged_at,
            "readings": None
            if self.claim_reading is None
            else {
                "claim": _reading_json(self.claim_reading),
                "dispute": _reading_json(self.dispute_reading),
            },
            "record": self.record,
            "seq": self.seq,
            "offset": self.offset,
        }


def _reading_words(reading: tuple[int, int] | None) -> str:
    """``A 2:00, B 0:00.0``: a signed clock reading (the JSON gives the milliseconds)."""
    if reading is None:
        return "none"
    return f"A {format_clock(reading[0])}, B {format_clock(reading[1])}"


def _reading_json(reading: tuple[int, int] | None) -> dict[str, int] | None:
    return None if reading is None else {"A": reading[0], "B": reading[1]}


def verify_replay(
    data: bytes, *, where: str, attach: Callable[[GameLog], None] | None = None
) -> Verdict:
    """The verdict on a whole replay file's bytes; ``where`` names the file. ``attach``,
    if given, is called with the log once its OFFER is checked, before any other entry is
    applied (to set its ``teller``: the story told from the verification itself).

    Never raises for bad input: every ``DbnetError`` becomes an *invalid* verdict.
    """
    return ReplayVerifier(where, attach=attach).run(data)


class ReplayVerifier:
    """Checks a replay record by record (``verify_replay`` runs one over a whole file).

    ``copy`` snapshots the check so far, so that many variants of one file that share
    a prefix can be checked from the first record where they differ (the tamper tests
    do this). After an invalid record the verifier is spent.
    """

    def __init__(
        self, where: str, *, attach: Callable[[GameLog], None] | None = None, keep: bool = False
    ) -> None:
        self.where = where
        self._attach = attach
        """Called with the log once its OFFER is checked (``verify_replay``)."""
        self.header: ReplayHeader | None = None
        self.log: GameLog | None = None
        self.records = 0
        """Records accepted so far (the header counts)."""
        self._unchecked: list[UncheckedSignature] = []
        """Signatures of accepted records still to check (entry ``seq`` is record ``seq + 1``)."""
        self._offsets: list[int] = []
        """The byte offset of every record checked, by record index."""
        self._due: dict[int, Owed] = {}
        """In a game with a clock: what each entry of the game in play was due as (who
        owed it, and what), by seq; a clock claim may name an entry that came late."""
        self.kept: list[bytes] | None = [] if keep else None
        """With ``keep``: every record read, by record index (those from an invalid one on
        are not valid: ``replay.checked`` keeps the records before it)."""

    def copy(self) -> ReplayVerifier:
        twin = ReplayVerifier(self.where)
        twin.kept = None if self.kept is None else list(self.kept)
        twin.header = self.header
        twin.records = self.records
        twin.log = None if self.log is None else _copy_log(self.log)
        twin._unchecked = list(self._unchecked)
        twin._offsets = list(self._offsets)
        twin._due = dict(self._due)
        return twin

    def run(self, data: bytes, offset: int = 0) -> Verdict:
        """Check the records of ``data`` from ``offset`` (0: the whole file, magic first;
        else the start of the next record) to the end, and give the verdict."""
        try:
            records = iter_records(data, where=self.where, offset=offset, index=self.records)
            if self.log is None:
                for _, record_offset, record in records:
                    self._add(record, record_offset)
                    if self.log is not None:
                        break  # the header and the OFFER are in: the rest are entries
            if self.log is not None:
                self._add_entries(records)
        except ReplayError as exc:  # framing or header: it names its record (None: magic)
            return self._bad_signature() or self._invalid(exc.record, exc.offset, exc.problem)
        except InvalidEntryError as exc:  # from ``_add``: the record not yet counted
            index = self.records
            return self._bad_signature() or self._invalid(
                index, self._offsets[index], exc.reason, seq=exc.seq
            )
        return self._bad_signature() or self.verdict()

    def _bad_signature(self) -> Verdict | None:
        """Check the signatures left unchecked, in order: the verdict on the first bad one.

        The log queues each signature where it would have checked it, so a bad one
        comes before any later problem and after any earlier one, as if checked there.
        """
        unchecked, self._unchecked = self._unchecked, []
        signature = first_invalid(unchecked)
        if signature is None:
            return None
        record = signature.seq + 1
        return self._invalid(record, self._offsets[record], signature.problem(), seq=signature.seq)

    def add(self, record: bytes) -> None:
        """Check the next record, its signature included (``run`` checks many faster).

        Raises:
            ReplayError: the header is bad, or does not match the OFFER.
            InvalidEntryError: the entry is invalid.
        """
        try:
            self._add(record, -1)
        finally:
            unchecked, self._unchecked = self._unchecked, []
            for signature in unchecked:
                signature.check()  # a bad signature comes before any problem found after it

    def _add(self, record: bytes, record_offset: int) -> None:
        """Check the next record, but leave its signature to ``_bad_signature``.

        Raises:
            ReplayError: the header is bad, or does not match the OFFER.
            InvalidEntryError: the entry is invalid.
        """
        index = self.records
        self._offsets.append(record_offset)
        if self.kept is not None:
            self.kept.append(record)
        if index == 0:
            self.header = decode_header(record, where=self.where)
        elif index == 1:
            log = GameLog.start(record)
            self._check_header(log)
            self.log = log
            if self._attach is not None:
                self._attach(log)
        else:
            assert self.log is not None
            self._note_due(self.log)
            # a record that fails after its signature's place still has it queued
            self.log.append(record, atomic=False, unchecked=self._unchecked)
        self.records = index + 1

    def _add_entries(self, records: Iterator[tuple[int, int, bytes]]) -> None:
        """``_add`` for the entries after the OFFER, a batch at a time: each batch is framed
        and decoded in a loop of its own, then checked in order (tight loops of one job
        each run faster than one loop doing them all). Problems still come out in file
        order: a record that does not frame or decode is reached only after every record
        before it was checked.
        """
        log = self.log
        assert log is not None
        offsets, unchecked, kept = self._offsets, self._unchecked, self.kept
        append, clocked = log.append, log.clock is not None  # looked up once, not per entry
        while True:
            batch: list[tuple[int, int, bytes]] = []
            framing: ReplayError | None = None
            try:
                for framed in records:
                    batch.append(framed)
                    if len(batch) == _BATCH:
                        break
            except ReplayError as exc:
                framing = exc
            decoded: list[tuple[SignedEntry, Entry]] = []
            try:
                for _, _, record in batch:
                    decoded.append(decode_signed_entry(record))
            except DbnetError:
                pass  # ``append`` decodes that record again when its turn comes, and says why
            if kept is not None:
                kept.extend([record for _, _, record in batch])
            whole = len(decoded)
            for k, (index, record_offset, record) in enumerate(batch):
                offsets.append(record_offset)
                if clocked:
                    self._note_due(log)
                append(
                    record,
                    atomic=False,
                    unchecked=unchecked,
                    decoded=decoded[k] if k < whole else None,
                )
                self.records = index + 1
            if framing is not None:
                raise framing
            if len(batch) < _BATCH:
                return

    def _note_due(self, log: GameLog) -> None:
        """Before the next entry of a game with a clock in play: what it is due as."""
        if log.clock is not None and log.status is Status.PLAYING:
            self._due[log.next_seq] = _owed(log, Status.PLAYING, log.next_seq)

    def _check_header(self, log: GameLog) -> None:
        header = self.header
        assert header is not None
        offer = log.decoded[0]
        for field, ours, theirs in (
            ("game id", header.game_id, log.game_id),
            ("keys", header.keys, log.keys),
            ("rules version", header.rules, log.rules),
            ("protocol version", header.protocol, offer.version),
        ):
            if ours != theirs:
                raise ReplayError(
                    self.where,
                    f"the header's {field} differs from the OFFER's (entry 0)",
                    record=0,
                    offset=HEADER_OFFSET,
                )

    # --- verdicts --------------------------------------------------------------

    def verdict(self) -> Verdict:
        """The verdict on the records checked so far (none of them invalid)."""
        log = self.log
        if self.header is None:
            return self._invalid(0, HEADER_OFFSET, "no header: the file ends right after the magic")
        if log is None:
            owed = Owed("A", "offer", 0)
            return Verdict(where=self.where, status=VerdictStatus.UNFINISHED, entries=0, owed=owed)
        game = log.game
        status = log.status
        clock_claim = log.clock_claim()
        if clock_claim is not None:
            # a clock claim, even after a late winning move, is its claimant's word: no
            # result, and disputed when the flagged player's dispute follows it
            seq, entry = clock_claim
            claim = entry.body
            assert isinstance(claim, ClaimBody)
            assert claim.clock is not None
            claimant = Player(entry.author)
            dispute = log.decoded[-1].body if status is Status.DISPUTED else None
            return self._verdict(
                VerdictStatus.CLAIM,
                claimant=claimant.name,
                reason="clock",
                owed=self._owed_by_flagged(log, claim.waiting_for, seq, claimant.other),
                flagged_at=claim.waiting_for,
                claim_reading=claim.clock,
                dispute_reading=None if dispute is None else dispute.clock,
            )
        if game.winner is not None and status is not Status.PLAYING:
            assert game.end_reason is not None
            winner, reason = game.winner.name, game.end_reason.value
            if status is Status.COMPLETE:
                return self._verdict(VerdictStatus.COMPLETE, winner=winner, reason=reason)
            # The game is over: FINAL or COSIGN is missing (maybe after a claim), but the
            # state the signed entries led to decides the result all the same.
            if status is Status.CLAIMED:
                claimant = Player(log.decoded[-1].author)
                owed = _owed_before_claim(log, claimant.other)
            else:
                owed = _owed(log, status, log.next_seq)
            return self._verdict(VerdictStatus.DECIDED, winner=winner, reason=reason, owed=owed)
        if status is Status.CLAIMED:
            claimant = Player(log.decoded[-1].author)
            owed = _owed_before_claim(log, claimant.other)
            return self._verdict(VerdictStatus.CLAIM, claimant=claimant.name, owed=owed)
        return self._verdict(VerdictStatus.UNFINISHED, owed=_owed(log, status, log.next_seq))

    def _verdict(
        self,
        status: VerdictStatus,
        *,
        winner: str | None = None,
        reason: str | None = None,
        owed: Owed | None = None,
        claimant: str | None = None,
        flagged_at: int | None = None,
        claim_reading: tuple[int, int] | None = None,
        dispute_reading: tuple[int, int] | None = None,
        record: int | None = None,
        seq: int | None = None,
        offset: int | None = None,
        entries: int | None = None,
    ) -> Verdict:
        log = self.log
        if log is None:
            return Verdict(
                where=self.where,
                status=status,
                entries=0,
                reason=reason,
                record=record,
                seq=seq,
                offset=offset,
            )
        return Verdict(
            where=self.where,
            status=status,
            entries=len(log.entries) if entries is None else entries,
            game_id=log.game_id.hex()[:GAME_ID_HEX_DIGITS],
            players=(fingerprint(log.keys[0]), fingerprint(log.keys[1])),
            turn=log.game.turn,
            turns=tuple((a, b) for a, b in log.game.conquest_history),
            winner=winner,
            reason=reason,
            owed=owed,
            claimant=claimant,
            flagged_at=flagged_at,
            claim_reading=claim_reading,
            dispute_reading=dispute_reading,
            record=record,
            seq=seq,
            offset=offset,
        )

    def _owed_by_flagged(self, log: GameLog, waited: int, claim: int, flagged: Player) -> Owed:
        """The entry a clock claim (entry ``claim``) waited for, and who owed it: the
        flagged player's entry ``waited``, which never came (``waited == claim``) or came
        late; what it was due as, as the verdict ``unfinished`` would have said."""
        if waited == claim:
            return _owed(log, Status.PLAYING, claim, flagged)
        due = self._due.get(waited)
        if due is None:  # pragma: no cover - noted before every entry of a clocked game
            return Owed(flagged.name, "decision", waited)
        return due

    def _invalid(
        self, record: int | None, offset: int | None, reason: str, *, seq: int | None = None
    ) -> Verdict:
        if seq is None and record is not None and record > 0:
            seq = record - 1
        # the entries before the invalid record (the log may have checked later ones
        # before a bad signature was found, since signatures are checked last)
        valid = 0 if record is None else max(record - 1, 0)
        return self._verdict(
            VerdictStatus.INVALID,
            reason=reason,
            record=record,
            seq=seq,
            offset=offset,
            entries=valid,
        )


def _owed(log: GameLog, status: Status, seq: int, player: Player | None = None) -> Owed:
    """What entry ``seq`` must be, given the log's ``status`` (its own, or the one before
    a claim), and who owes it (``player`` when known)."""
    if seq == 1:
        return Owed("B", "accept", 1)
    if status is Status.FINAL_DUE or status is Status.COSIGN_DUE:
        assert log.final_author is not None
        final = status is Status.FINAL_DUE
        who = log.final_author if final else log.final_author.other
        return Owed(who.name, "final" if final else "cosign", seq)
    pending = log.game.pending
    if isinstance(pending, Decision):
        return Owed(pending.player.name, "decision", seq, decision=pending.kind.value)
    assert isinstance(pending, ChanceRequest)
    if player is None:
        player = log.expected_author()
        assert player is not None
    return Owed(player.name, "link", seq, roll=len(log.rolls), dice=pending.kind.value)


def _owed_before_claim(log: GameLog, awaited: Player) -> Owed:
    """What the claim waited for: the log is closed now, so rebuild the status before it
    (a claim changes nothing else)."""
    seq = log.next_seq - 1
    before = log.decoded[-2].kind.name if len(log.decoded) >= 2 else ""
    status = Status.PLAYING
    if log.final_author is not None:
        status = Status.COSIGN_DUE if before == "FINAL" else Status.FINAL_DUE
    return _owed(log, status, seq, awaited)


# --- snapshots ------------------------------------------------------------------


def _copy_log(log: GameLog) -> GameLog:
    """An independent copy of a log, for ``ReplayVerifier.copy``.

    Every attribute is copied by type; an attribute of a type not listed here is a new
    kind of log state this copy does not know how to copy, so it fails loudly. The copy has
    no teller: the original's tells its own entries.
    """
    twin = GameLog.__new__(GameLog)
    for name, value in vars(log).items():
        setattr(twin, name, None if name == "teller" else _copy_value(value, name))
    return twin


_IMMUTABLE: Final = (bytes, str, int, tuple, enum.Enum, type(None))


def _copy_value(value: object, name: str) -> object:
    if isinstance(value, Game | ChainVerifier):
        return value.copy()
    if isinstance(value, list):
        return [_copy_value(item, name) for item in value]
    if isinstance(value, _IMMUTABLE) or _is_frozen(value):
        return value
    raise TypeError(f"GameLog.{name}: cannot snapshot a {type(value).__name__}")


def _is_frozen(value: object) -> bool:
    """Whether ``value`` is a frozen dataclass or one of the wire's frozen values."""
    if is_frozen_value(value):
        return True
    params = getattr(type(value), "__dataclass_params__", None)
    return bool(params is not None and params.frozen)
