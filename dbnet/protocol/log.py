"""The signed, hash-chained log of one game, validated entry by entry.

``GameLog`` is the single place where the rules of the protocol live: each
peer runs the other's entries through ``append`` and writes its own through
``write`` (the same checks, without verifying its own signature), and the
replay verifier runs a whole file through ``append``. An entry is accepted
only if its envelope (version, game, sequence number, previous hash, author,
signature) is right, its decision is legal for the player the engine names,
its chain links are the next ones of its author's hash chain and obey the
arming rule, and the state hash it carries equals the engine's after it.

The arming rule (docs/protocol.md): dice for roll r come from both players'
links for r. The entry that leaves the engine waiting for roll r (it commits
the last decision made without knowing the roll) must carry its author's link
for r; the other player's link comes in their very next entry, which may also
carry their next decision, so a roll costs no extra message. A link for a roll
the engine is not waiting for yet is invalid.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Final, NamedTuple, Protocol

from dbnet.engine import (
    PLAYERS,
    ChanceKind,
    ChanceRequest,
    Choice,
    Decision,
    EndReason,
    Game,
    Player,
    parse_choice,
)
from dbnet.errors import DbnetError
from dbnet.protocol import dice
from dbnet.protocol.claims import (
    check_clock_claim,
    check_dispute,
    check_dispute_author,
    check_reading,
    is_clock_claim,
)
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.genesis import check_offer, offered_game
from dbnet.protocol.identity import verifier, verify
from dbnet.protocol.rolls import MAX_DICE, EntryLinks, LinkSource, Roll, check_link
from dbnet.protocol.signatures import UncheckedSignature, bad_signature
from dbnet.wire.bodies import (
    AcceptBody,
    Body,
    ClaimBody,
    CosignBody,
    DisputeBody,
    EntryKind,
    FinalBody,
    OfferBody,
    PlayBody,
    ResignBody,
)
from dbnet.wire.entries import (
    Entry,
    SignedEntry,
    decode_signed_entry,
    encode_signed_entry,
    entry_hash,
    replace,
    sign_entry,
    signing_message,
)

_CHANCE_NAMES: Final = {kind: kind.value for kind in ChanceKind}  # ``.value`` is slow on 3.11
CHECKPOINT_EVERY: Final = 64
"""Entries between the log's checkpoints (copies of the game, see ``GameLog._undo``)."""


class Status(enum.Enum):
    PLAYING = "playing"  # the engine names who writes next
    FINAL_DUE = "final due"  # the game is over; its last author writes FINAL
    COSIGN_DUE = "cosign due"  # the other player counter-signs
    COMPLETE = "complete"
    CLAIMED = "claimed"  # ended by a unilateral claim: timeout, or clock
    DISPUTED = "disputed"  # a clock claim, then the flagged player's dispute (version 4)


# Compared on every entry, so looked up once: on Python 3.11 looking a member up on
# an enum class takes about 50 ns (the enum metaclass defines ``__getattr__``).
_PLAY: Final = EntryKind.PLAY
_ACCEPT: Final = EntryKind.ACCEPT
_CLAIM: Final = EntryKind.CLAIM
_DISPUTE: Final = EntryKind.DISPUTE
_PLAYING: Final = Status.PLAYING


class _Snapshot(NamedTuple):
    """What ``GameLog._restore`` needs to go back to a state of the log: a copy of the game,
    and how far the entries and the append-only parts (chains, anchors, links, rolls) had
    come."""

    entries: int
    game: Game
    chains: tuple[dice.ChainVerifier | None, ...]
    marks: tuple[tuple[int, bytes, int] | None, ...]
    anchors: int
    links: tuple[int, int]
    rolls: int
    status: Status
    final_author: Player | None


