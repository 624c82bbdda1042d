"""Games on one machine, played through the signed log: every local game leaves a replay.

Two in-process peers (``Match``, a ``LocalMatch``) write and check every
entry exactly as networked peers do; the dice come from their hash chains.
``LocalGame`` seats a person or a bot on each side: ``advance`` lets the
peers write entries (bots' decisions, chain links, FINAL and COSIGN) until a
person owes a decision or the log is closed; ``play`` writes that person's
choice in notation. A ``Narrator`` follows the entries on its own copy of the
game and turns them into ``Event``\\ s whose ``notation`` is the line a
scenario or replay would hold (``spawn lockjaw e1``, ``roll 3 5``) and whose
``words`` tell people what happened, attack dice shown as faces
(``[2 3 - B]``). ``dbnet replay`` narrates a replay file the same way.

``MatchKeys`` holds what makes a game unpredictable: both identities, both
chain secrets and the nonce. ``MatchKeys.from_seed`` derives them all from a
seed (``--seed``: reproducible games); ``MatchKeys.fresh`` draws them from
``secrets``. This module does no terminal I/O.
"""

from __future__ import annotations

import datetime
import enum
import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dbnet import codec, dice
from dbnet.bots import Bot
from dbnet.bots.match import MatchResult
from dbnet.catalog import default_warbands, load_catalog, load_map, load_warband
from dbnet.codec import EntryKind, PlayBody, ReplayHeader
from dbnet.engine import (
    ChanceKind,
    ChanceRequest,
    Decision,
    Game,
    GameSetup,
    Player,
    Warband,
    format_choice,
    format_dice,
    parse_choice,
    read_choice,
)
from dbnet.engine.board import cell_name
from dbnet.engine.game import dice_damage
from dbnet.engine.notation import format_attack_dice
from dbnet.errors import IllegalChoiceError
from dbnet.identity import Identity, config_dir
from dbnet.protocol.local import LocalMatch, RecordSink
from dbnet.protocol.log import GameLog, Roll, Status, game_id_for
from dbnet.protocol.peer import RULES_VERSION, Peer
from dbnet.render import dice_count, roller, special_target
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import EXTENSION, ReplayWriter, holds_no_entry
from dbnet.text import printable

_DERIVE_PERSON: Final = b"dbnet/localplay"


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


# --- keys and the match ------------------------------------------------------------------


def derive(seed: bytes, what: str) -> bytes:
    """32 bytes fixed by ``seed`` and ``what``: BLAKE2b-256(person="dbnet/localplay") over
    ``what`` (UTF-8), a zero byte and ``seed``."""
    data = what.encode() + b"\0" + seed
    return hashlib.blake2b(data, digest_size=32, person=_DERIVE_PERSON).digest()


@dataclass(frozen=True, slots=True)
class MatchKeys:
    """Both players' identities, chain secrets and nonces: with the setup and the decisions
    they fix the game, dice included."""

    identities: tuple[Identity, Identity]
    secrets: tuple[bytes, bytes]
    nonce: bytes
    joiner_nonce: bytes

    @classmethod
    def from_seed(cls, seed: bytes) -> MatchKeys:
        """Everything derived from ``seed`` (the same seed, the same game id and dice)."""
        return cls(
            identities=(
                Identity.from_private_bytes(derive(seed, "identity A")),
                Identity.from_private_bytes(derive(seed, "identity B")),
            ),
            secrets=(derive(seed, "chain secret A"), derive(seed, "chain secret B")),
            nonce=derive(seed, "nonce"),
            joiner_nonce=derive(seed, "joiner nonce"),
        )

    @classmethod
    def fresh(cls, identities: tuple[Identity | None, Identity | None] = (None, None)) -> MatchKeys:
        """Fresh secrets and nonce from ``secrets``; a fresh identity for each seat not given."""
        a, b = identities
        return cls(
            identities=(a or Identity.generate(), b or Identity.generate()),
            secrets=(secrets.token_bytes(32), secrets.token_bytes(32)),
            nonce=secrets.token_bytes(32),
            joiner_nonce=secrets.token_bytes(32),
        )

    def game_id(self, setup: GameSetup) -> bytes:
        """The id of the game these keys make with ``setup`` (before it is offered)."""
        keys = (self.identities[0].public_key, self.identities[1].public_key)
        setup_bytes = codec.encode(codec.setup_to_wire(setup))
        return game_id_for(RULES_VERSION, keys, self.nonce, setup_bytes, self.joiner_nonce)


