"""The top cut, pure: a single-elimination bracket of the top N of the Swiss standings.

The first round pairs seed 1 with N, 2 with N-1, ... in bracket order (for 8: 1-8, 4-5,
2-7, 3-6), so that 1 and 2 can meet only in the final; each later round pairs the
winners of two neighbouring tables. The higher seed plays A. A drawn game is played
again (``results``), so every table ends with a winner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["bracket", "first_round", "next_round"]


def bracket(n: int) -> list[int]:
    """The seeds 1..n (a power of two) in bracket order: ``bracket(4)`` is 1, 4, 2, 3."""
    order = [1]
    while len(order) < n:
        size = 2 * len(order)
        order = [s for seed in order for s in (seed, size + 1 - seed)]
    return order


def first_round(seeded: Sequence[str]) -> list[tuple[str, str]]:
    """The tables of the top ``len(seeded)``, best seed first in ``seeded``."""
    order = bracket(len(seeded))
    return [(seeded[order[i] - 1], seeded[order[i + 1] - 1]) for i in range(0, len(order), 2)]


def next_round(winners: Sequence[str], seed: Mapping[str, int]) -> list[tuple[str, str]]:
    """The tables of the winners of the last round's tables, in table order."""
    tables = []
    for i in range(0, len(winners) - 1, 2):
        a, b = sorted(winners[i : i + 2], key=lambda p: seed[p])
        tables.append((a, b))
    return tables
