"""The greedy bot: looks one decision ahead and takes what scores best now.

Each decision kind has its own rule of thumb:

- spawn: buy as much printed spawn cost in creatures as the points pay for (a
  small knapsack over the spawn costs now, aspect shortfall included), the dearest first,
  each into the spawn cell from which it reaches valuable cells soonest;
- shift or strike: strike when the expected value of attacking in the engaged
  cells beats what the best moves would gain;
- shift: make the move that improves the position score most, until none does;
- strike: attack, with every creature there, in the cell with the best odds;
- damage: the split that destroys or disrupts the most valuable enemies;
- fate: destroy rather than disrupt (a kill scores a conquest point, 803.2);
- deathblow: every dying creature strikes back;
- disrupted enemies go to the empty cell where they do their owner least good.

Ties are broken with the bot's own ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dbnet.bots.base import pending_decision
from dbnet.bots.odds import Target, all_plans, assign, best_plan, expected_value, make_target
from dbnet.bots.sketch import W_MATERIAL, Sketch, piece_of
from dbnet.engine import (
    DONE,
    SHIFT,
    STRIKE,
    AttackChoice,
    BuryChoice,
    Choice,
    DamageChoice,
    Decision,
    DecisionKind,
    FateChoice,
    Game,
    MoveChoice,
    PlaceChoice,
    Player,
    SpawnChoice,
    Zone,
)
from dbnet.engine.board import ADJACENT

KILL_VALUE = 1.0  # 803.2: one conquest point per enemy destroyed
BONUS_POINTS = 2  # 801.2: what a destroyed creature gives back to its owner
DISRUPT_BASE = 0.3
DISRUPT_PER_COST = 0.05
CLEAR_SHARE = 0.5  # of a scoring cell's value, for emptying it of enemies
MIN_GAIN = 1e-6
STACK_LIMIT = 4  # 802.1c
STAT_TIE_BREAK = 1000  # printed cost first; stats (far below 1000) only break ties


class GreedyBot:
    """One-ply greedy player over a position heuristic; see the module docstring."""

    __slots__ = ("rng",)

    name = "greedy"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, game: Game) -> Choice:
        decision = pending_decision(game)
        kind = decision.kind
        if kind is DecisionKind.DAMAGE:
            return self._damage(game, decision)
        choices = game.legal_choices()
        assert choices, "a pending decision other than damage always lists its choices"
        if kind is DecisionKind.SPAWN:
            return self._spawn(game, decision.player, choices)
        if kind is DecisionKind.ACTION:
            return self._action(game, decision.player)
        if kind is DecisionKind.SHIFT:
            return self._shift(game, decision.player, choices)
        if kind is DecisionKind.STRIKE:
            return self._strike(game, decision.player, choices)
        if kind is DecisionKind.FATE:
            return FateChoice(decision.minis[0], destroy=True)
        if kind is DecisionKind.RESOLVE:
            return self._resolve(game, decision.player, choices)
        return choices[0]  # DEATHBLOW: the first choice has every dying creature strike

    def __repr__(self) -> str:
        return "GreedyBot(rng)"

    # --- spawn ---------------------------------------------------------------

    def _spawn(self, game: Game, me: Player, choices: Sequence[Choice]) -> Choice:
        cells: dict[int, list[int]] = {}
        for c in choices:
            if isinstance(c, SpawnChoice) and game.minis[c.mini].defn.is_creature:
                cells.setdefault(c.mini, []).append(c.cell)
        pick = self._spawn_pick(game, list(cells))
        if pick is None:
            return DONE
        sketch = Sketch(game, me)
        piece = piece_of(game, pick)
        scored = []
        for cell in cells[pick]:
            sketch.add(piece, cell)
            scored.append((sketch.score(), SpawnChoice(pick, cell)))
            sketch.remove(pick)
        return self._best(scored)

    def _spawn_pick(self, game: Game, candidates: list[int]) -> int | None:
        """The dearest creature of the set with the most printed cost the points pay for.

        A 0/1 knapsack: weights are spawn costs now (aspect shortfall included, 801.4),
        values the printed costs, with stats only to break ties.
        """
        budget = game.spawn_points
        # best[c]: (value, minis) of the best set costing at most c
        best: list[tuple[int, tuple[int, ...]]] = [(0, ())] * (budget + 1)
        for mini in candidates:
            m = game.minis[mini]
            weight = game.spawn_cost(m)
            d = m.defn
            value = STAT_TIE_BREAK * d.spawn_cost + d.power + d.defense + d.life + 1
            for c in range(budget, weight - 1, -1):
                v, chosen = best[c - weight]
                if v + value > best[c][0]:
                    best[c] = (v + value, (*chosen, mini))
        chosen = best[budget][1]
        if not chosen:
            return None
        return max(chosen, key=lambda i: (game.minis[i].defn.spawn_cost, -i))

    # --- action phases -------------------------------------------------------

    def _action(self, game: Game, me: Player) -> Choice:
        strike = sum(v for v in self._attack_values(game, me).values() if v > 0)
        sketch = Sketch(game, me)
        movers = [
            m.id
            for m in game.minis
            if m.owner is me
            and m.zone is Zone.DREAMSCAPE
            and m.defn.is_creature
            and not game.is_engaged(m)
        ]
        shift = _shift_gain(sketch, movers)
        return STRIKE if strike > shift else SHIFT

    def _shift(self, game: Game, me: Player, choices: Sequence[Choice]) -> Choice:
        sketch = Sketch(game, me)
        base = sketch.score()
        scored: list[tuple[float, Choice]] = [(base + MIN_GAIN, DONE)]
        for c in choices:
            if isinstance(c, MoveChoice):
                old = sketch.move(c.mini, c.cell)
                scored.append((sketch.score(), c))
                sketch.move(c.mini, old)
        return self._best(scored)

    def _strike(self, game: Game, me: Player, choices: Sequence[Choice]) -> Choice:
        values = self._attack_values(game, me)
        scored: list[tuple[float, Choice]] = [(MIN_GAIN, DONE)]
        seen: set[int] = set()
        for c in choices:
            # The first attack listed for a cell is the one with all local creatures.
            if isinstance(c, AttackChoice) and c.cell not in seen:
                seen.add(c.cell)
                scored.append((values.get(c.cell, 0.0), c))
        return self._best(scored)

    def _attack_values(self, game: Game, me: Player) -> dict[int, float]:
        """Expected value of attacking with every creature in each cell we can attack now."""
        sketch = Sketch(game, me)
        out: dict[int, float] = {}
        for cell in range(len(game.values)):
            if not (sketch.count[me][cell] and sketch.count[me.other][cell]):
                continue
            dice = sum(game.power(m) for m in game.creatures_in(cell, me))
            targets = _targets(game, [m.id for m in game.creatures_in(cell, me.other)])
            plans = all_plans(targets, CLEAR_SHARE * sketch.values[me][cell])
            out[cell] = expected_value(plans, dice)
        return out

    # --- combat decisions ----------------------------------------------------

    def _damage(self, game: Game, decision: Decision) -> Choice:
        targets = _targets(game, decision.targets)
        sketch_values = Sketch(game, decision.player).values[decision.player]
        plans = all_plans(targets, CLEAR_SHARE * sketch_values[decision.cell])
        plan = best_plan(plans, decision.total)
        return DamageChoice(assign(targets, plan, decision.total))

    def _resolve(self, game: Game, me: Player, choices: Sequence[Choice]) -> Choice:
        places = [c for c in choices if isinstance(c, PlaceChoice)]
        if not places:
            buries = [c for c in choices if isinstance(c, BuryChoice)]
            return buries[0] if buries else choices[0]
        sketch = Sketch(game, me)
        scored: list[tuple[float, Choice]] = []
        for c in places:
            old = sketch.move(c.mini, c.cell)
            scored.append((sketch.score(), c))
            sketch.move(c.mini, old)
        return self._best(scored)

    def _best(self, scored: Sequence[tuple[float, Choice]]) -> Choice:
        top = max(s for s, _ in scored)
        ties = [c for s, c in scored if s >= top - 1e-9]
        return ties[0] if len(ties) == 1 else ties[self.rng.randrange(len(ties))]


def _targets(game: Game, minis: Sequence[int]) -> list[Target]:
    out = []
    for mini in minis:
        m = game.minis[mini]
        cost = m.defn.spawn_cost
        out.append(
            make_target(
                mini,
                game.defense(m),
                game.life(m),
                m.damage,
                DISRUPT_BASE + DISRUPT_PER_COST * cost,
                KILL_VALUE + W_MATERIAL * (cost - BONUS_POINTS),
            )
        )
    return out


def _shift_gain(sketch: Sketch, movers: list[int]) -> float:
    """What a shift would gain: the best single moves made one after another while they help."""
    me = sketch.me
    base = start = sketch.score()
    left = list(movers)
    while left:
        best_gain, best_move = MIN_GAIN, None
        for mini in left:
            frm = sketch.cell_of[mini]
            for to in ADJACENT[frm]:
                if sketch.count[me][to] >= STACK_LIMIT:
                    continue
                sketch.move(mini, to)
                gain = sketch.score() - base
                sketch.move(mini, frm)
                if gain > best_gain:
                    best_gain, best_move = gain, (mini, to)
        if best_move is None:
            break
        sketch.move(*best_move)
        base += best_gain
        left.remove(best_move[0])
    return base - start