class Match(LocalMatch):
    """A ``LocalMatch`` whose identities, secrets and nonce are chosen (``MatchKeys``)."""

    def __init__(
        self,
        setup: GameSetup,
        keys: MatchKeys,
        *,
        chain_length: int | None = None,
        on_record: RecordSink | None = None,
    ) -> None:
        super().__init__(
            setup,
            keys.identities,
            secrets=keys.secrets,
            nonce=keys.nonce,
            joiner_nonce=keys.joiner_nonce,
            chain_length=chain_length,
            on_record=on_record,
        )

    @property
    def log(self) -> GameLog:
        """A's log (B's is the same, entry for entry)."""
        return self.peers[Player.A].log


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


def bot_chooser(bots: tuple[Bot, Bot]) -> Callable[[Game], str]:
    """A chooser for ``LocalMatch.step`` that asks the deciding player's bot."""

    def choose(view: Game) -> str:
        pending = view.pending
        assert isinstance(pending, Decision)
        return format_choice(view, bots[pending.player].choose(view))

    return choose


# --- replay files ------------------------------------------------------------------------


def now_utc() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0)


def replay_header(keys: MatchKeys, setup: GameSetup, created: datetime.datetime) -> ReplayHeader:
    """The header of the replay of the game ``keys`` make with ``setup``."""
    return ReplayHeader(
        rules=RULES_VERSION,
        game_id=keys.game_id(setup),
        keys=(keys.identities[0].public_key, keys.identities[1].public_key),
        created=created.isoformat().replace("+00:00", "Z"),
    )


def default_replay_path(
    game_id: bytes, created: datetime.datetime, *, reuse_for: bytes | None = None
) -> Path:
    """``<config dir>/replays/YYYYMMDD-HHMMSS-<first 8 hex digits of the game id>.dbnr``
    (UTC), with ``-2``, ``-3``... added if that name is taken; with ``reuse_for`` (a
    player's public key), a name taken by a replay of that player's that holds no entry
    is not taken (``start_replay`` replaces such a file)."""
    directory = config_dir() / "replays"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ReplayError(str(directory), f"cannot create the folder: {exc.strerror}") from exc
    stem = f"{created:%Y%m%d-%H%M%S}-{game_id.hex()[:8]}"
    path = directory / f"{stem}{EXTENSION}"
    n = 2
    while path.exists() and not (reuse_for is not None and holds_no_entry(path, reuse_for)):
        path = directory / f"{stem}-{n}{EXTENSION}"
        n += 1
    return path


def start_replay(
    path: Path, header: ReplayHeader, *, replace_empty_for: bytes | None = None
) -> ReplayWriter:
    """A new replay file at ``path``, its folder created if needed. An existing file is
    never overwritten, except a replay of the player whose key is ``replace_empty_for``
    that holds no entry (see ``ReplayWriter.create``)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReplayError(str(path.parent), f"cannot create the folder: {exc.strerror}") from exc
    return ReplayWriter.create(path, header, replace_empty_for=replace_empty_for)


# --- events --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Human:
    """A seat played by a person: the driver stops and waits for their choice."""

    name: str = "you"


Seat = Bot | Human


class EventKind(enum.Enum):
    CHOICE = "choice"
    ROLL = "roll"
    RESIGN = "resign"
    TURN = "turn"  # a conquest phase's result; not a notation line


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``notation`` is empty for TURN events; ``faces`` shows
    attack or deathblow dice as faces (``[2 3 - B]``), empty otherwise. ``turn`` is the
    game turn it happened in; ``dice`` the values of a roll."""

    kind: EventKind
    player: Player | None
    notation: str
    words: str
    faces: str = ""
    turn: int = 0
    dice: tuple[int, ...] = ()

    def __str__(self) -> str:
        return self.words


