"""What one replay file says about its game, for an event's roster and standings
(``replay.event``): the verdict, the game id, both players' keys and warbands, and the
hash of the last valid entry (two files of one game agree on it, or one stops earlier).

``examine(path)`` reads the file as ``dbnet verify`` does (``replay.checked``) and then
decodes only the OFFER and the last valid entry, so an event costs what verifying its
files costs. It runs in ``dbnet verify``'s worker processes: it takes a path, returns a
plain value, and never raises for a bad file. A file of equivocation evidence
(``replay.evidence``) that proves its point has the facts of its OFFER and the ``proof``.

A file is a copy of a game (``is_copy``) when its OFFER is valid: it may be damaged
after that (a *bad copy*: invalid, its valid entries still those of its game). A file
without a valid OFFER holds no game: unreadable, or not a replay at all; if its header
is valid, ``header_id`` keeps the game id it names (unchecked), so that an event can
list it as a bad copy of a game that its other files prove (``as_bad_copy``).

A game is its game id and its protocol version (``game``): the id does not bind the
version, so one set of keys and nonces recorded under two versions (dbnet's own
``replays/`` and their version-2 fixtures) makes two games, never two copies of one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dbnet.errors import DbnetError
from dbnet.protocol.identity import fingerprint
from dbnet.replay.checked import check_bytes, read_checked
from dbnet.replay.errors import ReplayError
from dbnet.replay.evidence import Proof, prove, read_evidence
from dbnet.replay.file import load_bytes
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.wire.bodies import AcceptBody, OfferBody
from dbnet.wire.entries import decode_signed_entry, entry_hash
from dbnet.wire.replay_header import decode_replay_header, encode_replay_header

__all__ = ["GameFile", "entry_hashes", "examine"]


@dataclass(frozen=True, slots=True)
class GameFile:
    """One file's facts. ``game_id`` (full, hex), ``keys`` (A's and B's public keys, hex),
    ``players`` (their fingerprints) and ``warbands`` are None when not even the OFFER is
    valid; ``names`` are the names A signed in the OFFER and B in the ACCEPT (each None
    when its entry is missing, invalid or of a protocol version before 3); ``head`` is the
    hash of the last valid entry (hex), ``entries`` how many there are. ``proof`` is what
    a file of equivocation evidence proves (its game's facts are its OFFER's)."""

    where: str
    verdict: Verdict
    game_id: str | None = None
    keys: tuple[str, str] | None = None
    players: tuple[str, str] | None = None
    warbands: tuple[str, str] | None = None
    head: str | None = None
    entries: int = 0
    names: tuple[str | None, str | None] = (None, None)
    proof: Proof | None = None
    header_id: str | None = None
    protocol: int | None = None
    """The protocol version of the OFFER (of the header, for a file without an OFFER)."""

    @property
    def game(self) -> tuple[str, int | None] | None:
        """What names the game this file is a copy (or evidence) of: the game id and the
        protocol version; None for a file without a game."""
        return None if self.game_id is None else (self.game_id, self.protocol)

    @property
    def is_copy(self) -> bool:
        """Whether the file is a copy of a game, maybe damaged after its OFFER (not
        evidence, not a file without a game)."""
        return self.game_id is not None and self.proof is None

    @property
    def damaged(self) -> bool:
        """A copy of a game that is invalid after its header: a bad copy."""
        return self.is_copy and self.verdict.status is VerdictStatus.INVALID

    def as_bad_copy(self, of: GameFile) -> GameFile:
        """This file (no valid OFFER, a header naming the game of ``of``) as a bad copy of
        that game: no valid entry, the game's players."""
        return replace(
            self,
            game_id=of.game_id,
            keys=of.keys,
            players=of.players,
            warbands=of.warbands,
            head=None,
            entries=0,
        )


def examine(path: str) -> GameFile:
    """The facts of the file at ``path`` (an unreadable file is invalid, saying why)."""
    try:
        data = load_bytes(path)
    except ReplayError as exc:
        verdict = Verdict(where=path, status=VerdictStatus.INVALID, entries=0, reason=exc.problem)
        return GameFile(path, verdict)
    checked = check_bytes(data, where=path)
    if checked.verdict.status is VerdictStatus.EQUIVOCATION:
        return _evidence(path, data)
    return _facts(path, checked.verdict, checked.records)


def _evidence(path: str, data: bytes) -> GameFile:
    """The facts of a file of equivocation evidence that proves its point: the game of
    its OFFER, and the proof."""
    verdict, proof = prove(data, where=path)
    header, offer, _, _ = read_evidence(data, where=path)  # framed already: cannot fail
    facts = _facts(path, verdict, (encode_replay_header(header), offer))
    return GameFile(
        path,
        verdict,
        game_id=facts.game_id,
        keys=facts.keys,
        players=facts.players,
        warbands=facts.warbands,
        names=facts.names,
        proof=proof,
        protocol=facts.protocol,
    )


def _facts(path: str, verdict: Verdict, records: tuple[bytes, ...]) -> GameFile:
    """The facts of a file of ``verdict`` whose valid records are ``records``."""
    if len(records) < 2:
        if not records:
            return GameFile(path, verdict)
        header = decode_replay_header(records[0])  # the verifier decoded it already
        return GameFile(path, verdict, header_id=header.game_id.hex(), protocol=header.protocol)
    try:
        offer = decode_signed_entry(records[1])[1]
        accept = decode_signed_entry(records[2])[1] if len(records) > 2 else None
        last = decode_signed_entry(records[-1])[0]
    except DbnetError:  # cannot happen for records the verifier accepted
        return GameFile(path, verdict)
    body = offer.body
    assert isinstance(body, OfferBody)
    b_body = accept.body if accept is not None else None
    b_name = b_body.name if isinstance(b_body, AcceptBody) else None
    a, b = body.keys
    return GameFile(
        where=path,
        verdict=verdict,
        game_id=offer.game_id.hex(),
        keys=(a.hex(), b.hex()),
        players=(fingerprint(a), fingerprint(b)),
        warbands=(body.setup.warbands[0].name, body.setup.warbands[1].name),
        head=entry_hash(last.signed).hex(),
        entries=len(records) - 1,
        names=(body.name, b_name),
        protocol=offer.version,
    )


def entry_hashes(path: str) -> list[str]:
    """The hash (hex) of every valid entry of the file at ``path``, in order: to tell
    whether one copy of a game is the start of another (rarely needed, so not kept).

    Raises:
        ReplayError: the file cannot be read.
    """
    records = read_checked(path).records
    return [entry_hash(decode_signed_entry(r)[0].signed).hex() for r in records[1:]]
