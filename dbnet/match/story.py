"""The story of a game: what each entry did, told once for every front end.

A ``Narrator`` is told each entry as the game's signed log applies it (the log's
``teller``: no second play of the game) and turns it into ``Event``\\ s whose
``notation`` is the line a scenario or replay would hold (``spawn lockjaw e1``, ``roll 3
5``) and whose ``words`` tell people what happened, attack dice shown as faces (``[2 3 -
B]``). The console, the line interface, the network session, a spectator's watch and
``dbnet replay`` / ``dbnet export`` all read these events."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from dbnet.engine import (
    ChanceKind,
    ChanceRequest,
    Game,
    GameSetup,
    Player,
    format_choice,
    format_dice,
    parse_choice,
)
from dbnet.engine.board import cell_name
from dbnet.engine.choices import (
    Choice,
    CommitChoice,
    MoveChoice,
    PlaceChoice,
    RevealChoice,
    SpawnChoice,
    StrikeChoice,
)
from dbnet.engine.game import Mini, Zone, dice_damage
from dbnet.engine.model import MiniatureDef
from dbnet.errors import IllegalChoiceError
from dbnet.match.render import dice_count, roller, special_target
from dbnet.protocol import dice
from dbnet.protocol.log import GameLog
from dbnet.protocol.peer import Peer
from dbnet.protocol.rolls import Roll
from dbnet.text import printable


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
    outcome: str = ""
    """What the event did to the miniatures (destroyed, disrupted to a cell, ...), in
    words; also at the end of ``words``."""

    def __str__(self) -> str:
        return self.words


class Narrator:
    """Tells what happened in a game, as its log applies each entry (``attach``).

    The narrator is its log's ``Teller``: the log calls it around every roll, decision and
    resignation it applies to its own game, once, so the story costs no second play of
    the game. What an entry told counts once the log accepts the entry (``follow``
    returns it then); an entry the log refuses tells nothing.

    ``names`` label the players in CHOICE events (``A (you): spawn ...``); ``labels``, if
    given, call them so in CHOICE and RESIGN events instead (``alice (A): spawn ...``,
    as a spectator does with the names they signed). The narrator may run ahead of the
    log with a player's view (``catch_up``): a roll told then is not told again when the
    log rolls it.

    A narrator attached to no log plays on a game of its own (``decide``, ``roll``,
    ``resign``), told the same way.
    """

    def __init__(
        self,
        setup: GameSetup,
        names: tuple[str, str] = ("A", "B"),
        *,
        labels: tuple[str, str] | None = None,
    ) -> None:
        self._own = Game(setup)
        self.log: GameLog | None = None
        """The log told (``attach``), if any."""
        self.names = (printable(names[0]), printable(names[1]))  # the peer chose its own
        self.labels = None if labels is None else (printable(labels[0]), printable(labels[1]))
        self.rolls_told = 0
        self.events: list[Event] = []
        self.turn_starts: dict[int, Game] = {self._own.turn: self._own.copy()}
        """The position at the start of each turn reached (before its initiative roll)."""
        self.told_at: list[tuple[int, int]] = []
        """For each entry of the log, by sequence number: how many ``events`` were told by
        its end, and the game's turn after it."""
        self._fresh = True  # whether ``_own`` is in the position told so far
        self._ahead = False  # whether ``_own`` holds rolls told ahead of the log (catch_up)
        self._then: Callable[[Game], None] | None = None  # tells what was applied
        self._told: list[Event] = []  # the entry's events, until it is accepted or refused
        self._starts: dict[int, Game] = {}  # the turns the entry reached
        self._rolls_kept = 0  # ``rolls_told`` before the entry
        self._unread: list[Event] = []  # accepted entries' events, for ``follow``

    @property
    def game(self) -> Game:
        """The game as told so far, one object for the whole game: the narrator's own, put
        in the log's position when asked after the log moved on (a copy, never a second
        play), or with the rolls told ahead of the log (``catch_up``)."""
        if not self._fresh:
            assert self.log is not None
            self._own.copy_from(self.log.game)
            self._fresh = True
        return self._own

    def attach(self, log: GameLog) -> None:
        """Tell ``log``'s entries from now on, as it applies them. Attach before the first
        entry that tells something is applied (the OFFER and the ACCEPT tell nothing): a
        resumed game's log is attached before its records are appended, so its whole
        story is told, once.

        Raises:
            ValueError: ``log`` has applied an entry that tells something already.
        """
        if len(log.entries) > 2 or log.rolls:
            raise ValueError("a narrator is attached to a log before its entries are applied")
        log.teller = self
        self.log = log
        self.told_at = [(len(self.events), log.game.turn)] * len(log.entries)

    def follow(self, log: GameLog) -> list[Event]:
        """The events of ``log``'s entries accepted since the last call, each entry's rolls
        in their places (the OFFER and the ACCEPT tell nothing). Every front end tells a
        game this way, live or resumed: one entry at a time or a whole file at once.
        A narrator not yet attached is attached to ``log`` (see ``attach``)."""
        if self.log is not log:
            self.attach(log)
        events, self._unread = self._unread, []
        return events

    # --- the teller (``protocol.log.Teller``) --------------------------------------------

    def rolling(self, game: Game, roll: Roll) -> None:
        if roll.index < self.rolls_told:
            self._then = None
            return  # told ahead of the log (``catch_up``)
        request = game.pending
        assert isinstance(request, ChanceRequest)
        values = roll.dice
        words = describe_roll(game, request, values)
        turn, turns_done = game.turn, len(game.conquest_history)
        before = places(game)
        self.rolls_told = roll.index + 1

        def then(game: Game) -> None:
            told = words
            if request.kind is ChanceKind.PACKS:
                told += " " + pools_words(game)
            if request.kind is ChanceKind.INITIATIVE:
                told += initiative_outcome(game)
            outcome = outcomes(game, before, None)
            told += f" {outcome}" if outcome else ""
            plain = request.kind in (ChanceKind.INITIATIVE, ChanceKind.WAIL, ChanceKind.PACKS)
            faces = "" if plain else faces_in_words(values)
            event = Event(
                EventKind.ROLL, None, format_dice(values), told, faces, turn, values, outcome
            )
            self._record(game, event, turns_done)

        self._then = then

    def deciding(self, game: Game, author: Player, choice: Choice) -> None:
        text = format_choice(game, choice)
        turn, turns_done = game.turn, len(game.conquest_history)
        before = places(game)
        idle_strike = isinstance(choice, StrikeChoice) and not engaged_cells(game, author)
        name = self.names[author]
        who = author.name if name == author.name else f"{author.name} ({name})"
        if self.labels is not None:
            who = self.labels[author]

        def then(game: Game) -> None:
            said = text
            if isinstance(choice, CommitChoice | RevealChoice):
                outcome = build_words(game, author, choice)
                said = shortened(text)
            else:
                outcome = IDLE_STRIKE if idle_strike else outcomes(game, before, choice)
            words = f"{who}: {said}" + (f". {outcome}" if outcome else "")
            event = Event(EventKind.CHOICE, author, text, words, turn=turn, outcome=outcome)
            self._record(game, event, turns_done)

        self._then = then

    def resigning(self, game: Game, author: Player) -> None:
        who = author.name if self.labels is None else self.labels[author]
        event = Event(EventKind.RESIGN, author, "resign", f"{who} resigns.", turn=game.turn)

        def then(game: Game) -> None:
            self._told.append(event)  # no turn ends, and no turn starts

        self._then = then

    def applied(self, game: Game) -> None:
        then, self._then = self._then, None
        if then is not None:
            then(game)
        if self.log is not None and not self._ahead:
            self._fresh = False

    def accepted(self, log: GameLog) -> None:
        events = self._keep()
        self._unread += events
        self.told_at.append((len(self.events), log.game.turn))
        if self._ahead and len(log.rolls) >= self.rolls_told:
            self._ahead = self._fresh = False  # the log has caught up with the view

    def refused(self) -> None:
        self._then = None
        self._told, self._starts = [], {}
        self.rolls_told = self._rolls_kept

    # --- ahead of the log, or without one -------------------------------------------------

    def catch_up(self, peer: Peer) -> list[Event]:
        """Roll what ``peer`` already knows: the rolls its own next links complete (its
        ``view``), so that the narrator's game is that view. The log's own game is not
        touched: the rolls are made on the narrator's."""
        log = peer.log
        events: list[Event] = []
        game = self.game
        while isinstance(game.pending, ChanceRequest):
            k = self.rolls_told
            links: list[bytes] = []
            for player in (Player.A, Player.B):
                if len(log.links[player]) > k:
                    links.append(log.links[player][k])
                elif player is peer.me and len(log.links[player]) == k:
                    links.append(peer.chain.reveal(k))
            if len(links) < 2:
                break
            pending = game.pending
            values = dice.roll_dice(log.game_id, k, links[0], links[1], pending.count)
            self._ahead = self.log is not None
            events += self._roll(game, Roll(k, pending.kind.value, values))
        return events

    def decide(self, player: Player, notation: str) -> list[Event]:
        """Apply ``player``'s decision in ``notation`` to the narrator's own game and tell
        it (a narrator attached to no log)."""
        game = self._own_game()
        choice = parse_choice(game, notation)
        self.deciding(game, player, choice)
        game.apply(choice)
        self.applied(game)
        return self._keep()

    def roll(self, roll: Roll) -> list[Event]:
        """Roll ``roll`` on the narrator's own game and tell it (attached to no log)."""
        game = self._own_game()
        if roll.index != self.rolls_told:
            raise IllegalChoiceError(f"roll {roll.index} told out of order")
        if not isinstance(game.pending, ChanceRequest):
            raise IllegalChoiceError(f"roll {roll.index} while the game waits for a decision")
        return self._roll(game, roll)

    def resign(self, player: Player) -> list[Event]:
        """``player`` resigns the narrator's own game; told (attached to no log)."""
        game = self._own_game()
        self.resigning(game, player)
        game.resign(player)
        self.applied(game)
        return self._keep()

    def _own_game(self) -> Game:
        if self.log is not None:
            raise IllegalChoiceError("the narrator tells its log's game: the log applies it")
        return self._own

    def _roll(self, game: Game, roll: Roll) -> list[Event]:
        """Roll ``roll`` on ``game`` outside any log entry, and keep what it told."""
        self.rolling(game, roll)
        game.roll(roll.dice)
        self.applied(game)
        return self._keep()

    def _keep(self) -> list[Event]:
        """What was told since the last entry (or roll told ahead) counts: keep it."""
        events, self._told = self._told, []
        self.events += events
        for turn, start in self._starts.items():
            self.turn_starts.setdefault(turn, start)
        self._starts = {}
        self._rolls_kept = self.rolls_told
        return events

    def _record(self, game: Game, event: Event, turns_done: int) -> None:
        """Tell ``event``, then the turns it ended, and keep the position of a turn it
        started (``game`` is after it)."""
        told = self._told
        told.append(event)
        for turn, (a, b) in enumerate(game.conquest_history[turns_done:], start=turns_done + 1):
            told.append(Event(EventKind.TURN, None, "", _turn_result(game, turn, a, b), turn=turn))
        now = game.turn
        if now not in self.turn_starts and now not in self._starts and not game.is_over:
            self._starts[now] = game.copy()