def seat_name(seat: Seat) -> str:
    return seat.name


class Narrator:
    """Follows a game's entries on its own copy of the game and tells what happened.

    ``names`` label the players in CHOICE events (``A (you): spawn ...``). Rolls are
    given as the log rolled them (``Roll``); a roll already told is skipped, so the
    narrator may run ahead of the log with a player's view (``catch_up``).
    """

    def __init__(self, setup: GameSetup, names: tuple[str, str] = ("A", "B")) -> None:
        self.game = Game(setup)
        self.names = (printable(names[0]), printable(names[1]))  # the peer chose its own
        self.rolls_told = 0
        self.events: list[Event] = []
        self.turn_starts: dict[int, Game] = {self.game.turn: self.game.copy()}
        """The position at the start of each turn reached (before its initiative roll)."""

    def entry(
        self, kind: EntryKind, author: Player, body: object, rolls: Sequence[Roll]
    ) -> list[Event]:
        """The events of one entry: the rolls it completed before its decision, the
        decision, the rolls after it; or a resignation."""
        todo = [r for r in rolls if r.index >= self.rolls_told]
        events: list[Event] = []
        game = self.game
        while todo and isinstance(game.pending, ChanceRequest):
            events += self.roll(todo.pop(0))
        if kind is EntryKind.RESIGN:
            events += self.resign(author)
        elif isinstance(body, PlayBody) and body.decision is not None:
            events += self.decide(author, body.decision)
        for roll in todo:
            events += self.roll(roll)
        return events

    def decide(self, player: Player, notation: str) -> list[Event]:
        game = self.game
        choice = parse_choice(game, notation)
        text = format_choice(game, choice)
        turn, turns_done = game.turn, len(game.conquest_history)
        game.apply(choice)
        name = self.names[player]
        who = player.name if name == player.name else f"{player.name} ({name})"
        event = Event(EventKind.CHOICE, player, text, f"{who}: {text}", turn=turn)
        return self._record([event], turns_done)

    def roll(self, roll: Roll) -> list[Event]:
        game = self.game
        if roll.index != self.rolls_told:
            raise IllegalChoiceError(f"roll {roll.index} told out of order")
        request = game.pending
        if not isinstance(request, ChanceRequest):
            raise IllegalChoiceError(f"roll {roll.index} while the game waits for a decision")
        values = roll.dice
        words = describe_roll(game, request, values)
        turn, turns_done = game.turn, len(game.conquest_history)
        game.roll(values)
        self.rolls_told += 1
        if request.kind is ChanceKind.INITIATIVE:
            words += initiative_outcome(game)
        plain = request.kind is ChanceKind.INITIATIVE or request.kind is ChanceKind.WAIL
        faces = "" if plain else format_attack_dice(values)
        event = Event(EventKind.ROLL, None, format_dice(values), words, faces, turn, values)
        return self._record([event], turns_done)

    def resign(self, player: Player) -> list[Event]:
        turn = self.game.turn
        self.game.resign(player)
        event = Event(EventKind.RESIGN, player, "resign", f"{player.name} resigns.", turn=turn)
        self.events.append(event)
        return [event]

    def catch_up(self, peer: Peer) -> list[Event]:
        """Roll what ``peer`` already knows: the rolls its own next links complete (its
        ``view``), so that the narrator's game is that view."""
        log = peer.log
        events: list[Event] = []
        while isinstance(self.game.pending, ChanceRequest):
            k = self.rolls_told
            links: list[bytes] = []
            for player in (Player.A, Player.B):
                if len(log.links[player]) > k:
                    links.append(log.links[player][k])
                elif player is peer.me and len(log.links[player]) == k:
                    links.append(peer.chain.reveal(k))
            if len(links) < 2:
                break
            pending = self.game.pending
            values = dice.roll_dice(log.game_id, k, links[0], links[1], pending.count)
            events += self.roll(Roll(k, pending.kind.value, values))
        return events

    def _record(self, events: list[Event], turns_done: int) -> list[Event]:
        game = self.game
        for turn, (a, b) in enumerate(game.conquest_history[turns_done:], start=turns_done + 1):
            events.append(
                Event(EventKind.TURN, None, "", _turn_result(game, turn, a, b), turn=turn)
            )
        if game.turn not in self.turn_starts and not game.is_over:
            self.turn_starts[game.turn] = game.copy()
        self.events += events
        return events


