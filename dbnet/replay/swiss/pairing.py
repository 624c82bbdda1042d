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

6. a seeded lot of each pair (16 bits of SHA-256 of the event id, the round and the
   pair): what is still level goes by the event id, not by the matching library.

The matching is ``rustworkx.max_weight_matching`` with ``max_cardinality=True`` (every
player paired when it can be): the blossom algorithm in Rust, exact on integers.
NetworkX has the same algorithm in pure Python, a hundred times slower (seconds for 256
players, more than verifying their games). Who plays A: the one who played A fewer
times, then the higher ranked."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import rustworkx as rx

from dbnet.replay.swiss.errors import PairingError
from dbnet.replay.swiss.seed import draw

__all__ = ["History", "pair_round", "rank"]

LOT_BITS = 16
WEIGHT_BITS = 126
"""rustworkx weighs a matching in 128-bit integers: the tiers must fit (they do for
4,096 players 3,200 points apart: 112 bits)."""


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
    purpose = f"pair {round_number}"
    place = {p: i for i, p in enumerate(order)}
    hist = {p: history.get(p, History()) for p in order}
    n = len(order)
    spread = max(h.points for h in hist.values()) - min(h.points for h in hist.values())
    lot_span = 1 << LOT_BITS
    square = lot_span * (n // 2 + 1)  # more than every lot of a round together
    size = square * (n**3 + 1)  # more than every squared distance of a round together
    count = size * (spread * n + 1)
    bye_unit = count * (n + 1)
    second_bye = bye_unit * (n + 1)  # only when everyone left has had one
    top = second_bye * 2
    if top.bit_length() > WEIGHT_BITS:
        raise PairingError(f"round {round_number}: too many players or points to pair at once")
    edges: list[tuple[int, int, int]] = []
    for i, one in enumerate(order):
        for j in range(i + 1, n):
            other = order[j]
            if other in hist[one].opponents:
                continue
            gap = abs(hist[one].points - hist[other].points)
            lot = int.from_bytes(draw(event_id, purpose, one + other)[:2])
            cost = (count if gap else 0) + size * gap + square * (j - i) ** 2 + lot
            edges.append((i, j, top - cost))
    if n % 2:  # the bye is node n
        for i, p in enumerate(order):
            again = second_bye if hist[p].byes else 0
            edges.append((i, n, top - again - bye_unit * (n - 1 - i)))
    graph: rx.PyGraph[int, int] = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n + 1 if n % 2 else n))
    graph.add_edges_from(edges)
    matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    paired = {i for pair in matching for i in pair}
    missing = [p for i, p in enumerate(order) if i not in paired]
    if missing:
        raise PairingError(
            f"round {round_number}: no pairing without a rematch exists for "
            f"{', '.join(missing)} (every player has met all the others they could play, "
            "or had a bye): end the Swiss rounds here"
        )
    tables = []
    bye: str | None = None
    for i, j in matching:
        if n in (i, j):
            bye = order[min(i, j)]
            continue
        a, b = sorted((order[i], order[j]), key=lambda p: (hist[p].played_a, place[p]))
        tables.append((a, b))
    tables.sort(key=lambda t: min(place[t[0]], place[t[1]]))
    result: list[tuple[str, str | None]] = [(a, b) for a, b in tables]
    if bye is not None:
        result.append((bye, None))
    return result
