"""The Dreamblade rules as a decision-driven state machine.

A ``Game`` always exposes exactly one pending item (``Game.pending``): a
``Decision`` owed by A or B, a ``ChanceRequest`` for dice, or None once the game
is over. ``apply`` takes a choice and ``roll`` takes dice; each validates in
full before it changes anything, so an illegal or malformed input raises and
leaves the game untouched. Decisions that have only one legal answer (damage
with a single target, a disrupted creature with one empty cell to go to, a
shift with nothing left to move) are applied automatically.

Theory of operation: ``_step`` says what the engine waits for. Every input
handler changes the state and then calls ``_advance``, which runs automatic
steps (phase ends, conquest, forced decisions) until input is needed again.
Combat follows the FAQ's ten-step sequence; its progress lives in ``Combat``.

Determinism: no floats, clocks, randomness or iteration over sets; the state
is ints, tuples and lists, and ``state_hash`` packs it into fixed-width ints.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Sequence
from itertools import combinations

from dbnet.engine import board
from dbnet.engine.abilities import (
    NO_ABILITIES,
    AbilityRules,
    Event,
    EventKind,
    Stat,
    Trigger,
    apply_minimum,
)
from dbnet.engine.canonical import pack_ints, setup_bytes
from dbnet.engine.choices import (
    DONE,
    SHIFT,
    STRIKE,
    AttackChoice,
    BladeChoice,
    BuryChoice,
    ChanceKind,
    ChanceRequest,
    Choice,
    DamageChoice,
    DeathblowChoice,
    Decision,
    DecisionKind,
    Done,
    FateChoice,
    MoveChoice,
    OrderChoice,
    Pending,
    PlaceChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
)
from dbnet.engine.model import Activation, GameSetup, MiniatureDef, Player
from dbnet.errors import DataError, GameOverError, IllegalChoiceError, InvalidChoiceError

HASH_VERSION = 1
MAX_WARBAND = 16
MAX_COPIES = 3
CREATURES_PER_PLAYER_PER_CELL = 4  # 301.1a


class Zone(enum.IntEnum):
    """Rule 304: where a miniature is."""

    RESERVES = 0
    DREAMSCAPE = 1
    GRAVEYARD = 2
    REMOVED = 3

    def __repr__(self) -> str:
        return f"Zone.{self.name}"


class Phase(enum.IntEnum):
    INITIATIVE = 0
    SPAWN = 1
    ACTION = 2
    CONQUEST = 3
    OVER = 4


class Step(enum.IntEnum):
    """What the engine waits for."""

    ROLL_INITIATIVE = 0
    SPAWN = 1
    ACTION = 2
    SHIFT = 3
    STRIKE = 4
    ROLL_ATTACK = 5
    DAMAGE = 6
    FATE = 7
    DEATHBLOW = 8
    ROLL_DEATHBLOW = 9
    RESOLVE = 10
    OVER = 11
    BLADE = 12
    ORDER = 13  # 900.7a: a player orders their simultaneous triggered effects
    COMBAT_END = 14  # step 10's effects are resolving; then back to step 5


class Mode(enum.IntEnum):
    NONE = 0
    SHIFT = 1
    STRIKE = 2


class Fate(enum.IntEnum):
    """What combat step 5 decided for a creature."""

    DISRUPT = 1
    DESTROY = 2


class EndReason(enum.Enum):
    VICTORY = "victory"
    RESIGNATION = "resignation"


# Attack die faces (302): index = die value - 1.
ATTACK_DAMAGE = (1, 2, 3, 0, 0, 0)
BLADE_VALUE = 6


def dice_damage(values: Sequence[int]) -> int:
    """The damage attack dice show (302): 1, 2 or 3 each; misses and blades add nothing."""
    return sum(ATTACK_DAMAGE[v - 1] for v in values)


class Mini:
    """One miniature of one player's warband, and where it is now (internal, mutable)."""

    __slots__ = ("cell", "damage", "defn", "handle", "id", "moved", "needs", "owner", "zone")

    def __init__(self, mini_id: int, owner: Player, defn: MiniatureDef, handle: str) -> None:
        self.id = mini_id
        self.owner = owner
        self.defn = defn
        self.handle = handle
        self.needs = defn.aspect_needs()  # asked on every spawn-cost check (801.4)
        self.zone = Zone.RESERVES
        self.cell = -1
        self.damage = 0
        self.moved = False

    def clone(self) -> Mini:
        other = Mini.__new__(Mini)
        other.id = self.id
        other.owner = self.owner
        other.defn = self.defn
        other.handle = self.handle
        other.needs = self.needs
        other.zone = self.zone
        other.cell = self.cell
        other.damage = self.damage
        other.moved = self.moved
        return other

    @property
    def label(self) -> str:
        """``'A:temple-lion#2'``: owner and handle, for messages."""
        return f"{self.owner.name}:{self.handle}"

    def __repr__(self) -> str:
        where = board.cell_name(self.cell) if self.cell >= 0 else self.zone.name.lower()
        return f"<Mini {self.id} {self.label} {where} damage={self.damage}>"


class Combat:
    """Progress of one combat (FAQ combat sequence) in one cell."""

    __slots__ = (
        "attackers",
        "blade_uses",
        "blades",
        "cell",
        "damage_bonus",
        "damage_cell",
        "damage_owner",
        "damage_total",
        "deathblow_queue",
        "deathblown",
        "ended",
        "fate_queue",
        "in_deathblow",
        "marks",
        "resolver",
        "resume",
    )

    def __init__(self, cell: int, attackers: tuple[int, ...], resume: Step) -> None:
        """A combat in ``cell`` (-1: damage dealt outside combat, 900.3); ``resume`` is the
        step the game returns to afterwards."""
        self.cell = cell
        self.attackers = attackers
        self.resume = resume
        self.ended = False
        self.marks: dict[int, Fate] = {}
        self.fate_queue: list[int] = []
        self.deathblow_queue: list[int] = []
        self.deathblown: list[int] = []
        self.in_deathblow = False
        self.damage_owner = -1
        self.damage_cell = -1
        self.damage_total = 0
        self.resolver = -1
        self.blades = 0  # blades not yet assigned (combat step 3)
        self.blade_uses: list[tuple[int, int, int]] = []  # (mini, ability index, activations)
        self.damage_bonus = 0  # "+X damage this combat" from blade abilities (Crit, Fumble ...)

    def uses(self, mini: int, index: int) -> int:
        for m, i, n in self.blade_uses:
            if m == mini and i == index:
                return n
        return 0

    def record_use(self, mini: int, index: int) -> None:
        n = self.uses(mini, index)
        self.blade_uses = sorted(
            [u for u in self.blade_uses if (u[0], u[1]) != (mini, index)] + [(mini, index, n + 1)]
        )

    def clone(self) -> Combat:
        other = Combat(self.cell, self.attackers, self.resume)
        other.ended = self.ended
        other.blades = self.blades
        other.blade_uses = list(self.blade_uses)
        other.damage_bonus = self.damage_bonus
        other.marks = dict(self.marks)
        other.fate_queue = list(self.fate_queue)
        other.deathblow_queue = list(self.deathblow_queue)
        other.deathblown = list(self.deathblown)
        other.in_deathblow = self.in_deathblow
        other.damage_owner = self.damage_owner
        other.damage_cell = self.damage_cell
        other.damage_total = self.damage_total
        other.resolver = self.resolver
        return other

    def encode(self) -> list[int]:
        out = [self.cell, len(self.attackers), *self.attackers]
        marks = sorted(self.marks.items())
        out += [len(marks)]
        for mini, fate in marks:
            out += [mini, int(fate)]
        for seq in (self.fate_queue, self.deathblow_queue, sorted(self.deathblown)):
            out += [len(seq), *seq]
        out += [
            int(self.in_deathblow),
            self.damage_owner,
            self.damage_cell,
            self.damage_total,
            self.resolver,
            self.blades,
            self.damage_bonus,
            self.resume,
            int(self.ended),
            len(self.blade_uses),
        ]
        for use in self.blade_uses:
            out += use
        return out