# --- words ---------------------------------------------------------------------------------


IDLE_STRIKE: Final = (
    "No creature of theirs shares a cell with an enemy creature: the strike attacks nothing "
    "and the action phase ends (802.2)."
)

Place = tuple[Zone, int]


def places(game: Game) -> list[Place]:
    """Where every miniature is (zone and cell), by id."""
    return [(m.zone, m.cell) for m in game.minis]


def engaged_cells(game: Game, player: Player) -> int:
    """The cells (a bitmask) where ``player`` has creatures beside enemy creatures."""
    cells = game.creature_cells
    return cells[player] & cells[player.other]


def outcomes(game: Game, before: Sequence[Place], choice: Choice | None) -> str:
    """What happened to the miniatures since ``before`` (``places``), in words, except
    what ``choice`` itself says (its own spawn or move)."""
    told = []
    for m, (zone, cell) in zip(game.minis, before, strict=True):
        if (m.zone, m.cell) == (zone, cell):
            continue
        if isinstance(choice, SpawnChoice | MoveChoice) and choice.mini == m.id:
            continue
        told.append(_moved(m, zone, cell, isinstance(choice, PlaceChoice)))
    return " ".join(told)


def _moved(m: Mini, zone: Zone, cell: int, placed: bool) -> str:
    label = m.label
    if m.zone is Zone.GRAVEYARD:
        return (
            f"{label} is destroyed."
            if zone is Zone.DREAMSCAPE
            else f"{label} goes to the graveyard."
        )
    if m.zone is Zone.REMOVED:
        return f"{label} is removed from the game."
    if m.zone is Zone.RESERVES:
        return f"{label} returns to its owner's reserves."
    where = cell_name(m.cell)
    if zone is not Zone.DREAMSCAPE:
        return f"{label} enters the dreamscape in {where}."
    if placed:
        return f"{label} is disrupted to {where}."
    return f"{label} moves from {cell_name(cell)} to {where}."


