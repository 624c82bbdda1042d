"""One player's side of a game with a remote peer: what to write, what to resend after a
reconnection, and what each received record means. Sans-IO: records in and out.

The player's ``Peer`` writes and checks entries; ``RemoteGame`` adds what a
connection that can drop needs:

- every record of the game, in order, each saved before it counts: this
  player's own with ``save`` (the caller appends it to the replay file and
  fsyncs, so it is on disk before it is sent), the peer's with
  ``save_received`` if set (the caller may skip the fsync: the peer holds the
  record too and sends it again after a crash);
- ``missing_for(have)``: the records a peer holding ``have`` of them lacks (sent
  after every handshake, so nothing is lost when a connection drops);
- ``receive(record)``: a record the peer sent. One we hold already is dropped
  (resent after a reconnection: nothing is applied twice); a different record
  with the same sequence number, validly signed by its author, is equivocation
  and raises with both records as evidence.

The chain secret is derived from the identity key and the game id
(``chain_secret``), so a player can resume a game from its replay file and
identity alone, even after a crash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Final

from dbnet.engine import ChanceRequest, Choice, Decision, Game, GameSetup, Player
from dbnet.errors import DbnetError
from dbnet.protocol import dice
from dbnet.protocol.claims import is_clock_claim
from dbnet.protocol.errors import InvalidEntryError, LocalProtocolError, ProtocolError
from dbnet.protocol.genesis import RULES_VERSION, game_id_for
from dbnet.protocol.identity import Identity, verify
from dbnet.protocol.log import Decide, GameLog, Status
from dbnet.protocol.peer import Peer
from dbnet.wire.bodies import EntryKind
from dbnet.wire.entries import Entry, SignedEntry, decode_signed_entry, signing_message
from dbnet.wire.setup import EncodedSetup

_SECRET_TAG: Final = b"dbnet/chain-secret/v1\x00"
_SECRET_PERSON: Final = b"dbnet/chainsec"

Save = Callable[[bytes], None]


class EquivocationError(ProtocolError):
    """The peer signed two different entries with one sequence number: proof of cheating.

    ``evidence`` holds both records, each validly signed by the same author.
    """

    def __init__(self, seq: int, first: bytes, second: bytes) -> None:
        self.seq = seq
        self.evidence = (first, second)
        super().__init__(
            f"entry {seq}: the peer signed two different entries with this sequence number "
            "(equivocation); both are kept as evidence"
        )


def chain_secret(identity: Identity, game_id: bytes) -> bytes:
    """This player's chain secret for ``game_id``: a hash of the identity's Ed25519
    signature over a tag and the game id. Ed25519 signatures are deterministic and
    only the key's holder can make them, so the secret is fixed by key and game,
    and unknowable to anyone else."""
    signature = identity.sign(_SECRET_TAG + game_id)
    return hashlib.blake2b(signature, digest_size=32, person=_SECRET_PERSON).digest()


class RemoteGame:
    """This player's side of one game played with a remote peer."""

    def __init__(
        self, peer: Peer, records: list[bytes], save: Save, save_received: Save | None = None
    ) -> None:
        self.peer = peer
        self.records = records
        self.save = save
        """Called with every record this player writes before it counts, so before it is
        sent (e.g. ``ReplayWriter.append``: written and fsynced)."""
        self.save_received = save_received
        """Called instead of ``save`` with each record received from the peer, if set.
        The peer holds those too and sends them again after a crash, so this may skip the
        fsync (``ReplayWriter.append`` with ``sync=False``), which takes the disk's
        latency off the game's critical path; the next record written syncs it."""
        self._owes: tuple[int, bool] | None = None  # (records held, a decision is owed)

    # --- starting ----------------------------------------------------------------------

    @classmethod
    def offer(
        cls,
        identity: Identity,
        peer_key: bytes,
        setup: GameSetup | EncodedSetup,
        save: Save,
        *,
        nonce: bytes,
        joiner_nonce: bytes,
        chain_length: int = dice.DEFAULT_CHAIN_LENGTH,
        secret: bytes | None = None,
        name: str = "A",
        clock: tuple[int, int] | None = None,
    ) -> RemoteGame:
        """A (the host) offers a game; the OFFER is saved, to be sent. ``nonce`` is A's
        fresh nonce, ``joiner_nonce`` the one B sent: the game id, and so A's chain secret
        (derived from it unless ``secret`` is given), is fresh whatever B chose. ``name``
        is A's, signed in the OFFER; ``clock`` the game's clock, ``(base, increment)`` in
        ms, if it has one (an ``EncodedSetup`` holds its own). The setup is encoded once,
        here, unless it comes encoded."""
        offered = EncodedSetup.of(setup, clock)
        if secret is None:  # derived from the game id
            keys = (identity.public_key, peer_key)
            game_id = game_id_for(RULES_VERSION, keys, nonce, offered.data, joiner_nonce)
            secret = chain_secret(identity, game_id)
        peer, offer = Peer.offer(
            identity,
            peer_key,
            offered,
            chain_length=chain_length,
            secret=secret,
            nonce=nonce,
            joiner_nonce=joiner_nonce,
            name=name,
        )
        save(offer)
        return cls(peer, [offer], save)

    @classmethod
    def accept(
        cls,
        identity: Identity,
        offer: bytes,
        save: Save,
        *,
        secret: bytes | None = None,
        name: str = "B",
    ) -> RemoteGame:
        """B (the joiner) accepts an OFFER (check ``offered_setup`` first); the OFFER and the
        ACCEPT are saved, the ACCEPT to be sent. The chain secret is derived from the
        identity and the game id unless ``secret`` is given; ``name`` is B's, signed in the
        ACCEPT."""
        if secret is None:
            secret = chain_secret(identity, GameLog.start(offer).game_id)
        peer, accept = Peer.accept(identity, offer, secret=secret, name=name)
        save(offer)
        save(accept)
        return cls(peer, [offer, accept], save)

    @classmethod
    def restore(
        cls,
        identity: Identity,
        records: list[bytes],
        save: Save,
        *,
        secret: bytes | None = None,
        attach: Callable[[GameLog, Player], None] | None = None,
        name: str | None = None,
    ) -> RemoteGame:
        """The game of a replay file's ``records`` (this player's copy), to go on with; the
        chain secret is derived from the identity and the game id unless ``secret`` is
        given. ``attach``, if given, is called with the log and this player's seat before
        the records after the OFFER are applied: to set the log's ``teller``, which then
        tells the game so far as the records are checked, with no second play of it.
        ``name`` is the name B signs in the ACCEPT it writes when ``records`` hold the
        OFFER alone: the one a fresh game signs, so the ACCEPT is the one B would have sent.

        Raises:
            LocalProtocolError: the identity is neither player of the game, or B must
                write its ACCEPT and no ``name`` is given.
            InvalidEntryError: a record is invalid (the file was damaged).
        """
        if not records:
            raise LocalProtocolError("the replay holds no entries: there is no game to resume")
        log = GameLog.start(records[0])
        if identity.public_key not in log.keys:
            raise LocalProtocolError("this identity is neither player of the game in the replay")
        me = Player(log.keys.index(identity.public_key))
        if me is Player.B and len(records) == 1:
            # B saved the OFFER and stopped before its ACCEPT: go on as a fresh ACCEPT
            # would (the chain secret is derived, so it is the ACCEPT B would have sent)
            if name is None:
                raise LocalProtocolError("B's ACCEPT is to be written: the name it signs is needed")
            game = cls.accept(identity, records[0], lambda record: None, secret=secret, name=name)
            if attach is not None:
                attach(game.log, me)  # the OFFER and the ACCEPT tell nothing
            game.save = save
            save(game.records[1])
            return game
        if attach is not None:
            attach(log, me)
        for record in records[1:]:
            log.append(record)
        if secret is None:
            secret = chain_secret(identity, log.game_id)
        peer = Peer.restore(identity, log, secret)
        return cls(peer, list(records), save)

    # --- state -------------------------------------------------------------------------

    @property
    def log(self) -> GameLog:
        return self.peer.log

    @property
    def me(self) -> Player:
        return self.peer.me

    @property
    def game_id(self) -> bytes:
        return self.log.game_id

    @property
    def is_closed(self) -> bool:
        """Nothing more may be written: complete, or ended by a claim."""
        return self.log.expected_author() is None

    @property
    def my_turn(self) -> bool:
        return self.log.expected_author() is self.me

    def decision_view(self) -> Game | None:
        """When this player owes a decision now: the game as they see it (dice they can
        know included), to decide on; else None (a link, FINAL or COSIGN is due, or it is
        the peer's turn)."""
        owed: Game | None = None
        if self.my_turn and self.log.status not in (Status.FINAL_DUE, Status.COSIGN_DUE):
            view = self.peer.view()
            pending = view.pending
            if isinstance(pending, Decision) and pending.player is self.me:
                owed = view
        self._owes = (len(self.records), owed is not None)
        return owed

    def _owes_decision(self) -> bool:
        """Whether this player owes a decision now (``decision_view`` without the view,
        remembered from its last call while the log has not moved)."""
        if self._owes is not None and self._owes[0] == len(self.records):
            return self._owes[1]
        return self.decision_view() is not None

    # --- writing -----------------------------------------------------------------------

    def write(self, decision: str | None = None, choice: Choice | None = None) -> bytes:
        """This player's next entry (``decision`` in notation when one is owed, and
        ``choice``, the same decision parsed on this player's view, if the caller has it),
        saved.

        Raises:
            LocalProtocolError: it is not this player's turn, or a decision is owed and
                not given (or given when none is owed).
            InvalidEntryError: the decision is illegal (nothing is written).
        """
        peer = self.peer
        owes_decision = self._owes_decision()
        if (decision is not None) != owes_decision:
            what = "owes a decision" if owes_decision else "owes no decision"
            raise LocalProtocolError(f"{self.me.name} {what} now")
        if self.log.status in (Status.FINAL_DUE, Status.COSIGN_DUE):
            record = peer.finish()
        elif decision is not None:
            record = peer.decide(decision, choice)
        else:
            record = peer.reveal()
        return self._keep(record)

    def play(self, decide: Decide) -> bytes:
        """This player's next entry, saved: FINAL or COSIGN when due, else a PLAY entry
        whose decision, if this player owes one once their due links are in, ``decide``
        makes on the log's own game (``Peer.play``).

        Raises:
            LocalProtocolError: it is not this player's turn.
            InvalidEntryError: the decision is illegal (nothing is written).
        """
        if self.log.status in (Status.FINAL_DUE, Status.COSIGN_DUE):
            return self._keep(self.peer.finish())
        return self._keep(self.peer.play(decide))

    def resign(self) -> bytes:
        """Resign in place of the decision this player owes (after the link it owes
        first, if any), saved; returns the last record written.

        Raises:
            LocalProtocolError: it is not this player's turn, or the entry due is only a
                link that hands the turn to the peer (resign at the next decision);
                nothing is written.
        """
        if not self.my_turn:
            raise LocalProtocolError("a player resigns in their own entry: wait for your turn")
        if isinstance(self.log.game.pending, ChanceRequest):
            if self.decision_view() is None:
                raise LocalProtocolError(
                    "the entry due now only gives a link for a roll, and then the peer "
                    "writes: resign at your next decision"
                )
            self._keep(self.peer.reveal())  # every roll this player saw stays in the log
        return self._keep(self.peer.resign())

    def claim_timeout(self) -> bytes:
        """A signed unilateral claim that the peer stopped answering, saved."""
        return self._keep(self.peer.claim_timeout())

    def claim_on_time(self, reading: tuple[int, int], waiting_for: int | None = None) -> bytes:
        """A signed clock claim (``Peer.claim_on_time``), saved."""
        return self._keep(self.peer.claim_on_time(reading, waiting_for))

    def dispute(self, reading: tuple[int, int]) -> bytes:
        """A signed dispute of the peer's clock claim (``Peer.dispute``), saved."""
        return self._keep(self.peer.dispute(reading))

    def _keep(self, record: bytes, save: Save | None = None) -> bytes:
        (self.save if save is None else save)(record)
        self.records.append(record)
        return record

    # --- the connection ----------------------------------------------------------------

    def missing_for(self, have: int) -> list[bytes]:
        """The records a peer that holds ``have`` of them lacks, in order."""
        return self.records[have:]

    def receive(
        self,
        record: bytes,
        *,
        live: bool = False,
        decoded: tuple[SignedEntry, Entry] | None = None,
    ) -> bool:
        """A record from the peer: True if it was new and is now saved and applied, False
        if it was one we hold already.

        A new record must be written by the peer (the key the channel authenticated is
        the other player's): this player's own records never come back new. With
        ``live`` (the peer is connected to this player, who is answering), a timeout claim
        is refused: nobody may claim that a live player stopped answering, and a player
        never accepts such a claim against itself. A clock claim is checked like any entry:
        the claimant's readings are the evidence of a flag (docs/protocol.md, "Clocks").
        ``decoded`` is ``decode_signed_entry(record)``, if the caller has it.

        Raises:
            InvalidEntryError: the record is not the valid next entry (nothing changed).
            EquivocationError: a different, validly signed entry with a sequence number
                we hold.
        """
        if decoded is None:
            decoded = self._decode(record)
        entry = decoded[1]
        seq = entry.seq
        held = len(self.records)
        if seq < held:
            if record == self.records[seq]:
                return False
            self._check_equivocation(seq, record)
            raise InvalidEntryError(seq, "a different copy of an entry we hold", record)
        if seq > held:
            raise InvalidEntryError(seq, f"entries {held} to {seq - 1} are missing", record)
        if entry.author == self.me:
            raise InvalidEntryError(
                seq, f"the peer sent an entry written as {self.me.name}, this player", record
            )
        if live and entry.kind is EntryKind.CLAIM and not is_clock_claim(entry.body):
            raise InvalidEntryError(
                seq,
                f"the peer claims that {self.me.name} stopped answering, while {self.me.name} "
                "is connected and answering: a false timeout claim, refused and not saved",
                record,
            )
        self.peer.receive(record, decoded)
        self._keep(record, self.save if self.save_received is None else self.save_received)
        return True

    def claim_conflict(self, record: bytes, entry: Entry) -> int | None:
        """If ``record`` (decoded: ``entry``) is the peer's clock claim for an entry this
        player already wrote (the claim and the entry crossed): the seq of that entry,
        else None. The claim stays the claimant's word: see docs/protocol.md, "Clocks"."""
        if (
            not is_clock_claim(entry.body)
            or entry.author == self.me
            or entry.game_id != self.game_id
        ):
            return None
        if entry.seq < len(self.records) and self.records[entry.seq] != record:
            return entry.seq
        return None

    def _decode(self, record: bytes) -> tuple[SignedEntry, Entry]:
        try:
            return decode_signed_entry(record)
        except DbnetError as exc:
            raise InvalidEntryError(len(self.records), f"malformed: {exc}", record) from exc

    def _check_equivocation(self, seq: int, record: bytes) -> None:
        signed, entry = decode_signed_entry(record)
        _, ours = decode_signed_entry(self.records[seq])
        if entry.game_id != self.game_id or entry.author != ours.author:
            return
        if entry.kind is EntryKind.OFFER and seq != 0:
            return
        key = self.log.keys[entry.author]
        if verify(key, signed.signature, signing_message(signed.signed)):
            raise EquivocationError(seq, self.records[seq], record)
