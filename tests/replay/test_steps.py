"""``dbnet.replay.steps``: a story as steps with the position after each, checked against
the narrator that told it and against the file's own entries."""

from __future__ import annotations

import pytest

from dbnet.errors import DbnetError
from dbnet.match.story import EventKind
from dbnet.replay.steps import StepKind, steps, walk
from dbnet.replay.story import read_story

from .shipped import ABILITIES, LONG, SHORT, story, walked


@pytest.mark.parametrize("name", [SHORT, LONG, ABILITIES])
def test_every_event_is_one_step_and_the_last_position_is_the_narrators(name: str) -> None:
    told = story(name)
    walk_ = walked(name)
    events = [e for t in told.entries for e in t.events if e.kind is not EventKind.TURN]
    seals = [s for s in walk_.steps if s.kind is StepKind.SEAL]
    assert len(walk_.steps) == 1 + len(events) + len(seals)
    assert [s.number for s in walk_.steps] == list(range(len(walk_.steps)))
    assert walk_.steps[0].kind is StepKind.START
    assert told.game is not None
    assert walk_.positions[-1].state_hash() == told.game.state_hash()
    notations = [s.notation for s in walk_.steps if s.kind is not StepKind.SEAL][1:]
    assert notations == [e.notation for e in events]


def test_turn_results_follow_the_step_that_ended_the_turn() -> None:
    told = story(LONG)
    walk_ = walked(LONG)
    results = [e.words for t in told.entries for e in t.events if e.kind is EventKind.TURN]
    assert [text for s in walk_.steps for text in s.after] == results
    assert told.narrator is not None
    for turn, start in told.narrator.turn_starts.items():
        if turn < 2:
            continue
        first = next(s.number for s in walk_.steps if s.turn == turn)
        assert walk_.positions[first - 1].state_hash() == start.state_hash()


def test_seals_close_the_game_and_share_its_last_position() -> None:
    walk_ = walked(SHORT)
    seals = [s for s in walk_.steps if s.kind is StepKind.SEAL]
    assert [s.words.split(":")[0] for s in seals] == ["FINAL", "COSIGN"]
    assert walk_.positions[-1] is walk_.positions[-3]


def test_rolls_keep_their_dice_and_faces() -> None:
    rolls = [s for s in walked(ABILITIES).steps if s.kind is StepKind.ROLL]
    assert rolls
    assert all(s.dice for s in rolls)
    attack = [s for s in rolls if "attack dice" in s.words or "attack die" in s.words]
    assert attack
    assert all(s.faces.startswith("[") for s in attack)


def test_the_live_walk_gives_the_same_positions() -> None:
    hashes = [game.state_hash() for _step, game in walk(story(SHORT))]
    assert hashes == [g.state_hash() for g in walked(SHORT).positions]


def test_a_file_that_is_not_a_game_has_no_steps() -> None:
    nothing = read_story(b"not a replay", where="junk.dbnr")
    with pytest.raises(DbnetError, match="nothing to show"):
        steps(nothing)