class Teller(Protocol):
    """Told what a log's entries do to its game, as the log applies them, once (the story
    of a game, ``match.story.Narrator``): each roll, decision and resignation before it is
    applied, then ``applied`` with the game after it; then whether the entry was
    ``accepted`` or ``refused`` (undone: nothing told of it counts). An entry applied again
    to undo a refused one (``GameLog._undo``) or a roll peeked at (``Peer.view``) is not
    told."""

    def rolling(self, game: Game, roll: Roll) -> None:
        """``roll`` is about to be rolled on ``game``, which waits for it."""
        ...

    def deciding(self, game: Game, author: Player, choice: Choice) -> None:
        """``author``'s ``choice`` is about to be applied to ``game``."""
        ...

    def resigning(self, game: Game, author: Player) -> None:
        """``author`` is about to resign ``game``."""
        ...

    def applied(self, game: Game) -> None:
        """The roll, decision or resignation told last is applied: ``game`` is after it."""
        ...

    def accepted(self, log: GameLog) -> None:
        """The entry is accepted: it is the last of ``log.entries``."""
        ...

    def refused(self) -> None:
        """The entry is refused: what was told of it did not happen."""
        ...


Decide = Callable[[Game], tuple[str, Choice | None]]
"""The author's decision on the log's own game (see ``GameLog.write``): in notation, and
parsed (None: the log parses the notation)."""


