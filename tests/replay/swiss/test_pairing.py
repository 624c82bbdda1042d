"""Swiss pairings, pure: each rule a case, and the same pairings on every run."""

from __future__ import annotations

import itertools

import pytest

from dbnet.replay.swiss.errors import PairingError
from dbnet.replay.swiss.pairing import History, pair_round, rank

EVENT = "0123456789abcdef0123456789abcdef"
PLAYERS = tuple(f"P{i:03d}-AAAA-AAAA-AAAA" for i in range(12))


def met(*pairs: tuple[str, str]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for a, b in pairs:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {p: frozenset(o) for p, o in out.items()}


def everyone_once(tables: list[tuple[str, str | None]], players: tuple[str, ...]) -> None:
    seated = [p for t in tables for p in t if p is not None]
    assert sorted(seated) == sorted(players)


def test_round_one_pairs_everyone_in_a_seeded_shuffle() -> None:
    players = PLAYERS[:8]
    tables = pair_round(players, {}, EVENT, 1)
    everyone_once(tables, players)
    assert all(b is not None for _, b in tables)
    order = rank(players, {}, EVENT, 1)
    assert [set(t) for t in tables] == [set(order[i : i + 2]) for i in range(0, 8, 2)]
    assert order != sorted(players)  # shuffled
    assert pair_round(players, {}, EVENT, 1) == tables
    other = pair_round(players, {}, "f" * 32, 1)
    assert {frozenset(t) for t in other} != {frozenset(t) for t in tables}


def test_the_same_folder_gives_the_same_pairings_on_every_machine() -> None:
    """A fixed input and the pairing it gave when written: SHA-256 lots and an integer
    matching depend on no machine, hash seed or dict order."""
    history = {p: History(points=3 * (i % 3)) for i, p in enumerate(PLAYERS[:7])}
    tables = pair_round(PLAYERS[:7], history, EVENT, 2)
    assert tables == [
        ("P002-AAAA-AAAA-AAAA", "P005-AAAA-AAAA-AAAA"),
        ("P001-AAAA-AAAA-AAAA", "P004-AAAA-AAAA-AAAA"),
        ("P003-AAAA-AAAA-AAAA", "P006-AAAA-AAAA-AAAA"),
        ("P000-AAAA-AAAA-AAAA", None),
    ]
    shuffled = list(reversed(PLAYERS[:7]))
    assert pair_round(shuffled, dict(reversed(history.items())), EVENT, 2) == tables


def test_no_rematch_even_when_the_score_group_would_pair_them() -> None:
    a, b, c, d = PLAYERS[:4]
    opponents = met((a, b), (c, d))
    history = {
        a: History(points=3, opponents=opponents[a]),
        b: History(points=3, opponents=opponents[b]),
        c: History(points=0, opponents=opponents[c]),
        d: History(points=0, opponents=opponents[d]),
    }
    tables = pair_round((a, b, c, d), history, EVENT, 2)
    pairs = {frozenset(t) for t in tables}
    assert frozenset((a, b)) not in pairs
    assert frozenset((c, d)) not in pairs
    everyone_once(tables, (a, b, c, d))


def test_a_whole_pairing_found_where_the_top_down_greedy_one_fails() -> None:
    """Six players: the greedy 1-2, 3-4 leaves 5 and 6, who have met; the matching
    finds the pairing without a rematch that keeps the floats fewest."""
    p = PLAYERS[:6]
    opponents = met((p[4], p[5]))
    history = {x: History(points=3 if i < 4 else 0, opponents=opponents.get(x, frozenset()))
               for i, x in enumerate(p)}  # fmt: skip
    tables = pair_round(p, history, EVENT, 2)
    assert frozenset((p[4], p[5])) not in {frozenset(t) for t in tables}
    floats = [
        t for t in tables if t[1] is not None and history[t[0]].points != history[t[1]].points
    ]
    assert len(floats) == 2  # 5 and 6 each play someone on 3 points: two floats at least


def test_the_fewest_and_smallest_floats_from_the_top() -> None:
    """Three on 6 points, three on 3, two on 0: one float from 6 to 3, and the one who
    floats is the lowest of the top group, paired with the highest of the next."""
    p = PLAYERS[:8]
    points = {x: (6 if i < 3 else 3 if i < 6 else 0) for i, x in enumerate(p)}
    history = {x: History(points=points[x]) for x in p}
    tables = pair_round(p, history, EVENT, 3)
    gaps = sorted(abs(points[a] - points[b]) for a, b in tables if b is not None)
    assert gaps == [0, 0, 0, 3]
    order = rank(p, history, EVENT, 3)
    [(x, y)] = [t for t in tables if t[1] is not None and points[t[0]] != points[t[1]]]
    assert {x, y} == {order[2], order[3]}


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    p = PLAYERS[:5]
    history = {x: History(points=3 * (5 - i)) for i, x in enumerate(p)}
    tables = pair_round(p, history, EVENT, 2)
    assert tables[-1] == (p[4], None)
    everyone_once(tables, p)
    history[p[4]] = History(points=0, byes=1)
    tables = pair_round(p, history, EVENT, 2)
    assert tables[-1] == (p[3], None)


def test_a_second_bye_only_when_everyone_has_had_one() -> None:
    p = PLAYERS[:3]
    opponents = met((p[0], p[1]))
    history = {x: History(points=3, byes=1, opponents=opponents.get(x, frozenset())) for x in p}
    tables = pair_round(p, history, EVENT, 3)
    assert len(tables) == 2
    everyone_once(tables, p)
    assert frozenset((p[0], p[1])) not in {frozenset(t) for t in tables}


@pytest.mark.parametrize("n", [2, 3, 5, 7, 9, 11])
def test_odd_and_even_counts_seat_everyone_once(n: int) -> None:
    players = PLAYERS[:n]
    history = {x: History(points=(i * 7) % 4) for i, x in enumerate(players)}
    tables = pair_round(players, history, EVENT, 2)
    everyone_once(tables, players)
    assert sum(b is None for _, b in tables) == n % 2


def test_no_pairing_without_a_rematch_is_an_error() -> None:
    p = PLAYERS[:4]
    everyone = met(*itertools.combinations(p, 2))
    history = {x: History(points=3, opponents=everyone[x]) for x in p}
    with pytest.raises(PairingError, match="no pairing without a rematch"):
        pair_round(p, history, EVENT, 4)
    with pytest.raises(PairingError, match="fewer than two"):
        pair_round(p[:1], {}, EVENT, 1)


def test_who_plays_a_is_the_one_who_played_a_fewer_times() -> None:
    a, b = PLAYERS[:2]
    tables = pair_round((a, b), {a: History(played_a=2), b: History(played_a=1)}, EVENT, 3)
    assert tables == [(b, a)]
    tables = pair_round((a, b), {a: History(played_a=0), b: History(played_a=1)}, EVENT, 3)
    assert tables == [(a, b)]


def test_when_one_and_two_have_met_one_plays_three_and_two_plays_four() -> None:
    """The squared rank distances prefer 1-3 and 2-4 (4 + 4) to 1-4 and 2-3 (9 + 1),
    so a tie in a score group goes by the seeded shuffle, not by the library."""
    players = PLAYERS[:4]
    first = rank(players, {}, EVENT, 2)
    opponents = met((first[0], first[1]))
    history = {p: History(opponents=opponents.get(p, frozenset())) for p in players}
    tables = pair_round(players, history, EVENT, 2)
    assert {frozenset(t) for t in tables} == {
        frozenset((first[0], first[2])),
        frozenset((first[1], first[3])),
    }
