"""One Swiss round's pairings, pure: a maximum-weight matching over the allowed pairs.

Players are ranked by points, then by a seeded shuffle of the round (``seed.draw``).
Every pair that has not met yet is an edge; when the count is odd, every player is
joined to the bye. The weight of an edge is a constant less its cost, made of tiers,
each larger than everything below it can add up to over a whole round, so the matching
minimises them one after the other:

1. a second bye, only when every player left has had one;
2. the bye's rank from the bottom: the bye goes to the lowest-ranked player who has
   had none, unless the rest cannot then be paired without a rematch;
3. the number of floats (a pair of players on different points);
4. the size of the floats (the points between the two);
5. the squares of the distances in rank within the pairs (so 1 plays 2, 3 plays 4 in
   a score group: with the seeded shuffle, a random pairing inside each group; the
   squares prefer 1-3 and 2-4 to 1-4 and 2-3 when 1-2 cannot be).

What is still level after that (rare) is told apart by the matching algorithm itself,
deterministic for a given graph, which is built in ranking order: the same folder
gives the same pairings with the same NetworkX. (A seeded lot of each pair as a last
tier would make every weight distinct, but makes the matching of 256 players three
times slower; ``--check`` says so if a pairing is ever not recomputed.)

The matching is ``networkx.max_weight_matching`` with ``maxcardinality=True`` (every
player paired when it can be). Who plays A: the one who played A fewer times, then the
higher ranked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

from dbnet.replay.swiss.errors import PairingError
from dbnet.replay.swiss.seed import draw

__all__ = ["BYE", "History", "pair_round"]

BYE = ""
"""The bye, as a node of the graph (no fingerprint is empty)."""


@dataclass(frozen=True, slots=True)
class History:
    """What pairing needs of one player's earlier rounds."""

    points: int = 0
    opponents: frozenset[str] = field(default_factory=frozenset)
    byes: int = 0
    played_a: int = 0


def rank(
    players: Sequence[str], history: Mapping[str, History], event_id: str, round_number: int
) -> list[str]:
    """``players`` in pairing order: points, then the round's seeded shuffle."""
    purpose = f"round {round_number}"
    return sorted(
        players,
        key=lambda p: (-history.get(p, History()).points, draw(event_id, purpose, p)),
    )


def pair_round(
    players: Sequence[str], history: Mapping[str, History], event_id: str, round_number: int
) -> list[tuple[str, str | None]]:
    """The tables of the round: (A, B) pairs, then (player, None) for the bye.

    Raises:
        PairingError: no pairing without a rematch exists (or too few players).
    """
    if len(players) < 2:
        raise PairingError(f"round {round_number}: fewer than two players left to pair")
    order = rank(players, history, event_id, round_number)
    place = {p: i for i, p in enumerate(order)}
    hist = {p: history.get(p, History()) for p in order}
    n = len(order)
    spread = max(h.points for h in hist.values()) - min(h.points for h in hist.values())
    size = n**3 + 1  # more than every squared distance of a round together
    count = size * (spread * n + 1)
    bye_unit = count * (n + 1)
    second_bye = bye_unit * (n + 1)  # only when everyone left has had one
    top = second_bye * 2
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(order)
    for i, one in enumerate(order):
        for other in order[i + 1 :]:
            if other in hist[one].opponents:
                continue
            gap = abs(hist[one].points - hist[other].points)
            cost = (count if gap else 0) + size * gap + (place[other] - place[one]) ** 2
            graph.add_edge(one, other, weight=top - cost)
    if n % 2:
        for p in order:
            again = second_bye if hist[p].byes else 0
            graph.add_edge(BYE, p, weight=top - again - bye_unit * (n - 1 - place[p]))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    paired = {p for pair in matching for p in pair}
    missing = [p for p in order if p not in paired]
    if missing:
        raise PairingError(
            f"round {round_number}: no pairing without a rematch exists for "
            f"{', '.join(missing)} (every player has met all the others they could play, "
            "or had a bye): end the Swiss rounds here"
        )
    tables = []
    bye: str | None = None
    for one, other in matching:
        if BYE in (one, other):
            bye = other if one == BYE else one
            continue
        a, b = sorted((one, other), key=lambda p: (hist[p].played_a, place[p]))
        tables.append((a, b))
    tables.sort(key=lambda t: min(place[t[0]], place[t[1]]))
    result: list[tuple[str, str | None]] = [(a, b) for a, b in tables]
    if bye is not None:
        result.append((bye, None))
    return result