# --- a game with seats ------------------------------------------------------------------------


class LocalGame:
    """A game between two seats on this machine, played through a ``Match``, with its log.

    ``on_record`` receives every record as it is written (to save the replay).
    """

    def __init__(
        self,
        setup: GameSetup,
        seats: tuple[Seat, Seat],
        keys: MatchKeys | None = None,
        *,
        chain_length: int | None = None,
        on_record: RecordSink | None = None,
    ) -> None:
        self.seats = seats
        self.keys = keys if keys is not None else MatchKeys.fresh()
        self.narrator = Narrator(setup, (seat_name(seats[0]), seat_name(seats[1])))
        self._sink = on_record
        self._new: list[Event] = []
        self._match: Match | None = None
        self._match = Match(setup, self.keys, chain_length=chain_length, on_record=self._record)

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
    def is_closed(self) -> bool:
        """Whether the log is closed (complete): nothing more to write."""
        return self.match.is_closed

    def human_to_decide(self) -> Player | None:
        """The person's seat that owes the pending decision, if a person owes it."""
        pending = self.game.pending
        if isinstance(pending, Decision) and isinstance(self.seats[pending.player], Human):
            return pending.player
        return None

    def advance(self) -> list[Event]:
        """Write entries (bots' decisions, links, FINAL, COSIGN) until a person must decide
        or the log is closed."""
        match = self.match
        while not match.is_closed and not self.waits_for_person():
            match.step(self._bot_choice)
        return self._take()

    def waits_for_person(self) -> bool:
        """Whether the next entry is a person's decision (the game then shows their view:
        the rolls their own due links complete are told first)."""
        author = self.match.next_author
        if author is None:
            return False
        peer = self.match.peers[author]
        if peer.log.status is not Status.PLAYING or not isinstance(self.seats[author], Human):
            return False
        self._new += self.narrator.catch_up(peer)
        pending = self.game.pending
        return isinstance(pending, Decision) and pending.player is author

    def bot_to_decide(self) -> tuple[Bot, Game] | None:
        """When the next entry is a bot's decision: the bot and its view of the game, a copy
        it may think on anywhere (in a worker thread, say) while nothing else is written."""
        match = self.match
        author = match.next_author
        if author is None:
            return None
        seat = self.seats[author]
        if isinstance(seat, Human) or match.peers[author].log.status is not Status.PLAYING:
            return None
        view = match.view(author)
        pending = view.pending
        if isinstance(pending, Decision) and pending.player is author:
            return seat, view
        return None

    def step(self, decision: str | None = None) -> list[Event]:
        """Write the one next entry that no person decides: a bot's ``decision`` (notation,
        thought on ``bot_to_decide()``'s view) when one is due, else links, FINAL or COSIGN.
        ``advance`` is this in a loop, with the bots thinking in place.

        Raises:
            IllegalChoiceError: the log is closed, a person must decide, or ``decision``
                is given when no bot's decision is due (or missing when one is).
        """
        match = self.match
        if match.is_closed:
            raise IllegalChoiceError("the game's log is closed: no entry to write")
        if self.waits_for_person():
            raise IllegalChoiceError("a person must decide before the next entry")
        due = self.bot_to_decide() is not None
        if due != (decision is not None):
            wanted = "a bot's decision is due" if due else "no bot's decision is due"
            raise IllegalChoiceError(f"{wanted}; got {decision!r}")
        match.step(lambda view: decision or "")
        return self._take()

    def play(self, text: str) -> list[Event]:
        """Play a person's choice written in notation; raises DbnetError and changes nothing
        if it is malformed or illegal."""
        player = self.human_to_decide()
        if player is None or self.match.next_author is not player:
            raise IllegalChoiceError(f"no decision is waiting for a person; {text!r} not played")
        game = self.game
        choice = read_choice(game, text)  # a legal choice, or why not and what is legal
        notation = format_choice(game, choice)
        self.match.step(lambda view: notation)
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

    def _bot_choice(self, view: Game) -> str:
        pending = view.pending
        assert isinstance(pending, Decision)
        seat = self.seats[pending.player]
        assert not isinstance(seat, Human), "advance stops when a person owes the decision"
        return format_choice(view, seat.choose(view))

    def _record(self, record: bytes) -> None:
        """Every record, as both peers have accepted it: save it, then tell its events."""
        if self._sink is not None:
            self._sink(record)
        if self._match is None:
            return  # the OFFER and the ACCEPT tell nothing
        log = self._match.log
        entry = log.decoded[-1]
        rolls = [r for r in log.rolls if r.index >= self.narrator.rolls_told]
        self._new += self.narrator.entry(entry.kind, Player(entry.author), entry.body, rolls)

    def _take(self) -> list[Event]:
        events, self._new = self._new, []
        return events


