"""Standings of the Swiss rounds with the tie-breaks of Magic: The Gathering's
tournament rules (Magic Tournament Rules, appendix C), and the pairing history.

- **Points**: the event's points for each win (a bye is a win), draw and loss.
- **Match-win percentage** (MWP): points over the points of winning every round played
  (byes included). As an opponent's, it is floored at one third.
- **OMW%**: the mean of the opponents' MWP, each floored at one third. Byes are not
  opponents; a player with no opponent has 0.
- **Game-win percentage** (GW%): game points (3 a game won, 1 drawn, a bye as a game
  won) over 3 a game. A pairing here is one game, so GW% is MWP counted at 3-1-0 (it
  differs from MWP only under other ``points``), not floored for the player's own.
- **OGW%**: the mean of the opponents' GW%, each floored at one third.
- Last, a seeded lot from the event's id: no two players share a rank.

Only the Swiss rounds count; the top cut decides the places above the rest."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from dbnet.replay.swiss.eventfile import EventFile
from dbnet.replay.swiss.pairing import History
from dbnet.replay.swiss.roundfile import Outcome, Paired
from dbnet.replay.swiss.seed import draw

__all__ = ["Line", "history", "standings"]

THIRD = Fraction(1, 3)


@dataclass(frozen=True, slots=True)
class Line:
    rank: int
    fingerprint: str
    name: str
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    points: int
    mwp: Fraction
    omw: Fraction
    gwp: Fraction
    ogw: Fraction
    dropped: int | None
    hand: int

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "fingerprint": self.fingerprint,
            "name": self.name,
            "played": self.played,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "byes": self.byes,
            "points": self.points,
            "match_win": _exact(self.mwp),
            "opponents_match_win": _exact(self.omw),
            "game_win": _exact(self.gwp),
            "opponents_game_win": _exact(self.ogw),
            "dropped_from_round": self.dropped,
            "hand_recorded": self.hand,
        }


def _exact(value: Fraction) -> dict[str, object]:
    return {"value": round(float(value), 6), "exact": f"{value.numerator}/{value.denominator}"}


def _scores(results: Iterable[Paired]) -> dict[str, list[tuple[str | None, int]]]:
    """Each player's rounds: (opponent or None for a bye, 1 won / 0 drawn / -1 lost)."""
    rounds: dict[str, list[tuple[str | None, int]]] = defaultdict(list)
    for r in results:
        if r.outcome is Outcome.BYE or r.b is None:
            rounds[r.a].append((None, 1))
            continue
        score = {Outcome.A: 1, Outcome.B: -1, Outcome.DRAW: 0}[r.outcome]
        rounds[r.a].append((r.b, score))
        rounds[r.b].append((r.a, -score))
    return rounds


def history(event: EventFile, results: Iterable[Paired]) -> dict[str, History]:
    """What pairing needs of each player's rounds so far."""
    results = list(results)
    played_a: dict[str, int] = defaultdict(int)
    for r in results:
        if r.b is not None:
            played_a[r.a] += 1
    p = event.points
    out = {}
    for player, rounds in _scores(results).items():
        points = sum(p.win if s == 1 else p.draw if s == 0 else p.loss for _, s in rounds)
        out[player] = History(
            points=points,
            opponents=frozenset(o for o, _ in rounds if o is not None),
            byes=sum(o is None for o, _ in rounds),
            played_a=played_a[player],
        )
    return out


def standings(
    event: EventFile, results: Sequence[Paired], hand: Iterable[tuple[int, int]] = ()
) -> tuple[Line, ...]:
    """Every player of the event, best first, from the Swiss ``results``; ``hand`` are
    the (round, table) of results recorded by hand, counted per player."""
    hand_set = set(hand)
    scores = _scores(results)
    p = event.points
    hand_count: dict[str, int] = defaultdict(int)
    for r in results:
        if (r.round, r.table) in hand_set:
            for player in (r.a, r.b):
                if player is not None:
                    hand_count[player] += 1
    mwp: dict[str, Fraction] = {}
    gwp: dict[str, Fraction] = {}
    for player, rounds in scores.items():
        points = sum(p.win if s == 1 else p.draw if s == 0 else p.loss for _, s in rounds)
        mwp[player] = Fraction(points, p.win * len(rounds))
        game_points = sum(3 if s == 1 else 1 if s == 0 else 0 for _, s in rounds)
        gwp[player] = Fraction(game_points, 3 * len(rounds))

    def mean_floored(player: str, values: dict[str, Fraction]) -> Fraction:
        opponents = [o for o, _ in scores.get(player, []) if o is not None]
        if not opponents:
            return Fraction(0)
        return sum((max(THIRD, values[o]) for o in opponents), Fraction(0)) / len(opponents)

    rows = []
    for entry in event.players:
        player = entry.fingerprint
        rounds = scores.get(player, [])
        wins = sum(s == 1 and o is not None for o, s in rounds)
        byes = sum(o is None for o, _ in rounds)
        draws = sum(s == 0 for _, s in rounds)
        losses = sum(s == -1 for _, s in rounds)
        points = (wins + byes) * p.win + draws * p.draw + losses * p.loss
        rows.append(
            Line(
                0,
                player,
                entry.name,
                len(rounds),
                wins,
                draws,
                losses,
                byes,
                points,
                mwp.get(player, Fraction(0)),
                mean_floored(player, mwp),
                gwp.get(player, Fraction(0)),
                mean_floored(player, gwp),
                entry.dropped,
                hand_count[player],
            )
        )
    rows.sort(
        key=lambda r: (
            -r.points,
            -r.omw,
            -r.gwp,
            -r.ogw,
            draw(event.event_id, "standings", r.fingerprint),
        )
    )
    return tuple(replace(r, rank=i) for i, r in enumerate(rows, start=1))
