"""The replay viewer's model: a checked replay file as a row of steps, and where you are.

A *step* is one thing the log tells, in order: a decision, a roll (with its
dice and what they did), a resignation, or an entry that closes the log
(FINAL, COSIGN, a timeout CLAIM). Step 0 is the start, before anything was
played. ``ReplayModel`` takes the steps and the position after each one from
``dbnet.replay.steps`` (the HTML page draws the same steps) and moves a cursor
over them: one step, one turn (to a turn's first step), the start or the end. The
file is verified and told by ``dbnet.replay.story.read_story`` (the same reading as
``dbnet replay --plain``), so an invalid file is shown up to the record before the bad
one and the verdict says where and why it stops.

Nothing here draws or touches the terminal (``replay_app`` does).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from dbnet.console.session import LogKind, LogLine
from dbnet.engine import Game, Player
from dbnet.errors import DbnetError
from dbnet.protocol.identity import fingerprint
from dbnet.replay.steps import Step as ReplayStep
from dbnet.replay.steps import StepKind
from dbnet.replay.steps import steps as replay_steps
from dbnet.replay.story import Story, read_story
from dbnet.replay.verify import Verdict, VerdictStatus


@dataclass(frozen=True, slots=True)
class Step:
    """One step: ``number`` (0 for the start), the entry ``seq`` it is in (None for the
    start), its ``author`` (None for rolls), the ``turn`` it happened in, the replay line
    (``notation``: ``spawn lockjaw e1``, ``roll 3 5``; empty for the start and for FINAL,
    COSIGN and CLAIM) and ``words`` for people; a roll's ``dice``; the turn results it
    led to (``after``)."""

    number: int
    seq: int | None
    author: Player | None
    kind: LogKind
    notation: str
    words: str
    turn: int
    dice: tuple[int, ...] = ()
    after: tuple[str, ...] = ()


class ReplayModel:
    """The steps of a replay, the position after each one, and the current step."""

    def __init__(self, story: Story) -> None:
        if story.setup is None:
            raise DbnetError(f"{story.where}: nothing to show: {story.verdict.summary()}")
        self.story = story
        walked = replay_steps(story)
        self.steps: list[Step] = [_console_step(step) for step in walked.steps]
        self.positions: list[Game] = list(walked.positions)
        self.current = 0
        self.log, self._log_index = _log(self.steps, self.stop_note)

    @classmethod
    def from_bytes(cls, data: bytes, *, where: str) -> ReplayModel:
        """The model of a replay file's bytes (verified first)."""
        return cls(read_story(data, where=where))

    # --- what there is ------------------------------------------------------------------

    @property
    def verdict(self) -> Verdict:
        return self.story.verdict

    @property
    def is_invalid(self) -> bool:
        return self.verdict.status is VerdictStatus.INVALID

    @property
    def stop_note(self) -> str:
        """For an invalid file: where the replay stops and why; else empty."""
        if not self.is_invalid:
            return ""
        return f"The replay stops here: {self.verdict.summary()}"

    @property
    def last(self) -> int:
        return len(self.steps) - 1

    @property
    def turns(self) -> list[int]:
        """The turns that have at least one step, in order."""
        return sorted({step.turn for step in self.steps if step.turn > 0})

    def first_of_turn(self, turn: int) -> int | None:
        """The number of the first step of ``turn``, if the game has one (turns count
        from 1; the start is step 0, in no turn)."""
        if turn < 1:
            return None
        return next((s.number for s in self.steps if s.turn == turn), None)

    def position(self, number: int) -> Game:
        """The position after step ``number`` (0: the start). Read it, never change it."""
        return self.positions[number]

    def log_index(self, number: int) -> int:
        """Where step ``number`` is in ``log``."""
        return self._log_index[number]

    def players(self) -> list[str]:
        """One line per player: warband and key fingerprint."""
        story = self.story
        if story.setup is None or story.keys is None:
            return []
        return [
            f"{p.name}: {story.setup.warbands[p].name!r}, key {fingerprint(story.keys[p])}"
            for p in (Player.A, Player.B)
        ]

    # --- where we are ---------------------------------------------------------------------

    @property
    def step(self) -> Step:
        return self.steps[self.current]

    @property
    def game(self) -> Game:
        """The position after the current step."""
        return self.positions[self.current]

    def go(self, number: int) -> bool:
        """Go to step ``number`` (kept between the start and the end); whether it moved."""
        target = max(0, min(self.last, number))
        moved = target != self.current
        self.current = target
        return moved

    def forward(self) -> bool:
        return self.go(self.current + 1)

    def back(self) -> bool:
        return self.go(self.current - 1)

    def start(self) -> bool:
        return self.go(0)

    def end(self) -> bool:
        return self.go(self.last)

    def jump_to_turn(self, turn: int) -> bool:
        """Go to the first step of ``turn``; False (and stay) if the game has no such turn."""
        number = self.first_of_turn(turn)
        if number is None:
            return False
        self.go(number)
        return True

    def next_turn(self) -> bool:
        """To the first step of the next turn; False at the last turn."""
        later = [t for t in self.turns if t > self.step.turn]
        return bool(later) and self.jump_to_turn(later[0])

    def previous_turn(self) -> bool:
        """To the first step of this turn when past it, else of the turn before (the start
        before turn 1); False at the start."""
        turn = self.step.turn
        first = self.first_of_turn(turn) if turn > 0 else 0
        if first is not None and first < self.current:
            return self.go(first)
        earlier = [t for t in self.turns if t < turn]
        if earlier:
            return self.jump_to_turn(earlier[-1])
        return self.go(0)


def _console_step(step: ReplayStep) -> Step:
    return Step(
        step.number,
        step.seq,
        step.author,
        _LOG_KINDS[step.kind],
        step.notation,
        step.words,
        step.turn,
        step.dice,
        step.after,
    )


_LOG_KINDS: Final = {
    StepKind.START: LogKind.NOTE,
    StepKind.CHOICE: LogKind.CHOICE,
    StepKind.ROLL: LogKind.ROLL,
    StepKind.RESIGN: LogKind.RESIGN,
    StepKind.SEAL: LogKind.SEAL,
}


def _log(steps: Sequence[Step], stop_note: str) -> tuple[list[LogLine], list[int]]:
    """The steps as log lines (each followed by its turn results), and where each is."""
    lines: list[LogLine] = []
    index: list[int] = []
    for step in steps:
        index.append(len(lines))
        lines.append(LogLine(step.kind, step.author, step.notation, step.words, step.number))
        lines += [LogLine(LogKind.TURN, None, "", text) for text in step.after]
    if stop_note:
        lines.append(LogLine(LogKind.NOTE, None, "", stop_note))
    return lines, index