# --- words ---------------------------------------------------------------------------------


def describe_roll(game: Game, request: ChanceRequest, values: Sequence[int]) -> str:
    """A roll in words, attack dice as faces: ``A rolls 3 attack dice in c3: [2 - B] = 2``."""
    if request.kind is ChanceKind.INITIATIVE:
        rolls = ", ".join(f"{p.name} {v}" for p, v in zip(request.players, values, strict=True))
        return f"Initiative: {rolls}."
    damage = dice_damage(values)
    owner = request.owner.name if request.owner is not None else "?"
    faces = format_attack_dice(values)
    if request.kind is ChanceKind.WAIL:
        total = sum(values)
        return (
            f"{roller(game)} wails: {values[0]} + {values[1]} = {total}; every creature of "
            f"spawn cost {total} is banished."
        )
    if request.kind is ChanceKind.SPECIAL:
        return (
            f"{roller(game)} makes a special attack{special_target(game)}: {faces} = {damage} "
            "damage (blades miss)."
        )
    if request.kind is ChanceKind.REROLL:
        return f"{owner} rerolls {dice_count(len(values))} (Fortunate): {faces}."
    cell = cell_name(game.combat.cell) if game.combat is not None else "?"
    what = "attack" if request.kind is ChanceKind.ATTACK else "deathblow"
    dice = dice_count(len(values), f"{what} ")
    return f"{owner} rolls {dice} in {cell}: {faces} = {damage} damage."


def initiative_outcome(game: Game) -> str:
    """After an initiative roll: a reroll, or who goes first and whether spawning is skipped."""
    pending = game.pending
    if isinstance(pending, ChanceRequest) and pending.kind is ChanceKind.INITIATIVE:
        return " Reroll (700.1, 800)."
    if game.is_over:
        return ""
    skip = " A 1 was rolled: both spawn phases are skipped (800.1)." if game.skip_spawn else ""
    return f" {game.first.name} goes first.{skip}"


def _turn_result(game: Game, turn: int, a: int, b: int) -> str:
    if a == b:
        outcome = "a tie, nobody wins the turn (803.3)"
    else:
        outcome = f"{'A' if a > b else 'B'} wins the turn"
    to_win = game.setup.options.turns_to_win
    wa, wb = game.turns_won
    return (
        f"End of turn {turn}: A {a}, B {b} conquest points; {outcome}. "
        f"Victory: A {wa}/{to_win}, B {wb}/{to_win}."
    )