def faces_in_words(values: Sequence[int]) -> str:
    """Attack dice as faces for people: ``[2 3 - blade]`` (the notation's ``B`` for a
    blade would read as player B)."""
    return "[" + " ".join(_FACE_WORDS[v - 1] for v in values) + "]"


_FACE_WORDS: Final = ("1", "2", "3", "-", "-", "blade")


def describe_roll(game: Game, request: ChanceRequest, values: Sequence[int]) -> str:
    """A roll in words, attack dice as faces: ``A rolls 3 attack dice in c3: [2 - B] = 2``."""
    if request.kind is ChanceKind.INITIATIVE:
        rolls = ", ".join(f"{p.name} {v}" for p, v in zip(request.players, values, strict=True))
        return f"Initiative: {rolls}."
    if request.kind is ChanceKind.PACKS:
        return f"The packs are opened with {len(values)} dice (600.6)."
    damage = dice_damage(values)
    owner = request.owner.name if request.owner is not None else "?"
    faces = faces_in_words(values)
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


def minis_words(minis: Sequence[MiniatureDef]) -> str:
    """``Emberfang Cub x2, Murmur Wisp``: names in first-seen order, with their copies."""
    counts: dict[str, int] = {}
    for mini in minis:
        counts[mini.name] = counts.get(mini.name, 0) + 1
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in counts.items())


