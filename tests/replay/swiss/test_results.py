"""Results found by key among real games: a drawn game of the top cut is played again,
and two games for one table leave it pending until the organiser decides."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dbnet.replay.event import EventGame, report
from dbnet.replay.gamefile import examine
from dbnet.replay.swiss.eventfile import Entry, EventFile, EventPoints
from dbnet.replay.swiss.results import find_results
from dbnet.replay.swiss.roundfile import Outcome, RoundFile, Stage, Table
from tests.commands.swiss_games import KEYS, won

A, B = KEYS[0], KEYS[1]
EVENT = EventFile(
    "5" * 32, "Cup", 1, 2, EventPoints(), (Entry(A.fingerprint), Entry(B.fingerprint))
)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[EventGame]:
    folder = tmp_path_factory.mktemp("results")
    paths = [
        won(A, B, A, 1, ("a", "b")).write(folder / "one.dbnr"),
        won(A, B, B, 2, ("a", "b")).write(folder / "two.dbnr"),
    ]
    return list(report([examine(str(p)) for p in paths]).games)


def test_two_games_for_one_table_leave_it_pending_and_both_apart(
    games: list[EventGame],
) -> None:
    rnd = RoundFile(1, Stage.SWISS, (Table(1, A.fingerprint, B.fingerprint),))
    found = find_results(EVENT, [rnd], games)
    [result] = found.rounds[0]
    assert result.pending
    assert "2 games between them" in result.words()
    assert [a.why for a in found.apart] == [
        "one of 2 games for round 1 table 1: record the result by hand in the round file"
    ] * 2
    ruled = replace(rnd, tables=(Table(1, A.fingerprint, B.fingerprint, Outcome.B, "ruling"),))
    [result] = find_results(EVENT, [ruled], games).rounds[0]
    assert (result.outcome, result.hand) == (Outcome.B, True)


def test_a_drawn_cut_game_is_played_again(games: list[EventGame]) -> None:
    """The first game taken as a draw (the value ``replay.event`` gives a drawn game:
    counted, no winner): in the cut it is kept apart as replayed, and the other decides."""
    drawn = replace(games[0], verdict=replace(games[0].verdict, winner=None))
    assert drawn.counted
    assert drawn.winner is None
    cut = RoundFile(1, Stage.CUT, (Table(1, A.fingerprint, B.fingerprint),))
    [r] = find_results(EVENT, [cut], [drawn, games[1]]).rounds[0]
    assert r.outcome is Outcome.B
    assert r.replayed == (drawn.game_id,)
    assert "1 drawn game(s) played again" in r.words()
    swiss = replace(cut, stage=Stage.SWISS)  # in the Swiss rounds a draw is a result
    [r] = find_results(EVENT, [swiss], [drawn]).rounds[0]
    assert r.outcome is Outcome.DRAW
