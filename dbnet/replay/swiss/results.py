"""Each table's result, found by key among the event's verified games.

A table's result is, in this order: a result the organiser recorded by hand on the
table; the counted game (complete or decided, as ``replay.event`` counts it) between
its two players that a later round file recorded it was paired from; else the one
counted game between them that no earlier table took. A bye is a win. In the top cut
a drawn game is played again: its draws are kept apart as replayed and the decisive
game is the result. Two candidate games for one table (and no later round to say which)
leave it pending, both flagged: the organiser records the result by hand.

Every other counted game is listed apart with why: a key not in the event, a player
who had dropped, a second game of a pairing, players not paired.

Where other verdicts plug in: a game the event's verifier forfeits (a key that signed
two different entries loses) or a disputed clock claim reaches this module as an
``EventGame``; counted with its winner, it is a result like any other, and uncounted
it leaves the table pending with the game's ``result()`` shown (``waiting``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from dbnet.replay.event import EventGame
from dbnet.replay.swiss.eventfile import EventFile
from dbnet.replay.swiss.roundfile import Outcome, Paired, RoundFile, Stage, Table

__all__ = ["Apart", "Results", "TableResult", "find_results"]


@dataclass(frozen=True, slots=True)
class TableResult:
    """A table of a round and its result now: ``outcome`` None while pending."""

    round: int
    table: Table
    outcome: Outcome | None
    game: str | None = None
    hand: bool = False
    replayed: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()

    @property
    def pending(self) -> bool:
        return self.outcome is None

    def paired(self) -> Paired:
        assert self.outcome is not None
        t = self.table
        return Paired(self.round, t.number, t.a, t.b, self.outcome, self.game)

    def words(self) -> str:
        if self.outcome is None:
            return "pending" + "".join(f"; {w}" for w in self.waiting)
        if self.outcome is Outcome.BYE:
            return "bye"
        won = "a draw" if self.outcome is Outcome.DRAW else f"{self.outcome.value} won"
        how = (
            f" (recorded by hand{': ' + self.table.note if self.table.note else ''})"
            if self.hand
            else f" (game {self.game[:16]})"
            if self.game
            else ""
        )
        again = f"; {len(self.replayed)} drawn game(s) played again" if self.replayed else ""
        return won + how + again

    def to_json(self) -> dict[str, object]:
        t = self.table
        return {
            "round": self.round,
            "table": t.number,
            "a": t.a,
            "b": t.b,
            "result": None if self.outcome is None else self.outcome.value,
            "game": self.game,
            "hand_recorded": self.hand,
            "note": t.note,
            "replayed_draws": list(self.replayed),
            "waiting": list(self.waiting),
        }


@dataclass(frozen=True, slots=True)
class Apart:
    """A counted game that is no table's result, and why."""

    game: EventGame
    why: str

    def to_json(self) -> dict[str, object]:
        return {"game_id": self.game.game_id, "files": list(self.game.files), "why": self.why}


@dataclass(frozen=True, slots=True)
class Results:
    rounds: tuple[tuple[TableResult, ...], ...]
    apart: tuple[Apart, ...]

    def complete(self, round_number: int) -> bool:
        return all(not r.pending for r in self.rounds[round_number - 1])

    def known(self) -> tuple[Paired, ...]:
        """Every decided result, round by round: what the next round is paired from."""
        return tuple(r.paired() for rnd in self.rounds for r in rnd if not r.pending)


def _recorded(rounds: Sequence[RoundFile]) -> dict[tuple[int, int], Paired]:
    """The result each table was paired from, by (round, table), from the first round
    file after it that records it."""
    fixed: dict[tuple[int, int], Paired] = {}
    for rnd in rounds:
        for p in rnd.paired_from:
            fixed.setdefault((p.round, p.table), p)
    return fixed


def find_results(
    event: EventFile, rounds: Sequence[RoundFile], games: Sequence[EventGame]
) -> Results:
    """The results of every table of ``rounds`` from ``games`` (``replay.event``'s)."""
    by_pair: dict[frozenset[str], list[EventGame]] = defaultdict(list)
    uncounted: dict[frozenset[str], list[EventGame]] = defaultdict(list)
    for g in sorted(games, key=lambda g: g.game_id or ""):
        if g.players is None or g.game_id is None or g.players[0] == g.players[1]:
            continue
        (by_pair if g.counted else uncounted)[frozenset(g.players)].append(g)
    fixed = _recorded(rounds)
    used: set[str] = set()
    ambiguous: dict[str, str] = {}
    out = []
    for rnd in rounds:
        row = []
        for table in rnd.tables:
            result = _one(rnd, table, by_pair, uncounted, fixed, used, ambiguous)
            row.append(result)
            if result.game:
                used.add(result.game)
            used.update(result.replayed)
        out.append(tuple(row))
    apart = [
        Apart(g, ambiguous.get(g.game_id or "") or _why(event, rounds, g))
        for pair in by_pair.values()
        for g in pair
        if g.game_id not in used
    ]
    return Results(tuple(out), tuple(apart))


def _one(
    rnd: RoundFile,
    table: Table,
    by_pair: dict[frozenset[str], list[EventGame]],
    uncounted: dict[frozenset[str], list[EventGame]],
    fixed: dict[tuple[int, int], Paired],
    used: set[str],
    ambiguous: dict[str, str],
) -> TableResult:
    n = rnd.number
    if table.b is None:
        return TableResult(n, table, Outcome.BYE)
    if table.result is not None:
        return TableResult(n, table, table.result, hand=True)
    pair = frozenset((table.a, table.b))
    free = [g for g in by_pair.get(pair, []) if g.game_id not in used]
    recorded = fixed.get((n, table.number))
    if recorded is not None and recorded.game is not None:
        for g in free:
            if g.game_id == recorded.game:
                return TableResult(n, table, _outcome(table, g), g.game_id)
    replayed: tuple[str, ...] = ()
    if rnd.stage is Stage.CUT:
        replayed = tuple(g.game_id or "" for g in free if g.winner is None)
        free = [g for g in free if g.winner is not None]
    if len(free) == 1:
        return TableResult(n, table, _outcome(table, free[0]), free[0].game_id, replayed=replayed)
    waiting = tuple(f"game {(g.game_id or '')[:16]}: {g.result()}" for g in uncounted.get(pair, []))
    if len(free) > 1:
        for g in free:
            ambiguous[g.game_id or ""] = (
                f"one of {len(free)} games for round {n} table {table.number}: record the "
                "result by hand in the round file"
            )
        waiting = (*waiting, f"{len(free)} games between them: record the result by hand")
    return TableResult(n, table, None, replayed=replayed, waiting=waiting)


def _outcome(table: Table, game: EventGame) -> Outcome:
    assert game.players is not None
    if game.winner is None:
        return Outcome.DRAW
    return Outcome.A if game.players[game.winner] == table.a else Outcome.B


def _why(event: EventFile, rounds: Sequence[RoundFile], game: EventGame) -> str:
    assert game.players is not None
    strangers = [p for p in game.players if event.entry(p) is None]
    if strangers:
        return f"signed by a key not in the event: {', '.join(strangers)}"
    for p in game.players:
        entry = event.entry(p)
        if entry is not None and entry.dropped is not None and entry.dropped <= len(rounds):
            return f"a game of {p}, who dropped from round {entry.dropped}"
    pair = set(game.players)
    for rnd in rounds:
        for t in rnd.tables:
            if set(t.players) == pair:
                return f"a second game of a pairing (round {rnd.number}, table {t.number})"
    return "its players were not paired in any round"
