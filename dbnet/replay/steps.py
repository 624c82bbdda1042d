"""A re-played replay (``replay.story.Story``) as a row of steps, with the position after
each: what the full-screen viewer walks through and what the HTML page draws.

A *step* is one thing the log tells, in order: a decision, a roll (with its dice and
what they did), a resignation, or an entry that closes the log (FINAL, COSIGN, a
timeout CLAIM). Step 0 is the start, before anything was played. The positions come
from applying the events' notation and dice to a fresh ``Game`` of the story's setup,
so they are the positions the verifier re-simulated.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, replace

from dbnet.engine import Game, Player, parse_choice
from dbnet.errors import DbnetError
from dbnet.match.story import EventKind
from dbnet.replay.story import Story
from dbnet.text import counted
from dbnet.wire.bodies import ClaimBody, CosignBody, DisputeBody, FinalBody

__all__ = ["Step", "StepKind", "Walk", "seal_words", "steps", "walk"]


class StepKind(enum.Enum):
    START = "start"  # step 0: the setup, before anything was played
    CHOICE = "choice"  # a decision, in notation
    ROLL = "roll"  # dice, with what they did
    RESIGN = "resign"
    SEAL = "seal"  # an entry that closes the log (FINAL, COSIGN, CLAIM): words only


@dataclass(frozen=True, slots=True)
class Step:
    """One step: ``number`` (0 for the start), the entry ``seq`` it is in (None for the
    start), its ``author`` (None for the start and rolls), the ``turn`` it happened in,
    the replay line (``notation``: ``spawn lockjaw e1``, ``roll 3 5``; empty for the
    start and seals) and ``words`` for people; a roll's ``dice`` and attack ``faces``
    (``[2 3 - blade]``, empty for other rolls); the turn results it led to (``after``)."""

    number: int
    seq: int | None
    author: Player | None
    kind: StepKind
    notation: str
    words: str
    turn: int
    dice: tuple[int, ...] = ()
    faces: str = ""
    outcome: str = ""
    after: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Walk:
    """Every step of a story and the position after each (``positions[n]`` after step
    ``n``; copies, never changed)."""

    steps: tuple[Step, ...]
    positions: tuple[Game, ...]


def walk(story: Story) -> Iterator[tuple[Step, Game]]:
    """Each step of ``story`` with the position after it, in order.

    The position is one live game that the next step changes: copy it to keep it.
    A step's ``after`` (the turn results it led to) is known only once the next events
    are read, so each step is yielded when the next one begins.

    Raises:
        DbnetError: the story has no setup (an unreadable file, evidence).
    """
    setup = story.setup
    if setup is None:
        raise DbnetError(f"{story.where}: nothing to show: {story.verdict.summary()}")
    game = Game(setup)
    a, b = (f"{p.name} {setup.warbands[p].name!r}" for p in (Player.A, Player.B))
    start = (
        f"Start: {a} against {b} on map {setup.map.name!r}; first to win "
        f"{counted(setup.options.turns_to_win, 'turn')} wins."
    )
    held = Step(0, None, None, StepKind.START, "", start, 0)
    number = 0
    for told in story.entries:
        for event in told.events:
            if event.kind is EventKind.TURN:
                held = replace(held, after=(*held.after, event.words))
                continue
            yield held, game  # the position after ``held``: the next event has not run
            number += 1
            if event.kind is EventKind.CHOICE:
                game.apply(parse_choice(game, event.notation))
                kind, words = StepKind.CHOICE, f"{_name(event.player)} {event.notation}"
            elif event.kind is EventKind.ROLL:
                game.roll(event.dice)
                kind, words = StepKind.ROLL, event.words
            else:
                assert event.player is not None
                game.resign(event.player)
                kind, words = StepKind.RESIGN, event.words
            held = Step(
                number,
                told.entry.seq,
                event.player,
                kind,
                event.notation,
                words,
                event.turn,
                event.dice,
                event.faces,
                event.outcome,
            )
        seal = seal_words(told.entry.body)
        if seal:
            yield held, game
            number += 1
            author = Player(told.entry.author)
            held = Step(number, told.entry.seq, author, StepKind.SEAL, "", seal, held.turn)
    yield held, game


def steps(story: Story) -> Walk:
    """Every step of ``story`` with a copy of the position after each."""
    out: list[Step] = []
    positions: list[Game] = []
    last: Game | None = None
    for step, game in walk(story):
        out.append(step)
        if step.kind is StepKind.SEAL and last is not None:
            positions.append(last)  # a seal changes nothing: share the position
        else:
            last = game.copy()
            positions.append(last)
    return Walk(tuple(out), tuple(positions))


def seal_words(body: object) -> str:
    """The words of an entry that closes the log (as ``dbnet replay --plain`` gives them),
    empty for any other entry."""
    if isinstance(body, FinalBody):
        return f"FINAL: {Player(body.winner).name} wins by {body.reason}"
    if isinstance(body, CosignBody):
        return f"COSIGN: agrees that {Player(body.winner).name} wins"
    if isinstance(body, ClaimBody) and body.reason == "clock":
        return (
            f"CLAIM ON TIME: the other player's clock ran out before entry {body.waiting_for} "
            "(a clock claim)"
        )
    if isinstance(body, ClaimBody):
        return f"CLAIM: entry {body.waiting_for} never came (a unilateral claim, not a result)"
    if isinstance(body, DisputeBody):
        return (
            "DISPUTE: by the flagged player's own clock, time was left (a disputed clock "
            "claim, not a result)"
        )
    return ""


def _name(player: Player | None) -> str:
    return "" if player is None else player.name