def make_handles(minis: Sequence[MiniatureDef]) -> list[str]:
    """Notation names for a warband: the slug, plus ``#k`` when the warband holds copies."""
    totals: dict[str, int] = {}
    for d in minis:
        totals[d.slug] = totals.get(d.slug, 0) + 1
    seen: dict[str, int] = {}
    handles = []
    for d in minis:
        seen[d.slug] = seen.get(d.slug, 0) + 1
        handles.append(d.slug if totals[d.slug] == 1 else f"{d.slug}#{seen[d.slug]}")
    return handles


def check_warband_size(name: str, minis: Sequence[MiniatureDef]) -> None:
    """Rule 600.1 and 600.3: at most 16 miniatures, at most three copies of one."""
    if len(minis) > MAX_WARBAND:
        raise DataError(name, f"has {len(minis)} miniatures; a warband holds at most 16 (600.1)")
    counts: dict[str, int] = {}
    for d in minis:
        counts[d.slug] = counts.get(d.slug, 0) + 1
    for slug, n in counts.items():
        if n > MAX_COPIES:
            raise DataError(name, f"has {n} copies of {slug!r}; at most 3 are allowed (600.3)")


class Game:
    """One game of Dreamblade between A and B. See the module docstring."""

    def __init__(
        self,
        setup: GameSetup,
        rules: AbilityRules = NO_ABILITIES,
        *,
        allow_unimplemented: bool = False,
    ) -> None:
        self.setup = setup
        self.rules = rules
        self.values = setup.map.values
        self.minis: list[Mini] = []
        for player in (Player.A, Player.B):
            warband = setup.warbands[player]
            check_warband_size(f"warband {warband.name!r}", warband.minis)
            for defn, handle in zip(warband.minis, make_handles(warband.minis), strict=True):
                if not allow_unimplemented:
                    for ability in defn.abilities:
                        if not rules.implements(ability.keyword):
                            raise DataError(
                                f"warband {warband.name!r}, {defn.name}",
                                f"ability {ability.keyword!r} is not implemented by these rules",
                            )
                self.minis.append(Mini(len(self.minis), player, defn, handle))
        self._setup_digest = hashlib.sha256(setup_bytes(setup)).digest()
        # creature counts per player per cell, and the location in each cell (-1: none)
        self.creatures: list[list[int]] = [[0] * board.CELL_COUNT, [0] * board.CELL_COUNT]
        self.location_at: list[int] = [-1] * board.CELL_COUNT

        self.turn = 0
        self.phase = Phase.INITIATIVE
        self.step = Step.ROLL_INITIATIVE
        self.turns_won = [0, 0]
        self.bonus = [0, 0]  # 801.2: bonus spawn points waiting for the next spawn phase
        self.kills = [0, 0]  # 803.2: enemy creatures destroyed this turn
        self.initiative = [0, 0]
        self.reroll: tuple[Player, ...] = (Player.A, Player.B)
        self.had_one_last_turn = False
        self.skip_spawn = False
        self.first = Player.A
        self.active = Player.A
        self.action_index = 0
        self.spawn_points = 0
        self.allies_at_spawn_start = 0  # bitmask of cells (801.5 condition 1)
        self.spawned_into = [0] * board.CELL_COUNT
        self.mode = Mode.NONE
        self.attacked_cells = 0  # bitmask (802.2a)
        self.combat: Combat | None = None
        self.winner: Player | None = None
        self.end_reason: EndReason | None = None
        self.conquest_history: list[tuple[int, int]] = []
        self.trigger_queue: list[Trigger] = []  # triggered effects waiting to resolve (900.7)
        self.order_resume = Step.OVER  # the step to return to after an ORDER decision
        self.damaged_outside_combat = False  # 900.3: check disruption once triggers resolve
        self._pending: Pending | None = None
        self._choices: list[Choice] | None = None
        self._start_turn()

    # --- copying and hashing ------------------------------------------------

    def copy(self) -> Game:
        """An independent game in the same state."""
        other = Game.__new__(Game)
        for name in (
            "setup", "rules", "values", "_setup_digest", "turn", "phase", "step", "reroll",
            "had_one_last_turn", "skip_spawn", "first", "active", "action_index",
            "spawn_points", "allies_at_spawn_start", "mode", "attacked_cells", "winner",
            "end_reason", "_pending", "_choices", "order_resume", "damaged_outside_combat",
        ):  # fmt: skip
            setattr(other, name, getattr(self, name))
        other.minis = [m.clone() for m in self.minis]
        other.creatures = [list(self.creatures[0]), list(self.creatures[1])]
        other.location_at = list(self.location_at)
        other.turns_won = list(self.turns_won)
        other.bonus = list(self.bonus)
        other.kills = list(self.kills)
        other.initiative = list(self.initiative)
        other.spawned_into = list(self.spawned_into)
        other.combat = self.combat.clone() if self.combat is not None else None
        other.conquest_history = list(self.conquest_history)
        other.trigger_queue = list(self.trigger_queue)
        return other

    def encode(self) -> list[int]:
        """The whole state as a flat list of ints (the canonical encoding, see docs)."""
        out = [
            HASH_VERSION, self.turn, self.phase, self.step, *self.turns_won, *self.bonus,
            *self.kills, *self.initiative, len(self.reroll), *self.reroll,
            int(self.had_one_last_turn), int(self.skip_spawn), self.first, self.active,
            self.action_index, self.spawn_points, self.allies_at_spawn_start,
            *self.spawned_into, self.mode, self.attacked_cells,
            -1 if self.winner is None else int(self.winner),
            0 if self.end_reason is None else (1 if self.end_reason is EndReason.VICTORY else 2),
            len(self.minis),
        ]  # fmt: skip
        for m in self.minis:
            out += (m.zone, m.cell, m.damage, int(m.moved))
        if self.combat is None:
            out.append(0)
        else:
            combat = self.combat.encode()
            out += [1, len(combat), *combat]
        out += [self.order_resume, int(self.damaged_outside_combat), len(self.trigger_queue)]
        for t in self.trigger_queue:
            out += (t.controller, t.mini, t.index, t.event.kind, t.event.mini, t.event.cell)
        return out

    def state_hash(self) -> bytes:
        """SHA-256 over the setup digest and the canonical state encoding."""
        hasher = hashlib.sha256(self._setup_digest)
        hasher.update(pack_ints(self.encode()))
        return hasher.digest()

    # --- queries ------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.step is Step.OVER

    @property
    def pending(self) -> Pending | None:
        """The one item the game waits for, or None when the game is over."""
        if self._pending is None and self.step is not Step.OVER:
            self._pending = self._make_pending()
        return self._pending

    def minis_of(self, player: Player) -> list[Mini]:
        return [m for m in self.minis if m.owner is player]

    def in_cell(self, cell: int) -> list[Mini]:
        """Miniatures in ``cell``, in id order."""
        return [m for m in self.minis if m.cell == cell]

    def creatures_in(self, cell: int, player: Player) -> list[Mini]:
        return [
            m for m in self.minis if m.cell == cell and m.owner is player and m.defn.is_creature
        ]

    def is_engaged(self, m: Mini) -> bool:
        """802.1a: an enemy creature shares the cell (enemy locations don't engage)."""
        return m.cell >= 0 and self.creatures[m.owner.other][m.cell] > 0

    def power(self, m: Mini) -> int:
        return self.stat(m, Stat.POWER)

    def defense(self, m: Mini) -> int:
        return self.stat(m, Stat.DEFENSE)

    def life(self, m: Mini) -> int:
        return self.stat(m, Stat.LIFE)

    def stat(self, m: Mini, stat: Stat) -> int:
        """A stat after all modifiers and the 900.8 minimums."""
        d = m.defn
        base = (d.power, d.defense, d.life, d.spawn_cost)[stat]
        return apply_minimum(stat, base + self.rules.stat_modifier(self, m, stat))

    def spawn_cost(self, m: Mini) -> int:
        """What spawning ``m`` costs its owner now: spawn cost plus aspect shortfall (801.4)."""
        return self._spawn_cost(m, self._aspect_counts(m.owner))

    def _aspect_counts(self, player: Player) -> list[int]:
        """Per aspect, ``player``'s miniatures of that aspect in dreamscape and graveyard."""
        counts = [0, 0, 0, 0]
        for other in self.minis:
            if other.owner is player and (
                other.zone is Zone.DREAMSCAPE or other.zone is Zone.GRAVEYARD
            ):
                for aspect, _ in other.needs:  # each of its aspects, once
                    counts[aspect] += 1
        return counts

    def _spawn_cost(self, m: Mini, counts: list[int]) -> int:
        cost = self.stat(m, Stat.COST)
        for aspect, needed in m.needs:
            if counts[aspect] < needed:
                cost += needed - counts[aspect]
        return cost

    def claimed_points(self, player: Player) -> int:
        """803.1: the value of the scoring cells ``player`` claims now."""
        total = 0
        for cell in board.SCORING_CELLS[player]:
            if self.creatures[player][cell] and not self.creatures[player.other][cell]:
                total += self.values[cell]
        return total

    # --- legal choices --------------------------------------------------------

    def legal_choices(self) -> list[Choice] | None:
        """Every legal choice for the pending decision, in a fixed order.

        None when the game waits for dice or is over, and for DAMAGE, whose
        choices are the many splits of ``Decision.total`` among its targets
        (use ``check_choice`` to validate one).
        """
        if self._choices is None:
            self._choices = self._make_choices()
        return self._choices

    def _make_choices(self) -> list[Choice] | None:
        step = self.step
        if step is Step.SPAWN:
            return self._spawn_choices()
        if step is Step.ACTION:
            return [SHIFT, STRIKE]
        if step is Step.SHIFT:
            return [*self._move_choices(), DONE]
        if step is Step.STRIKE:
            return [*self._attack_choices(), DONE]
        if step is Step.FATE:
            assert self.combat is not None
            mini = self.combat.fate_queue[0]
            return [FateChoice(mini, False), FateChoice(mini, True)]
        if step is Step.DEATHBLOW:
            assert self.combat is not None
            dying = self._dying_in(self.combat.deathblow_queue[0])
            return [
                DeathblowChoice(self.combat.deathblow_queue[0], subset)
                for size in range(len(dying), -1, -1)
                for subset in combinations(dying, size)
            ]
        if step is Step.RESOLVE:
            return self._resolve_choices()
        if step is Step.BLADE:
            return self._blade_choices()
        if step is Step.ORDER:
            pending = self._make_pending()
            assert isinstance(pending, Decision)
            return [OrderChoice(i) for i in range(len(pending.minis))]
        return None

    def _spawn_choices(self) -> list[Choice]:
        player = self.active
        out: list[Choice] = []
        counts = self._aspect_counts(player)
        for m in self.minis:
            if m.owner is not player or m.zone is not Zone.RESERVES:
                continue
            if self._spawn_cost(m, counts) > self.spawn_points:
                continue
            out.extend(SpawnChoice(m.id, cell) for cell in self._spawn_cells(m))
        out.append(DONE)
        return out

    def _spawn_cells(self, m: Mini) -> list[int]:
        player = m.owner
        mine = self.creatures[player]
        if m.defn.is_location:
            # 801.7: any cell where you control a creature, one location per cell.
            return [
                cell
                for cell in range(board.CELL_COUNT)
                if mine[cell] and self.location_at[cell] < 0
            ]
        portal = board.PORTAL[player]
        cells = [portal]  # 801.6: always allowed
        columns = 0
        for other in self.minis:
            if other.owner is player and other.cell >= 0:
                columns |= 1 << board.column(other.cell)
        for cell in board.spawn_row_cells(player):
            if cell == portal:
                continue
            if (
                not (self.allies_at_spawn_start >> cell) & 1  # 801.5 (1)
                and (columns >> board.column(cell)) & 1  # 801.5 (2)
                and mine[cell] < CREATURES_PER_PLAYER_PER_CELL  # stacking (802.1c)
                and self.spawned_into[cell] < CREATURES_PER_PLAYER_PER_CELL  # 801.5: four a phase
            ):
                cells.append(cell)
        return cells

    def _move_choices(self) -> list[Choice]:
        mine = self.creatures[self.active]
        out: list[Choice] = []
        for m in self.minis:
            if not self._may_move(m):
                continue
            for cell in board.ADJACENT[m.cell]:
                if mine[cell] < CREATURES_PER_PLAYER_PER_CELL:  # 802.1c
                    out.append(MoveChoice(m.id, cell))
        return out

    def _attack_choices(self) -> list[Choice]:
        player = self.active
        out: list[Choice] = []
        for cell in range(board.CELL_COUNT):
            if not self._may_attack(cell):
                continue
            ids = [m.id for m in self.creatures_in(cell, player)]
            for size in range(len(ids), 0, -1):
                out.extend(AttackChoice(cell, subset) for subset in combinations(ids, size))
        return out

    def _blade_choices(self) -> list[Choice]:
        """Combat step 3 (303.1, 802.2c, 900.10): the abilities the next blade(s) can go to.

        Attackers keep their blade abilities even after moving away; locations take
        blades only from their own player's regular attacks in their cell.
        """
        combat = self._combat()
        if combat.blades <= 0:
            return []
        sources = list(combat.attackers)
        for m in self.minis:
            if m.cell == combat.cell and m.defn.is_location and m.owner is self.active:
                sources.append(m.id)
        out: list[Choice] = []
        for mini in sorted(sources):
            m = self.minis[mini]
            for index, ability in enumerate(m.defn.abilities):
                activation = ability.activation
                if not activation.is_blade or not self.rules.blade_usable(self, m, index):
                    continue
                double = activation in (Activation.DOUBLE_BLADE, Activation.DOUBLE_MULTIBLADE)
                once = activation in (Activation.BLADE, Activation.DOUBLE_BLADE)
                if double and combat.blades < 2:
                    continue
                if once and combat.uses(mini, index):
                    continue
                out.append(BladeChoice(mini, index))
        return out

    def _resolve_choices(self) -> list[Choice]:
        assert self.combat is not None
        resolver = Player(self.combat.resolver)
        out: list[Choice] = []
        empties = self._empty_cells_for(resolver)
        for mini, fate in sorted(self.combat.marks.items()):
            m = self.minis[mini]
            if m.owner is resolver or fate is not Fate.DISRUPT:
                continue
            if empties:
                out.extend(PlaceChoice(mini, cell) for cell in empties)
            else:
                out.append(BuryChoice(mini))  # no empty cell: destroyed instead
        return out

    def _empty_cells_for(self, disrupter: Player) -> list[int]:
        """Cells a disrupted enemy may go to: no miniature at all, not the disrupter's portal."""
        portal = board.PORTAL[disrupter]
        occupied = 0
        for m in self.minis:
            if m.cell >= 0:
                occupied |= 1 << m.cell
        return [
            cell
            for cell in range(board.CELL_COUNT)
            if not (occupied >> cell) & 1 and cell != portal
        ]

    def _dying_in(self, cell: int) -> tuple[int, ...]:
        assert self.combat is not None
        return tuple(
            mini
            for mini, fate in sorted(self.combat.marks.items())
            if fate is Fate.DESTROY and self.minis[mini].cell == cell
            and mini in self.combat.deathblown
        )  # fmt: skip

    # --- input ----------------------------------------------------------------

    def check_choice(self, choice: Choice) -> None:
        """Raise InvalidChoiceError or IllegalChoiceError unless ``choice`` is legal now."""
        pending = self.pending
        if pending is None:
            raise GameOverError(f"the game is over; {choice!r} cannot be played")
        if isinstance(pending, ChanceRequest):
            raise IllegalChoiceError(
                f"the game is waiting for {pending.count} {pending.kind.value} dice, not a choice"
            )
        _check_field_types(choice)
        if self.step is Step.DAMAGE:
            self._check_damage(choice, pending)
            return
        if self._is_legal(choice):
            return
        expected = _CHOICE_TYPES[pending.kind]
        if not isinstance(choice, expected):
            names = " or ".join(t.__name__ for t in expected)
            raise InvalidChoiceError(
                f"{pending.kind.value} decision of {pending.player.name} expects {names}, "
                f"got {choice!r}"
            )
        raise IllegalChoiceError(f"{choice!r} is not legal now: {self._why_illegal(choice)}")

    def _is_legal(self, choice: Choice) -> bool:
        """Whether ``choice`` is among ``legal_choices()``, without building the list for
        the decisions whose lists are long (spawn, shift, strike: one per decision)."""
        step = self.step
        kind = type(choice)
        if step is Step.ACTION:
            return kind is ShiftChoice or kind is StrikeChoice
        if step is Step.SPAWN or step is Step.SHIFT or step is Step.STRIKE:
            if kind is Done:
                return True
            if step is Step.SPAWN:
                return kind is SpawnChoice and self._can_spawn(choice)  # type: ignore[arg-type]
            if step is Step.SHIFT:
                return kind is MoveChoice and self._can_move(choice)  # type: ignore[arg-type]
            return kind is AttackChoice and self._can_attack(choice)  # type: ignore[arg-type]
        legal = self.legal_choices()
        assert legal is not None
        return choice in legal

    def _can_spawn(self, choice: SpawnChoice) -> bool:
        """The conditions of ``_spawn_choices``, for one choice."""
        if not 0 <= choice.mini < len(self.minis):
            return False
        m = self.minis[choice.mini]
        return (
            m.owner is self.active
            and m.zone is Zone.RESERVES
            and self.spawn_cost(m) <= self.spawn_points
            and choice.cell in self._spawn_cells(m)
        )

    def _can_move(self, choice: MoveChoice) -> bool:
        """The conditions of ``_move_choices``, for one choice."""
        if not 0 <= choice.mini < len(self.minis):
            return False
        m = self.minis[choice.mini]
        return (
            self._may_move(m)
            and choice.cell in board.ADJACENT[m.cell]
            and self.creatures[m.owner][choice.cell] < CREATURES_PER_PLAYER_PER_CELL
        )

    def _may_move(self, m: Mini) -> bool:
        """Whether ``m`` is a creature the shifting player may still move (802.1)."""
        return (
            m.owner is self.active
            and m.cell >= 0
            and not m.moved
            and m.defn.is_creature
            and not self.creatures[m.owner.other][m.cell]  # 802.1a: engaged creatures can't move
        )

    def _can_attack(self, choice: AttackChoice) -> bool:
        """The conditions of ``_attack_choices``, for one choice: a cell not yet attacked
        with enemy creatures in it, and a non-empty set of the striker's creatures there
        in increasing id order."""
        cell = choice.cell
        if not self._may_attack(cell) or not choice.attackers:
            return False
        previous = -1
        for mini in choice.attackers:
            if mini <= previous or mini >= len(self.minis):
                return False
            m = self.minis[mini]
            if m.cell != cell or m.owner is not self.active or not m.defn.is_creature:
                return False
            previous = mini
        return True

    def _may_attack(self, cell: int) -> bool:
        """Whether the striking player may attack ``cell`` (802.2a)."""
        return (
            0 <= cell < board.CELL_COUNT
            and not (self.attacked_cells >> cell) & 1
            and self.creatures[self.active.other][cell] > 0
            and self.creatures[self.active][cell] > 0
        )

    def _has_options(self, step: Step) -> bool:
        """Whether the spawn, shift or strike decision offers anything besides DONE
        (asked after every step, so it stops at the first option it finds)."""
        if step is Step.SHIFT:
            mine = self.creatures[self.active]
            for m in self.minis:
                if self._may_move(m):
                    for cell in board.ADJACENT[m.cell]:
                        if mine[cell] < CREATURES_PER_PLAYER_PER_CELL:
                            return True
            return False
        if step is Step.STRIKE:
            mine = self.creatures[self.active]
            theirs = self.creatures[self.active.other]
            for cell in range(board.CELL_COUNT):
                if mine[cell] and theirs[cell] and self._may_attack(cell):
                    return True
            return False
        counts = self._aspect_counts(self.active)
        for m in self.minis:
            if (
                m.owner is self.active
                and m.zone is Zone.RESERVES
                and self._spawn_cost(m, counts) <= self.spawn_points
                and self._spawn_cells(m)
            ):
                return True
        return False

    def _check_damage(self, choice: Choice, pending: Decision) -> None:
        if not isinstance(choice, DamageChoice):
            raise InvalidChoiceError(f"damage decision expects DamageChoice, got {choice!r}")
        total = 0
        previous = -1
        for mini, amount in choice.assignments:
            if not isinstance(mini, int) or not isinstance(amount, int):
                raise InvalidChoiceError(f"damage assignment {(mini, amount)!r} is not two ints")
            if mini <= previous:
                raise InvalidChoiceError(
                    "damage assignments must name each target once, in increasing order"
                )
            previous = mini
            if mini not in pending.targets:
                raise IllegalChoiceError(
                    f"miniature {mini} is not a local enemy here; targets are {pending.targets}"
                )
            if amount <= 0:
                raise IllegalChoiceError(f"damage to miniature {mini} must be positive")
            total += amount
        if total != pending.total:
            raise IllegalChoiceError(
                f"all {pending.total} damage must be assigned (900.2); this assigns {total}"
            )

    def _why_illegal(self, choice: Choice) -> str:
        """A short reason for an illegal choice of the right type (best effort, for people)."""
        step = self.step
        if isinstance(choice, SpawnChoice) and step is Step.SPAWN:
            if not 0 <= choice.mini < len(self.minis):
                return f"there is no miniature {choice.mini}"
            m = self.minis[choice.mini]
            if m.owner is not self.active:
                return f"{m.label} is not {self.active.name}'s"
            if m.zone is not Zone.RESERVES:
                return f"{m.label} is not in reserves"
            cost = self.spawn_cost(m)
            if cost > self.spawn_points:
                return f"{m.label} costs {cost} and only {self.spawn_points} spawn points are left"
            if not 0 <= choice.cell < board.CELL_COUNT:
                return f"there is no cell {choice.cell}"
            return f"{m.label} can't be spawned in {board.cell_name(choice.cell)} (801.5-801.7)"
        if isinstance(choice, MoveChoice) and step is Step.SHIFT:
            if not 0 <= choice.mini < len(self.minis):
                return f"there is no miniature {choice.mini}"
            m = self.minis[choice.mini]
            if m.owner is not self.active or m.cell < 0:
                return f"{m.label} is not a creature {self.active.name} controls"
            if m.moved:
                return f"{m.label} has already moved this shift"
            if self.is_engaged(m):
                return f"{m.label} is engaged and can't move (802.1a)"
            if not 0 <= choice.cell < board.CELL_COUNT or choice.cell not in board.ADJACENT[m.cell]:
                return "creatures move one cell forward, back, left or right (802.1b)"
            return f"{self.active.name} already has four creatures there (802.1c)"
        if isinstance(choice, AttackChoice) and step is Step.STRIKE:
            if (self.attacked_cells >> choice.cell) & 1 if 0 <= choice.cell < 25 else False:
                return "that cell has already been attacked this strike (802.2a)"
            return "attackers must be engaged creatures of the striking player in that cell"
        return "it is not among the legal choices"

    def apply(self, choice: Choice) -> None:
        """Play ``choice`` for the pending decision; raise and change nothing if it is not legal."""
        self.check_choice(choice)
        self._invalidate()
        step = self.step
        if step is Step.SPAWN:
            if isinstance(choice, Done):
                self._end_spawn_phase()
            else:
                assert isinstance(choice, SpawnChoice)
                self._spawn(self.minis[choice.mini], choice.cell)
        elif step is Step.ACTION:
            self.mode = Mode.SHIFT if isinstance(choice, ShiftChoice) else Mode.STRIKE
            self.step = Step.SHIFT if isinstance(choice, ShiftChoice) else Step.STRIKE
        elif step is Step.SHIFT:
            if isinstance(choice, Done):
                self._end_action_phase()
            else:
                assert isinstance(choice, MoveChoice)
                m = self.minis[choice.mini]
                self._move(m, choice.cell)
                m.moved = True
        elif step is Step.STRIKE:
            if isinstance(choice, Done):
                self._end_action_phase()
            else:
                assert isinstance(choice, AttackChoice)
                self._start_combat(choice.cell, choice.attackers)
        elif step is Step.BLADE:
            assert isinstance(choice, BladeChoice)
            self._assign_blade(choice.mini, choice.index)
        elif step is Step.DAMAGE:
            assert isinstance(choice, DamageChoice)
            self._deal_damage(choice.assignments)
        elif step is Step.FATE:
            assert isinstance(choice, FateChoice)
            assert self.combat is not None
            self.combat.fate_queue.pop(0)
            self.combat.marks[choice.mini] = Fate.DESTROY if choice.destroy else Fate.DISRUPT
            self._after_fates()
        elif step is Step.DEATHBLOW:
            assert isinstance(choice, DeathblowChoice)
            self._declare_deathblow(choice.cell, choice.attackers)
        elif step is Step.RESOLVE:
            assert isinstance(choice, BuryChoice | PlaceChoice)
            self._apply_resolution(choice)
        elif step is Step.ORDER:
            assert isinstance(choice, OrderChoice)
            pending = self._make_pending()
            assert isinstance(pending, Decision)
            chosen = self._waiting_triggers(pending.player)[choice.position]
            self.step = self.order_resume
            self.rules.resolve_trigger(self, self.trigger_queue.pop(chosen))
        self._advance()

    def roll(self, values: Sequence[int]) -> None:
        """Supply the dice the pending ChanceRequest asks for (each 1-6)."""
        pending = self.pending
        if pending is None:
            raise GameOverError(f"the game is over; dice {tuple(values)!r} cannot be rolled")
        if not isinstance(pending, ChanceRequest):
            raise IllegalChoiceError(
                f"the game waits for a {pending.kind.value} decision by {pending.player.name}, "
                "not for dice"
            )
        values = tuple(values)
        if len(values) != pending.count:
            raise InvalidChoiceError(
                f"{pending.kind.value} roll needs {pending.count} dice, got {len(values)}"
            )
        for v in values:
            if type(v) is not int or not 1 <= v <= 6:
                raise InvalidChoiceError(f"die value {v!r} is not an int from 1 to 6")
        self._invalidate()
        if self.step is Step.ROLL_INITIATIVE:
            for player, value in zip(self.reroll, values, strict=True):
                self.initiative[player] = value
            self._after_initiative()
        elif self.step is Step.ROLL_ATTACK:
            self._after_attack_roll(values)
        else:
            self._after_deathblow_roll(values)
        self._advance()

    def resign(self, player: Player) -> None:
        """``player`` concedes; the other player wins. Allowed at any time before the end."""
        if self.step is Step.OVER:
            raise GameOverError(f"the game is over; {player.name} cannot resign")
        self._invalidate()
        self._finish(player.other, EndReason.RESIGNATION)

    def _invalidate(self) -> None:
        self._pending = None
        self._choices = None

    # --- pending ----------------------------------------------------------------

    def _make_pending(self) -> Pending:
        step = self.step
        if step is Step.ROLL_INITIATIVE:
            return ChanceRequest(ChanceKind.INITIATIVE, len(self.reroll), players=self.reroll)
        if step is Step.ROLL_ATTACK:
            assert self.combat is not None
            return ChanceRequest(
                ChanceKind.ATTACK, self._attack_dice(self.combat.attackers), owner=self.active
            )
        if step is Step.ROLL_DEATHBLOW:
            assert self.combat is not None
            return ChanceRequest(
                ChanceKind.DEATHBLOW, self.combat.damage_total, owner=self.active.other
            )
        if step is Step.ORDER:
            priority = self._trigger_priority()
            player = priority if self._waiting_triggers(priority) else priority.other
            return Decision(
                player,
                DecisionKind.ORDER,
                minis=tuple(self.trigger_queue[i].mini for i in self._waiting_triggers(player)),
            )
        if step is Step.BLADE:
            assert self.combat is not None
            return Decision(
                self.active, DecisionKind.BLADE, cell=self.combat.cell, total=self.combat.blades
            )
        if step is Step.SPAWN:
            return Decision(self.active, DecisionKind.SPAWN)
        if step is Step.ACTION:
            return Decision(self.active, DecisionKind.ACTION)
        if step is Step.SHIFT:
            return Decision(self.active, DecisionKind.SHIFT)
        if step is Step.STRIKE:
            return Decision(self.active, DecisionKind.STRIKE)
        combat = self.combat
        assert combat is not None
        if step is Step.DAMAGE:
            return Decision(
                Player(combat.damage_owner),
                DecisionKind.DAMAGE,
                cell=combat.damage_cell,
                total=combat.damage_total,
                targets=self._damage_targets(Player(combat.damage_owner), combat.damage_cell),
            )
        if step is Step.FATE:
            mini = self.minis[combat.fate_queue[0]]
            return Decision(mini.owner.other, DecisionKind.FATE, cell=mini.cell, minis=(mini.id,))
        if step is Step.DEATHBLOW:
            cell = combat.deathblow_queue[0]
            return Decision(
                self.first.other, DecisionKind.DEATHBLOW, cell=cell, minis=self._dying_in(cell)
            )
        assert step is Step.RESOLVE
        resolver = Player(combat.resolver)
        waiting = tuple(
            mini for mini in sorted(combat.marks) if self.minis[mini].owner is not resolver
        )
        return Decision(resolver, DecisionKind.RESOLVE, minis=waiting)

    # --- automatic flow --------------------------------------------------------

    def _advance(self) -> None:
        """Run automatic steps until a real decision or dice are needed.

        Triggered effects come first: nothing voluntary happens while any wait (glossary:
        triggered ability). Each pass of the loop does one thing, so the effects a step
        triggers resolve before the next step (FAQ combat step 7).
        """
        while True:
            if self.trigger_queue:
                if self._resolve_next_trigger():
                    return
                continue
            if self.damaged_outside_combat and self.combat is None:
                self._start_damage_check()
                continue
            step = self.step
            if step is Step.SHIFT or step is Step.STRIKE or step is Step.SPAWN:
                if self._has_options(step):
                    return
                if step is Step.SPAWN:
                    self._end_spawn_phase()
                else:
                    self._end_action_phase()
            elif step is Step.BLADE:
                choices = self._blade_choices()
                if len(choices) > 1:
                    self._choices = choices
                    return
                if choices:
                    blade = choices[0]
                    assert isinstance(blade, BladeChoice)
                    self._assign_blade(blade.mini, blade.index)
                else:
                    self._end_blades()
            elif step is Step.RESOLVE:
                if self._resolve_step():
                    return
            elif step is Step.COMBAT_END:
                self._check_combat()  # step 10's effects resolved: back to step 5
            else:
                return

    def _resolve_next_trigger(self) -> bool:
        """Resolve one waiting triggered effect; True if a player must order theirs first.

        900.7a: the effects of the player whose phase it is go first (the first
        player's in shared phases); a player with several chooses their order.
        """
        priority = self._trigger_priority()
        for player in (priority, priority.other):
            mine = self._waiting_triggers(player)
            if not mine:
                continue
            if len(mine) > 1:
                if self.step is not Step.ORDER:
                    self.order_resume = self.step
                    self.step = Step.ORDER
                return True
            self.rules.resolve_trigger(self, self.trigger_queue.pop(mine[0]))
            return False
        raise AssertionError("a waiting trigger has no controller")

    def _trigger_priority(self) -> Player:
        """900.7a: whose simultaneous effects resolve first (the first player's in shared
        phases such as initiative and conquest)."""
        return self.active if self.phase in (Phase.SPAWN, Phase.ACTION) else self.first

    def _waiting_triggers(self, player: Player) -> list[int]:
        return [i for i, t in enumerate(self.trigger_queue) if t.controller is player]

    # --- turn structure ----------------------------------------------------------

    def _start_turn(self) -> None:
        self.turn += 1
        self.phase = Phase.INITIATIVE
        self.step = Step.ROLL_INITIATIVE
        self.initiative = [0, 0]
        self.reroll = (Player.A, Player.B)
        self.kills = [0, 0]

    def _after_initiative(self) -> None:
        a, b = self.initiative
        ones = tuple(p for p in (Player.A, Player.B) if self.initiative[p] == 1)
        # 700.1 (first turn) and FAQ rule 430 (after a skipped spawn phase): reroll 1s.
        if ones and (
            self.turn == 1 or (self.setup.options.tournament_initiative and self.had_one_last_turn)
        ):
            self.reroll = ones
            return
        if a == b:
            wa, wb = self.turns_won
            if self.turn == 1 or wa == wb:  # 700.1, 800: reroll ties
                self.reroll = (Player.A, Player.B)
                return
            self.first = Player.A if wa > wb else Player.B
        else:
            self.first = Player.A if a > b else Player.B
        self.skip_spawn = 1 in (a, b)  # 800.1
        self.had_one_last_turn = self.skip_spawn
        if self.skip_spawn:
            self._start_action_phase(0)
        else:
            self._start_spawn_phase(self.first)

    def _start_spawn_phase(self, player: Player) -> None:
        self.phase = Phase.SPAWN
        self.step = Step.SPAWN
        self.active = player
        # 801.1, 801.2, 801.10: unmodified initiative dice plus bonus points.
        self.spawn_points = self.initiative[0] + self.initiative[1] + self.bonus[player]
        self.bonus[player] = 0
        mask = 0
        for cell, n in enumerate(self.creatures[player]):
            if n:
                mask |= 1 << cell
        self.allies_at_spawn_start = mask
        self.spawned_into = [0] * board.CELL_COUNT

    def _end_spawn_phase(self) -> None:
        self.spawn_points = 0  # 801.9: leftover points are wasted
        self._clear_damage()  # 802.2h: damage taken in another phase lasts until its end
        if self.active is self.first:
            self._start_spawn_phase(self.first.other)
        else:
            self._start_action_phase(0)

    def _start_action_phase(self, index: int) -> None:
        self.phase = Phase.ACTION
        self.action_index = index
        self.active = self.first if index < 2 else self.first.other
        self.mode = Mode.NONE
        self.step = Step.ACTION
        self.attacked_cells = 0
        self.allies_at_spawn_start = 0
        self.spawned_into = [0] * board.CELL_COUNT

    def _end_action_phase(self) -> None:
        self._clear_damage()  # 802.2i
        for m in self.minis:
            m.moved = False
        self.mode = Mode.NONE
        self.attacked_cells = 0
        if self.action_index < 3:
            self._start_action_phase(self.action_index + 1)
        else:
            self._conquest()

    def _conquest(self) -> None:
        """803: claimed scoring cells plus one point per enemy destroyed this turn."""
        self.phase = Phase.CONQUEST
        points = [self.claimed_points(p) + self.kills[p] for p in (Player.A, Player.B)]
        self.conquest_history.append((points[0], points[1]))
        if points[0] != points[1]:  # 803.3: a tie wins nobody the turn
            winner = Player.A if points[0] > points[1] else Player.B
            self.turns_won[winner] += 1
            if self.turns_won[winner] >= self.setup.options.turns_to_win:
                self._finish(winner, EndReason.VICTORY)
                return
        self._start_turn()

    def _finish(self, winner: Player, reason: EndReason) -> None:
        self.phase = Phase.OVER
        self.step = Step.OVER
        self.winner = winner
        self.end_reason = reason
        self.combat = None

    def _clear_damage(self) -> None:
        for m in self.minis:
            m.damage = 0

    # --- zones and movement ------------------------------------------------------

    def _place(self, m: Mini, zone: Zone, cell: int = -1) -> None:
        """The one place where a miniature changes zone or cell (keeps the counts right)."""
        if m.cell >= 0:
            if m.defn.is_creature:
                self.creatures[m.owner][m.cell] -= 1
            else:
                self.location_at[m.cell] = -1
        m.zone = zone
        m.cell = cell
        if cell >= 0:
            if m.defn.is_creature:
                self.creatures[m.owner][cell] += 1
            else:
                self.location_at[cell] = m.id
        else:
            m.damage = 0

    def _emit(self, kind: EventKind, mini: int = -1, cell: int = -1) -> None:
        found = self.rules.triggers(self, Event(kind, mini, cell))
        if found:
            self.trigger_queue.extend(found)

    def deal_damage(self, m: Mini, amount: int) -> None:
        """Damage from an ability (900.3): checked once the effects waiting resolve (900.7b),
        or in combat step 5 during a combat."""
        if amount > 0 and m.cell >= 0 and m.defn.is_creature:
            m.damage += amount
            self.damaged_outside_combat = self.combat is None

    def _spawn(self, m: Mini, cell: int) -> None:
        self.spawn_points -= self.spawn_cost(m)
        self._place(m, Zone.DREAMSCAPE, cell)
        if m.defn.is_creature:
            self.spawned_into[cell] += 1  # 801.5 counts creatures; a location comes on top
        self._emit(EventKind.SPAWNED, m.id, cell)

    def _move(self, m: Mini, cell: int) -> None:
        self._place(m, Zone.DREAMSCAPE, cell)
        self._emit(EventKind.ENTERED, m.id, cell)

    def _destroy(self, m: Mini, by: Player) -> None:
        """Put ``m`` into its owner's graveyard; ``by`` scores if it is an enemy (803.2, 300.6)."""
        cell = m.cell
        self._place(m, Zone.GRAVEYARD)
        self.bonus[m.owner] += 2
        if by is not m.owner:
            self.kills[by] += 1
        self._emit(EventKind.DESTROYED, m.id, cell)

    def _disrupt(self, m: Mini, cell: int) -> None:
        self._place(m, Zone.DREAMSCAPE, cell)
        m.damage = 0  # 802.2f, combat step 8
        self._emit(EventKind.DISRUPTED, m.id, cell)
        self._emit(EventKind.ENTERED, m.id, cell)

    # --- combat (FAQ combat sequence) ---------------------------------------------

    def _attack_dice(self, attackers: Iterable[int]) -> int:
        return sum(self.power(self.minis[i]) for i in attackers)

    def _damage_targets(self, owner: Player, cell: int) -> tuple[int, ...]:
        enemy = owner.other
        return tuple(
            m.id for m in self.minis if m.cell == cell and m.owner is enemy and m.defn.is_creature
        )

    def _start_combat(self, cell: int, attackers: tuple[int, ...]) -> None:
        """Step 1: the cell and the attackers are declared."""
        self.attacked_cells |= 1 << cell
        self.combat = Combat(cell, attackers, Step.STRIKE)
        if self._attack_dice(attackers) > 0:
            self.step = Step.ROLL_ATTACK
        else:
            self._after_attack_roll(())

    def _after_attack_roll(self, dice: Sequence[int]) -> None:
        """Steps 2-3: the dice are rolled; blades then go to blade abilities one at a time."""
        combat = self._combat()
        combat.damage_total = dice_damage(dice)
        combat.blades = sum(1 for v in dice if v == BLADE_VALUE)
        self.step = Step.BLADE  # _advance ends it at once when no blade ability can take one

    def _assign_blade(self, mini: int, index: int) -> None:
        """Step 3: one blade (two for double blade abilities) activates the ability now."""
        combat = self._combat()
        m = self.minis[mini]
        activation = m.defn.abilities[index].activation
        double = activation in (Activation.DOUBLE_BLADE, Activation.DOUBLE_MULTIBLADE)
        combat.blades -= 2 if double else 1
        combat.record_use(mini, index)
        self.rules.activate_blade(self, m, index)

    def _end_blades(self) -> None:
        """Step 4: damage from the dice and damage modifiers; it can't go below 0 (900.8)."""
        combat = self._combat()
        combat.blades = 0  # blades no ability can take are lost (900.10)
        total = combat.damage_total + combat.damage_bonus
        self._begin_damage(self.active, combat.cell, total if total > 0 else 0)

    def _combat(self) -> Combat:
        assert self.combat is not None
        return self.combat

    def _begin_damage(self, owner: Player, cell: int, total: int) -> None:
        combat = self._combat()
        combat.damage_owner = owner
        combat.damage_cell = cell
        combat.damage_total = total
        targets = self._damage_targets(owner, cell)
        if total <= 0 or not targets:
            self._deal_damage(())
        elif len(targets) == 1:
            self._deal_damage(((targets[0], total),))
        else:
            self.step = Step.DAMAGE

    def _deal_damage(self, assignments: Sequence[tuple[int, int]]) -> None:
        for mini, amount in assignments:
            self.minis[mini].damage += amount
        combat = self._combat()
        combat.damage_total = 0
        if combat.in_deathblow:
            self._next_deathblow()
        else:
            self._check_combat()

    def _check_combat(self) -> None:
        """Step 5: which creatures will be disrupted or destroyed."""
        combat = self._combat()
        self.damaged_outside_combat = False
        for m in self.minis:
            if m.damage <= 0 or m.cell < 0 or m.id in combat.marks or m.id in combat.fate_queue:
                continue
            defense, life = self.defense(m), self.life(m)
            if m.damage >= life and m.damage >= defense:
                combat.fate_queue.append(m.id)  # 802.2d: the damaging player chooses
            elif m.damage >= life:
                combat.marks[m.id] = Fate.DESTROY
            elif m.damage >= defense:
                combat.marks[m.id] = Fate.DISRUPT
        self._after_fates()

    def _after_fates(self) -> None:
        combat = self._combat()
        if combat.fate_queue:
            self.step = Step.FATE
            return
        if not combat.marks:
            self._end_combat()  # step 10
            return
        # Step 6: deathblows, only in the first player's action phases (802.2g).
        if self.active is self.first and self.phase is Phase.ACTION:
            cells = []
            for mini, fate in sorted(combat.marks.items()):
                m = self.minis[mini]
                if (
                    fate is Fate.DESTROY
                    and m.owner is not self.first
                    and mini not in combat.deathblown
                ):
                    combat.deathblown.append(mini)
                    if m.cell not in cells and self.creatures[self.first][m.cell]:
                        cells.append(m.cell)
            combat.deathblow_queue.extend(sorted(cells))
        self._next_deathblow()

    def _next_deathblow(self) -> None:
        combat = self._combat()
        combat.in_deathblow = False
        if combat.deathblow_queue:
            self.step = Step.DEATHBLOW
        else:
            self._begin_resolve()

    def _declare_deathblow(self, cell: int, attackers: tuple[int, ...]) -> None:
        combat = self._combat()
        combat.deathblow_queue.pop(0)
        combat.in_deathblow = True
        combat.damage_cell = cell
        combat.damage_owner = self.first.other
        dice = self._attack_dice(attackers)
        if dice > 0:
            combat.damage_total = dice  # the dice count, until they are rolled
            self.step = Step.ROLL_DEATHBLOW
        else:
            self._begin_damage(self.first.other, cell, 0)

    def _after_deathblow_roll(self, dice: Sequence[int]) -> None:
        combat = self._combat()
        total = dice_damage(dice)  # 900.4: blades are misses
        self._begin_damage(Player(combat.damage_owner), combat.damage_cell, total)

    def _begin_resolve(self) -> None:
        """Step 7: the active player deals with the opponent's creatures first."""
        combat = self._combat()
        combat.resolver = self.active
        self.step = Step.RESOLVE

    def _resolve_step(self) -> bool:
        """Step 7, one creature at a time; True when the resolving player must choose.

        Without effects that trigger on destruction, burying first only adds empty
        cells for the disrupted, so creatures marked for destruction go first.
        """
        combat = self._combat()
        resolver = Player(combat.resolver)
        for mini, fate in sorted(combat.marks.items()):
            if fate is Fate.DESTROY and self.minis[mini].owner is not resolver:
                self._apply_resolution(BuryChoice(mini))
                return False
        choices = self._resolve_choices()
        if len(choices) > 1:
            self._choices = choices
            return True
        if choices:
            choice = choices[0]
            assert isinstance(choice, BuryChoice | PlaceChoice)
            self._apply_resolution(choice)
            return False
        if resolver is self.active:
            combat.resolver = resolver.other
        else:
            combat.resolver = -1
            self._check_combat()  # step 9: back to step 5
        return False

    def _apply_resolution(self, choice: BuryChoice | PlaceChoice) -> None:
        combat = self._combat()
        del combat.marks[choice.mini]
        if isinstance(choice, BuryChoice):
            self._destroy(self.minis[choice.mini], by=Player(combat.resolver))
        else:
            self._disrupt(self.minis[choice.mini], choice.cell)

    def _start_damage_check(self) -> None:
        """900.3: ability damage outside combat is checked like combat steps 5-9."""
        self.combat = Combat(-1, (), self.step)
        self._check_combat()

    def _end_combat(self) -> None:
        """Step 10: end-of-combat effects, each once per combat; then the game goes on."""
        combat = self._combat()
        if not combat.ended and combat.cell >= 0:
            combat.ended = True
            self._emit(EventKind.COMBAT_ENDED, -1, combat.cell)
            if self.trigger_queue:
                self.step = Step.COMBAT_END
                return
        self.combat = None
        self.step = combat.resume


