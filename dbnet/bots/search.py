"""The search bot: Monte Carlo tree search with chance nodes, in three levels.

Theory of operation. Every playout copies the game at the root and walks down
the tree, applying the choices and dice of the nodes it passes:

- at a *decision* node, the deciding player (either side: the tree holds both
  players' decisions) takes the child with the best UCT score from their own
  point of view; a node offers its children a few at a time (progressive
  widening: ``1 + WIDEN * sqrt(visits)`` of them), best first by a cheap prior
  (the greedy bot's choice, then moves and spawns by the greedy bot's position
  sketch), so that a spawn with twenty cells or a shift with twenty moves does
  not spread the playouts thin;
- damage splits are grouped: one candidate per *plan* (which enemies to
  destroy, disrupt or leave, ``odds.all_plans``), not one per split;
- at a *chance* node (the engine's ``ChanceRequest``) the bot rolls the dice
  itself with its own ``random.Random``, and the outcome picks the child (attack
  dice sorted, since the order of attack dice changes nothing). The bot never
  sees the game's own future rolls: it only ever samples them;
- a new leaf is played on while the game waits for dice or a combat decision
  (greedy answers those), so that an attack is scored after its dice, then
  evaluated (``evaluate``) and the value backed up the path.

The evaluation speaks the game's terms: the chance that A wins the turn being
played (the conquest points A and B would score now, 803: claimed key cells and
kills, and the greedy bot's sketch of the board: claims, contests, the cost of
the miniatures in the dreamscape, reach), and the race to ``turns_to_win`` from
the turns each side has won, future turns going by the sketch.

Budgets: ``seconds`` per decision (a clock, not reproducible), or ``playouts``
(reproducible: with a seeded ``random.Random`` and a playout budget, the same
position gives the same choice). ``think`` reports progress (0 to 1) and stops
early when asked, returning the best choice found so far.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from dbnet.bots.base import Bot, Progress, Stop, pending_decision
from dbnet.bots.greedy import CLEAR_SHARE, GreedyBot, combat_targets
from dbnet.bots.odds import all_plans, assign
from dbnet.bots.sketch import Sketch, piece_of
from dbnet.engine import (
    DONE,
    ChanceKind,
    ChanceRequest,
    Choice,
    DamageChoice,
    Decision,
    DecisionKind,
    Game,
    MoveChoice,
    PlaceChoice,
    Player,
    SpawnChoice,
)
from dbnet.errors import DbnetError


@dataclass(frozen=True, slots=True)
class Level:
    """How a search bot plays: its default budget and how it picks at the root."""

    name: str
    seconds: float
    """The default budget per decision, in seconds."""
    temperature: float
    """0: the most visited choice; above 0, a choice drawn with weight visits ** (1 / T)."""


LEVELS: Final = {
    "easy": Level("easy", 0.25, 0.5),
    "normal": Level("normal", 0.7, 0.0),
    "hard": Level("hard", 2.0, 0.0),
}

EXPLORATION = 0.7  # UCT constant, values being chances of winning (0 to 1)
WIDEN = 1.5  # progressive widening: 1 + WIDEN * sqrt(visits) children
WIDEN_FREE = 4  # decisions with this many choices or fewer open them all at once
MAX_DAMAGE_PLANS = 6
ROLLOUT_LIMIT = 40  # combat decisions and rolls played on from a new leaf, at most
CHECK_EVERY = 8  # playouts between looks at the clock, the stop flag and progress

# The evaluation (see ``evaluate``), in conquest points.
TURN_SCALE = 0.8  # how sharply the points of the turn being played decide it
TURN_SKETCH = 0.25  # the sketch's say in the turn being played
FUTURE_SKETCH = 0.12  # the sketch's say in the turns to come
BONUS_WEIGHT = 0.15  # a waiting bonus spawn point (801.2), like cost in the dreamscape

COMBAT_KINDS: Final = frozenset(
    {
        DecisionKind.BLADE,
        DecisionKind.DAMAGE,
        DecisionKind.FATE,
        DecisionKind.DEATHBLOW,
        DecisionKind.RESOLVE,
        DecisionKind.ORDER,
        DecisionKind.REROLL,
        DecisionKind.TARGET,
    }
)
SORTED_DICE: Final = frozenset({ChanceKind.ATTACK, ChanceKind.DEATHBLOW, ChanceKind.SPECIAL})
SKETCHED: Final = frozenset({DecisionKind.SHIFT, DecisionKind.SPAWN, DecisionKind.RESOLVE})


class _Node:
    """A position reached by a path of choices and dice from the root. ``value`` sums
    A's chance of winning over the playouts through the node."""

    __slots__ = ("candidates", "children", "edges", "value", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.value = 0.0
        self.children: dict[object, _Node] = {}
        self.edges: list[tuple[Choice, _Node]] = []  # decision nodes: children in order
        self.candidates: list[Choice] | None = None  # decision nodes: in prior order


@dataclass(frozen=True, slots=True)
class Report:
    """What the last search did: playouts run, seconds spent, visits of the choice made."""

    playouts: int
    seconds: float
    visits: int


class SearchBot:
    """Monte Carlo tree search over the engine; see the module docstring."""

    __slots__ = ("greedy", "level", "playouts", "report", "rng", "seconds")

    def __init__(
        self,
        rng: random.Random,
        level: str = "hard",
        *,
        seconds: float | None = None,
        playouts: int | None = None,
    ) -> None:
        """A bot of ``level`` (``LEVELS``). The budget per decision is ``playouts`` and/or
        ``seconds`` (whichever ends first); with neither, the level's default seconds."""
        if level not in LEVELS:
            raise ValueError(f"no search level {level!r}; levels are {', '.join(LEVELS)}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a search budget must be positive, not {seconds!r} seconds")
        if playouts is not None and playouts < 1:
            raise ValueError(f"a search budget must be positive, not {playouts!r} playouts")
        self.rng = rng
        self.level = LEVELS[level]
        self.seconds = self.level.seconds if seconds is None and playouts is None else seconds
        self.playouts = playouts
        self.greedy = GreedyBot(rng)
        self.report = Report(0, 0.0, 0)

    @property
    def name(self) -> str:
        return self.level.name

    def __repr__(self) -> str:
        return (
            f"SearchBot(rng, {self.level.name!r}, seconds={self.seconds!r}, "
            f"playouts={self.playouts!r})"
        )

    def choose(self, game: Game) -> Choice:
        return self.think(game)

    def think(
        self, game: Game, progress: Progress | None = None, stop: Stop | None = None
    ) -> Choice:
        """The choice for ``game``'s pending decision after searching within the budget;
        ``progress`` hears how far the search is, ``stop`` can end it early."""
        decision = pending_decision(game)
        root = _Node()
        root.candidates = self._candidates(game, decision)
        if len(root.candidates) == 1:
            self.report = Report(0, 0.0, 0)
            return root.candidates[0]
        start = time.perf_counter()
        deadline = None if self.seconds is None else start + self.seconds
        limit = self.playouts
        done = 0
        while True:
            self._playout(game, root)
            done += 1
            if limit is not None and done >= limit:
                break
            if done % CHECK_EVERY == 0:
                now = time.perf_counter()
                if deadline is not None and now >= deadline:
                    break
                if stop is not None and stop():
                    break
                if progress is not None:
                    share = 0.0 if limit is None else done / limit
                    if deadline is not None and self.seconds is not None:
                        share = max(share, (now - start) / self.seconds)
                    progress(min(1.0, share))
        choice, visits = self._pick(root)
        self.report = Report(done, time.perf_counter() - start, visits)
        return choice

    # --- the tree ------------------------------------------------------------------

    def _playout(self, root_game: Game, root: _Node) -> None:
        game = root_game.copy()
        node = root
        path = [root]
        rng = self.rng
        while not game.is_over:
            pending = game.pending
            if isinstance(pending, ChanceRequest):
                dice = [rng.randrange(6) + 1 for _ in range(pending.count)]
                key = tuple(sorted(dice)) if pending.kind in SORTED_DICE else tuple(dice)
                game.roll(dice)
                child = node.children.get(key)
                if child is None:
                    child = node.children[key] = _Node()
                    path.append(child)
                    break
                node = child
                path.append(node)
                continue
            assert isinstance(pending, Decision)
            if node.candidates is None:
                node.candidates = self._candidates(game, pending)
            candidates = node.candidates
            edges = node.edges
            opened = len(edges)
            allowed = (
                len(candidates)
                if len(candidates) <= WIDEN_FREE
                else 1 + int(WIDEN * math.sqrt(node.visits))
            )
            if opened < len(candidates) and opened < allowed:
                choice = candidates[opened]
                child = _Node()
                edges.append((choice, child))
                game.apply(choice)
                path.append(child)
                break
            choice, node = self._select(node, pending.player)
            game.apply(choice)
            path.append(node)
        value = self._leaf_value(game)
        for n in path:
            n.visits += 1
            n.value += value

    def _select(self, node: _Node, player: Player) -> tuple[Choice, _Node]:
        log_n = math.log(node.visits + 1)
        best = -1.0
        pick = node.edges[0]
        for edge in node.edges:
            child = edge[1]
            if child.visits == 0:
                return edge
            mean = child.value / child.visits
            if player is Player.B:
                mean = 1.0 - mean
            score = mean + EXPLORATION * math.sqrt(log_n / child.visits)
            if score > best:
                best, pick = score, edge
        return pick

    def _pick(self, root: _Node) -> tuple[Choice, int]:
        edges = root.edges
        assert root.candidates is not None
        if not edges:
            return root.candidates[0], 0
        temperature = self.level.temperature
        if temperature > 0:
            weights = [child.visits ** (1 / temperature) for _, child in edges]
            if sum(weights) > 0:
                i = self.rng.choices(range(len(edges)), weights)[0]
                return edges[i][0], edges[i][1].visits
        # the most visited; on a tie, the one listed first (the prior's better)
        choice, child = max(edges, key=lambda e: e[1].visits)
        return choice, child.visits

    def _leaf_value(self, game: Game) -> float:
        """A's chance of winning from a new leaf, once the dice and combat decisions that
        follow it are played (greedy answers those)."""
        rng = self.rng
        for _ in range(ROLLOUT_LIMIT):
            pending = game.pending
            if isinstance(pending, ChanceRequest):
                game.roll([rng.randrange(6) + 1 for _ in range(pending.count)])
            elif isinstance(pending, Decision) and pending.kind in COMBAT_KINDS:
                game.apply(self.greedy.choose(game))
            else:
                break
        return evaluate(game)

    # --- candidates in prior order -------------------------------------------------

    def _candidates(self, game: Game, decision: Decision) -> list[Choice]:
        if decision.kind is DecisionKind.DAMAGE:
            return self._damage_candidates(game, decision)
        choices = list(game.legal_choices() or [])
        if len(choices) <= 1:
            return choices
        first = self.greedy.choose(game)
        rest = [c for c in choices if c != first]
        if decision.kind in SKETCHED:
            rest = _by_sketch(game, decision.player, rest)
        else:
            self.rng.shuffle(rest)
        return [first, *rest]

    def _damage_candidates(self, game: Game, decision: Decision) -> list[Choice]:
        """One split per plan of what to destroy, disrupt or leave (move grouping); the
        greedy bot's split first."""
        first = self.greedy.choose(game)
        out: list[Choice] = [first]
        targets = combat_targets(game, decision.targets)
        bonus = CLEAR_SHARE * Sketch(game, decision.player).values[decision.player][decision.cell]
        plans = [p for p in all_plans(targets, bonus) if p.need <= decision.total]
        plans.sort(key=lambda p: -p.value)
        for plan in plans:
            if len(out) >= MAX_DAMAGE_PLANS:
                break
            choice = DamageChoice(assign(targets, plan, decision.total))
            if choice in out:
                continue
            try:
                game.check_choice(choice)
            except DbnetError:
                continue
            out.append(choice)
        return out


def _by_sketch(game: Game, me: Player, choices: Sequence[Choice]) -> list[Choice]:
    """Moves, placements and spawns by the sketch's score after them, best first."""
    sketch = Sketch(game, me)
    base = sketch.score()
    scored: list[tuple[float, int, Choice]] = []
    for i, c in enumerate(choices):
        if isinstance(c, MoveChoice | PlaceChoice) and c.mini in sketch.cell_of:
            old = sketch.move(c.mini, c.cell)
            score = sketch.score()
            sketch.move(c.mini, old)
        elif isinstance(c, SpawnChoice) and game.minis[c.mini].defn.is_creature:
            sketch.add(piece_of(game, c.mini), c.cell)
            score = sketch.score()
            sketch.remove(c.mini)
        elif c == DONE:
            score = base
        else:
            score = base - 1.0
        scored.append((score, i, c))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [c for _, _, c in scored]


def think(
    bot: Bot, game: Game, progress: Progress | None = None, stop: Stop | None = None
) -> Choice:
    """``bot``'s choice for ``game``: a search bot hears ``progress`` and ``stop``, the others
    just choose."""
    if isinstance(bot, SearchBot):
        return bot.think(game, progress, stop)
    return bot.choose(game)


# --- the evaluation ---------------------------------------------------------------------


def evaluate(game: Game) -> float:
    """A's chance of winning ``game``, estimated: the turn being played by its conquest
    points now (803.1 claims, 803.2 kills) and the sketch, the turns to come by the sketch,
    and the race to ``turns_to_win`` (803.3) from the turns won."""
    if game.is_over:
        return 1.0 if game.winner is Player.A else 0.0
    sketch = Sketch(game, Player.A).score()
    sketch += BONUS_WEIGHT * (game.bonus[0] - game.bonus[1])
    points = game.claimed_points(Player.A) + game.kills[0]
    points -= game.claimed_points(Player.B) + game.kills[1]
    this_turn = _sigmoid(TURN_SCALE * points + TURN_SKETCH * sketch)
    later = _sigmoid(FUTURE_SKETCH * sketch)
    to_win = game.setup.options.turns_to_win
    need_a = to_win - game.turns_won[0]
    need_b = to_win - game.turns_won[1]
    return this_turn * _race(need_a - 1, need_b, later) + (1 - this_turn) * _race(
        need_a, need_b - 1, later
    )


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def _race(need_a: int, need_b: int, p: float) -> float:
    """The chance that A wins ``need_a`` turns before B wins ``need_b``, A winning each
    turn with chance ``p``."""
    if need_a <= 0:
        return 1.0
    if need_b <= 0:
        return 0.0
    # row[j]: the chance with i turns still needed by A and j by B
    row = [0.0] + [1.0] * need_b  # i = 0: A has won
    for _ in range(need_a):
        new = [0.0] * (need_b + 1)
        for j in range(1, need_b + 1):
            new[j] = p * row[j] + (1 - p) * new[j - 1]
        row = new
    return row[need_b]
