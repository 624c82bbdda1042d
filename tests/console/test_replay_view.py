"""The replay viewer's model, against the recorded games in replays/ re-read independently."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dbnet.console.replay_view import ReplayModel
from dbnet.console.session import LogKind
from dbnet.console.view import current_row, log_lines, log_text
from dbnet.engine import ChanceKind, ChanceRequest, Player
from dbnet.errors import DbnetError
from dbnet.match.story import (
    describe_roll,
    faces_in_words,
    initiative_outcome,
    outcomes,
    places,
)
from dbnet.protocol.log import GameLog
from dbnet.replay.file import load_replay
from dbnet.wire.bodies import PlayBody

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
GAMES = sorted(REPLAYS.glob("*.dbnr"))
FIRST = REPLAYS / "01-greedy-vs-random.dbnr"


def model_of(path: Path) -> ReplayModel:
    return ReplayModel.from_bytes(path.read_bytes(), where=str(path))


def rebuilt(path: Path) -> GameLog:
    """The file's log, checked and re-played by the protocol layer, not the viewer."""
    records = load_replay(path).records
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    return log


def tampered(path: Path, tmp_path: Path, record: int) -> Path:
    """A copy of ``path`` with one bit of ``record``'s signature flipped."""
    data = bytearray(path.read_bytes())
    offset = 8
    for _ in range(record):
        offset += 4 + int.from_bytes(data[offset : offset + 4], "big")
    size = int.from_bytes(data[offset : offset + 4], "big")
    data[offset + 4 + size - 1] ^= 1
    bad = tmp_path / f"tampered-{record}.dbnr"
    bad.write_bytes(bytes(data))
    return bad


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_the_position_at_each_entry_is_the_game_replayed_to_it(path: Path) -> None:
    """After the steps of entries 0..e, the model's position is the log's game after entry
    e, and its state hash is the one entry e's author signed."""
    model = model_of(path)
    records = load_replay(path).records
    log = GameLog.start(records[0])
    checked = 0
    for record in records[1:]:
        entry = log.append(record)
        steps = sum(1 for s in model.steps[1:] if s.seq is not None and s.seq <= entry.seq)
        position = model.position(steps)
        assert position.state_hash() == log.game.state_hash(), f"entry {entry.seq}"
        if isinstance(entry.body, PlayBody):
            assert position.state_hash() == entry.body.state
            checked += 1
    assert checked > 20
    assert model.position(model.last).state_hash() == log.game.state_hash()


def test_stepping_back_then_forward_gives_the_same_states() -> None:
    model = model_of(FIRST)
    forward = [model.game.state_hash()]
    while model.forward():
        forward.append(model.game.state_hash())
    assert model.current == model.last == len(forward) - 1
    assert not model.forward()  # the end stays the end
    backward = [model.game.state_hash()]
    while model.back():
        backward.append(model.game.state_hash())
    assert model.current == 0
    assert not model.back()
    assert backward == forward[::-1]
    assert len(set(forward)) > len(forward) // 2  # the positions do change
    for k in (7, 40, model.last - 1):  # one step back and forth from anywhere
        model.go(k)
        here = model.game.state_hash()
        model.back()
        model.forward()
        assert model.game.state_hash() == here


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_jumping_to_a_turn_lands_on_its_first_step(path: Path) -> None:
    model = model_of(path)
    turns = model.turns
    assert turns == list(range(1, len(turns) + 1))
    for turn in reversed(turns):
        assert model.jump_to_turn(turn)
        number = model.current
        assert model.step.turn == turn
        assert model.steps[number - 1].turn < turn  # nothing of this turn before it
        assert model.step.kind is LogKind.ROLL  # every turn opens with initiative
    model.go(5)
    assert not model.jump_to_turn(turns[-1] + 1)
    assert not model.jump_to_turn(0)
    assert model.current == 5


def test_next_and_previous_turn() -> None:
    model = model_of(FIRST)
    assert model.next_turn()
    assert model.current == model.first_of_turn(1)
    assert model.next_turn()
    assert model.current == model.first_of_turn(2)
    model.forward()
    model.forward()
    assert model.previous_turn()  # back to this turn's first step...
    assert model.current == model.first_of_turn(2)
    assert model.previous_turn()  # ...then to the turn before
    assert model.current == model.first_of_turn(1)
    assert model.previous_turn()
    assert model.current == 0
    assert not model.previous_turn()
    model.end()
    assert not model.next_turn()
    assert model.current == model.last


