"""The Dreamblade rules as a decision-driven state machine.

A ``Game`` always exposes exactly one pending item (``Game.pending``): a
``Decision`` owed by A or B, a ``ChanceRequest`` for dice, or None once the game
is over. ``apply`` takes a choice and ``roll`` takes dice; each validates in
full before it changes anything, so an illegal or malformed input raises and
leaves the game untouched. Decisions that have only one legal answer (damage
with a single target, a disrupted creature with one empty cell to go to, a
shift with nothing left to move, an ability with one possible target) are
applied automatically.

Theory of operation: ``step`` says where in the turn the game is. Abilities
interrupt it: a roll in progress (``rolling``, with Fortunate's rerolls), an
ability waiting for its targets (``choosing``), triggered effects
and the queued parts of effects (moves, special attacks, rolls) wait on one
stack (``stack``, innermost last: what an effect triggers resolves before the
rest of that effect, glossary: triggered ability, 900.7), and all of them come
before the step, in that order. Every input
handler changes the state and then calls ``_advance``, which runs automatic
work (effects, phase ends, conquest, forced decisions) until input is needed.
Combat follows the FAQ's ten-step sequence; its progress lives in ``Combat``.

Determinism: no floats, clocks, randomness or iteration over sets; the state
is ints, tuples and lists, and ``state_hash`` packs it into fixed-width ints.
"""

from __future__ import annotations

import enum
import functools
import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, combinations
from operator import attrgetter
from typing import Final

from dbnet.engine import board, effects
from dbnet.engine.abilities import (
    Event,
    EventKind,
    Stat,
    Statics,
    Trigger,
    ability_def,
    apply_minimum,
    base_power,
    blade_abilities,
    cost_modifier,
    has_active,
    is_active,
    matches,
    stat_modifier,
    triggers,
)
from dbnet.engine.canonical import int_words, pack_ints, setup_bytes, words_bytes
from dbnet.engine.choices import (
    DONE,
    SHIFT,
    STRIKE,
    ActivateChoice,
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
    RerollChoice,
    ShiftChoice,
    SpawnChoice,
    StrikeChoice,
    TargetChoice,
)
from dbnet.engine.combat import (
    ATTACK_DAMAGE,
    BLADE_VALUE,
    Combat,
    Fate,
    Purpose,
    Rolling,
    Stage,
    attack_faces,
    dice_damage,
)
from dbnet.engine.effects import Op, OpKind
from dbnet.engine.keywords import check_ability
from dbnet.engine.model import (
    PLAYERS,
    AbilityDef,
    Activation,
    Aspect,
    GameSetup,
    MiniatureDef,
    Player,
)
from dbnet.engine.targets import Targeting, needs_targets, number, options
from dbnet.errors import DataError, GameOverError, IllegalChoiceError, InvalidChoiceError

__all__ = [
    "ATTACK_DAMAGE",
    "BLADE_VALUE",
    "EndReason",
    "Game",
    "Mini",
    "Mode",
    "Phase",
    "Step",
    "Zone",
    "dice_damage",
]


HASH_VERSION = 2
MAX_WARBAND = 16
MAX_COPIES = 3
CREATURES_PER_PLAYER_PER_CELL = 4  # 301.1a

INERT = AbilityDef("(not played)", Activation.UNKNOWN)
_MINI_FIELDS = attrgetter("zone", "cell", "damage", "moved")  # a miniature's hashed state
"""Stands in for an ability the engine can't play, in a game that allows such miniatures."""


class Zone(enum.IntEnum):
    """Rule 304: where a miniature is."""

    RESERVES = 0
    DREAMSCAPE = 1
    GRAVEYARD = 2
    REMOVED = 3

    def __repr__(self) -> str:
        return f"Zone.{self.name}"


_ASPECT_ZONES: Final = frozenset({Zone.DREAMSCAPE, Zone.GRAVEYARD})
"""Where a player's miniatures count towards aspect costs (801.4)."""


class Phase(enum.IntEnum):
    INITIATIVE = 0
    SPAWN = 1
    ACTION = 2
    CONQUEST = 3
    OVER = 4


class Step(enum.IntEnum):
    """Where the turn is (abilities may interrupt any step, see the module docstring)."""

    ROLL_INITIATIVE = 0
    SPAWN = 1
    ACTION = 2
    SHIFT = 3
    STRIKE = 4
    BLADE = 5  # combat step 3
    DAMAGE = 6  # combat steps 4 and 6
    FATE = 7  # step 5: disrupt or destroy
    DEATHBLOW = 8  # step 6
    RESOLVE = 9  # step 7
    COMBAT_END = 10  # step 10's effects are resolving; then back to step 5
    OVER = 11


class Mode(enum.IntEnum):
    NONE = 0
    SHIFT = 1
    STRIKE = 2


class EndReason(enum.Enum):
    VICTORY = "victory"
    RESIGNATION = "resignation"


_NO_XS: Final = range(0)
_NO_X: Final = range(1)
"""The values of X of a spawn ability that can't be activated, and of one without an X
cost that can (``Game._activation_xs``)."""

_PLAIN_DECISIONS: Final[dict[Step, tuple[Decision, Decision]]] = {
    step: (Decision(Player.A, kind), Decision(Player.B, kind))
    for step, kind in (
        (Step.SPAWN, DecisionKind.SPAWN),
        (Step.ACTION, DecisionKind.ACTION),
        (Step.SHIFT, DecisionKind.SHIFT),
        (Step.STRIKE, DecisionKind.STRIKE),
    )
}
"""The decisions that name nothing but who owes them, by step and player (immutable, so
made once and shared)."""

_QUIET_TAIL: Final = pack_ints([0] * 7)
"""``Game._encode_tail`` packed, for a state with nothing in progress: no combat, stack,
spawn abilities used, Relentless damage, roll, targeting or damage to check (most states,
so ``state_hash`` packs it once here)."""

_CHANCE_KINDS = {
    Purpose.ATTACK: ChanceKind.ATTACK,
    Purpose.DEATHBLOW: ChanceKind.DEATHBLOW,
    Purpose.SPECIAL: ChanceKind.SPECIAL,
    Purpose.WAIL: ChanceKind.WAIL,
}


@functools.cache
def _roll_request(purpose: Purpose, rerolled: bool, count: int, owner: Player) -> ChanceRequest:
    """The dice a roll in progress waits for: built once per purpose, stage, count and owner,
    then shared (a ChanceRequest is immutable, and building one costs about 0.5 us)."""
    kind = ChanceKind.REROLL if rerolled else _CHANCE_KINDS[purpose]
    return ChanceRequest(kind, count, owner=owner)


@functools.cache
def _initiative_request(players: tuple[Player, ...]) -> ChanceRequest:
    """The initiative dice of ``players`` (both, or those who reroll): built once per
    tuple of players, then shared, like ``_roll_request``."""
    return ChanceRequest(ChanceKind.INITIATIVE, len(players), players=players)


class Mini:
    """One miniature of one player's warband, and where it is now (internal, mutable).

    ``abilities`` are the printed abilities the game plays (an unplayable one, in a
    game that allows it, is ``INERT``), indexed as printed. ``is_creature`` is the
    definition's, kept here since nearly every loop over the miniatures asks it.
    """

    __slots__ = (
        "abilities",
        "cell",
        "damage",
        "defn",
        "handle",
        "id",
        "is_creature",
        "moved",
        "needs",
        "owner",
        "zone",
    )

    def __init__(
        self,
        mini_id: int,
        owner: Player,
        defn: MiniatureDef,
        handle: str,
        abilities: tuple[AbilityDef, ...] | None = None,
    ) -> None:
        self.id = mini_id
        self.owner = owner
        self.defn = defn
        self.handle = handle
        self.abilities = defn.abilities if abilities is None else abilities
        self.is_creature = defn.is_creature
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
        other.abilities = self.abilities
        other.is_creature = self.is_creature
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


def playable_abilities(defn: MiniatureDef) -> tuple[AbilityDef, ...]:
    """The miniature's abilities with the ones the engine can't play replaced by ``INERT``."""
    location = defn.is_location
    return tuple(INERT if check_ability(a, location=location) else a for a in defn.abilities)