def pools_words(game: Game) -> str:
    """Both pools, once the pack dice are rolled."""
    build = game.build
    if build is None or build.pools is None:
        return ""
    a, b = build.pools
    return f"A's pool: {minis_words(a)}. B's pool: {minis_words(b)}."


def build_words(game: Game, player: Player, choice: Choice) -> str:
    """A commitment or a reveal in words (600.7: each player sees the other's warband)."""
    if isinstance(choice, CommitChoice):
        return f"{player.name} commits to a warband, hidden until both have committed"
    warband = game.setup.warbands[player].minis if game.build is None else None
    if warband is None:
        build = game.build
        assert build is not None
        warband = build.warbands[player]
    end = ". Both warbands are fixed; the game begins" if game.build is None else ""
    return f"{player.name} reveals its warband: {minis_words(warband)}{end}"


def shortened(text: str) -> str:
    """A commitment or reveal's notation with its 64 hex digits cut to 12, for people."""
    words = text.split()
    return " ".join(w[:12] + "..." if len(w) == 64 else w for w in words)


def initiative_outcome(game: Game) -> str:
    """After an initiative roll: a reroll, or who goes first and whether spawning is skipped."""
    pending = game.pending
    if isinstance(pending, ChanceRequest) and pending.kind is ChanceKind.INITIATIVE:
        return " " + reroll_reason(game, pending.players)
    if game.is_over:
        return ""
    skip = " A 1 was rolled: both spawn phases are skipped (800.1)." if game.skip_spawn else ""
    return f" {game.first.name} goes first.{skip}"


def reroll_reason(game: Game, again: Sequence[Player]) -> str:
    """Why the initiative dice of ``again`` are rolled again, with the rule."""
    a, b = game.initiative
    if len(again) == 2 and a == b and a != 1:
        if game.turn == 1:
            return "A tie on the first turn: both reroll (700.1)."
        return "A tie, and neither player has won more turns: both reroll (800)."
    who = " and ".join(p.name for p in again)
    ones, it = ("a 1", "it is") if len(again) == 1 else ("1s", "they are")
    if game.turn == 1:
        return f"{who} rolled {ones} on the first turn: {it} rerolled (700.1)."
    return (
        f"{who} rolled {ones} after a turn whose spawn phases were skipped: {it} rerolled "
        "(FAQ tournament rule 430)."
    )


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