class GameLog:
    """A validated log. Build it from an OFFER with ``GameLog.start``; then ``append``."""

    def __init__(
        self,
        offer: SignedEntry,
        entry: Entry,
        body: OfferBody,
        game: Game,
        game_id: bytes,
    ) -> None:
        self.game_id = game_id
        self.version = entry.version
        """The protocol version of the OFFER, which every later entry must have too."""
        self.rules = body.rules
        self.keys: tuple[bytes, bytes] = (body.keys[0], body.keys[1])
        self._verifiers = (verifier(self.keys[0]), verifier(self.keys[1]))
        """``identity.verify`` with each player's key, checked once (by ``Player``)."""
        self.chain_length = body.chain
        self.clock = body.clock
        """The game's clock, ``(base, increment)`` in ms (protocol version 3), or None: then
        no entry carries a clock reading."""
        self.game = game
        self.entries: list[SignedEntry] = [offer]
        self.decoded: list[Entry] = [entry]
        self.head = entry_hash(offer.signed)
        self.anchors: list[bytes] = [body.anchor]
        self.chains: list[dice.ChainVerifier | None] = [
            dice.ChainVerifier(dice.chain_salt(game_id, self.keys[0]), body.chain, body.anchor),
            None,
        ]
        self.links: list[list[bytes]] = [[], []]  # revealed links per player, by roll index
        self.rolls: list[Roll] = []
        self.rolls_at: list[int] = [0]
        self._author_at: tuple[int, Player | None] = (0, None)  # see expected_author
        """How many rolls the log held after each entry: entry ``k`` completed the rolls
        ``rolls[rolls_at[k - 1]:rolls_at[k]]``."""
        self.status = Status.PLAYING
        self.final_author: Player | None = None
        self._checkpoint: _Snapshot | None = None  # made by the first entry that may be undone
        self.teller: Teller | None = None
        """Told what each entry does as it is applied (``Teller``), if set: set it before
        the entries whose story is wanted are applied."""

    # --- construction ---------------------------------------------------------

    @classmethod
    def start(cls, record: bytes) -> GameLog:
        """A log from the OFFER record (entry 0)."""
        try:
            signed, entry = decode_signed_entry(record)
        except DbnetError as exc:
            raise InvalidEntryError(0, f"malformed: {exc}", record) from exc
        body = check_offer(entry, record)
        if not verify(body.keys[0], signed.signature, signing_message(signed.signed)):
            raise InvalidEntryError(0, "bad signature by A", record)
        game = offered_game(body, record)
        if body.state != game.state_hash():
            raise InvalidEntryError(0, "A's state hash differs from the initial state", record)
        return cls(signed, entry, body, game, entry.game_id)

    @classmethod
    def offer(cls, draft: Entry, sign: Callable[[bytes], bytes]) -> tuple[GameLog, bytes]:
        """A's log from its own OFFER, and the OFFER's record, signed with ``sign``.

        ``draft`` goes through the checks ``start`` makes but two: its signature is made
        here, and its state hash is filled in from the log's new game (so A builds the
        game once, and decodes and verifies nothing it wrote).
        """
        body = check_offer(draft, b"")
        game = offered_game(body, b"")
        body = replace(body, state=game.state_hash())
        entry = replace(draft, body=body)
        signed = sign_entry(entry, sign)
        return cls(signed, entry, body, game, entry.game_id), encode_signed_entry(signed)

    # --- queries ------------------------------------------------------------------

    @property
    def next_seq(self) -> int:
        return len(self.entries)

    def expected_author(self) -> Player | None:
        """Who writes the next entry (None once the log is closed).

        Asked several times per entry (whose turn, what is due, may this be written), so
        the answer is kept until the log has another entry: between entries the log only
        changes inside ``append`` and ``write``, and an entry refused there is undone."""
        held = len(self.entries)
        known = self._author_at
        if known[0] == held:
            return known[1]
        author = self._next_author()
        self._author_at = (held, author)
        return author

    def _next_author(self) -> Player | None:
        status = self.status
        if status is not _PLAYING:
            if status is Status.COSIGN_DUE:
                assert self.final_author is not None
                return self.final_author.other
            if status is Status.FINAL_DUE:
                return self.final_author
            return None  # complete or claimed
        if len(self.entries) == 1:
            return Player.B  # the ACCEPT
        pending = self.game.pending
        if isinstance(pending, Decision):
            return pending.player
        assert isinstance(pending, ChanceRequest)
        k = len(self.rolls)
        # the arming entry carried one link for roll k; the other player owes theirs
        return Player.A if len(self.links[Player.A]) <= k else Player.B

    # --- appending ----------------------------------------------------------------

    def append(
        self,
        record: bytes,
        *,
        atomic: bool = True,
        unchecked: list[UncheckedSignature] | None = None,
        decoded: tuple[SignedEntry, Entry] | None = None,
    ) -> Entry:
        """Validate ``record`` as the next entry and add it; raise InvalidEntryError if it
        is not, leaving the log unchanged (with ``atomic``; the verifier stops instead).

        With ``unchecked``, the signature is not checked here but added to that list,
        at the point of the checks where it would have been checked: a verifier that
        checks them all later, in order, reaches the same verdict faster (one tight
        loop of signature checks runs faster than checks spread between the rules).
        ``decoded`` is ``decode_signed_entry(record)`` when the caller has it
        already: a verifier decodes a file's records in one loop, for the same reason.
        """
        seq = len(self.entries)
        if decoded is not None:
            signed, entry = decoded
        else:
            try:
                signed, entry = decode_signed_entry(record)
            except DbnetError as exc:
                raise InvalidEntryError(seq, f"malformed: {exc}", record) from exc
        kind = entry.kind  # only a CLAIM's body can be a clock claim: most entries ask no more
        clock_claim = kind is _CLAIM and is_clock_claim(entry.body)
        author = self._check_envelope(seq, entry, record, clock_claim=clock_claim)
        if unchecked is not None:
            unchecked.append(
                UncheckedSignature(seq, author, self._verifiers[author], signed, record)
            )
        elif not self._verifiers[author](
            signed.signature, signing_message(signed.signed)
        ):  # ``UncheckedSignature.check``, without making one
            raise InvalidEntryError(seq, bad_signature(author), record)
        if not atomic:
            try:
                self._apply(seq, author, kind, entry.body, record)
            except BaseException:
                if self.teller is not None:
                    self.teller.refused()
                raise
        else:
            self._keep_checkpoint()
            try:
                self._apply(seq, author, kind, entry.body, record)
            except BaseException:
                self._undo()
                raise
        self._add(signed, entry)
        return entry

    def write(
        self,
        author: Player,
        body: Body,
        sign: Callable[[bytes], bytes],
        *,
        links: LinkSource | None = None,
        complete: Callable[[bytes], Body] | None = None,
        choice: Choice | None = None,
        decide: Decide | None = None,
    ) -> bytes:
        """Add the next entry, ``body`` written by this log's own player ``author``, and
        return its record, signed with ``sign``; raise like ``append`` (the log unchanged)
        if it is invalid.

        The log makes the envelope (game id, version, sequence number, previous hash),
        checks that ``author`` writes next, and checks and applies the body as ``append``
        does, once: the log's status, the decision, the links and the arming rule. The
        signature is made here, not checked: the author signs, the other peer verifies.
        With ``complete``, ``body`` is a draft: the author's links come from ``links`` as
        the rolls fall due, and ``complete(state hash after the entry)`` is the body
        signed, whose state is then the game's by construction. So an entry is applied
        once, where a dry run and then ``append`` of the signed record would apply it
        twice, and decode and verify it too. ``choice`` is the body's decision already
        parsed (by the author's prompt or bot, on the same position): applied as it is,
        the decision's notation is not parsed again. With ``decide``, a PLAY draft has no
        decision yet: once the author's due links are in, if the author owes the decision,
        ``decide`` makes it on the log's own game (at once, changing nothing), so that the
        dice an author's own links complete are rolled once, where a view to decide on
        would need a copy of the game and the rolls again.
        """
        seq = len(self.entries)
        kind = body.KIND
        self._check_author(seq, author, kind, b"", clock_claim=is_clock_claim(body))
        self._keep_checkpoint()
        try:
            self._apply(
                seq,
                author,
                kind,
                body,
                b"",
                links,
                check_state=complete is None,
                choice=choice,
                decide=decide,
            )
            if complete is not None:
                body = complete(self.game.state_hash())
            entry = Entry(self.version, self.game_id, seq, int(author), self.head, kind, body)
            signed = sign_entry(entry, sign)
        except BaseException:
            self._undo()
            raise
        self._add(signed, entry)
        return encode_signed_entry(signed)

    def _add(self, signed: SignedEntry, entry: Entry) -> None:
        """Record an entry that was checked and applied: the chain's head moves to it."""
        self.entries.append(signed)
        self.decoded.append(entry)
        self.rolls_at.append(len(self.rolls))
        self.head = entry_hash(signed.signed)
        if self.teller is not None:
            self.teller.accepted(self)

    def _check_envelope(
        self, seq: int, entry: Entry, record: bytes, *, clock_claim: bool = False
    ) -> Player:
        """Check a received entry's game, version, place in the chain and author; the
        author."""
        if entry.game_id != self.game_id:
            raise InvalidEntryError(seq, "it belongs to another game (game id differs)", record)
        if entry.version != self.version:
            raise InvalidEntryError(
                seq,
                f"protocol version {entry.version} in a game of version {self.version}",
                record,
            )
        if entry.seq != seq:
            raise InvalidEntryError(
                seq, f"out of order: sequence number {entry.seq}, expected {seq}", record
            )
        if entry.prev_hash != self.head:
            raise InvalidEntryError(
                seq, f"its previous-entry hash does not match entry {seq - 1}", record
            )
        return self._check_author(
            seq, PLAYERS[entry.author], entry.kind, record, clock_claim=clock_claim
        )

    def _check_author(
        self, seq: int, author: Player, kind: EntryKind, record: bytes, *, clock_claim: bool = False
    ) -> Player:
        """Check that ``author`` may write the next entry, of ``kind``; the author. A clock
        claim may be written by either player (``claims.check_clock_claim`` says when)."""
        if kind is _DISPUTE:
            claim = self.clock_claim() if self.status is Status.CLAIMED else None
            check_dispute_author(self.version, claim, seq, author, record)
            return author
        expected = self.expected_author()
        if expected is None:
            raise InvalidEntryError(
                seq, f"the log is closed ({self.status.value}); nothing may follow", record
            )
        if kind is _CLAIM:
            if author is expected and not clock_claim:
                raise InvalidEntryError(
                    seq, f"{author.name} claims a timeout while it is {author.name}'s turn", record
                )
        elif author is not expected:
            raise InvalidEntryError(
                seq,
                f"out of turn: written by {author.name}, but {expected.name} writes next",
                record,
            )
        return author

    def _apply(
        self,
        seq: int,
        author: Player,
        kind: EntryKind,
        body: Body,
        record: bytes,
        links: LinkSource | None = None,
        *,
        check_state: bool = True,
        choice: Choice | None = None,
        decide: Decide | None = None,
    ) -> None:
        """Check ``author``'s entry of ``kind`` with ``body`` against the game and apply it.
        ``links`` replaces the body's links (the author's own, as they fall due, see
        ``write``); without ``check_state`` the body's state hash is not compared (it is
        a draft's); ``choice`` is a PLAY body's decision already parsed, ``decide`` makes
        a PLAY draft's (see ``write``)."""
        if self.clock is not None or body.clock is not None:
            check_reading(self.clock, seq, kind, body, record)
        if kind is _PLAY and seq != 1 and self.status is _PLAYING:  # most entries
            assert isinstance(body, PlayBody)
            if links is None and (body.links or body.anchor is not None):
                links = EntryLinks(body.links, body.anchor, self.chain_length)
            self._play(seq, author, body.decision, links, record, choice, decide)
            if check_state:
                self._check_state(seq, body.state, record)
            self._note_end(author)
            return
        if kind is _DISPUTE:  # after a clock claim (``claims.check_dispute_author``)
            assert isinstance(body, DisputeBody)
            check_dispute(self.clock, seq, author, body, record)
            self.status = Status.DISPUTED
            return
        if kind is _CLAIM:  # also while FINAL or COSIGN is withheld
            assert isinstance(body, ClaimBody)
            if body.reason == "clock":
                over = None if self.status is _PLAYING else self.status.value.split()[0].upper()
                check_clock_claim(
                    self.decoded, self.expected_author(), over, seq, author, body, record
                )
                self.status = Status.CLAIMED
                return
            if body.waiting_for != seq:
                raise InvalidEntryError(
                    seq,
                    f"the claim waits for entry {body.waiting_for}, but entry {seq} is due",
                    record,
                )
            self.status = Status.CLAIMED
            return
        status = self.status
        if status is not _PLAYING:
            if status is Status.FINAL_DUE and kind is not EntryKind.FINAL:
                raise InvalidEntryError(
                    seq,
                    f"the game is over: {author.name} must write FINAL, not {kind.name}",
                    record,
                )
            if status is Status.COSIGN_DUE and kind is not EntryKind.COSIGN:
                raise InvalidEntryError(
                    seq,
                    f"{author.name} must counter-sign the FINAL entry, not write {kind.name}",
                    record,
                )
        if kind is _ACCEPT:
            assert isinstance(body, AcceptBody)
            if seq != 1:
                raise InvalidEntryError(seq, "an ACCEPT must be entry 1", record)
            if body.anchor == self.anchors[Player.A]:
                raise InvalidEntryError(
                    seq, "B's chain anchor equals A's (identical anchors are refused)", record
                )
            salt = dice.chain_salt(self.game_id, self.keys[Player.B])
            self.anchors.append(body.anchor)
            self.chains[Player.B] = dice.ChainVerifier(salt, self.chain_length, body.anchor)
            if links is None:
                links = EntryLinks(body.links, None, self.chain_length)
            self._play(seq, author, None, links, record)
            if check_state:
                self._check_state(seq, body.state, record)
        elif seq == 1:
            raise InvalidEntryError(seq, f"entry 1 must be B's ACCEPT, not {kind.name}", record)
        elif kind is EntryKind.RESIGN:
            assert isinstance(body, ResignBody)
            teller = self.teller
            if teller is not None:
                teller.resigning(self.game, author)
            self.game.resign(author)
            if teller is not None:
                teller.applied(self.game)
            if check_state:
                self._check_state(seq, body.state, record)
        elif kind is EntryKind.FINAL:
            assert isinstance(body, FinalBody)
            self._check_final(seq, body, record)
            self._check_state(seq, body.state, record)
            self.status = Status.COSIGN_DUE
            return
        elif kind is EntryKind.COSIGN:
            assert isinstance(body, CosignBody)
            if body.head != self.head:
                raise InvalidEntryError(
                    seq, "the counter-signature is not over the FINAL entry's hash", record
                )
            if body.winner != self.game.winner:
                raise InvalidEntryError(
                    seq, "the counter-signed winner differs from the game's", record
                )
            self.status = Status.COMPLETE
            return
        else:
            raise InvalidEntryError(seq, f"an entry of kind {kind.name} cannot appear here", record)
        self._note_end(author)

    def _note_end(self, author: Player) -> None:
        """After ``author``'s entry that may end the game: if it did, FINAL is due from them."""
        if self.game.is_over:
            self.status = Status.FINAL_DUE
            self.final_author = author

    def clock_claim(self) -> tuple[int, Entry] | None:
        """The clock claim that closed the log (its seq and entry), whether a dispute
        follows it or not; None if no clock claim closed it."""
        if self.status is Status.DISPUTED:
            seq = len(self.decoded) - 2
        elif self.status is Status.CLAIMED:
            seq = len(self.decoded) - 1
        else:
            return None
        entry = self.decoded[seq]
        return (seq, entry) if is_clock_claim(entry.body) else None

    def _check_final(self, seq: int, body: FinalBody, record: bytes) -> None:
        game = self.game
        reason = "victory" if game.end_reason is EndReason.VICTORY else "resignation"
        turns = [list(t) for t in game.conquest_history]
        if body.winner != game.winner or body.reason != reason:
            raise InvalidEntryError(
                seq, f"FINAL says {body.reason} for {Player(body.winner).name}, the game "
                f"says {reason} for {game.winner.name if game.winner is not None else '-'}", record
            )  # fmt: skip
        if [list(t) for t in body.turns] != turns:
            raise InvalidEntryError(seq, "FINAL's score by turn differs from the game's", record)

    def _check_state(self, seq: int, state: bytes, record: bytes) -> None:
        if state != self.game.state_hash():
            raise InvalidEntryError(
                seq, "its author's state hash differs from the state after it (desync)", record
            )

    # --- decisions and dice ----------------------------------------------------------

    def _play(
        self,
        seq: int,
        author: Player,
        decision: str | None,
        links: LinkSource | None,
        record: bytes,
        choice: Choice | None = None,
        decide: Decide | None = None,
    ) -> None:
        """Resolve pending rolls with the entry's links, apply its decision (``choice``
        when the author has it parsed already, else parsed here; made by ``decide`` if the
        author owes one then), resolve again, and check the arming rule (see the module
        docstring). ``links`` is None for an entry that carries none: then there is nothing
        to resolve, since a roll whose links were all in was rolled then."""
        game = self.game
        pending = game.pending
        used = 0
        if links is not None and isinstance(pending, ChanceRequest):
            used = self._resolve(seq, author, links, record)
            pending = game.pending
        if decide is not None and isinstance(pending, Decision) and pending.player is author:
            decision, choice = decide(game)  # at once, changing nothing
        if decision is not None:
            if not isinstance(pending, Decision):
                raise InvalidEntryError(
                    seq, f"a decision ({decision!r}) while dice are due", record
                )
            if pending.player is not author:
                raise InvalidEntryError(
                    seq, f"decision {decision!r} by {author.name}, but {pending.player.name} "
                    f"owes the {pending.kind.value} decision", record
                )  # fmt: skip
            teller = self.teller
            try:
                if choice is None:
                    choice = parse_choice(game, decision)
                if teller is not None:
                    teller.deciding(game, author, choice)
                game.apply(choice)
            except DbnetError as exc:
                raise InvalidEntryError(
                    seq, f"illegal decision {decision!r}: {exc}", record
                ) from exc
            if teller is not None:
                teller.applied(game)
            if links is not None and isinstance(game.pending, ChanceRequest):
                used += self._resolve(seq, author, links, record)
        elif not used and seq != 1:
            raise InvalidEntryError(
                seq, "the entry holds neither a decision nor a due link", record
            )
        leftover = None if links is None else links.leftover()
        if leftover is not None:
            raise InvalidEntryError(seq, f"{author.name}'s {leftover}", record)
        if isinstance(game.pending, ChanceRequest) and len(self.links[author]) <= len(self.rolls):
            raise InvalidEntryError(
                seq, f"the entry leaves roll {len(self.rolls)} waiting without {author.name}'s "
                "link for it (the arming entry must carry it)", record
            )  # fmt: skip

    def _resolve(self, seq: int, author: Player, links: LinkSource, record: bytes) -> int:
        """Take the author's links for the rolls the engine waits for, and roll when both
        players' links are in. Returns how many links were taken."""
        game = self.game
        taken = 0
        mine, theirs = self.links[author], self.links[author.other]
        while isinstance(game.pending, ChanceRequest):
            k = len(self.rolls)
            if len(mine) <= k:
                given = links.take(k)
                if given is None:
                    break
                chain = self.chains[author]
                assert chain is not None
                mine.append(check_link(chain, self.chain_length, seq, author, k, given, record))
                taken += 1
            if len(theirs) <= k:
                break
            request = game.pending
            if request.count > MAX_DICE:
                raise InvalidEntryError(
                    seq, f"roll {k} asks for {request.count} dice; at most {MAX_DICE}", record
                )
            values = dice.roll_dice(
                self.game_id, k, self.links[Player.A][k], self.links[Player.B][k], request.count
            )
            roll = Roll(k, _CHANCE_NAMES[request.kind], values)
            teller = self.teller
            if teller is not None:
                teller.rolling(game, roll)
            game.roll(values)
            if teller is not None:
                teller.applied(game)
            self.rolls.append(roll)
        return taken

    # --- atomicity -------------------------------------------------------------------

    def _keep_checkpoint(self) -> None:
        """Before an entry that may have to be undone: a checkpoint at most
        CHECKPOINT_EVERY entries back."""
        checkpoint = self._checkpoint
        if checkpoint is None or len(self.entries) - checkpoint.entries >= CHECKPOINT_EVERY:
            self._checkpoint = self._save()

    def _undo(self) -> None:
        """Undo a refused entry: back to the checkpoint, then the entries accepted since
        applied again. The engine is deterministic, so this is the state before the refused
        entry. It costs up to CHECKPOINT_EVERY entries' play, and only when an entry is
        refused, where a copy of the game before every entry would cost a copy each."""
        checkpoint = self._checkpoint
        assert checkpoint is not None
        head, teller = self.head, self.teller
        self.teller = None  # told once, when they were accepted
        try:
            self._restore(checkpoint._replace(game=checkpoint.game.copy()))  # kept for the next
            for seq in range(checkpoint.entries, len(self.entries)):
                self.head = entry_hash(self.entries[seq - 1].signed)  # as a COSIGN saw it
                entry = self.decoded[seq]
                self._apply(seq, PLAYERS[entry.author], entry.kind, entry.body, b"")
        finally:
            self.head, self.teller = head, teller
        if teller is not None:
            teller.refused()

    def _save(self) -> _Snapshot:
        """A snapshot of the log as it is: the game is copied; the rest only grows while
        entries are applied, so its lengths and the chains' marks are enough."""
        chains = tuple(self.chains)
        return _Snapshot(
            entries=len(self.entries),
            game=self.game.copy(),
            chains=chains,
            marks=tuple(c.mark() if c is not None else None for c in chains),
            anchors=len(self.anchors),
            links=(len(self.links[0]), len(self.links[1])),
            rolls=len(self.rolls),
            status=self.status,
            final_author=self.final_author,
        )

    def _restore(self, saved: _Snapshot) -> None:
        """Back to ``saved`` (the game, chains, links and rolls; not the entries): what was
        applied since it was taken is undone. ``saved.game`` becomes the log's game."""
        self.game = saved.game
        self.chains = list(saved.chains)
        for chain, mark in zip(saved.chains, saved.marks, strict=True):
            if chain is not None and mark is not None:
                chain.rewind(mark)
        del self.anchors[saved.anchors :]
        del self.links[0][saved.links[0] :]
        del self.links[1][saved.links[1] :]
        del self.rolls[saved.rolls :]
        self.status = saved.status
        self.final_author = saved.final_author