class Game:
    """One game of Dreamblade between A and B. See the module docstring."""

    def __init__(self, setup: GameSetup, *, allow_unimplemented: bool = False) -> None:
        """A new game at its first initiative roll. A miniature with an ability the engine
        does not play is refused (DataError naming it and why) unless
        ``allow_unimplemented``, when that ability simply has no effect."""
        self.setup = setup
        self.values = setup.map.values
        self.minis: list[Mini] = []
        # Copies of a miniature often share one definition (a decoded setup's always do):
        # each definition's abilities are checked once, here, by the definition's id.
        playable: dict[int, tuple[AbilityDef, ...]] = {}
        for player in (Player.A, Player.B):
            warband = setup.warbands[player]
            check_warband_size(f"warband {warband.name!r}", warband.minis)
            for defn, handle in zip(warband.minis, make_handles(warband.minis), strict=True):
                abilities = playable.get(id(defn))
                if abilities is None:
                    abilities = playable[id(defn)] = playable_abilities(defn)
                    if not allow_unimplemented and any(a is INERT for a in abilities):
                        for ability in defn.abilities:
                            problem = check_ability(ability, location=defn.is_location)
                            if problem:
                                raise DataError(
                                    f"warband {warband.name!r}, {defn.name}",
                                    f"ability {ability.keyword!r} can't be played: {problem}",
                                )
                self.minis.append(Mini(len(self.minis), player, defn, handle, abilities))
        self.statics = Statics(self.minis)
        self.warband_minis = _by_owner(self.minis)
        """Each player's miniatures (the objects of ``minis``), in id order: fixed for the
        game, for the many passes that look at one player's miniatures."""
        self.handles: tuple[dict[str, int], dict[str, int]] = (
            {m.handle: m.id for m in self.minis if m.owner is Player.A},
            {m.handle: m.id for m in self.minis if m.owner is Player.B},
        )
        """Each player's miniature ids by handle (fixed for the game: shared by copies)."""
        self._hash_start = hashlib.sha256(hashlib.sha256(setup_bytes(setup)).digest())
        """The state hash with the setup digest in, copied for each state (never updated)."""
        self.mini_words = int_words(chain.from_iterable(map(_MINI_FIELDS, self.minis)))
        """Every miniature's hashed fields (zone, cell, damage, moved), in id order: kept in
        step by each write (``_sync``) so that the state hash reads them in one go."""
        # creature counts per player per cell, and the location in each cell (-1: none)
        self.creatures: list[list[int]] = [[0] * board.CELL_COUNT, [0] * board.CELL_COUNT]
        self.location_at: list[int] = [-1] * board.CELL_COUNT
        self.creature_cells: list[int] = [0, 0]
        """Per player, the cells where that player has a creature, as a bitmask (the cells
        whose count in ``creatures`` is not 0). Read-only outside ``_place``."""
        self.location_cells = 0
        """The cells with a location, as a bitmask (``location_at`` not -1). Read-only outside
        ``_place``."""
        self.aspect_counts: list[list[int]] = [[0] * len(Aspect), [0] * len(Aspect)]
        """Per player, per aspect: that player's miniatures of that aspect in the dreamscape
        or the graveyard, which count towards aspect costs (801.4). Read-only outside
        ``_place``."""

        self.turn = 0
        self.phase = Phase.INITIATIVE
        self.step = Step.ROLL_INITIATIVE
        self.turns_won = [0, 0]
        self.bonus = [0, 0]  # 801.2: bonus spawn points waiting for the next spawn phase
        self.kills = [0, 0]  # 803.2: enemy miniatures destroyed this turn
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
        self.spawn_uses: list[tuple[int, int]] = []  # spawn abilities used this phase (801.8)
        self.mode = Mode.NONE
        self.attacked_cells = 0  # bitmask (802.2a)
        self.locked_cells = 0  # bitmask: Lockdown, no creature shifts out this turn
        self.combat: Combat | None = None
        self.winner: Player | None = None
        self.end_reason: EndReason | None = None
        self.conquest_history: list[tuple[int, int]] = []
        self.stack: list[Frame] = []
        """Work waiting, innermost last: each frame is simultaneous triggered effects (900.7)
        or the rest of one effect (its moves, attacks and rolls, in order)."""
        self.rolling: Rolling | None = None
        self.choosing: Targeting | None = None  # an ability waiting for its targets (900.9)
        self.no_disrupt: list[int] = []  # damaged by Relentless this phase: can't be disrupted
        self.damaged_outside_combat = False  # 900.3: check disruption once effects resolve
        self._pending: Pending | None = None
        self._choices: list[Choice] | None = None
        self._start_turn()

    # --- copying and hashing ------------------------------------------------

    def copy(self) -> Game:
        """An independent game in the same state."""
        other = Game.__new__(Game)
        for name in (
            "setup", "values", "statics", "handles", "_hash_start", "turn",
            "phase", "step", "reroll", "had_one_last_turn", "skip_spawn", "first", "active",
            "action_index", "spawn_points", "allies_at_spawn_start", "mode", "attacked_cells",
            "locked_cells", "winner", "end_reason", "_pending", "_choices",
            "damaged_outside_combat", "choosing", "location_cells",
        ):  # fmt: skip
            setattr(other, name, getattr(self, name))
        other.minis = [m.clone() for m in self.minis]
        other.warband_minis = _by_owner(other.minis)
        other.mini_words = self.mini_words[:]
        other.creatures = [list(self.creatures[0]), list(self.creatures[1])]
        other.location_at = list(self.location_at)
        other.creature_cells = list(self.creature_cells)
        other.aspect_counts = [list(self.aspect_counts[0]), list(self.aspect_counts[1])]
        other.turns_won = list(self.turns_won)
        other.bonus = list(self.bonus)
        other.kills = list(self.kills)
        other.initiative = list(self.initiative)
        other.spawned_into = list(self.spawned_into)
        other.spawn_uses = list(self.spawn_uses)
        other.combat = self.combat.clone() if self.combat is not None else None
        other.rolling = self.rolling.clone() if self.rolling is not None else None
        other.conquest_history = list(self.conquest_history)
        other.stack = [_copy_frame(frame) for frame in self.stack]
        other.no_disrupt = list(self.no_disrupt)
        return other

    def encode(self) -> list[int]:
        """The whole state as a flat list of ints (the canonical encoding, see docs)."""
        return [*self._encode_head(), *self.mini_words, *self._encode_tail()]

    def state_hash(self) -> bytes:
        """SHA-256 over the setup digest and the canonical state encoding (``encode``),
        the miniatures' fields straight from their array."""
        hasher = self._hash_start.copy()
        hasher.update(pack_ints(self._encode_head()))
        hasher.update(words_bytes(self.mini_words))
        if (
            self.combat is None
            and not self.stack
            and not self.spawn_uses
            and not self.no_disrupt
            and self.rolling is None
            and self.choosing is None
            and not self.damaged_outside_combat
        ):
            hasher.update(_QUIET_TAIL)  # most states: nothing in progress
        else:
            hasher.update(pack_ints(self._encode_tail()))
        return hasher.digest()

    def _encode_head(self) -> list[int]:
        """The encoding up to the miniatures' fields."""
        return [
            HASH_VERSION, self.turn, self.phase, self.step, *self.turns_won, *self.bonus,
            *self.kills, *self.initiative, len(self.reroll), *self.reroll,
            1 if self.had_one_last_turn else 0, 1 if self.skip_spawn else 0,
            self.first, self.active, self.action_index, self.spawn_points,
            self.allies_at_spawn_start,
            *self.spawned_into, self.mode, self.attacked_cells, self.locked_cells,
            -1 if self.winner is None else int(self.winner),
            0 if self.end_reason is None else (1 if self.end_reason is EndReason.VICTORY else 2),
            len(self.minis),
        ]  # fmt: skip

    def _encode_tail(self) -> list[int]:
        """The encoding after the miniatures' fields (``_QUIET_TAIL`` when nothing is in
        progress)."""
        if self.combat is None:
            out = [0]
        else:
            combat = self.combat.encode()
            out = [1, len(combat), *combat]
        out += [1 if self.damaged_outside_combat else 0, len(self.stack)]
        for frame in self.stack:
            out.append(len(frame))
            for work in frame:
                if isinstance(work, Trigger):
                    event = work.event
                    out += (1, work.controller, work.mini, work.index, event.kind, event.mini,
                            event.cell)  # fmt: skip
                else:
                    out += (0, *work)
        out.append(len(self.spawn_uses))
        for mini, index in self.spawn_uses:
            out += (mini, index)
        out += [len(self.no_disrupt), *self.no_disrupt]
        if self.rolling is None:
            out.append(0)
        else:
            rolling = self.rolling.encode()
            out += [1, len(rolling), *rolling]
        choosing = self.choosing
        if choosing is None:
            out.append(0)
        else:
            out += [1, choosing.holder, choosing.source, choosing.index, choosing.controller,
                    choosing.number, choosing.context]  # fmt: skip
        return out

    # --- queries ------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.step is Step.OVER

    @property
    def pending(self) -> Pending | None:
        """The one item the game waits for, or None when the game is over."""
        if self._pending is None:
            self._pending = self._make_pending()
        return self._pending

    def minis_of(self, player: Player) -> list[Mini]:
        return list(self.warband_minis[player])

    def in_cell(self, cell: int) -> list[Mini]:
        """Miniatures in ``cell``, in id order."""
        return [m for m in self.minis if m.cell == cell]

    def creatures_in(self, cell: int, player: Player) -> list[Mini]:
        return [m for m in self.warband_minis[player] if m.cell == cell and m.is_creature]

    def creature_ids(self, cell: int, player: Player) -> tuple[int, ...]:
        """The ids of ``player``'s creatures in ``cell``, in order."""
        return tuple([m.id for m in self.warband_minis[player] if m.cell == cell and m.is_creature])

    def is_engaged(self, m: Mini) -> bool:
        """802.1a: an enemy creature shares the cell (enemy locations don't engage)."""
        return m.cell >= 0 and self.creatures[m.owner.other][m.cell] > 0

    def power(self, m: Mini) -> int:
        return self._modified(m, Stat.POWER, base_power(self, m))

    def defense(self, m: Mini) -> int:
        return self._modified(m, Stat.DEFENSE, m.defn.defense)

    def life(self, m: Mini) -> int:
        return self._modified(m, Stat.LIFE, m.defn.life)

    def stat(self, m: Mini, stat: Stat) -> int:
        """A stat after all modifiers and the 900.8 minimums."""
        if stat is Stat.POWER:
            return self.power(m)
        d = m.defn
        return self._modified(m, stat, (d.power, d.defense, d.life, d.spawn_cost)[stat])

    def _modified(self, m: Mini, stat: Stat, base: int) -> int:
        """``stat`` of ``m`` from ``base`` (as printed, or Thanatomancy's power) after the
        modifiers that can change it and the 900.8 minimum."""
        statics = self.statics
        if (
            statics.auras[stat]
            or m.id in statics.self_stats
            or (stat is Stat.COST and statics.channels)
        ):
            base += stat_modifier(self, m, stat)
        return apply_minimum(stat, base)

    def ability_def(self, source: int, index: int) -> AbilityDef:
        """Ability ``index`` of ``source`` (for Hell's Fury: the Crit 2 it grants)."""
        return ability_def(self, source, index)

    def spawn_cost(self, m: Mini) -> int:
        """What spawning ``m`` costs its owner now: spawn cost (Respawn's cost from the
        graveyard) after Channel, plus aspect shortfall (801.4)."""
        return self._spawn_cost(m, self.aspect_counts[m.owner])

    def _spawn_cost(self, m: Mini, counts: list[int]) -> int:
        # The COST stat (as stat() has it, but Respawn's cost in the graveyard), then the
        # aspect shortfall.
        cost = m.defn.spawn_cost
        itself = 0  # a miniature in the graveyard counts towards its own aspects there
        if m.zone is Zone.GRAVEYARD:
            # Respawn: "as if it were in your reserves", so it does not count for itself.
            respawn = self._respawn(m)
            if respawn is not None:
                cost = respawn.x or 0
            itself = 1
        if self.statics.channels:
            cost += cost_modifier(self, m)
        cost = apply_minimum(Stat.COST, cost)
        for aspect, needed in m.needs:
            have = counts[aspect] - itself
            if have < needed:
                cost += needed - have
        return cost

    def _respawn(self, m: Mini) -> AbilityDef | None:
        for ability in m.abilities:
            if ability.keyword == "Respawn":
                return ability
        return None

    def claimed_points(self, player: Player) -> int:
        """803.1: the value of the scoring cells ``player`` claims now (Dominate claims a
        contested cell)."""
        total = 0
        dominators = self.statics.of("Dominate")
        for cell in board.SCORING_CELLS[player]:
            if not self.creatures[player][cell]:
                continue
            if not self.creatures[player.other][cell] or (
                dominators and self._dominates(player, cell)
            ):
                total += self.values[cell]
        return total

    def _dominates(self, player: Player, cell: int) -> bool:
        for mini, _, ability in self.statics.of("Dominate"):
            m = self.minis[mini]
            if m.owner is player and m.cell == cell and is_active(self, m, ability):
                return True
        return False

    def attack_bonus(self, owner: Player, cell: int) -> int:
        """Darkheart Cottage: each attack ``owner``'s creatures make in its cell has +1
        power per unengaged creature ``owner`` controls (FAQ: any kind of attack)."""
        bonus = 0
        for mini, _, ability in self.statics.of("Darkheart Cottage"):
            m = self.minis[mini]
            if m.owner is owner and m.cell == cell and cell >= 0 and is_active(self, m, ability):
                bonus += sum(
                    1
                    for c in self.minis
                    if c.owner is owner and c.cell >= 0 and c.is_creature
                    and not self.creatures[owner.other][c.cell]
                )  # fmt: skip
        return bonus

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
        rolling = self.rolling
        if rolling is not None:
            return self._reroll_choices() if rolling.stage is Stage.DECIDE else None
        if self.choosing is not None:
            return [TargetChoice(o) for o in options(self, self.choosing)]
        if self._triggers() is not None:
            waiting = self._waiting_triggers(self._trigger_player())
            return [OrderChoice(i) for i in range(len(waiting))]
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
            mini = self._combat().fate_queue[0]
            return [FateChoice(mini, False), FateChoice(mini, True)]
        if step is Step.DEATHBLOW:
            cell = self._combat().deathblow_queue[0]
            dying = self._dying_in(cell)
            return [
                DeathblowChoice(cell, subset)
                for size in range(len(dying), -1, -1)
                for subset in combinations(dying, size)
                if self._may_attack_together(subset)
            ]
        if step is Step.RESOLVE:
            return self._resolve_choices()
        if step is Step.BLADE:
            return self._blade_choices()
        return None

    def _spawn_choices(self) -> list[Choice]:
        player = self.active
        out: list[Choice] = []
        counts = self.aspect_counts[player]
        for m in self.warband_minis[player]:
            if not self._spawnable(m):
                continue
            if self._spawn_cost(m, counts) > self.spawn_points:
                continue
            out.extend(SpawnChoice(m.id, cell) for cell in self._spawn_cells(m))
        for mini, index, ability in self.statics.spawn_abilities:
            m = self.minis[mini]
            if m.owner is player and m.cell >= 0:
                out.extend(self._activations(m, index, ability))
        out.append(DONE)
        return out

    def _spawnable(self, m: Mini) -> bool:
        """In the reserves (or, with Respawn, the graveyard), and not barred by Unique or
        Vengeance."""
        if m.zone is not Zone.RESERVES and not (
            m.zone is Zone.GRAVEYARD and self._respawn(m) is not None
        ):
            return False
        for ability in m.abilities:
            keyword = ability.keyword
            if keyword == "Vengeance" and self.turns_won[m.owner.other] < (ability.x or 0):
                return False
            if keyword == "Unique" and self._controls_unique(m.owner, ability.modifier):
                return False
        return True

    def _controls_unique(self, player: Player, name: str | None) -> bool:
        for mini, _, ability in self.statics.of("Unique"):
            other = self.minis[mini]
            if other.owner is player and other.cell >= 0 and ability.modifier == name:
                return True
        return False

    def _activations(self, m: Mini, index: int, ability: AbilityDef) -> list[ActivateChoice]:
        """801.8: the ways to activate spawn ability ``index`` of ``m`` now."""
        return [ActivateChoice(m.id, index, x) for x in self._activation_xs(m, index, ability)]

    def _activation_xs(self, m: Mini, index: int, ability: AbilityDef) -> range:
        """The values of X (0 for an ability without an X cost) with which spawn ability
        ``index`` of ``m`` can be activated now (801.8); empty when it can't."""
        if ability.activation is not Activation.SPAWN or (m.id, index) in self.spawn_uses:
            return _NO_XS
        if not is_active(self, m, ability):  # the score condition (303.2b)
            return _NO_XS
        if ability.cost_x:
            return range(1, self.spawn_points + 1)
        if (ability.spawn_cost or 0) > self.spawn_points:
            return _NO_XS
        return _NO_X

    def _spawn_cells(self, m: Mini) -> list[int]:
        player = m.owner
        mine = self.creatures[player]
        if m.defn.is_location:
            return board.cells_of(self._location_cells_for(player))
        portal = board.PORTAL[player]
        cells = [portal]  # 801.6: always allowed
        columns = 0
        for other in self.warband_minis[player]:
            if other.cell >= 0:
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
        for ability in m.abilities:
            if ability.keyword == "Reinforce":
                cells += self._reinforce_cells(m, ability.modifier, cells)
        return cells

    def _location_cells_for(self, player: Player) -> int:
        """801.7: where ``player`` may spawn a location, as a bitmask: any cell where they
        control a creature, one location per cell."""
        return self.creature_cells[player] & ~self.location_cells

    def _reinforce_cells(self, m: Mini, kind: str | None, taken: list[int]) -> list[int]:
        """Reinforce [type]: any cell with an ally of that type (a creature: FAQ), within the
        stacking limit."""
        allies = 0  # bitmask of the cells with such an ally
        for a in self.minis:
            if a.cell >= 0 and a.owner is m.owner and a.is_creature and matches(kind, a.defn):
                allies |= 1 << a.cell
        mine = self.creatures[m.owner]
        return [
            cell
            for cell in range(board.CELL_COUNT)
            if (allies >> cell) & 1
            and cell not in taken
            and mine[cell] < CREATURES_PER_PLAYER_PER_CELL
            and self.spawned_into[cell] < CREATURES_PER_PLAYER_PER_CELL
        ]

    def _move_choices(self) -> list[Choice]:
        out: list[Choice] = []
        for m in self._movers():
            out.extend(MoveChoice(m.id, cell) for cell in self._shift_cells(m))
        return out

    def _shift_cells(self, m: Mini) -> list[int]:
        """Where ``m`` may move when shifting: adjacent (802.1b), room for it (802.1c), and
        for a Defender no enemy creature there."""
        mine = self.creatures[m.owner]
        if has_active(self, m, "Defender") is None:
            return [
                cell
                for cell in board.ADJACENT[m.cell]
                if mine[cell] < CREATURES_PER_PLAYER_PER_CELL
            ]
        theirs = self.creatures[m.owner.other]
        return [
            cell
            for cell in board.ADJACENT[m.cell]
            if mine[cell] < CREATURES_PER_PLAYER_PER_CELL and not theirs[cell]
        ]

    def _attack_choices(self) -> list[Choice]:
        player = self.active
        out: list[Choice] = []
        for cell in board.cells_of(self._attackable_cells()):
            ids = self.creature_ids(cell, player)
            for size in range(len(ids), 0, -1):
                out.extend(
                    AttackChoice(cell, subset)
                    for subset in combinations(ids, size)
                    if self._may_attack_together(subset)
                )
        return out

    def _may_attack_together(self, attackers: Sequence[int]) -> bool:
        """Loner: a creature with it can't attack alongside others, deathblows included."""
        if len(attackers) < 2 or not self.statics.of("Loner"):
            return True
        return not any(has_active(self, self.minis[i], "Loner") is not None for i in attackers)

    def _blade_choices(self) -> list[Choice]:
        """Combat step 3 (303.1, 802.2c, 900.10): the abilities the next blade(s) can go to.

        Attackers keep their blade abilities even after moving away; locations take
        blades only from their own player's regular attacks in their cell.
        """
        combat = self._combat()
        if combat.blades <= 0:
            return []
        holders = list(combat.attackers)
        location = self.location_at[combat.cell]
        if location >= 0 and self.minis[location].owner is self.active:
            holders.append(location)
        out: list[Choice] = []
        for holder in sorted(holders):
            m = self.minis[holder]
            for source, index, ability in blade_abilities(self, m):
                if ability.is_double_blade and combat.blades < 2:
                    continue
                if ability.is_single_use_blade and combat.uses(holder, source, index):
                    continue
                out.append(BladeChoice(holder, index, -1 if source == holder else source))
        return out

    def _reroll_choices(self) -> list[Choice]:
        """Fortunate: every set of at most X of the dice (as values) to reroll, none first."""
        rolling = self.rolling
        assert rolling is not None
        limit = rolling.fortunes[0][2]
        dice = sorted(rolling.dice)
        found: list[tuple[int, ...]] = []
        for size in range(min(limit, len(dice)) + 1):
            for combo in combinations(dice, size):
                if combo not in found:
                    found.append(combo)
        return [RerollChoice(c) for c in found]

    def _resolve_choices(self) -> list[Choice]:
        resolver = PLAYERS[self._combat().resolver]
        destroys = self._destroys_for(resolver)
        buries: list[Choice] = [BuryChoice(mini) for mini in destroys]
        if destroys and not self._bury_order_matters(resolver, destroys):
            return buries
        return buries + self._disrupt_choices(resolver)

    def _disrupt_choices(self, resolver: Player) -> list[Choice]:
        """Combat step 7 for the miniatures ``resolver`` disrupts: each goes to an empty cell,
        or is destroyed when there is none (glossary: disrupt)."""
        disrupted = self._marked(Fate.DISRUPT, resolver)
        if not disrupted:
            return []
        empties = self._empty_cells_for(resolver)
        if not empties:
            return [BuryChoice(mini) for mini in disrupted]  # no empty cell: destroyed instead
        return [PlaceChoice(mini, cell) for mini in disrupted for cell in empties]

    def _bury_order_matters(self, resolver: Player, destroys: list[int]) -> bool:
        """Combat step 7 goes in any order the resolver chooses (FAQ). Burying first only
        adds empty cells, which is best for the resolver unless a disrupted enemy would
        find none (and be destroyed, glossary: disrupt) and a burial empties a cell."""
        marks = self._combat().marks
        disrupts = sum(
            1
            for mini, (fate, by) in marks.items()
            if by is resolver and fate is Fate.DISRUPT and self.minis[mini].cell >= 0
        )
        if disrupts <= self._empty_cell_mask(resolver).bit_count():
            return False
        portal = board.PORTAL[resolver]
        return any(
            self.minis[d].cell not in (-1, portal) and len(self.in_cell(self.minis[d].cell)) == 1
            for d in destroys
        )

    def _destroys_for(self, resolver: Player) -> list[int]:
        return self._marked(Fate.DESTROY, resolver)

    def _marked(self, wanted: Fate, resolver: Player) -> list[int]:
        """The miniatures marked ``wanted`` for ``resolver`` to resolve, in id order (only
        those are sorted: usually none)."""
        marked = [
            mini
            for mini, (fate, by) in self._combat().marks.items()
            if by is resolver and fate is wanted
        ]
        marked.sort()
        return marked

    def _empty_cells_for(self, disrupter: Player) -> list[int]:
        """Cells a disrupted enemy may go to: no miniature at all, not the disrupter's portal."""
        return board.cells_of(self._empty_cell_mask(disrupter))

    def _empty_cell_mask(self, disrupter: Player) -> int:
        """``_empty_cells_for`` as a bitmask."""
        cells = self.creature_cells
        taken = cells[0] | cells[1] | self.location_cells | 1 << board.PORTAL[disrupter]
        return board.ALL_CELLS & ~taken

    def _dying_in(self, cell: int) -> tuple[int, ...]:
        combat = self._combat()
        return tuple(
            mini
            for mini, (fate, _) in sorted(combat.marks.items())
            if fate is Fate.DESTROY and self.minis[mini].cell == cell
            and mini in combat.deathblown
        )  # fmt: skip

    # --- input ----------------------------------------------------------------

    def check_choice(self, choice: Choice) -> None:
        """Raise InvalidChoiceError or IllegalChoiceError unless ``choice`` is legal now."""
        self._checked(choice)

    def _checked(self, choice: Choice) -> Decision:
        """``check_choice``, giving the decision that ``choice`` answers."""
        pending = self.pending
        if pending is None:
            raise GameOverError(f"the game is over; {choice!r} cannot be played")
        if isinstance(pending, ChanceRequest):
            raise IllegalChoiceError(
                f"the game is waiting for {pending.count} {pending.kind.value} dice, not a choice"
            )
        _check_field_types(choice)
        if self._is_legal(choice, pending):
            return pending
        if pending.kind is DecisionKind.DAMAGE:
            self._check_damage(choice, pending)  # not a DamageChoice: says what it expects
        expected = _CHOICE_TYPES[pending.kind]
        if not isinstance(choice, expected):
            names = " or ".join(t.__name__ for t in expected)
            raise InvalidChoiceError(
                f"{pending.kind.value} decision of {pending.player.name} expects {names}, "
                f"got {choice!r}"
            )
        raise IllegalChoiceError(f"{choice!r} is not legal now: {self._why_illegal(choice)}")

    def _is_legal(self, choice: Choice, pending: Decision) -> bool:
        """Whether ``choice`` is among ``legal_choices()``, without building the list for
        the decisions whose lists are long (spawn, shift, strike, and the places of combat
        step 7: one per decision). A
        damage split, which has no list, is checked in full: it raises when illegal."""
        kind = type(choice)
        if pending.kind not in _ANSWERS.get(kind, ()):
            return False
        if kind is Done or kind is ShiftChoice or kind is StrikeChoice:
            return True  # always legal in the decisions that take them
        if kind is DamageChoice:
            self._check_damage(choice, pending)
            return True
        if kind is SpawnChoice:
            return self._can_spawn(choice)  # type: ignore[arg-type]
        if kind is ActivateChoice:
            return self._can_activate(choice)  # type: ignore[arg-type]
        if kind is MoveChoice:
            return self._can_move(choice)  # type: ignore[arg-type]
        if kind is AttackChoice:
            return self._can_attack(choice)  # type: ignore[arg-type]
        if kind is PlaceChoice:
            return self._can_place(choice)  # type: ignore[arg-type]
        legal = self.legal_choices()
        assert legal is not None
        return choice in legal

    def _can_place(self, choice: PlaceChoice) -> bool:
        """The conditions of ``_resolve_choices`` for one PlaceChoice, without making the
        choice for every disrupted creature and empty cell: no burial comes first, and the
        creature is one the resolver disrupts, the cell one of ``_empty_cells_for``."""
        resolver = PLAYERS[self._combat().resolver]
        destroys = self._destroys_for(resolver)
        if destroys and not self._bury_order_matters(resolver, destroys):
            return False
        cell = choice.cell
        return (
            0 <= cell < board.CELL_COUNT
            and (self._empty_cell_mask(resolver) >> cell) & 1 == 1
            and choice.mini in self._marked(Fate.DISRUPT, resolver)
        )

    def _can_spawn(self, choice: SpawnChoice) -> bool:
        """The conditions of ``_spawn_choices``, for one choice."""
        if not 0 <= choice.mini < len(self.minis):
            return False
        m = self.minis[choice.mini]
        return (
            m.owner is self.active
            and self._spawnable(m)
            and self.spawn_cost(m) <= self.spawn_points
            and choice.cell in self._spawn_cells(m)
        )

    def _can_activate(self, choice: ActivateChoice) -> bool:
        if not 0 <= choice.mini < len(self.minis):
            return False
        m = self.minis[choice.mini]
        if m.owner is not self.active or m.cell < 0 or not 0 <= choice.index < len(m.abilities):
            return False
        return choice.x in self._activation_xs(m, choice.index, m.abilities[choice.index])

    def _can_move(self, choice: MoveChoice) -> bool:
        """The conditions of ``_move_choices``, for one choice."""
        if not 0 <= choice.mini < len(self.minis):
            return False
        m = self.minis[choice.mini]
        return self._may_move(m) and choice.cell in self._shift_cells(m)

    def _may_move(self, m: Mini) -> bool:
        """Whether ``m`` is a creature the shifting player may still move (802.1): in the
        dreamscape, not moved yet this shift, not engaged (802.1a), not in a locked-down
        cell (Lockdown)."""
        return (
            m.owner is self.active
            and m.cell >= 0
            and not m.moved
            and m.is_creature
            and not self.creatures[m.owner.other][m.cell]
            and not (self.locked_cells >> m.cell) & 1
        )

    def _movers(self) -> Iterator[Mini]:
        """The creatures the shifting player may still move (``_may_move``), in id order."""
        return (
            m
            for m in self.warband_minis[self.active]
            if m.cell >= 0 and not m.moved and self._may_move(m)
        )

    def _can_attack(self, choice: AttackChoice) -> bool:
        """The conditions of ``_attack_choices``, for one choice: a cell not yet attacked
        with enemy creatures in it, and a non-empty set of the striker's creatures there
        in increasing id order (a Loner alone)."""
        cell = choice.cell
        if not self._may_attack(cell) or not choice.attackers:
            return False
        previous = -1
        for mini in choice.attackers:
            if mini <= previous or mini >= len(self.minis):
                return False
            m = self.minis[mini]
            if m.cell != cell or m.owner is not self.active or not m.is_creature:
                return False
            previous = mini
        return self._may_attack_together(choice.attackers)

    def _may_attack(self, cell: int) -> bool:
        """Whether the striking player may attack ``cell`` (802.2a)."""
        return 0 <= cell < board.CELL_COUNT and (self._attackable_cells() >> cell) & 1 == 1

    def _attackable_cells(self) -> int:
        """The cells the striking player may attack, as a bitmask: both players have
        creatures there, and it has not been attacked this strike (802.2a)."""
        cells = self.creature_cells
        return cells[self.active] & cells[self.active.other] & ~self.attacked_cells

    def _may_still_shift(self) -> bool:
        """Whether a creature may still move this shift (``_movers``, written out as one loop:
        asked after every move)."""
        for m in self.warband_minis[self.active]:
            if m.cell >= 0 and not m.moved and self._may_move(m) and self._shift_cells(m):
                return True
        return False

    def _may_still_strike(self) -> bool:
        """Whether a cell may still be attacked this strike."""
        return self._attackable_cells() != 0

    def _may_still_spawn(self) -> bool:
        """Whether anything may still be spawned or activated this spawn phase."""
        player = self.active
        for mini, index, ability in self.statics.spawn_abilities:
            m = self.minis[mini]
            if m.owner is player and m.cell >= 0 and self._activation_xs(m, index, ability):
                return True
        counts = self.aspect_counts[player]
        for m in self.warband_minis[player]:
            if (
                m.cell < 0
                and self._spawnable(m)
                and self._spawn_cost(m, counts) <= self.spawn_points
                # 801.6: the portal is always open to a creature
                and (m.is_creature or self._location_cells_for(player))
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
        short = self._bodyguards_short(pending.targets, dict(choice.assignments))
        if short:
            raise IllegalChoiceError(
                "Bodyguard: no damage may go to "
                + ", ".join(self.minis[i].label for i in sorted(_unguarded(choice, short)))
                + " until "
                + ", ".join(f"{self.minis[g].label} has {need}" for g, need in short)
                + " (enough to disrupt or destroy it)"
            )

    def bodyguards(self, targets: Sequence[int]) -> list[int]:
        """The targets with an active Bodyguard."""
        if not self.statics.of("Bodyguard"):
            return []
        return [i for i in targets if has_active(self, self.minis[i], "Bodyguard") is not None]

    def bodyguard_need(self, mini: int) -> int:
        """The damage a Bodyguard must have before its allies may take any: enough to
        disrupt or destroy it."""
        m = self.minis[mini]
        return min(self.defense(m), self.life(m))

    def _bodyguards_short(
        self, targets: Sequence[int], assigned: dict[int, int]
    ) -> list[tuple[int, int]]:
        """Bodyguards still short of their need when others take damage: (id, need)."""
        guards = self.bodyguards(targets)
        if not guards or all(i in guards for i in assigned):
            return []
        return [
            (g, self.bodyguard_need(g))
            for g in guards
            if self.minis[g].damage + assigned.get(g, 0) < self.bodyguard_need(g)
        ]

    def _why_illegal(self, choice: Choice) -> str:
        """A short reason for an illegal choice of the right type (best effort, for people)."""
        step = self.step
        if isinstance(choice, SpawnChoice) and step is Step.SPAWN:
            if not 0 <= choice.mini < len(self.minis):
                return f"there is no miniature {choice.mini}"
            m = self.minis[choice.mini]
            if m.owner is not self.active:
                return f"{m.label} is not {self.active.name}'s"
            if not self._spawnable(m):
                if m.zone is not Zone.RESERVES:
                    return f"{m.label} is not in reserves"
                return f"{m.label} can't be spawned now (Unique or Vengeance)"
            cost = self.spawn_cost(m)
            if cost > self.spawn_points:
                return f"{m.label} costs {cost} and only {self.spawn_points} spawn points are left"
            if not 0 <= choice.cell < board.CELL_COUNT:
                return f"there is no cell {choice.cell}"
            cell = board.cell_name(choice.cell)
            if m.defn.is_location:
                return (
                    f"{m.label} can't be spawned in {cell}: a location goes to a cell with a "
                    "creature of yours and no location (801.7)"
                )
            return (
                f"{m.label} can't be spawned in {cell}: a creature goes to your portal, or to a "
                "cell of your spawn row that had no ally at the start of the phase, in a "
                "column where you have a miniature, four at most (801.5, 801.6)"
            )
        if isinstance(choice, ActivateChoice) and step is Step.SPAWN:
            return (
                "that spawn ability can't be used now: it was used already, costs more than the "
                "spawn points left, or its miniature is not on a scoring cell"
            )
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
            if (self.locked_cells >> m.cell) & 1:
                return f"{m.label} is in a locked-down cell (Lockdown)"
            if not 0 <= choice.cell < board.CELL_COUNT or choice.cell not in board.ADJACENT[m.cell]:
                return "creatures move one cell forward, back, left or right (802.1b)"
            if self.creatures[m.owner.other][choice.cell] and has_active(self, m, "Defender"):
                return f"{m.label} has Defender: it can't shift into a cell with enemies"
            return f"{self.active.name} already has four creatures there (802.1c)"
        pending = self.pending
        if isinstance(choice, OrderChoice) and isinstance(pending, Decision):
            waiting = len(pending.minis)
            return f"{waiting} effects wait; choose one of 'order 1' to 'order {waiting}'"
        if isinstance(choice, AttackChoice) and step is Step.STRIKE:
            if (self.attacked_cells >> choice.cell) & 1 if 0 <= choice.cell < 25 else False:
                return "that cell has already been attacked this strike (802.2a)"
            if not self._may_attack_together(choice.attackers):
                return "a creature with Loner can't attack with others"
            return (
                "only your creatures that share the cell with enemy creatures can attack it (802.2)"
            )
        return "it is not among the legal choices"

    def apply(self, choice: Choice) -> None:
        """Play ``choice`` for the pending decision; raise and change nothing if it is not legal."""
        pending = self._checked(choice)
        self._invalidate()
        _PLAY[type(choice)](self, choice, pending)
        self._advance()

    # --- playing each type of choice (apply has checked the choice) ---------------------

    def _play_reroll(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, RerollChoice)
        self._reroll(choice.dice)

    def _play_target(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, TargetChoice)
        targeting = self.choosing
        assert targeting is not None
        self.choosing = None
        effects.resolve(self, targeting, choice.targets)

    def _play_order(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, OrderChoice)
        chosen = self._waiting_triggers(pending.player)[choice.position]
        self._resolve_trigger(self._pop_trigger(chosen))

    def _play_done(self, choice: Choice, pending: Decision) -> None:
        if pending.kind is DecisionKind.SPAWN:
            self._end_spawn_phase()
        else:  # a shift or a strike
            self._end_action_phase()

    def _play_spawn(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, SpawnChoice)
        self._spawn(self.minis[choice.mini], choice.cell)

    def _play_activate(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, ActivateChoice)
        self._activate_spawn_ability(choice)

    def _play_action(self, choice: Choice, pending: Decision) -> None:
        self.mode = Mode.SHIFT if isinstance(choice, ShiftChoice) else Mode.STRIKE
        self.step = Step.SHIFT if isinstance(choice, ShiftChoice) else Step.STRIKE

    def _play_move(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, MoveChoice)
        m = self.minis[choice.mini]
        m.moved = True  # written with its new cell
        self._move(m, choice.cell)

    def _play_attack(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, AttackChoice)
        self._start_combat(choice.cell, choice.attackers)

    def _play_blade(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, BladeChoice)
        source = choice.mini if choice.source < 0 else choice.source
        self._assign_blade(choice.mini, source, choice.index)

    def _play_damage(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, DamageChoice)
        self._deal_damage(choice.assignments)

    def _play_fate(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, FateChoice)
        combat = self._combat()
        combat.fate_queue.pop(0)
        fate = Fate.DESTROY if choice.destroy else Fate.DISRUPT
        combat.marks[choice.mini] = (fate, self.minis[choice.mini].owner.other)
        self._after_fates()

    def _play_deathblow(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, DeathblowChoice)
        self._declare_deathblow(choice.cell, choice.attackers)

    def _play_resolve(self, choice: Choice, pending: Decision) -> None:
        assert isinstance(choice, BuryChoice | PlaceChoice)
        self._apply_resolution(choice)

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
        if self.rolling is not None:
            self._rolled(values)
        else:
            assert self.step is Step.ROLL_INITIATIVE
            for player, value in zip(self.reroll, values, strict=True):
                self.initiative[player] = value
            self._after_initiative()
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

    def _make_pending(self) -> Pending | None:
        rolling = self.rolling
        if rolling is not None:
            if rolling.stage is Stage.DECIDE:
                mini, index, x = rolling.fortunes[0]
                return Decision(
                    rolling.owner,
                    DecisionKind.REROLL,
                    cell=self.minis[mini].cell,
                    total=x,
                    minis=(mini,),
                    ability=(mini, index),
                    dice=tuple(rolling.dice),
                )
            rerolled = rolling.stage is Stage.REROLL
            return _roll_request(rolling.purpose, rerolled, rolling.count, rolling.owner)
        targeting = self.choosing
        if targeting is not None:
            holder = self.minis[targeting.holder]
            return Decision(
                targeting.controller,
                DecisionKind.TARGET,
                cell=holder.cell,
                minis=(targeting.holder,),
                ability=(targeting.source, targeting.index),
            )
        frame = self._triggers() if self.stack else None  # the stack is mostly empty
        if frame is not None:
            player = self._trigger_player()
            effects = [frame[i] for i in self._waiting_triggers(player)]
            return Decision(
                player,
                DecisionKind.ORDER,
                minis=tuple(t.mini for t in effects),
                ability=tuple(t.index for t in effects),
            )
        step = self.step
        plain = _PLAIN_DECISIONS.get(step)
        if plain is not None:
            return plain[self.active]
        if step is Step.OVER:
            return None
        if step is Step.ROLL_INITIATIVE:
            return _initiative_request(self.reroll)
        combat = self._combat()
        if step is Step.BLADE:
            return Decision(self.active, DecisionKind.BLADE, cell=combat.cell, total=combat.blades)
        if step is Step.DAMAGE:
            owner = PLAYERS[combat.damage_owner]
            return Decision(
                owner,
                DecisionKind.DAMAGE,
                cell=combat.damage_cell,
                total=combat.damage_total,
                targets=self.creature_ids(combat.damage_cell, owner.other),
            )
        if step is Step.FATE:
            fated = self.minis[combat.fate_queue[0]]
            return Decision(
                fated.owner.other, DecisionKind.FATE, cell=fated.cell, minis=(fated.id,)
            )
        if step is Step.DEATHBLOW:
            cell = combat.deathblow_queue[0]
            return Decision(
                self.first.other, DecisionKind.DEATHBLOW, cell=cell, minis=self._dying_in(cell)
            )
        assert step is Step.RESOLVE, step
        resolver = PLAYERS[combat.resolver]
        destroys = self._destroys_for(resolver)
        waiting = (
            tuple(destroys)
            if destroys and not self._bury_order_matters(resolver, destroys)
            else tuple(mini for mini, (_, by) in sorted(combat.marks.items()) if by is resolver)
        )
        return Decision(resolver, DecisionKind.RESOLVE, minis=waiting)

    # --- automatic flow --------------------------------------------------------

    def _advance(self) -> None:
        """Run automatic work until a real decision or dice are needed.

        A roll in progress and an ability's targets come first; then triggered effects
        (nothing voluntary happens while any wait: glossary, triggered ability); then
        the rest of the effects in progress, one move or attack at a time; then the
        check of damage dealt outside combat (900.3, also before an effect's next move);
        then the step. Each pass of the loop does one thing, so what a thing triggers
        resolves before the next. The step's work comes from ``_STEP_WORK``; at the end
        of the game nothing is left to do (``_finish`` clears it all).
        """
        while True:
            if self.rolling is not None:
                return
            targeting = self.choosing
            if targeting is not None:
                found = options(self, targeting)
                if len(found) > 1:
                    self._choices = [TargetChoice(o) for o in found]
                    return
                self.choosing = None  # one way to do it, or none (900.1c): no decision
                effects.resolve(self, targeting, found[0] if found else ())
                continue
            if self.stack and not self._ops_wait():
                if self._triggers() is None:
                    self._run_op()
                elif self._resolve_next_trigger():
                    return
                continue
            if self.damaged_outside_combat and self.combat is None:
                self._start_damage_check()
                continue
            work = _STEP_WORK.get(self.step)
            if work is None or work(self):
                return

    # --- the automatic work of each step (_advance): True when input is needed ---------

    def _spawn_step(self) -> bool:
        if self._may_still_spawn():
            return True
        self._end_spawn_phase()
        return False

    def _shift_step(self) -> bool:
        if self._may_still_shift():
            return True
        self._end_action_phase()
        return False

    def _strike_step(self) -> bool:
        if self._may_still_strike():
            return True
        self._end_action_phase()
        return False

    def _blade_step(self) -> bool:
        """Combat step 3: a blade goes to the only ability that can take it; with none,
        step 4."""
        choices = self._blade_choices()
        if len(choices) > 1:
            self._choices = choices
            return True
        if choices:
            blade = choices[0]
            assert isinstance(blade, BladeChoice)
            source = blade.mini if blade.source < 0 else blade.source
            self._assign_blade(blade.mini, source, blade.index)
        else:
            self._end_blades()
        return False

    def _combat_end_step(self) -> bool:
        self._check_combat()  # step 10's effects resolved: back to step 5
        return False

    def _ops_wait(self) -> bool:
        """Whether the rest of an effect waits for the check of damage dealt outside combat
        (900.3): that check comes before the effect moves its next miniature (a new event,
        so not simultaneous, 900.7b) and before a Strikeback answers an attack, and the
        effect goes on once the check is over."""
        if self._triggers() is not None:
            return False
        combat = self.combat
        if combat is not None:
            return combat.cell < 0
        op = self.stack[-1][0]
        return (
            self.damaged_outside_combat
            and isinstance(op, Op)
            and op.kind in (OpKind.MOVE, OpKind.SWAP, OpKind.STRIKEBACK)
        )

    def _resolve_next_trigger(self) -> bool:
        """Resolve one waiting triggered effect; True if a player must order theirs first.

        900.7a: the effects of the player whose phase it is go first (the first
        player's in shared phases); a player with several chooses their order.
        """
        player = self._trigger_player()
        mine = self._waiting_triggers(player)
        if len(mine) > 1:
            return True
        self._resolve_trigger(self._pop_trigger(mine[0]))
        return False

    def _trigger_player(self) -> Player:
        """Whose waiting effects resolve next (900.7a): the player whose phase it is (the
        first player in shared phases) while they have any, then the other."""
        priority = self.active if self.phase in (Phase.SPAWN, Phase.ACTION) else self.first
        return priority if self._waiting_triggers(priority) else priority.other

    def _waiting_triggers(self, player: Player) -> list[int]:
        frame = self._triggers()
        assert frame is not None
        return [i for i, t in enumerate(frame) if t.controller is player]

    def _triggers(self) -> list[Trigger] | None:
        """The innermost frame of the stack when it holds triggered effects."""
        if self.stack:
            frame = self.stack[-1]
            if isinstance(frame[0], Trigger):
                return frame
        return None

    def _pop_trigger(self, position: int) -> Trigger:
        frame = self._triggers()
        assert frame is not None
        trigger = frame.pop(position)
        if not frame:
            self.stack.pop()
        return trigger

    def _resolve_trigger(self, trigger: Trigger) -> None:
        self._activate(trigger.mini, trigger.mini, trigger.index, trigger.controller,
                       context=trigger.event.mini)  # fmt: skip

    # --- abilities -----------------------------------------------------------------

    def _activate(
        self,
        holder: int,
        source: int,
        index: int,
        controller: Player,
        chosen_x: int = 0,
        context: int = -1,
    ) -> None:
        """Activate an ability: its targets are chosen now (a TARGET decision unless there
        is one way or none), then its effect happens (900.9, FAQ: targeting)."""
        ability = self.ability_def(source, index)
        targeting = Targeting(
            holder, source, index, ability, controller, number(ability, chosen_x), context
        )
        if needs_targets(ability):
            self.choosing = targeting  # _advance offers the targets or takes the only one
        else:
            effects.resolve(self, targeting, ())

    def _activate_spawn_ability(self, choice: ActivateChoice) -> None:
        m = self.minis[choice.mini]
        ability = m.abilities[choice.index]
        self.spawn_points -= choice.x if ability.cost_x else (ability.spawn_cost or 0)
        self.spawn_uses.append((choice.mini, choice.index))
        self._activate(m.id, m.id, choice.index, m.owner, chosen_x=choice.x)

    def push_ops(self, ops: list[Op]) -> None:
        """Queue the parts of an effect that must happen one at a time."""
        if ops:
            self.stack.append(ops)

    def _run_op(self) -> None:
        frame = self.stack[-1]
        op = frame.pop(0)
        assert isinstance(op, Op)
        if not frame:
            self.stack.pop()
        m = self.minis[op.mini]
        if op.kind is OpKind.MOVE:
            # 900.1c, 900.13: a target that left, or a cell now full, is skipped.
            if (
                m.cell >= 0
                and m.is_creature
                and m.cell != op.arg
                and self.creatures[m.owner][op.arg] < CREATURES_PER_PLAYER_PER_CELL
            ):
                self._move(m, op.arg)
        elif op.kind is OpKind.SWAP:
            other = self.minis[op.arg]
            if (
                m.cell >= 0
                and other.cell >= 0
                and m.cell != other.cell
                and m.is_creature
                and other.is_creature
            ):
                here, there = m.cell, other.cell
                self._place(m, Zone.DREAMSCAPE, there)
                self._place(other, Zone.DREAMSCAPE, here)
                self._emit(EventKind.ENTERED, m.id, there)
                self._emit(EventKind.ENTERED, other.id, here)
        elif op.kind is OpKind.ATTACK:
            self._start_special(op.mini, op.extra, op.arg)
        elif op.kind is OpKind.STRIKEBACK:
            # The attack is over and checked: it disrupted or destroyed its target, or nothing.
            if self.minis[op.arg].cell == op.extra:
                found = self._strikebacks(m.owner.other, op.extra)
                if found:
                    self._push_triggers(found)
        else:
            assert op.kind is OpKind.WAIL
            self.rolling = Rolling(Purpose.WAIL, m.owner, 2, [], attacker=m.id)

    def _strikebacks(self, owner: Player, cell: int) -> list[Trigger]:
        """``owner``'s active Strikeback abilities in ``cell``, as triggers."""
        return [
            Trigger(owner, mini, index, Event(EventKind.COMBAT_ENDED, -1, cell))
            for mini, index, ability in self.statics.of("Strikeback")
            if self.minis[mini].owner is owner
            and self.minis[mini].cell == cell
            and is_active(self, self.minis[mini], ability)
        ]

    def _fortunes(self, attackers: Iterable[int]) -> list[tuple[int, int, int]]:
        """The Fortunate abilities of the attacking creatures as (mini, index, X), in order
        (FAQ: each one rerolls separately)."""
        if not self.statics.of("Fortunate"):
            return []
        out = []
        for mini in attackers:
            m = self.minis[mini]
            for index, ability in enumerate(m.abilities):
                if ability.keyword == "Fortunate" and is_active(self, m, ability):
                    out.append((mini, index, ability.x or 0))
        return out

    def _start_roll(
        self,
        purpose: Purpose,
        owner: Player,
        count: int,
        attackers: Sequence[int],
        target: int = -1,
    ) -> None:
        """Roll ``count`` attack dice for ``attackers``; with none, the roll is over at once."""
        if count <= 0:
            self._finish_roll(purpose, owner, [], attackers[0] if attackers else -1, target)
            return
        attacker = attackers[0] if purpose is Purpose.SPECIAL else -1
        self.rolling = Rolling(purpose, owner, count, self._fortunes(attackers), attacker, target)

    def _rolled(self, values: Sequence[int]) -> None:
        rolling = self.rolling
        assert rolling is not None
        if rolling.purpose is Purpose.WAIL:
            self.rolling = None
            self._wail(rolling.attacker, values[0] + values[1])
            return
        faces = attack_faces(values)
        if rolling.stage is Stage.ROLL:
            rolling.dice = faces
        else:  # FAQ: a rerolled die takes its new result, whatever it is
            for value in rolling.rerolling:
                rolling.dice.remove(value)
            rolling.dice += faces
            rolling.rerolling = ()
            rolling.fortunes.pop(0)
        self._next_fortune()

    def _reroll(self, dice: tuple[int, ...]) -> None:
        rolling = self.rolling
        assert rolling is not None
        if not dice:
            rolling.fortunes.pop(0)
            self._next_fortune()
            return
        rolling.stage = Stage.REROLL
        rolling.rerolling = dice
        rolling.count = len(dice)

    def _next_fortune(self) -> None:
        rolling = self.rolling
        assert rolling is not None
        if rolling.fortunes and rolling.dice:
            rolling.stage = Stage.DECIDE
            rolling.count = 0
            return
        self.rolling = None
        self._finish_roll(
            rolling.purpose, rolling.owner, rolling.dice, rolling.attacker, rolling.target
        )

    def _finish_roll(
        self, purpose: Purpose, owner: Player, dice: list[int], attacker: int, target: int
    ) -> None:
        if purpose is Purpose.ATTACK:
            self._after_attack_roll(dice)
        elif purpose is Purpose.DEATHBLOW:
            combat = self._combat()
            self._begin_damage(owner, combat.damage_cell, dice_damage(dice), combat.relentless)
        else:
            assert purpose is Purpose.SPECIAL
            self._special_damage(attacker, target, dice_damage(dice))

    def _start_special(self, attacker: int, power: int, target: int) -> None:
        """A special attack (Ambush, Assault, Charge, Strikeback, Warpstrike): X dice plus
        Darkheart Cottage, rerolled by the attacker's Fortunate, blades missing (900.4)."""
        m = self.minis[attacker]
        if m.cell < 0:
            return  # the attacker has left the dreamscape: no attack
        if (
            self.combat is None
            and self.phase is Phase.ACTION
            and m.owner is self.active
            and self._strikebacks(m.owner.other, m.cell)
        ):
            # Strikeback: an attack in its cell outside a strike (a Charge while shifting)
            # is answered once it has resolved with what it is simultaneous with (900.7b).
            ops = [Op(OpKind.STRIKEBACK, attacker, target, m.cell)]
            below = len(self.stack) - 1 if self._triggers() is not None else len(self.stack)
            self.stack.insert(below, ops)
        elif self.combat is not None and self.combat.cell >= 0 and m.owner is self.active:
            # An attack in another cell during the strike (a Charge after Skirmish): the
            # enemies there may strike back in step 10 too (FAQ: Strikeback).
            combat = self.combat
            combat.defenders += tuple(
                c.id
                for c in self.creatures_in(m.cell, m.owner.other)
                if c.id not in combat.defenders
            )
        count = power + self.attack_bonus(m.owner, m.cell)
        self._start_roll(Purpose.SPECIAL, m.owner, count, (attacker,), target)

    def _special_damage(self, attacker: int, target: int, amount: int) -> None:
        """The damage of a special attack goes to its target, unless a Bodyguard stops it
        (FAQ: Bodyguard against Ambush and Warpstrike)."""
        m = self.minis[target]
        if amount <= 0 or m.cell < 0 or not m.is_creature:
            return
        local = [c.id for c in self.minis if c.cell == m.cell and c.owner is m.owner]
        if self._bodyguards_short(local, {target: amount}):
            return
        self.deal_damage(m, amount)
        source = self.minis[attacker]
        if has_active(self, source, "Relentless") is not None:
            self.no_disrupt.append(target)

    def _wail(self, wailer: int, total: int) -> None:
        """Banish each creature in the dreamscape whose printed spawn cost is ``total``
        (FAQ: just the number, not the aspect symbols; it may banish the wailer)."""
        for m in self.minis:
            if m.cell >= 0 and m.is_creature and m.defn.spawn_cost == total:
                self.send(m, Zone.RESERVES)

    def end_of_combat_due(self, m: Mini, index: int, ability: AbilityDef) -> bool:
        """Whether ``m``'s end-of-combat ability triggers at this step 10 (FAQ step 10 and
        Strikeback: each at most once per combat)."""
        combat = self.combat
        if m.cell < 0 or combat is None or combat.cell < 0 or (m.id, index) in combat.ended:
            return False
        keyword = ability.keyword
        if keyword == "Strikeback":
            return (
                m.id in combat.defenders
                and m.owner is not self.active
                and self.phase is Phase.ACTION
                and is_active(self, m, ability)
                and not any(self.minis[r].owner is m.owner for r in combat.removed)
            )
        if m.id not in combat.attackers:
            return False
        if keyword == "Bloodthirsty":
            return not any(
                self.minis[d].owner is not m.owner and self.minis[d].is_creature
                for d in combat.destroyed
            )
        return keyword in ("Detonate", "Fade")

    # --- effects' primitives (called by dbnet.engine.effects) ------------------------

    def sacrifice(self, m: Mini) -> None:
        """Glossary: to the graveyard; not destroyed, so no points, no bonus, no deathblow."""
        if m.cell >= 0:
            self._place(m, Zone.GRAVEYARD)

    def send(self, m: Mini, zone: Zone) -> None:
        """Move ``m`` to the reserves (banish, Raise) or the graveyard (Purge) as it is:
        neither destroyed nor sacrificed."""
        self._place(m, zone)

    def deal_damage(self, m: Mini, amount: int) -> None:
        """Damage from an ability (900.3): checked once the effects waiting resolve (900.7b),
        or in combat step 5 during a combat."""
        if amount > 0 and m.cell >= 0 and m.is_creature:
            m.damage += amount
            self._sync(m)
            self.damaged_outside_combat = self.combat is None

    def deal_to_each(self, victims: Sequence[Mini], amount: int, by: Player) -> None:
        """``amount`` damage to each of ``victims`` (Bomb): Bodyguards take theirs first, and
        the others only once every Bodyguard has enough."""
        ids = [v.id for v in victims if v.is_creature]
        guards = self.bodyguards(ids)
        for mini in guards:
            self.deal_damage(self.minis[mini], amount)
        others = [i for i in ids if i not in guards]
        if others and not self._bodyguards_short(ids, {others[0]: amount}):
            for mini in others:
                self.deal_damage(self.minis[mini], amount)

    def destroy_by_ability(self, m: Mini, by: Player) -> None:
        """Demolish: during a strike, marked now and destroyed in combat step 7 (FAQ)."""
        combat = self.combat
        if combat is not None and combat.cell >= 0:
            combat.marks[m.id] = (Fate.DESTROY, by)
        elif m.cell >= 0:
            self._destroy(m, by)

    def disrupt_by_ability(self, m: Mini, by: Player) -> None:
        """Dissipate: marked now and disrupted in combat step 7 by ``by`` (FAQ)."""
        if self.combat is None:
            self.combat = Combat(-1, (), self.step)
            self.combat.marks[m.id] = (Fate.DISRUPT, by)
            self._check_combat()
        else:
            self.combat.marks[m.id] = (Fate.DISRUPT, by)

    # --- turn structure ----------------------------------------------------------

    def _start_turn(self) -> None:
        self.turn += 1
        self.phase = Phase.INITIATIVE
        self.step = Step.ROLL_INITIATIVE
        self.initiative = [0, 0]
        self.reroll = (Player.A, Player.B)
        self.kills = [0, 0]
        self.locked_cells = 0  # Lockdown lasts the turn

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
        # 801.1, 801.2, 801.10: unmodified initiative dice plus bonus points; Energize.
        self.spawn_points = self.initiative[0] + self.initiative[1] + self.bonus[player]
        self.bonus[player] = 0
        for mini, _, ability in self.statics.of("Energize"):
            m = self.minis[mini]
            if m.owner is player and is_active(self, m, ability):
                self.spawn_points += ability.x or 0
        self.allies_at_spawn_start = self.creature_cells[player]
        self.spawned_into = [0] * board.CELL_COUNT
        self.spawn_uses = []

    def _end_spawn_phase(self) -> None:
        self.spawn_points = 0  # 801.9: leftover points are wasted
        self.spawn_uses = []
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
        moved = [m for m in self.minis if m.moved]
        for m in moved:
            m.moved = False
            self._sync(m)
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
        self.rolling = None
        self.choosing = None
        self.stack = []
        self.no_disrupt = []
        self.damaged_outside_combat = False

    def _clear_damage(self) -> None:
        damaged = [m for m in self.minis if m.damage]
        for m in damaged:
            m.damage = 0
            self._sync(m)
        self.no_disrupt = []  # Relentless holds as long as the damage it dealt (802.2h)

    # --- zones and movement ------------------------------------------------------

    def _place(self, m: Mini, zone: Zone, cell: int = -1) -> None:
        """The one place where a miniature changes zone or cell (keeps the counts right)."""
        counted = zone in _ASPECT_ZONES
        if counted != (m.zone in _ASPECT_ZONES):
            counts = self.aspect_counts[m.owner]
            for aspect, _ in m.needs:  # each of its aspects, once
                counts[aspect] += 1 if counted else -1
        if m.cell >= 0:
            if m.is_creature:
                counts = self.creatures[m.owner]
                counts[m.cell] -= 1
                if not counts[m.cell]:
                    self.creature_cells[m.owner] &= ~(1 << m.cell)
            else:
                self.location_at[m.cell] = -1
                self.location_cells &= ~(1 << m.cell)
        m.zone = zone
        m.cell = cell
        if cell >= 0:
            if m.is_creature:
                self.creatures[m.owner][cell] += 1
                self.creature_cells[m.owner] |= 1 << cell
            else:
                self.location_at[cell] = m.id
                self.location_cells |= 1 << cell
        else:
            m.damage = 0
        self._sync(m)

    def _sync(self, m: Mini) -> None:
        """Copy ``m``'s hashed fields into ``mini_words``: after every write to them."""
        words, i = self.mini_words, 4 * m.id
        words[i], words[i + 1], words[i + 2], words[i + 3] = m.zone, m.cell, m.damage, m.moved

    def _emit(self, kind: EventKind, mini: int = -1, cell: int = -1) -> None:
        if self.statics.by_event[kind]:
            found = triggers(self, kind, mini, cell)
            if found:
                self._push_triggers(found)

    def _push_triggers(self, found: list[Trigger]) -> None:
        """Triggers join the simultaneous ones waiting on top, or wait in a frame of their
        own above the effect that raised them."""
        frame = self._triggers()
        if frame is not None:
            frame.extend(found)
        else:
            self.stack.append(found)

    def _spawn(self, m: Mini, cell: int) -> None:
        self.spawn_points -= self.spawn_cost(m)
        self._place(m, Zone.DREAMSCAPE, cell)
        if m.is_creature:
            self.spawned_into[cell] += 1  # 801.5 counts creatures; a location comes on top
        self._emit(EventKind.SPAWNED, m.id, cell)

    def _move(self, m: Mini, cell: int) -> None:
        self._place(m, Zone.DREAMSCAPE, cell)
        self._emit(EventKind.ENTERED, m.id, cell)

    def _destroy(self, m: Mini, by: Player) -> None:
        """Put ``m`` into its owner's graveyard; ``by`` scores if it is an enemy (803.2, 300.6).

        Regenerate banishes it instead (no points, no bonus); Vessel changes the bonus.
        """
        cell = m.cell
        if m.is_creature and has_active(self, m, "Regenerate") is not None:
            self._place(m, Zone.RESERVES)
            return
        vessel = has_active(self, m, "Vessel")
        self._place(m, Zone.GRAVEYARD)
        self.bonus[m.owner] += (vessel.x or 0) if vessel is not None else 2
        if by is not m.owner:
            self.kills[by] += 1
        combat = self.combat
        if combat is not None:
            combat.destroyed.append(m.id)
            if m.is_creature:
                combat.removed.append(m.id)
        self._emit(EventKind.DESTROYED, m.id, cell)

    def _disrupt(self, m: Mini, cell: int) -> None:
        m.damage = 0  # 802.2f, combat step 8 (written with its new cell)
        self._place(m, Zone.DREAMSCAPE, cell)
        if self.combat is not None:
            self.combat.removed.append(m.id)
        self._emit(EventKind.DISRUPTED, m.id, cell)
        self._emit(EventKind.ENTERED, m.id, cell)

    # --- combat (FAQ combat sequence) ---------------------------------------------

    def _attack_power(self, owner: Player, attackers: Sequence[int], cell: int) -> int:
        """The dice of an attack: the attackers' power plus Darkheart Cottage's bonus."""
        return sum([self.power(self.minis[i]) for i in attackers]) + self.attack_bonus(owner, cell)

    def _relentless(self, attackers: Iterable[int]) -> bool:
        if not self.statics.of("Relentless"):
            return False
        return any(has_active(self, self.minis[i], "Relentless") is not None for i in attackers)

    def _start_combat(self, cell: int, attackers: tuple[int, ...]) -> None:
        """Steps 1-2: the cell and the attackers are declared; the dice are rolled."""
        self.attacked_cells |= 1 << cell
        defenders = self.creature_ids(cell, self.active.other)
        self.combat = Combat(cell, attackers, Step.STRIKE, defenders)
        self.combat.relentless = self._relentless(attackers)
        dice = self._attack_power(self.active, attackers, cell)
        self._start_roll(Purpose.ATTACK, self.active, dice, attackers)

    def _after_attack_roll(self, dice: Sequence[int]) -> None:
        """Step 3: blades then go to blade abilities one at a time."""
        combat = self._combat()
        combat.damage_total = dice_damage(dice)
        combat.blades = dice.count(BLADE_VALUE)
        self.step = Step.BLADE  # _advance ends it at once when no blade ability can take one

    def _assign_blade(self, holder: int, source: int, index: int) -> None:
        """Step 3: one blade (two for double blade abilities) activates the ability now."""
        combat = self._combat()
        ability = self.ability_def(source, index)
        combat.blades -= 2 if ability.is_double_blade else 1
        combat.record_use(holder, source, index)
        self._activate(holder, source, index, self.active)

    def _end_blades(self) -> None:
        """Step 4: damage from the dice and damage modifiers; it can't go below 0 (900.8)."""
        combat = self._combat()
        combat.blades = 0  # blades no ability can take are lost (900.10)
        total = combat.damage_total + combat.damage_bonus
        self._begin_damage(self.active, combat.cell, total if total > 0 else 0, combat.relentless)

    def _combat(self) -> Combat:
        assert self.combat is not None
        return self.combat

    def _begin_damage(self, owner: Player, cell: int, total: int, relentless: bool) -> None:
        combat = self._combat()
        combat.damage_owner = owner
        combat.damage_cell = cell
        combat.damage_total = total
        combat.relentless = relentless
        targets = self.creature_ids(cell, owner.other)
        if total <= 0 or not targets:
            self._deal_damage(())
            return
        if len(targets) == 1:
            self._deal_damage(((targets[0], total),))
            return
        guards = self.bodyguards(targets)
        if (
            len(guards) == 1
            and total <= self.bodyguard_need(guards[0]) - self.minis[guards[0]].damage
        ):
            self._deal_damage(((guards[0], total),))  # Bodyguard: the only legal split
        else:
            self.step = Step.DAMAGE

    def _deal_damage(self, assignments: Sequence[tuple[int, int]]) -> None:
        combat = self._combat()
        for mini, amount in assignments:
            self.minis[mini].damage += amount
            self._sync(self.minis[mini])
            if combat.relentless:
                self.no_disrupt.append(mini)
        combat.damage_total = 0
        if combat.in_deathblow:
            self._next_deathblow()
        else:
            self._check_combat()

    def _check_combat(self) -> None:
        """Step 5: which creatures will be disrupted or destroyed."""
        combat = self._combat()
        self.damaged_outside_combat = False
        damaged = [m for m in self.minis if m.damage > 0]
        for m in damaged:
            if m.cell < 0 or m.id in combat.marks or m.id in combat.fate_queue:
                continue
            defense, life = self.defense(m), self.life(m)
            by = m.owner.other
            unstoppable = m.id in self.no_disrupt or m.id in combat.ferocity
            if m.damage >= life:
                if m.damage >= defense and not unstoppable:
                    combat.fate_queue.append(m.id)  # 802.2d: the damaging player chooses
                else:
                    combat.marks[m.id] = (Fate.DESTROY, by)
            elif m.damage >= defense:
                if m.id in self.no_disrupt:
                    continue  # Relentless: it can't be disrupted
                fate = Fate.DESTROY if m.id in combat.ferocity else Fate.DISRUPT
                combat.marks[m.id] = (fate, by)
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
            for mini, (fate, _) in sorted(combat.marks.items()):
                m = self.minis[mini]
                if (
                    fate is Fate.DESTROY
                    and m.owner is not self.first
                    and m.is_creature
                    and mini not in combat.deathblown
                    and has_active(self, m, "Regenerate") is None  # banished, not destroyed
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
        combat.relentless = self._relentless(attackers)
        owner = self.first.other
        dice = self._attack_power(owner, attackers, cell) if attackers else 0
        self._start_roll(Purpose.DEATHBLOW, owner, dice, attackers)

    def _begin_resolve(self) -> None:
        """Step 7: the active player deals with the opponent's creatures first."""
        combat = self._combat()
        combat.resolver = self.active
        self.step = Step.RESOLVE

    def _resolve_step(self) -> bool:
        """Step 7, one miniature at a time; True when the resolving player must choose.

        Burying first only adds empty cells for the disrupted, so miniatures marked
        for destruction go first, in id order unless one of them has Reincarnate
        (then the order decides what it can bring back, and the player chooses) or a
        burial could decide whether a disrupted enemy finds an empty cell.
        """
        combat = self._combat()
        resolver = PLAYERS[combat.resolver]
        destroys = self._destroys_for(resolver)
        if destroys and self._bury_order_matters(resolver, destroys):
            self._choices = self._resolve_choices()
            return True
        if len(destroys) > 1 and any(
            any(a.keyword == "Reincarnate" for a in self.minis[d].abilities) for d in destroys
        ):
            self._choices = [BuryChoice(d) for d in destroys]
            return True
        if destroys:
            self._apply_resolution(BuryChoice(destroys[0]))
            return False
        # What is left is _disrupt_choices(), counted first: with many disrupted creatures
        # or empty cells, the resolver chooses (legal_choices() lists them if asked).
        disrupted = self._marked(Fate.DISRUPT, resolver)
        if disrupted:
            empties = self._empty_cells_for(resolver)
            if len(disrupted) > 1 or len(empties) > 1:
                return True
            mini = disrupted[0]
            self._apply_resolution(PlaceChoice(mini, empties[0]) if empties else BuryChoice(mini))
            return False
        if resolver is self.active:
            combat.resolver = resolver.other
        else:
            combat.resolver = -1
            self._check_combat()  # step 9: back to step 5
        return False

    def _apply_resolution(self, choice: BuryChoice | PlaceChoice) -> None:
        combat = self._combat()
        _, by = combat.marks.pop(choice.mini)
        m = self.minis[choice.mini]
        if m.cell < 0:
            return  # it left the dreamscape before its turn came (a sacrifice, a banishment)
        if isinstance(choice, BuryChoice):
            self._destroy(m, by=by)
        else:
            self._disrupt(m, choice.cell)

    def _start_damage_check(self) -> None:
        """900.3: ability damage outside combat is checked like combat steps 5-9."""
        self.combat = Combat(-1, (), self.step)
        self._check_combat()

    def _end_combat(self) -> None:
        """Step 10: end-of-combat effects, each once per combat; then the game goes on."""
        combat = self._combat()
        if combat.cell >= 0 and self.statics.triggered:
            found = triggers(self, EventKind.COMBAT_ENDED, -1, combat.cell)
            if found:
                combat.ended += ((t.mini, t.index) for t in found)
                self._push_triggers(found)
                self.step = Step.COMBAT_END
                return
        self.combat = None
        self.step = combat.resume


Frame = list[Op] | list[Trigger]


def _by_owner(minis: list[Mini]) -> tuple[list[Mini], list[Mini]]:
    return [m for m in minis if m.owner is Player.A], [m for m in minis if m.owner is Player.B]


def _copy_frame(frame: Frame) -> Frame:
    return list(frame)  # type: ignore[return-value]


def _unguarded(choice: DamageChoice, short: list[tuple[int, int]]) -> list[int]:
    guards = {g for g, _ in short}
    return [mini for mini, _ in choice.assignments if mini not in guards]


def _check_field_types(choice: Choice) -> None:
    """Fields are ints (bools only for ``destroy``): ``True == 1`` must not pass for a miniature."""
    for name in getattr(type(choice), "__slots__", ()):
        value = getattr(choice, name)
        if type(value) is not int or name == "destroy":  # a plain int is right but for destroy
            _check_value(choice, name, value)


def _check_value(choice: Choice, name: str, value: object) -> None:
    if isinstance(value, tuple):
        for item in value:
            _check_value(choice, name, item)
    elif (type(value) is not bool) if name == "destroy" else (type(value) is not int):
        raise InvalidChoiceError(f"{type(choice).__name__}.{name} holds {value!r}, not an int")


_PLAY: Final[dict[type, Callable[[Game, Choice, Decision], None]]] = {
    RerollChoice: Game._play_reroll,
    TargetChoice: Game._play_target,
    OrderChoice: Game._play_order,
    Done: Game._play_done,
    SpawnChoice: Game._play_spawn,
    ActivateChoice: Game._play_activate,
    ShiftChoice: Game._play_action,
    StrikeChoice: Game._play_action,
    MoveChoice: Game._play_move,
    AttackChoice: Game._play_attack,
    BladeChoice: Game._play_blade,
    DamageChoice: Game._play_damage,
    FateChoice: Game._play_fate,
    DeathblowChoice: Game._play_deathblow,
    BuryChoice: Game._play_resolve,
    PlaceChoice: Game._play_resolve,
}
"""How ``Game.apply`` plays a legal choice, by its type (each type answers one kind of
decision, but DONE ends a spawn phase, a shift or a strike). A type is a faster key than
a ``DecisionKind``, whose hash is Python code."""

_STEP_WORK: Final[dict[Step, Callable[[Game], bool]]] = {
    Step.SPAWN: Game._spawn_step,
    Step.SHIFT: Game._shift_step,
    Step.STRIKE: Game._strike_step,
    Step.BLADE: Game._blade_step,
    Step.RESOLVE: Game._resolve_step,
    Step.COMBAT_END: Game._combat_end_step,
}
"""What ``Game._advance`` does at the steps with automatic work; the other steps (and the
game's end) only wait for input. Spawn, shift and strike end once their decision offers
nothing besides DONE."""

_CHOICE_TYPES: dict[DecisionKind, tuple[type, ...]] = {
    DecisionKind.SPAWN: (SpawnChoice, ActivateChoice, Done),
    DecisionKind.ACTION: (ShiftChoice, StrikeChoice),
    DecisionKind.SHIFT: (MoveChoice, Done),
    DecisionKind.STRIKE: (AttackChoice, Done),
    DecisionKind.BLADE: (BladeChoice,),
    DecisionKind.ORDER: (OrderChoice,),
    DecisionKind.DAMAGE: (DamageChoice,),
    DecisionKind.FATE: (FateChoice,),
    DecisionKind.DEATHBLOW: (DeathblowChoice,),
    DecisionKind.RESOLVE: (PlaceChoice, BuryChoice),
    DecisionKind.TARGET: (TargetChoice,),
    DecisionKind.REROLL: (RerollChoice,),
}

_ANSWERS: Final[dict[type, tuple[DecisionKind, ...]]] = {
    choice_type: tuple(kind for kind, types in _CHOICE_TYPES.items() if choice_type in types)
    for types in _CHOICE_TYPES.values()
    for choice_type in types
}
"""The kinds of decision each type of choice answers: ``_CHOICE_TYPES`` the other way round,
for ``Game._is_legal`` (a type is a faster key than a ``DecisionKind``)."""
