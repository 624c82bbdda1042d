"""The clocks' rules on a log's entries (docs/protocol.md, "Clocks"): every entry of a
game with a clock carries its author's reading, a clock claim is refused when the
claimant's own readings refute it, and a DISPUTE answers a clock claim by the player
it flagged, with time left on its own reading."""

from __future__ import annotations

from collections.abc import Sequence

from dbnet.engine import Player
from dbnet.protocol.errors import InvalidEntryError
from dbnet.wire.bodies import Body, ClaimBody, DisputeBody, EntryKind
from dbnet.wire.entries import Entry
from dbnet.wire.versions import DISPUTE_VERSION


def is_clock_claim(body: Body) -> bool:
    """Whether ``body`` is a clock claim (docs/protocol.md, "Clocks")."""
    return isinstance(body, ClaimBody) and body.reason == "clock"


def check_reading(
    clock: tuple[int, int] | None, seq: int, kind: EntryKind, body: Body, record: bytes
) -> None:
    """In a game with a ``clock`` every entry carries its author's reading; in a game
    without one, none does."""
    if clock is None:
        raise InvalidEntryError(
            seq, f"a clock reading in a {kind.name} entry of a game without a clock", record
        )
    if body.clock is None:
        raise InvalidEntryError(
            seq, f"a {kind.name} entry without its author's clock reading (the game has "
            "a clock)", record
        )  # fmt: skip


def check_clock_claim(
    decoded: Sequence[Entry],
    writer: Player | None,
    over: str | None,
    seq: int,
    author: Player,
    body: ClaimBody,
    record: bytes,
) -> None:
    """A clock claim (docs/protocol.md, "Clocks"): ``author`` claims that the other
    player's clock ran out before its entry ``waiting_for`` came. Valid when:

    - the game has a clock, and the claim's reading shows the other player at 0;
    - ``waiting_for`` is the claim's own place (the entry never came, and the other
      player owes it while the game is played: its clock runs), or an earlier PLAY or
      RESIGN entry by the other player (it came late) after which every entry is the
      other player's, or the claimant's with a reading that shows the other player at
      0 too: the claimant's own signed reading of the other player's time after that
      entry, if it shows any time left, refutes the claim.

    A reading by the flagged player never counts for or against it. ``decoded`` are the
    log's entries before the claim; ``writer`` is who writes entry ``seq``
    (``GameLog.expected_author``); ``over`` None while the game is played, else the kind
    of the entry due (FINAL, COSIGN)."""
    flagged = author.other
    reading = body.clock
    assert reading is not None  # check_reading
    if reading[flagged] != 0:
        raise InvalidEntryError(
            seq, f"{author.name}'s clock claim reads {reading[flagged]} ms left on "
            f"{flagged.name}'s clock, not 0", record
        )  # fmt: skip
    waited = body.waiting_for
    if waited < 2 or waited > seq:
        raise InvalidEntryError(
            seq, f"the clock claim names entry {waited}: it must be from entry 2 (the "
            f"clocks start after the ACCEPT) up to the claim's own, {seq}", record
        )  # fmt: skip
    if waited == seq:
        if writer is not flagged:
            raise InvalidEntryError(
                seq, f"{author.name} claims {flagged.name}'s entry {seq} came too late, "
                f"but {author.name} writes entry {seq}", record
            )  # fmt: skip
        if over is not None:
            raise InvalidEntryError(
                seq, f"no clock runs once the game is over: {flagged.name}'s "
                f"{over} entry cannot be late", record
            )  # fmt: skip
        return
    flagged_entry = decoded[waited]
    if flagged_entry.author != flagged:
        raise InvalidEntryError(
            seq, f"the clock claim names entry {waited}, which is {author.name}'s own, "
            f"not {flagged.name}'s", record
        )  # fmt: skip
    if flagged_entry.kind is not EntryKind.PLAY and flagged_entry.kind is not EntryKind.RESIGN:
        raise InvalidEntryError(
            seq, f"the clock claim names {flagged.name}'s {flagged_entry.kind.name} entry "
            f"{waited}, written when no clock runs (only a PLAY or RESIGN entry can be "
            "late)", record
        )  # fmt: skip
    for later in range(waited + 1, seq):
        entry = decoded[later]
        if entry.author != author:
            continue
        seen = entry.body.clock
        assert seen is not None
        if seen[flagged]:
            raise InvalidEntryError(
                seq, f"refuted: {author.name}'s own entry {later}, after {flagged.name}'s "
                f"entry {waited}, reads {seen[flagged]} ms left on {flagged.name}'s clock: "
                "that entry came in time", record
            )  # fmt: skip


def check_dispute_author(
    version: int, claim: tuple[int, Entry] | None, seq: int, author: Player, record: bytes
) -> None:
    """A DISPUTE (protocol version 4) comes right after a clock claim, which closed
    the log, and is written by the player that claim says was flagged. ``claim`` is the
    clock claim that closed the log (``GameLog.clock_claim``) while no entry follows it,
    else None."""
    if version < DISPUTE_VERSION:
        raise InvalidEntryError(
            seq, f"a DISPUTE is protocol version {DISPUTE_VERSION}; this game is "
            f"version {version}", record
        )  # fmt: skip
    if claim is None:
        raise InvalidEntryError(
            seq, "a DISPUTE answers the clock claim right before it, and entry "
            f"{seq - 1} is no clock claim", record
        )  # fmt: skip
    claimant = Player(claim[1].author)
    if author is claimant:
        raise InvalidEntryError(
            seq, f"{author.name} disputes its own clock claim: only the flagged player, "
            f"{claimant.other.name}, may", record
        )  # fmt: skip


def check_dispute(
    clock: tuple[int, int] | None, seq: int, author: Player, body: DisputeBody, record: bytes
) -> None:
    """The flagged player's reading in its dispute shows its own clock with time
    left: a reading of 0 would agree with the claim, not dispute it."""
    if clock is None:  # pragma: no cover - a clockless game holds no clock claim
        raise InvalidEntryError(seq, "a DISPUTE in a game without a clock", record)
    if body.clock[author] <= 0:
        raise InvalidEntryError(
            seq, f"{author.name}'s dispute reads 0 ms left on its own clock: it agrees "
            "with the clock claim instead of disputing it", record
        )  # fmt: skip