def _check_field_types(choice: Choice) -> None:
    """Fields are ints (bools only for ``destroy``): ``True == 1`` must not pass for a miniature."""
    for name in getattr(type(choice), "__slots__", ()):
        _check_value(choice, name, getattr(choice, name))


def _check_value(choice: Choice, name: str, value: object) -> None:
    if isinstance(value, tuple):
        for item in value:
            _check_value(choice, name, item)
    elif (type(value) is not bool) if name == "destroy" else (type(value) is not int):
        raise InvalidChoiceError(f"{type(choice).__name__}.{name} holds {value!r}, not an int")


_CHOICE_TYPES: dict[DecisionKind, tuple[type, ...]] = {
    DecisionKind.SPAWN: (SpawnChoice, Done),
    DecisionKind.ACTION: (ShiftChoice, StrikeChoice),
    DecisionKind.SHIFT: (MoveChoice, Done),
    DecisionKind.STRIKE: (AttackChoice, Done),
    DecisionKind.BLADE: (BladeChoice,),
    DecisionKind.ORDER: (OrderChoice,),
    DecisionKind.DAMAGE: (DamageChoice,),
    DecisionKind.FATE: (FateChoice,),
    DecisionKind.DEATHBLOW: (DeathblowChoice,),
    DecisionKind.RESOLVE: (PlaceChoice, BuryChoice),
}
