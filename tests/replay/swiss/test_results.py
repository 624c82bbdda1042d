"""Results found by key among real games (two short games between the same two keys,
``tests/replay/conftest.py``): a drawn game of the top cut is played again, and two
games for one table leave it pending until the organiser decides."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dbnet.replay.event import EventGame, report
from dbnet.replay.gamefile import examine
from dbnet.replay.swiss.eventfile import Entry, EventFile, EventPoints
from dbnet.replay.swiss.results import find_results
from dbnet.replay.swiss.roundfile import Outcome, RoundFile, Stage, Table

from ..helpers import RecordedGame


@pytest.fixture(scope="module")
def event(short_game: RecordedGame) -> EventFile:
    a, b = (i.fingerprint for i in short_game.identities)
    return EventFile("5" * 32, "Cup", 1, 2, EventPoints(), (Entry(a), Entry(b)))


@pytest.fixture(scope="module")
def games(
    tmp_path_factory: pytest.TempPathFactory,
    short_game: RecordedGame,
    sibling_game: RecordedGame,
) -> list[EventGame]:
    folder = tmp_path_factory.mktemp("results")
    paths = [folder / "one.dbnr", folder / "two.dbnr"]
    for path, game in zip(paths, (short_game, sibling_game), strict=True):
        path.write_bytes(game.data)
    return list(report([examine(str(p)) for p in paths]).games)


def test_two_games_for_one_table_leave_it_pending_and_both_apart(
    event: EventFile, games: list[EventGame]
) -> None:
    a, b = (e.fingerprint for e in event.players)
    rnd = RoundFile(1, Stage.SWISS, (Table(1, a, b),))
    found = find_results(event, [rnd], games)
    [result] = found.rounds[0]
    assert result.pending
    assert "2 games between them" in result.words()
    assert [a.why for a in found.apart] == [
        "one of 2 games for round 1 table 1: record the result by hand in the round file"
    ] * 2
    ruled = replace(rnd, tables=(Table(1, a, b, Outcome.B, "ruling"),))
    [result] = find_results(event, [ruled], games).rounds[0]
    assert (result.outcome, result.hand) == (Outcome.B, True)


def test_a_drawn_cut_game_is_played_again(event: EventFile, games: list[EventGame]) -> None:
    """The first game taken as a draw (the value ``replay.event`` gives a drawn game:
    counted, no winner): in the cut it is kept apart as replayed, and the other decides."""
    drawn = replace(games[0], verdict=replace(games[0].verdict, winner=None))
    assert drawn.counted
    assert drawn.winner is None
    a, b = (e.fingerprint for e in event.players)
    cut = RoundFile(1, Stage.CUT, (Table(1, a, b),))
    [r] = find_results(event, [cut], [drawn, games[1]]).rounds[0]
    decider = games[1]
    assert decider.players is not None
    assert decider.winner is not None
    assert r.outcome is (Outcome.A if decider.players[decider.winner] == a else Outcome.B)
    assert r.game == decider.game_id
    assert r.replayed == (drawn.game_id,)
    assert "1 drawn game(s) played again" in r.words()
    swiss = replace(cut, stage=Stage.SWISS)  # in the Swiss rounds a draw is a result
    [r] = find_results(event, [swiss], [drawn]).rounds[0]
    assert r.outcome is Outcome.DRAW
