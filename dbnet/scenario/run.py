"""Playing a scenario against the engine and collecting every mismatch.

An expectation that fails is recorded and the run goes on, so one report
shows everything that is wrong. An action that goes wrong (a decision the
engine refuses, a refusal that does not come) ends the run: the steps after
it were written for a game that did not happen.
"""

from __future__ import annotations

from dbnet.engine.game import Game
from dbnet.engine.notation import parse_choice, parse_dice
from dbnet.engine.position import game_at
from dbnet.errors import DataError, DbnetError
from dbnet.scenario.check import check, pending_text
from dbnet.scenario.load import load_scenario
from dbnet.scenario.model import (
    Expect,
    Illegal,
    Mismatch,
    Play,
    Resign,
    Roll,
    Scenario,
    ScenarioResult,
    Step,
)


def start_game(scenario: Scenario) -> Game:
    """The game at the scenario's starting position."""
    return game_at(
        scenario.setup, scenario.position, allow_unimplemented=scenario.allow_unimplemented
    )


def run_scenario(scenario: Scenario) -> ScenarioResult:
    """Play ``scenario``; its result lists every mismatch in step order."""
    game = start_game(scenario)
    mismatches: list[Mismatch] = []
    for step in scenario.steps:
        try:
            failure = _act(game, step)
            if failure is None:
                mismatches.extend(_check_step(game, step))
        except Exception as exc:  # an engine bug: report it with the step, don't stop the run
            failure = _wrong(step, "engine", "no crash", f"{type(exc).__name__}: {exc}")
        if failure is not None:
            mismatches.append(failure)
            break
    return ScenarioResult(scenario.path, scenario.title, tuple(mismatches))


def _check_step(game: Game, step: Step) -> list[Mismatch]:
    out = []
    for expectation in step.expectations:
        outcome = check(game, expectation)
        if outcome is not None:
            what = expectation.name if isinstance(expectation, Expect) else expectation.mode.value
            out.append(Mismatch(step.index, step.text, what, *outcome))
    return out


def run_file(path: str) -> ScenarioResult:
    """Load and play one file; a malformed file is a failed result, not an exception."""
    try:
        scenario = load_scenario(path)
    except DataError as exc:
        return ScenarioResult(path, "", error=str(exc))
    return run_scenario(scenario)


def _act(game: Game, step: Step) -> Mismatch | None:
    """Carry out the step's action; a Mismatch if it did not go as the step says."""
    action = step.action
    if isinstance(action, Play):
        for text in action.choices:
            try:
                game.apply(parse_choice(game, text))
            except DbnetError as exc:
                return _wrong(step, f"play {text!r}", "a legal decision", f"refused: {exc}")
    elif isinstance(action, Roll):
        try:
            game.roll(action.dice)
        except DbnetError as exc:
            return _wrong(step, "roll", "dice the game waits for", f"refused: {exc}")
    elif isinstance(action, Resign):
        try:
            game.resign(action.player)
        except DbnetError as exc:
            return _wrong(step, "resign", "a resignation", f"refused: {exc}")
    elif isinstance(action, Illegal):
        return _refuse(game, step, action)
    return None


def _refuse(game: Game, step: Step, action: Illegal) -> Mismatch | None:
    """The engine must refuse ``action.text`` and leave the game exactly as it was."""
    before = game.state_hash()
    waiting = pending_text(game)
    text = action.text.strip()
    try:
        if text.lower().startswith("roll"):
            game.roll(parse_dice(text))
        else:
            game.apply(parse_choice(game, text))
    except DbnetError as exc:
        if game.state_hash() != before:
            return _wrong(step, "state after the refusal", "unchanged", "changed")
        if action.error is not None and action.error.lower() not in str(exc).lower():
            return _wrong(step, "refusal message", f"to contain {action.error!r}", repr(str(exc)))
        return None
    return _wrong(
        step, f"illegal {text!r}", f"a refusal (the game waited for {waiting!r})", "accepted"
    )


def _wrong(step: Step, what: str, expected: str, actual: str) -> Mismatch:
    return Mismatch(step.index, step.text, what, expected, actual)
