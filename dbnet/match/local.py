"""Games on one machine, played through the signed log: every local game leaves a replay.

Two in-process peers (``Match``) write and check every entry exactly as networked peers
do; the dice come from their hash chains. ``LocalGame`` drives any two seats
(``match.seats``: people, bots): ``advance`` lets the peers write entries (the decisions
seats make at once, chain links, FINAL and COSIGN) until a person owes a decision, a seat
answers later (a bot thinking in a worker thread: ``step``) or the log is closed;
``play`` writes a person's choice in notation. Its ``Narrator`` tells the story
(``match.story``) as A's log applies each entry. This module does no terminal I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dbnet.bots import Bot
from dbnet.bots.match import MatchResult
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.engine import (
    Choice,
    Decision,
    Game,
    GameSetup,
    Player,
    Warband,
    format_choice,
    read_choice,
)
from dbnet.errors import IllegalChoiceError
from dbnet.match.building import Builders
from dbnet.match.keys import MatchKeys
from dbnet.match.peers import Attach, LocalMatch, RecordSink
from dbnet.match.seats import BotSeat, Seat, SeatKind
from dbnet.match.story import Event, EventKind, Narrator
from dbnet.protocol.errors import LocalProtocolError
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog, Status
from dbnet.wire.bodies import OfferBody, PlayBody
from dbnet.wire.setup import EncodedSetup


def load_setup(warband: Path | None, opponent: Path | None, side: Player) -> GameSetup:
    """The standard map with ``warband`` in ``side``'s seat and ``opponent`` in the other.

    Without files, the first shipped warband goes to ``side`` and the second to the other.
    """
    catalog = load_catalog()
    default_a, default_b = default_warbands(catalog)
    mine: Warband = load_warband(warband, catalog) if warband else default_a
    theirs: Warband = load_warband(opponent, catalog) if opponent else default_b
    pair = (mine, theirs) if side is Player.A else (theirs, mine)
    return GameSetup(load_map(), pair)


class Match(LocalMatch):
    """A ``LocalMatch`` whose identities, secrets and nonce are chosen (``MatchKeys``)."""

    def __init__(
        self,
        setup: GameSetup | EncodedSetup,
        keys: MatchKeys,
        *,
        chain_length: int | None = None,
        on_record: RecordSink | None = None,
        names: tuple[str, str] = ("A", "B"),
        attach: Attach | None = None,
    ) -> None:
        setup = EncodedSetup.of(setup)  # once: the chain secrets and the OFFER take its bytes
        super().__init__(
            setup,
            keys.identities,
            secrets=keys.chain_secrets(setup),
            nonce=keys.nonce,
            joiner_nonce=keys.joiner_nonce,
            chain_length=chain_length,
            on_record=on_record,
            names=names,
            attach=attach,
        )


def match_result(match: LocalMatch) -> MatchResult:
    """How a match went, in the terms ``dbnet selfplay`` reports."""
    log = match.peers[Player.A].log
    game = log.game
    decisions = sum(
        1 for e in log.decoded if isinstance(e.body, PlayBody) and e.body.decision is not None
    )
    return MatchResult(
        winner=game.winner,
        end_reason=game.end_reason,
        turns=game.turn,
        decisions=decisions,
        rolls=len(log.rolls),
        turns_won=(game.turns_won[0], game.turns_won[1]),
        conquest_history=tuple(game.conquest_history),
        state_hash=game.state_hash(),
    )


def bots_in_place(bots: tuple[Bot, Bot]) -> Callable[[Game], Choice]:
    """A chooser for ``LocalMatch.step`` that asks the deciding player's bot, thinking in
    place (``BotSeat``: in a Limited game's build phase, the bots commit to and reveal
    their automatic builds)."""
    seats = (BotSeat(bots[0]), BotSeat(bots[1]))

    def choose(view: Game) -> Choice:
        pending = view.pending
        assert isinstance(pending, Decision)
        choice = seats[pending.player].ask(view)
        assert choice is not None, "a bot in place decides at once"
        return choice

    return choose


# --- a game with seats ------------------------------------------------------------------------


class LocalGame:
    """A game between two seats on this machine, played through a ``Match``, with its log.

    ``on_record`` receives every record as it is written (to save the replay).
    """

    _match: Match | None

    def __init__(
        self,
        setup: GameSetup | EncodedSetup,
        seats: tuple[Seat, Seat],
        keys: MatchKeys | None = None,
        *,
        chain_length: int | None = None,
        on_record: RecordSink | None = None,
    ) -> None:
        """A new game. Without ``keys``, keys made for this game alone (nobody can resume
        it)."""
        if keys is None:
            keys = MatchKeys.for_owner(Identity.generate(), None)
        setup = EncodedSetup.of(setup)
        self._begin(setup.setup, seats, keys, on_record)
        self._match = Match(
            setup,
            keys,
            chain_length=chain_length,
            on_record=self._record,
            names=_signed_names(seats),
            attach=self.narrator.attach,
        )

    @classmethod
    def resume(
        cls,
        seats: tuple[Seat, Seat],
        keys: MatchKeys,
        records: list[bytes],
        *,
        on_record: RecordSink | None = None,
    ) -> LocalGame:
        """The game of a replay's ``records``, to go on with: every record is checked and
        its story told again (``log``) as A's log checks it; ``on_record`` receives only
        what is written from here.

        Raises:
            DbnetError: a record is invalid, or ``keys`` did not make this game.
        """
        if not records:
            raise LocalProtocolError("the replay holds no entries: there is no game to resume")
        offer = GameLog.start(records[0]).decoded[0].body
        assert isinstance(offer, OfferBody)
        game = cls.__new__(cls)
        game._begin(offer.setup, seats, keys, on_record)
        secrets = keys.chain_secrets(offer.offered)
        game._match = Match.restore(
            keys.identities,
            secrets,
            records,
            on_record=game._record,
            attach=game.narrator.attach,
            names=_signed_names(seats),  # for an ACCEPT the file ended before
        )
        game._new += game.narrator.follow(game._match.log)
        return game

    def _begin(
        self,
        setup: GameSetup,
        seats: tuple[Seat, Seat],
        keys: MatchKeys,
        on_record: RecordSink | None,
    ) -> None:
        self.seats = seats
        self.keys = keys
        self.builders = Builders()
        """Each person's warband in a Limited game's build phase (their saved pick; a bot's
        seat builds its own)."""
        self.narrator = Narrator(setup, (seats[0].name, seats[1].name))
        self._sink = on_record
        self._new: list[Event] = []
        self._match = None

    @property
    def match(self) -> Match:
        assert self._match is not None
        return self._match

    @property
    def game(self) -> Game:
        """The game as the players have seen it (a person's view when they are asked)."""
        return self.narrator.game

    @property
    def log(self) -> list[Event]:
        return self.narrator.events

    @property
    def hotseat(self) -> bool:
        """Whether people sit in both seats (no bot)."""
        return all(seat.kind is SeatKind.PERSON for seat in self.seats)

    @property
    def is_closed(self) -> bool:
        """Whether the log is closed (complete): nothing more to write."""
        return self.match.is_closed

    def person_to_decide(self) -> Player | None:
        """The person's seat that owes the pending decision, if a person owes it."""
        pending = self.game.pending
        if isinstance(pending, Decision) and self.seats[pending.player].kind is SeatKind.PERSON:
            return pending.player
        return None

    def advance(self) -> list[Event]:
        """Write entries (the decisions seats make at once, links, FINAL, COSIGN) until a
        person must decide, a seat answers later (``seat_to_decide``) or the log is
        closed."""
        match = self.match
        while not match.is_closed and not self.waits_for_person():
            due = match.due()
            assert due is not None, "both players are played here"
            if due.view is None:
                match.write()
                continue
            choice = self.seats[due.player].ask(due.view)
            if choice is None:
                break  # it answers later, from outside: step(decision)
            match.write(format_choice(due.view, choice), choice)
        return self._take()

    def waits_for_person(self) -> bool:
        """Whether the next entry is a person's decision (the game then shows their view:
        the rolls their own due links complete are told first)."""
        author = self.match.next_author
        if author is None:
            return False
        peer = self.match.peers[author]
        if peer.log.status is not Status.PLAYING or self.seats[author].kind is not SeatKind.PERSON:
            return False
        self._new += self.narrator.catch_up(peer)
        pending = self.game.pending
        return isinstance(pending, Decision) and pending.player is author

    def seat_to_decide(self) -> tuple[Seat, Game] | None:
        """When the next entry is the decision of a seat that is no person's (a bot's): the
        seat and its view of the game, a copy it may think on anywhere (in a worker thread,
        say) while nothing else is written."""
        match = self.match
        author = match.next_author
        if author is None:
            return None
        seat = self.seats[author]
        if seat.kind is SeatKind.PERSON or match.peers[author].log.status is not Status.PLAYING:
            return None
        view = match.view(author)
        pending = view.pending
        if isinstance(pending, Decision) and pending.player is author:
            return seat, view
        return None

    def step(self, decision: str | None = None) -> list[Event]:
        """Write the one next entry that no person decides: a seat's ``decision``
        (notation, thought on ``seat_to_decide()``'s view) when one is due, else links,
        FINAL or COSIGN. ``advance`` is this in a loop, with the seats asked in place.

        Raises:
            IllegalChoiceError: the log is closed, a person must decide, or ``decision``
                is given when no seat's decision is due (or missing when one is).
        """
        match = self.match
        if match.is_closed:
            raise IllegalChoiceError("the game's log is closed: no entry to write")
        if self.waits_for_person():
            raise IllegalChoiceError("a person must decide before the next entry")
        due = self.seat_to_decide() is not None
        if due != (decision is not None):
            wanted = "a seat's decision is due" if due else "no seat's decision is due"
            raise IllegalChoiceError(f"{wanted}; got {decision!r}")
        match.step(lambda view: decision or "")
        return self._take()

    def play(self, text: str) -> list[Event]:
        """Play a person's choice written in notation; raises DbnetError and changes nothing
        if it is malformed or illegal."""
        player = self.person_to_decide()
        if player is None or self.match.next_author is not player:
            raise IllegalChoiceError(f"no decision is waiting for a person; {text!r} not played")
        game = self.game
        choice = read_choice(game, text)  # a legal choice, or why not and what is legal
        self.match.step(lambda view: choice)  # parsed once: the log applies this value
        return self._take()

    def resign(self, player: Player) -> Event:
        """``player``, whose entry is due, resigns; FINAL and COSIGN follow."""
        self.match.resign(player)
        events = self._take()
        self.advance()
        return next(e for e in events if e.kind is EventKind.RESIGN)

    def notation(self) -> list[str]:
        """The game so far as notation lines (decisions and rolls), in order."""
        return [e.notation for e in self.log if e.kind is not EventKind.TURN]

    def transcript(self) -> list[str]:
        """The log for people: numbered notation lines, attack dice also shown as faces."""
        lines = []
        n = 0
        for e in self.log:
            if e.kind is EventKind.TURN:
                lines.append(f"      {e.words}")
                continue
            n += 1
            who = e.player.name if e.player is not None else " "
            faces = f"  {e.faces}" if e.faces else ""
            lines.append(f"{n:4}. {who} {e.notation}{faces}")
        return lines

    def _record(self, record: bytes) -> None:
        """Every record, as both peers have accepted it: save it, then tell its events."""
        if self._sink is not None:
            self._sink(record)
        if self._match is not None:
            self._new += self.narrator.follow(self._match.log)

    def _take(self) -> list[Event]:
        events, self._new = self._new, []
        return events


def _signed_names(seats: tuple[Seat, Seat]) -> tuple[str, str]:
    """The names A's and B's seats sign in the OFFER and the ACCEPT, new or resumed."""
    return seats[0].signed_name(Player.A), seats[1].signed_name(Player.B)
