"""Glicko-2 ratings of a folder's counted games (``glicko2``).

With an event file, each round is a rating period and its games are the tables'
results found from games (byes and results recorded by hand are no games: they are not
rated). Without one, the folder is one period of all its counted games, since a game's
time is not signed. Everyone starts at 1500, deviation 350, volatility 0.06."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dbnet.replay.event import EventGame
from dbnet.replay.swiss.eventfile import EventFile
from dbnet.replay.swiss.glicko2 import Glicko, update
from dbnet.replay.swiss.results import Results
from dbnet.replay.swiss.roundfile import Outcome

__all__ = ["Rated", "rate", "rate_event", "rate_folder"]

Game = tuple[str, str, float]
"""A rated game: player, opponent, the player's score (1, 0.5, 0)."""


@dataclass(frozen=True, slots=True)
class Rated:
    fingerprint: str
    rating: float
    deviation: float
    volatility: float
    games: int

    def to_json(self) -> dict[str, object]:
        return {
            "fingerprint": self.fingerprint,
            "rating": round(self.rating, 2),
            "deviation": round(self.deviation, 2),
            "volatility": round(self.volatility, 6),
            "games": self.games,
        }


def rate(players: Iterable[str], periods: Sequence[Sequence[Game]]) -> tuple[Rated, ...]:
    """Everyone of ``players`` (and of the games) after ``periods``, best first."""
    ratings: dict[str, Glicko] = {p: Glicko() for p in players}
    counts: dict[str, int] = defaultdict(int)
    for period in periods:
        games: dict[str, list[tuple[Glicko, float]]] = defaultdict(list)
        for one, other, score in period:
            for p in (one, other):
                ratings.setdefault(p, Glicko())
            games[one].append((ratings[other], score))
            games[other].append((ratings[one], 1 - score))
            counts[one] += 1
            counts[other] += 1
        ratings = {p: update(r, games.get(p, ())) for p, r in ratings.items()}
    rows = [Rated(p, r.rating, r.deviation, r.volatility, counts[p]) for p, r in ratings.items()]
    return tuple(sorted(rows, key=lambda r: (-r.rating, r.deviation, r.fingerprint)))


def rate_folder(games: Iterable[EventGame]) -> tuple[Rated, ...]:
    """One period of every counted game."""
    period = []
    for g in games:
        if not g.counted or g.players is None or g.players[0] == g.players[1]:
            continue
        score = 0.5 if g.winner is None else 1.0 if g.winner == 0 else 0.0
        period.append((g.players[0], g.players[1], score))
    return rate({p for one, other, _ in period for p in (one, other)}, [period])


def rate_event(event: EventFile, results: Results) -> tuple[Rated, ...]:
    """Each round a period of its tables decided by a game."""
    periods = []
    for found in results.rounds:
        period = []
        for r in found:
            t = r.table
            if r.game is None or r.hand or t.b is None or r.outcome is None:
                continue
            score = {Outcome.A: 1.0, Outcome.B: 0.0, Outcome.DRAW: 0.5}[r.outcome]
            period.append((t.a, t.b, score))
        periods.append(period)
    return rate([e.fingerprint for e in event.players], periods)
