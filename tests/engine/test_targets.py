"""Target lists (``targets``): the moves of several creatures at once.

``_moves`` lists the single moves, then the combinations of up to X of them that move no
creature twice, in ``itertools.combinations`` order; it builds only those combinations.
The order matters: bots pick from the list by index, so the replays depend on it.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import cast

import pytest

from dbnet.engine.state import Mini
from dbnet.engine.targets import Options, _moves


class _Creature:
    """Just what ``_moves`` reads of a miniature: its id."""

    __slots__ = ("id",)

    def __init__(self, mini_id: int) -> None:
        self.id = mini_id


def creatures(ids: list[int]) -> list[Mini]:
    return cast("list[Mini]", [_Creature(mini) for mini in ids])


def filtered(destinations: dict[int, list[int]], n: int) -> Options:
    """The list by definition: every combination of singles, keeping those of distinct
    creatures."""
    singles = [(mini, cell) for mini, cells in destinations.items() for cell in cells]
    out: Options = list(singles)
    for size in range(2, n + 1):
        for combo in combinations(singles, size):
            if len({mini for mini, _ in combo}) == size:
                out.append(tuple(v for pair in combo for v in pair))
    return out


@pytest.mark.parametrize("seed", range(300))
def test_moves_are_the_combinations_of_distinct_creatures(seed: int) -> None:
    rng = random.Random(seed)
    ids = sorted(rng.sample(range(24), rng.randrange(0, 7)))
    destinations = {mini: sorted(rng.sample(range(25), rng.randrange(0, 5))) for mini in ids}
    n = rng.randrange(0, 5)
    listed = _moves(creatures(ids), lambda m: destinations[m.id], n)
    assert listed == filtered(destinations, n)


def test_three_creatures_two_cells_each() -> None:
    """A worked case: 6 singles, 12 pairs, 8 triples."""
    destinations = {1: [0, 1], 4: [5, 6], 9: [7, 8]}
    listed = _moves(creatures(list(destinations)), lambda m: destinations[m.id], 3)
    assert len(listed) == 6 + 12 + 8
    assert listed[6] == (1, 0, 4, 5)
    assert listed[-1] == (1, 1, 4, 6, 9, 8)
