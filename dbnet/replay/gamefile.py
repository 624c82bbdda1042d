"""What one replay file says about its game, for an event's roster and standings
(``replay.event``): the verdict, the game id, both players' keys and warbands, and the
hash of the last valid entry (two files of one game agree on it, or one stops earlier).

``examine(path)`` reads the file as ``dbnet verify`` does (``replay.checked``) and then
decodes only the OFFER and the last valid entry, so an event costs what verifying its
files costs. It runs in ``dbnet verify``'s worker processes: it takes a path, returns a
plain value, and never raises for a bad file.
"""

from __future__ import annotations

from dataclasses import dataclass

from dbnet.errors import DbnetError
from dbnet.protocol.identity import fingerprint
from dbnet.replay.checked import read_checked
from dbnet.replay.errors import ReplayError
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.wire import codec
from dbnet.wire.codec import AcceptBody, OfferBody

__all__ = ["GameFile", "entry_hashes", "examine"]


@dataclass(frozen=True, slots=True)
class GameFile:
    """One file's facts. ``game_id`` (full, hex), ``keys`` (A's and B's public keys, hex),
    ``players`` (their fingerprints) and ``warbands`` are None when not even the OFFER is
    valid; ``names`` are the names A signed in the OFFER and B in the ACCEPT (each None
    when its entry is missing, invalid or of a protocol version before 3); ``head`` is the
    hash of the last valid entry (hex), ``entries`` how many there are."""

    where: str
    verdict: Verdict
    game_id: str | None = None
    keys: tuple[str, str] | None = None
    players: tuple[str, str] | None = None
    warbands: tuple[str, str] | None = None
    head: str | None = None
    entries: int = 0
    names: tuple[str | None, str | None] = (None, None)


def examine(path: str) -> GameFile:
    """The facts of the file at ``path`` (an unreadable file is invalid, saying why)."""
    try:
        checked = read_checked(path)
    except ReplayError as exc:
        verdict = Verdict(where=path, status=VerdictStatus.INVALID, entries=0, reason=exc.problem)
        return GameFile(path, verdict)
    records = checked.records
    if len(records) < 2:
        return GameFile(path, checked.verdict)
    try:
        offer = codec.decode_signed_entry(records[1])[1]
        accept = codec.decode_signed_entry(records[2])[1] if len(records) > 2 else None
        last = codec.decode_signed_entry(records[-1])[0]
    except DbnetError:  # cannot happen for records the verifier accepted
        return GameFile(path, checked.verdict)
    body = offer.body
    assert isinstance(body, OfferBody)
    b_body = accept.body if accept is not None else None
    b_name = b_body.name if isinstance(b_body, AcceptBody) else None
    a, b = body.keys
    return GameFile(
        where=path,
        verdict=checked.verdict,
        game_id=offer.game_id.hex(),
        keys=(a.hex(), b.hex()),
        players=(fingerprint(a), fingerprint(b)),
        warbands=(body.setup.warbands[0].name, body.setup.warbands[1].name),
        head=codec.entry_hash(last.signed).hex(),
        entries=len(records) - 1,
        names=(body.name, b_name),
    )


def entry_hashes(path: str) -> list[str]:
    """The hash (hex) of every valid entry of the file at ``path``, in order: to tell
    whether one copy of a game is the start of another (rarely needed, so not kept).

    Raises:
        ReplayError: the file cannot be read.
    """
    records = read_checked(path).records
    return [codec.entry_hash(codec.decode_signed_entry(r)[0].signed).hex() for r in records[1:]]
