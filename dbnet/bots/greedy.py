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
- disrupted enemies go to the empty cell where they do their owner least good;
- blades: to the ability worth most (damage bonuses by their X, harmful ones last);
- targets: the most valuable enemy to attack, moves scored on the sketch, the
  cheapest creature to give up, the dearest one to bring back;
- rerolls (Fortunate): the dice whose reroll gains the most expected damage;
- spawn abilities: used with points that no creature could use.

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
    ActivateChoice,
    AttackChoice,
    BladeChoice,
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
    RerollChoice,
    SpawnChoice,
    TargetChoice,
    Zone,
)
from dbnet.engine.board import ADJACENT
from dbnet.engine.combat import Purpose
from dbnet.engine.targets import Slot, slots
from dbnet.errors import DbnetError

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
        if kind is DecisionKind.BLADE:
            return self._blade(game, choices)
        if kind is DecisionKind.TARGET:
            return self._target(game, decision, choices)
        if kind is DecisionKind.REROLL:
            return self._reroll(game, choices)
        # DEATHBLOW: the first choice has every dying creature strike; ORDER: as listed.
        return choices[0]

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
            return self._spawn_ability(game, choices)
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

    def _spawn_ability(self, game: Game, choices: Sequence[Choice]) -> Choice:
        """With points no creature can use: the dearest spawn ability that is not harmful."""
        best: tuple[int, Choice] = (-1, DONE)
        for c in choices:
            if not isinstance(c, ActivateChoice):
                continue
            ability = game.minis[c.mini].abilities[c.index]
            if ability.keyword in HARMFUL:
                continue
            cost = c.x if ability.cost_x else (ability.spawn_cost or 0)
            if cost > best[0]:
                best = (cost, c)
        return best[1]

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
            targets = combat_targets(game, [m.id for m in game.creatures_in(cell, me.other)])
            plans = all_plans(targets, CLEAR_SHARE * sketch.values[me][cell])
            out[cell] = expected_value(plans, dice)
        return out

    # --- combat decisions ----------------------------------------------------

    def _damage(self, game: Game, decision: Decision) -> Choice:
        choice = self._plan_damage(game, decision, decision.targets)
        try:
            game.check_choice(choice)
        except DbnetError:  # Bodyguard: while it lacks damage, all of it goes to the guards
            choice = self._plan_damage(game, decision, tuple(game.bodyguards(decision.targets)))
        return choice

    def _plan_damage(self, game: Game, decision: Decision, among: Sequence[int]) -> DamageChoice:
        targets = combat_targets(game, among)
        sketch_values = Sketch(game, decision.player).values[decision.player]
        plans = all_plans(targets, CLEAR_SHARE * sketch_values[decision.cell])
        plan = best_plan(plans, decision.total)
        return DamageChoice(assign(targets, plan, decision.total))

    def _blade(self, game: Game, choices: Sequence[Choice]) -> Choice:
        scored: list[tuple[float, Choice]] = []
        for c in choices:
            assert isinstance(c, BladeChoice)
            source = c.mini if c.source < 0 else c.source
            ability = game.ability_def(source, c.index)
            x = ability.x or 0
            if ability.keyword in HARMFUL:
                value = -1.0 - x
            elif ability.keyword in DAMAGE_BONUS:
                value = 0.5 + x
            else:
                value = 0.5
            scored.append((value, c))
        return self._best(scored)

    def _target(self, game: Game, decision: Decision, choices: Sequence[Choice]) -> Choice:
        ability = game.ability_def(*decision.ability)
        me = decision.player
        sketch = Sketch(game, me)
        base = sketch.score()
        scored: list[tuple[float, Choice]] = []
        for c in choices:
            assert isinstance(c, TargetChoice)
            scored.append((self._target_value(game, sketch, base, ability.keyword, c), c))
        return self._best(scored)

    def _target_value(
        self, game: Game, sketch: Sketch, base: float, keyword: str, choice: TargetChoice
    ) -> float:
        targets = choice.targets
        if not targets:
            return MIN_GAIN  # a "may" ability left unused: only if nothing helps
        pending = game.pending
        assert isinstance(pending, Decision)
        kinds = slots(game.ability_def(*pending.ability), len(targets))
        if Slot.CELL in kinds and keyword != "Lockdown":
            return _moves_value(game, sketch, base, targets, kinds)
        first = game.minis[targets[0]]
        cost = float(first.defn.spawn_cost)
        if keyword in ("Appease",):
            return -cost
        if keyword == "Demolish":
            return cost if first.owner is not pending.player else -cost
        if keyword == "Lockdown":
            return float(game.creatures[pending.player.other][targets[0]])
        if keyword == "Swap":
            holder = pending.minis[0]
            here, there = sketch.cell_of.get(holder), sketch.cell_of.get(targets[0])
            if here is None or there is None:
                return 0.0
            sketch.move(holder, there)
            sketch.move(targets[0], here)
            value = sketch.score() - base
            sketch.move(targets[0], there)
            sketch.move(holder, here)
            return value
        if first.cell >= 0 and first.defn.is_creature:  # an enemy to attack or weaken
            tough = max(1, min(game.defense(first), game.life(first)) - first.damage)
            return cost / tough
        return cost  # Purge, Raise, Reincarnate: the dearest

    def _reroll(self, game: Game, choices: Sequence[Choice]) -> Choice:
        rolling = game.rolling
        regular = rolling is not None and rolling.purpose is Purpose.ATTACK
        # A die is worth its damage; a blade only in a regular attack, about one damage.
        worth = {1: 1.0, 2: 2.0, 3: 3.0, 4: 0.0, 6: 1.0 if regular else 0.0}
        fresh = (1 + 2 + 3 + (1.0 if regular else 0.0)) / 6
        scored: list[tuple[float, Choice]] = []
        for c in choices:
            assert isinstance(c, RerollChoice)
            gain = sum(fresh - worth[v] for v in c.dice)
            scored.append((gain - MIN_GAIN * len(c.dice), c))
        return self._best(scored)

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


HARMFUL = frozenset({"Fumble", "Dissipate", "Appease", "Bomb"})
DAMAGE_BONUS = frozenset({"Crit", "Flanking", "Heroics", "Pack", "Stalwart", "Payback"})


def _moves_value(
    game: Game, sketch: Sketch, base: float, targets: tuple[int, ...], kinds: tuple[Slot, ...]
) -> float:
    """The sketch's score after the moves of a (creature, cell) target list, less now."""
    moved: list[tuple[int, int]] = []
    pending = game.pending
    assert isinstance(pending, Decision)
    if kinds[0] is Slot.CELL:  # Teleport Self
        pairs = [(pending.minis[0], targets[0])]
    else:
        pairs = list(zip(targets[0::2], targets[1::2], strict=True))
    for mini, cell in pairs:
        if mini in sketch.cell_of:
            moved.append((mini, sketch.move(mini, cell)))
    value = sketch.score() - base
    for mini, old in reversed(moved):
        sketch.move(mini, old)
    return value


def combat_targets(game: Game, minis: Sequence[int]) -> list[Target]:
    """The enemies ``minis`` as damage targets (greedy's and the search bot's plans)."""
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
