"""Set a game up at any position: the basis of scenario files and rule tests.

A ``Position`` names a point at the start of a step the engine can wait at:
the initiative roll, a spawn phase, or an action phase (before shift/strike
is chosen, or in the middle of a shift or strike). Every miniature is placed
explicitly; anything not given takes the value it has at the start of a game.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from dbnet.engine import board, turnflow, zones
from dbnet.engine.game import Game, Mode, Step, Zone
from dbnet.engine.model import GameSetup, Player
from dbnet.engine.state import sync
from dbnet.errors import DataError


class Stage(enum.Enum):
    """Where in the turn the position starts."""

    INITIATIVE = "initiative"
    SPAWN = "spawn"  # start of the given player's spawn phase (or partway, see spawn_points)
    ACTION = "action"  # start of an action phase: shift or strike still to choose
    SHIFT = "shift"  # partway through a shift
    STRIKE = "strike"  # partway through a strike

    def __repr__(self) -> str:
        return f"Stage.{self.name}"


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one miniature is. ``cell`` only in the dreamscape; ``moved`` only during a shift."""

    zone: Zone = Zone.RESERVES
    cell: int = -1
    damage: int = 0
    moved: bool = False


@dataclass(frozen=True, slots=True)
class Position:
    """A game position; ``placements[i]`` is where ``Game.minis[i]`` is (missing: reserves).

    ``active`` is whose spawn phase it is for SPAWN; for the action stages it
    follows from ``first`` and ``action_index`` (0 and 1 are the first player's).
    ``spawn_points`` defaults to the two initiative dice plus the player's bonus.
    ``allies_at_spawn_start`` defaults to the cells where the spawning player
    has creatures now (801.5).
    """

    stage: Stage = Stage.INITIATIVE
    turn: int = 1
    first: Player = Player.A
    active: Player = Player.A
    action_index: int = 0
    initiative: tuple[int, int] = (0, 0)
    spawn_points: int | None = None
    allies_at_spawn_start: tuple[int, ...] | None = None
    turns_won: tuple[int, int] = (0, 0)
    bonus: tuple[int, int] = (0, 0)
    kills: tuple[int, int] = (0, 0)
    had_one_last_turn: bool = False
    attacked_cells: tuple[int, ...] = ()
    placements: tuple[Placement, ...] = ()


def game_at(setup: GameSetup, position: Position, *, allow_unimplemented: bool = False) -> Game:
    """A game of ``setup`` at ``position``; DataError if the position breaks a rule."""
    game = Game(setup, allow_unimplemented=allow_unimplemented)
    p = position
    if len(p.placements) > len(game.minis):
        raise DataError("position", f"{len(p.placements)} placements for {len(game.minis)} minis")
    _check_numbers(p)
    game._invalidate()
    for m, place in zip(game.minis, _padded(p.placements, len(game.minis)), strict=True):
        where = f"position, {m.label}"
        if place.zone is Zone.DREAMSCAPE:
            if not 0 <= place.cell < board.CELL_COUNT:
                raise DataError(where, "a miniature in the dreamscape needs a cell")
        elif place.cell != -1:
            raise DataError(where, f"a miniature in {place.zone.name.lower()} has no cell")
        if place.damage < 0 or (place.damage and place.zone is not Zone.DREAMSCAPE):
            raise DataError(where, "damage must be 0 or more, and only in the dreamscape")
        if place.damage and m.defn.is_location:
            raise DataError(where, "locations take no damage")
        zones.place(game, m, place.zone, place.cell)
        m.damage = place.damage
        m.moved = place.moved
        sync(game, m)
    _check_stacking(game)

    game.turn = p.turn
    game.first = p.first
    game.turns_won = list(p.turns_won)
    game.bonus = list(p.bonus)
    game.kills = list(p.kills)
    game.initiative = list(p.initiative)
    game.had_one_last_turn = p.had_one_last_turn
    game.skip_spawn = False
    if p.stage is Stage.INITIATIVE:
        turnflow.start_turn(game)
        game.turn = p.turn
    elif p.stage is Stage.SPAWN:
        if not all(1 <= d <= 6 for d in p.initiative):
            raise DataError("position", "a spawn phase needs both initiative dice (1-6)")
        turnflow.start_spawn_phase(game, p.active)
        if p.spawn_points is not None:
            game.spawn_points = p.spawn_points
        if p.allies_at_spawn_start is not None:
            game.allies_at_spawn_start = _mask(p.allies_at_spawn_start)
    else:
        if not 0 <= p.action_index <= 3:
            raise DataError("position", f"action_index must be 0-3, not {p.action_index}")
        turnflow.start_action_phase(game, p.action_index)
        if p.stage is Stage.SHIFT:
            game.mode, game.step = Mode.SHIFT, Step.SHIFT
        elif p.stage is Stage.STRIKE:
            game.mode, game.step = Mode.STRIKE, Step.STRIKE
            game.attacked_cells = _mask(p.attacked_cells)
    turnflow.advance(game)
    return game


def _padded(placements: Sequence[Placement], n: int) -> list[Placement]:
    return [*placements, *([Placement()] * (n - len(placements)))]


def _mask(cells: Sequence[int]) -> int:
    mask = 0
    for cell in cells:
        if not 0 <= cell < board.CELL_COUNT:
            raise DataError("position", f"cell {cell!r} is not on the dreamscape")
        mask |= 1 << cell
    return mask


def _check_numbers(p: Position) -> None:
    if p.turn < 1:
        raise DataError("position", f"turn must be 1 or more, not {p.turn}")
    for name, pair in (("turns_won", p.turns_won), ("bonus", p.bonus), ("kills", p.kills)):
        if any(v < 0 for v in pair):
            raise DataError("position", f"{name} must not be negative: {pair!r}")


def _check_stacking(game: Game) -> None:
    """301.1a: four creatures per player per cell (more only in one's own portal), one location."""
    for player in (Player.A, Player.B):
        for cell, n in enumerate(game.creatures[player]):
            if n > 4 and cell != board.PORTAL[player]:
                raise DataError(
                    "position",
                    f"{player.name} has {n} creatures in {board.cell_name(cell)}; at most 4",
                )
    seen = [0] * board.CELL_COUNT
    for m in game.minis:
        if m.cell >= 0 and m.defn.is_location:
            seen[m.cell] += 1
            if seen[m.cell] > 1:
                raise DataError(
                    "position", f"two locations in {board.cell_name(m.cell)}; at most one"
                )