def test_every_roll_shows_its_dice_and_what_they_did() -> None:
    model = model_of(FIRST)
    rolls = [s for s in model.steps if s.kind is LogKind.ROLL]
    log = rebuilt(FIRST)
    assert [s.dice for s in rolls] == [r.dice for r in log.rolls]
    assert any(s.words.startswith(("A rolls", "B rolls")) for s in rolls)
    for step in rolls:
        before = model.position(step.number - 1)
        request = before.pending
        assert isinstance(request, ChanceRequest)
        words = describe_roll(before, request, step.dice)
        after = model.position(step.number)
        if request.kind is ChanceKind.INITIATIVE:
            words += initiative_outcome(after)
        outcome = outcomes(after, places(before), None)
        assert step.words == words + (f" {outcome}" if outcome else "")
        assert step.notation == "roll " + " ".join(str(d) for d in step.dice)


def test_the_log_has_every_step_and_marks_the_current_one() -> None:
    model = model_of(FIRST)
    texts = [log_text(line) for line in model.log]
    log = rebuilt(FIRST)
    setup = log.game.setup
    a, b = (setup.warbands[p].name for p in (Player.A, Player.B))
    assert texts[0].strip().startswith(f"Start: A {a!r} against B {b!r}")
    winner = log.game.winner
    assert winner is not None
    final, cosign = log.decoded[-2], log.decoded[-1]  # who wrote them, from the file
    assert texts[-2] == (
        f"{model.last - 1:4}. {Player(final.author).name} FINAL: {winner.name} wins by victory"
    )
    assert texts[-1] == (
        f"{model.last:4}. {Player(cosign.author).name} COSIGN: agrees that {winner.name} wins"
    )
    turns = [t for t in texts if t.strip().startswith("End of turn")]
    assert len(turns) == len(log.game.conquest_history)
    for number in (0, 1, model.last // 2, model.last):
        index = model.log_index(number)
        assert model.log[index].number == number
        lines = log_lines(model.log, 0, index)
        marked = [y for y, line in enumerate(lines) if "log.current" in line[0][0]]
        assert marked == [index]
        assert current_row(lines) == index


def test_an_invalid_file_is_shown_up_to_the_bad_record(tmp_path: Path) -> None:
    bad = tampered(FIRST, tmp_path, 30)
    model = model_of(bad)
    assert model.is_invalid
    assert model.verdict.record == 30
    seqs = [s.seq for s in model.steps if s.seq is not None]
    assert max(seqs) == 28  # entry 29 is record 30, the bad one
    assert model.stop_note.startswith("The replay stops here: invalid at record 30")
    assert log_text(model.log[-1]).strip() == model.stop_note
    good = model_of(FIRST)
    model.end()
    good.go(model.last)
    assert model.game.state_hash() == good.game.state_hash()  # the same game, up to there


def test_a_file_with_nothing_to_show_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.dbnr"
    junk.write_bytes(b"not a replay at all")
    with pytest.raises(DbnetError, match="nothing to show: invalid: not a dbnet replay"):
        model_of(junk)


def test_a_resignation_is_a_step() -> None:
    model = model_of(REPLAYS / "05-resignation.dbnr")
    resign = [s for s in model.steps if s.kind is LogKind.RESIGN]
    assert len(resign) == 1
    assert resign[0].words == "B resigns."
    assert model.position(resign[0].number).winner is not None
    assert model.steps[-2].words == "FINAL: A wins by resignation"


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_special_attacks_and_rerolls_are_told_in_words(path: Path) -> None:
    """Each roll of an ability (the kinds the signed log records) is told with what it is:
    a special attack names its attacker and target, a Fortunate reroll its dice."""
    model = model_of(path)
    log = rebuilt(path)
    rolls = [s for s in model.steps if s.kind is LogKind.ROLL]
    assert len(rolls) == len(log.rolls)
    for step, roll in zip(rolls, log.rolls, strict=True):
        faces = faces_in_words(roll.dice)
        if roll.kind == "special":
            pattern = rf"[AB]:\S+ makes a special attack on [AB]:\S+: {re.escape(faces)} = \d+ "
            assert re.fullmatch(pattern + r"damage \(blades miss\)\.", step.words), step.words
        elif roll.kind == "reroll":
            dice = "1 die" if len(roll.dice) == 1 else f"{len(roll.dice)} dice"
            assert re.fullmatch(
                rf"[AB] rerolls {dice} \(Fortunate\): {re.escape(faces)}\.", step.words
            ), step.words
