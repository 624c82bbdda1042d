"""The top cut's bracket, pure."""

from __future__ import annotations

from dbnet.replay.swiss.cut import bracket, first_round, next_round


def test_the_bracket_keeps_the_best_seeds_apart_until_the_final() -> None:
    assert bracket(2) == [1, 2]
    assert bracket(4) == [1, 4, 2, 3]
    assert bracket(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert sorted(bracket(16)) == list(range(1, 17))


def test_one_plays_n_and_the_higher_seed_plays_a() -> None:
    seeded = [f"s{i}" for i in range(1, 9)]
    assert first_round(seeded) == [("s1", "s8"), ("s4", "s5"), ("s2", "s7"), ("s3", "s6")]
    seed = {p: i for i, p in enumerate(seeded)}
    assert next_round(["s8", "s4", "s2", "s6"], seed) == [("s4", "s8"), ("s2", "s6")]
    assert next_round(["s4", "s2"], seed) == [("s2", "s4")]
