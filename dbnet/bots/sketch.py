"""A light picture of the dreamscape that the greedy bot can change and score quickly.

Copying a ``Game`` to try every move is too slow for a bot that should finish
a game in a fraction of a second, so the bot works on this sketch instead:
per cell and player, the number of creatures and the sum of their power,
toughness and cost. ``score`` says how good the picture is for one player,
in conquest points (a kill is worth about one).
"""

from __future__ import annotations

from dataclasses import dataclass

from dbnet.engine import Game, Player, Zone
from dbnet.engine.board import CELL_COUNT, KEY_CELLS, SCORING_CELLS, distance

# Weights of the position score (conquest points per unit).
W_MATERIAL = 0.15  # per spawn-cost point of creatures in the dreamscape
W_CONTEST = 0.5  # share of a contested scoring cell's value, by strength
W_FIGHT = 0.12  # per spawn-cost point at stake in a contested cell, by strength
W_REACH = 0.5  # how close each group of unengaged creatures is to cells worth taking

DISTANCE: tuple[tuple[int, ...], ...] = tuple(
    tuple(distance(a, b) for b in range(CELL_COUNT)) for a in range(CELL_COUNT)
)


@dataclass(frozen=True, slots=True)
class Piece:
    """One creature in the dreamscape as the sketch sees it."""

    mini: int
    owner: Player
    power: int
    toughness: int  # defense + life - damage: how hard it is to shift out of a cell
    cost: int


class Sketch:
    """Creature counts and sums per player per cell, from ``me``'s point of view."""

    __slots__ = ("cell_of", "cost", "count", "me", "pieces", "power", "tough", "values")

    def __init__(self, game: Game, me: Player) -> None:
        self.me = me
        self.values: tuple[tuple[int, ...], tuple[int, ...]] = tuple(  # type: ignore[assignment]
            tuple(game.values[c] if c in SCORING_CELLS[p] else 0 for c in range(CELL_COUNT))
            for p in (Player.A, Player.B)
        )
        self.count = [[0] * CELL_COUNT, [0] * CELL_COUNT]
        self.power = [[0] * CELL_COUNT, [0] * CELL_COUNT]
        self.tough = [[0] * CELL_COUNT, [0] * CELL_COUNT]
        self.cost = [[0] * CELL_COUNT, [0] * CELL_COUNT]
        self.pieces: dict[int, Piece] = {}
        self.cell_of: dict[int, int] = {}
        for m in game.minis:
            if m.zone is Zone.DREAMSCAPE and m.defn.is_creature:
                self.add(piece_of(game, m.id), m.cell)

    def add(self, piece: Piece, cell: int) -> None:
        p = piece.owner
        self.pieces[piece.mini] = piece
        self.cell_of[piece.mini] = cell
        self.count[p][cell] += 1
        self.power[p][cell] += piece.power
        self.tough[p][cell] += piece.toughness
        self.cost[p][cell] += piece.cost

    def remove(self, mini: int) -> tuple[Piece, int]:
        piece = self.pieces.pop(mini)
        cell = self.cell_of.pop(mini)
        p = piece.owner
        self.count[p][cell] -= 1
        self.power[p][cell] -= piece.power
        self.tough[p][cell] -= piece.toughness
        self.cost[p][cell] -= piece.cost
        return piece, cell

    def move(self, mini: int, cell: int) -> int:
        """Move a piece; returns the cell it came from."""
        piece, old = self.remove(mini)
        self.add(piece, cell)
        return old

    def score(self) -> float:
        """How good this picture is for ``me``: claims, contests, material and reach."""
        me, op = self.me, self.me.other
        n_me, n_op = self.count[me], self.count[op]
        v_me, v_op = self.values[me], self.values[op]
        total = 0.0
        goals_me: list[tuple[int, int]] = []
        goals_op: list[tuple[int, int]] = []
        for c in KEY_CELLS:
            a, b = n_me[c], n_op[c]
            if a and not b:
                total += v_me[c]
            elif b and not a:
                total -= v_op[c]
            if not a and v_me[c] + (v_op[c] if b else 0):
                goals_me.append((c, v_me[c] + (v_op[c] if b else 0)))
            if not b and v_op[c] + (v_me[c] if a else 0):
                goals_op.append((c, v_op[c] + (v_me[c] if a else 0)))
        for c in range(CELL_COUNT):
            a, b = n_me[c], n_op[c]
            if a and b:
                total += self._contest(c)
            elif a:
                total += W_REACH * _reach(c, goals_me)
            elif b:
                total -= W_REACH * _reach(c, goals_op)
            total += W_MATERIAL * (self.cost[me][c] - self.cost[op][c])
        return total

    def _contest(self, c: int) -> float:
        """A cell both players hold: whoever is stronger there is likelier to keep it."""
        me, op = self.me, self.me.other
        strength_me = self.power[me][c] + self.tough[me][c] / 4
        strength_op = self.power[op][c] + self.tough[op][c] / 4
        share = strength_me / (strength_me + strength_op) if strength_me + strength_op else 0.5
        return W_CONTEST * (share * self.values[me][c] - (1 - share) * self.values[op][c]) + (
            W_FIGHT * (share * self.cost[op][c] - (1 - share) * self.cost[me][c])
        )


def _reach(cell: int, goals: list[tuple[int, int]]) -> float:
    """The best goal value discounted by the distance to it."""
    best = 0.0
    row = DISTANCE[cell]
    for goal, value in goals:
        v = value / (1 + row[goal])
        if v > best:
            best = v
    return best


def piece_of(game: Game, mini: int) -> Piece:
    m = game.minis[mini]
    toughness = game.defense(m) + game.life(m) - m.damage
    return Piece(mini, m.owner, game.power(m), toughness, m.defn.spawn_cost)
