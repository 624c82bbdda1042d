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
handler changes the state and then calls ``turnflow.advance``, which runs automatic
work (effects, phase ends, conquest, forced decisions) until input is needed.
Combat follows the FAQ's ten-step sequence; its progress lives in ``Combat``.

The parts: ``rules`` (what the setup fixes, shared by every copy), ``state``
(the mutable fields and their copy), ``legality`` (legal choices), ``turnflow``
(pending item, automatic work, the turn), ``zones`` (spawning, moving,
destroying), ``stack`` (activated and triggered abilities), ``procedure``
(combat and rolls) and ``statehash``. ``Game`` is the state with the public
API and the queries the rest of the engine asks.

Determinism: no floats, clocks, randomness or iteration over sets; the state
is ints, tuples and lists, and ``state_hash`` packs it into fixed-width ints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import is_

from dbnet.engine import board, legality, limited, procedure, stack, statehash, turnflow, zones
from dbnet.engine.abilities import (
    EventKind,
    Stat,
    Statics,
    ability_def,
    apply_minimum,
    base_power,
    has_active,
    is_active,
    stat_modifier,
)
from dbnet.engine.choices import (
    ChanceRequest,
    Choice,
    CommitChoice,
    Decision,
    Pending,
    RevealChoice,
)
from dbnet.engine.combat import ATTACK_DAMAGE, BLADE_VALUE, Combat, Fate, dice_damage
from dbnet.engine.effects import Op
from dbnet.engine.enums import EndReason, Mode, Phase, Step, Zone
from dbnet.engine.model import AbilityDef, GameSetup, Player
from dbnet.engine.rules import (
    CREATURES_PER_PLAYER_PER_CELL,
    INERT,
    MAX_COPIES,
    MAX_WARBAND,
    MAX_WARBAND_POWER,
    Breach,
    Rules,
    check_warband_size,
    make_handles,
    playable_abilities,
    warband_breaches,
)
from dbnet.engine.state import Frame, Mini, State, sync
from dbnet.engine.statehash import HASH_VERSION
from dbnet.errors import GameOverError, IllegalChoiceError, InvalidChoiceError

__all__ = [
    "ATTACK_DAMAGE",
    "BLADE_VALUE",
    "CREATURES_PER_PLAYER_PER_CELL",
    "HASH_VERSION",
    "INERT",
    "MAX_COPIES",
    "MAX_WARBAND",
    "MAX_WARBAND_POWER",
    "Breach",
    "EndReason",
    "Frame",
    "Game",
    "Mini",
    "Mode",
    "Phase",
    "Rules",
    "Step",
    "Zone",
    "check_warband_size",
    "dice_damage",
    "make_handles",
    "playable_abilities",
    "warband_breaches",
]


class Game(State):
    """One game of Dreamblade between A and B. See the module docstring."""

    __slots__ = ()

    def __init__(self, setup: GameSetup, *, allow_unimplemented: bool = False) -> None:
        """A new game at its first initiative roll. A miniature with an ability the engine
        does not play is refused (DataError naming it and why) unless
        ``allow_unimplemented``, when that ability simply has no effect. A Limited setup
        starts in its build phase instead (``build``, docs/limited.md)."""
        super().__init__(Rules.from_setup(setup, allow_unimplemented=allow_unimplemented))
        if setup.limited is None:
            turnflow.start_turn(self)
        else:
            self.build = limited.start_build(setup, allow_unimplemented)

    # --- the setup (``rules``) ---------------------------------------------------

    @property
    def setup(self) -> GameSetup:
        return self.rules.setup

    @property
    def values(self) -> tuple[int, ...]:
        """Each cell's key-cell value."""
        return self.rules.values

    @property
    def statics(self) -> Statics:
        return self.rules.statics

    @property
    def handles(self) -> tuple[Mapping[str, int], Mapping[str, int]]:
        """Each player's miniature ids by handle."""
        return self.rules.handles

    # --- the pending item and input ----------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.step is Step.OVER

    @property
    def pending(self) -> Pending | None:
        """The one item the game waits for, or None when the game is over."""
        if self._pending is None:
            build = self.build
            self._pending = turnflow.make_pending(self) if build is None else build.pending()
        return self._pending

    def legal_choices(self) -> list[Choice] | None:
        """Every legal choice for the pending decision, in a fixed order.

        None when the game waits for dice or is over, and for DAMAGE, whose
        choices are the many splits of ``Decision.total`` among its targets
        (use ``check_choice`` to validate one).
        """
        if self.build is not None:
            return None  # commitments and warbands are not listed
        if self._choices is None:
            self._choices = legality.make_choices(self)
        return self._choices

    def check_choice(self, choice: Choice) -> None:
        """Raise InvalidChoiceError or IllegalChoiceError unless ``choice`` is legal now."""
        if self.build is not None or isinstance(choice, (CommitChoice, RevealChoice)):
            self._check_build(choice)
            return
        legality.checked(self, choice)

    def apply(self, choice: Choice) -> None:
        """Play ``choice`` for the pending decision; raise and change nothing if it is not legal."""
        if self.build is not None or isinstance(choice, (CommitChoice, RevealChoice)):
            build = self._check_build(choice)
            self._invalidate()
            if len(build.warbands) < 2:
                self.build = build
                return
            # Both warbands are revealed: the game is a normal one with them from now on.
            built = limited.built_setup(self.setup, build)
            State.__init__(
                self, Rules.from_setup(built, allow_unimplemented=build.allow_unimplemented)
            )
            turnflow.start_turn(self)
            return
        listed = self._choices
        if listed is not None and any(map(is_, listed, repeat(choice))):
            pending = self.pending  # taken from the legal choices, as bots take them
            assert isinstance(pending, Decision)
        else:
            pending = legality.checked(self, choice)
        self._invalidate()
        turnflow.PLAY[type(choice)](self, choice, pending)
        turnflow.advance(self)

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
        if self.build is not None:
            self.build = limited.rolled(self.setup, self.build, values)
            return
        if self.rolling is not None:
            procedure.rolled(self, values)
        else:
            assert self.step is Step.ROLL_INITIATIVE
            for player, value in zip(self.reroll, values, strict=True):
                self.initiative[player] = value
            turnflow.after_initiative(self)
        turnflow.advance(self)

    def resign(self, player: Player) -> None:
        """``player`` concedes; the other player wins. Allowed at any time before the end."""
        if self.step is Step.OVER:
            raise GameOverError(f"the game is over; {player.name} cannot resign")
        self._invalidate()
        self.build = None
        turnflow.finish(self, player.other, EndReason.RESIGNATION)

    # --- hashing -----------------------------------------------------------------

    def encode(self) -> list[int]:
        """The whole state as a flat list of ints (the canonical encoding, see docs); in a
        Limited game's build phase, the build's bytes follow, one int each."""
        if self.build is not None:
            return [*statehash.encode(self), *self.build.hash_bytes()]
        return statehash.encode(self)

    def state_hash(self) -> bytes:
        """SHA-256 over the setup digest and the canonical state encoding (``encode``); in a
        Limited game's build phase, SHA-256 over the setup digest and the build's bytes."""
        if self.build is not None:
            hasher = self.rules.hash_start.copy()
            hasher.update(self.build.hash_bytes())
            return hasher.digest()
        return statehash.state_hash(self)

    # --- Limited play ------------------------------------------------------------

    def _check_build(self, choice: Choice) -> limited.Build:
        """The build phase after ``choice``; raise if it is not legal now."""
        if self.step is Step.OVER:
            raise GameOverError(f"the game is over; {choice!r} cannot be played")
        if self.build is None:
            raise IllegalChoiceError(
                "commitments and reveals are only played in a Limited game's build phase"
            )
        return limited.check(self.setup, self.build, choice)

    # --- queries -----------------------------------------------------------------

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
        statics = self.rules.statics
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
        graveyard) plus aspect shortfall (801.4), less Channel, at least 0 (900.8)."""
        return legality.spawn_cost(self, m, self.aspect_counts[m.owner])

    def spawn_cost_parts(self, m: Mini) -> tuple[int, int, int]:
        """``spawn_cost`` in parts, before the 900.8 floor: (spawn cost, aspect
        shortfall, Channel's reduction)."""
        return legality.spawn_cost_parts(self, m, self.aspect_counts[m.owner])

    def claimed_points(self, player: Player) -> int:
        """803.1: the value of the scoring cells ``player`` claims now (Dominate claims a
        contested cell)."""
        total = 0
        dominators = self.rules.statics.of("Dominate")
        for cell in board.SCORING_CELLS[player]:
            if not self.creatures[player][cell]:
                continue
            if not self.creatures[player.other][cell] or (
                dominators and self._dominates(player, cell)
            ):
                total += self.rules.values[cell]
        return total

    def _dominates(self, player: Player, cell: int) -> bool:
        for mini, _, ability in self.rules.statics.of("Dominate"):
            m = self.minis[mini]
            if m.owner is player and m.cell == cell and is_active(self, m, ability):
                return True
        return False

    def attack_bonus(self, owner: Player, cell: int) -> int:
        """Darkheart Cottage: each attack ``owner``'s creatures make in its cell has +1
        power per unengaged creature ``owner`` controls (FAQ: any kind of attack)."""
        bonus = 0
        for mini, _, ability in self.rules.statics.of("Darkheart Cottage"):
            m = self.minis[mini]
            if m.owner is owner and m.cell == cell and cell >= 0 and is_active(self, m, ability):
                bonus += sum(
                    1
                    for c in self.minis
                    if c.owner is owner and c.cell >= 0 and c.is_creature
                    and not self.creatures[owner.other][c.cell]
                )  # fmt: skip
        return bonus

    def bodyguards(self, targets: Sequence[int]) -> list[int]:
        """The targets with an active Bodyguard."""
        if not self.rules.statics.of("Bodyguard"):
            return []
        return [i for i in targets if has_active(self, self.minis[i], "Bodyguard") is not None]

    def bodyguard_need(self, mini: int) -> int:
        """The damage a Bodyguard must have before its allies may take any: enough to
        disrupt or destroy it."""
        m = self.minis[mini]
        return min(self.defense(m), self.life(m))

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

    # --- effects' primitives (called by dbnet.engine.effects) --------------------

    def emit(self, kind: EventKind, mini: int = -1, cell: int = -1) -> None:
        """Raise an event for the abilities that trigger on it (``stack.emit``); the zone
        changes call it through the game, so that ``zones`` needs not import ``stack``."""
        stack.emit(self, kind, mini, cell)

    def start_special(self, attacker: int, power: int, target: int) -> None:
        """Start a special attack (``procedure.start_special``), for the effect stack."""
        procedure.start_special(self, attacker, power, target)

    def push_ops(self, ops: list[Op]) -> None:
        """Queue the parts of an effect that must happen one at a time."""
        if ops:
            self.stack.append(ops)

    def sacrifice(self, m: Mini) -> None:
        """Glossary: to the graveyard; not destroyed, so no points, no bonus, no deathblow."""
        if m.cell >= 0:
            zones.place(self, m, Zone.GRAVEYARD)

    def send(self, m: Mini, zone: Zone) -> None:
        """Move ``m`` to the reserves (banish, Raise) or the graveyard (Purge) as it is:
        neither destroyed nor sacrificed."""
        zones.place(self, m, zone)

    def deal_damage(self, m: Mini, amount: int) -> None:
        """Damage from an ability (900.3): checked once the effects waiting resolve (900.7b),
        or in combat step 5 during a combat."""
        if amount > 0 and m.cell >= 0 and m.is_creature:
            m.damage += amount
            sync(self, m)
            self.damaged_outside_combat = self.combat is None

    def deal_to_each(self, victims: Sequence[Mini], amount: int, by: Player) -> None:
        """``amount`` damage to each of ``victims`` (Bomb): Bodyguards take theirs first, and
        the others only once every Bodyguard has enough."""
        ids = [v.id for v in victims if v.is_creature]
        guards = self.bodyguards(ids)
        for mini in guards:
            self.deal_damage(self.minis[mini], amount)
        others = [i for i in ids if i not in guards]
        if others and not legality.bodyguards_short(self, ids, {others[0]: amount}):
            for mini in others:
                self.deal_damage(self.minis[mini], amount)

    def destroy_by_ability(self, m: Mini, by: Player) -> None:
        """Demolish: during a strike, marked now and destroyed in combat step 7 (FAQ)."""
        combat = self.combat
        if combat is not None and combat.cell >= 0:
            combat.marks[m.id] = (Fate.DESTROY, by)
        elif m.cell >= 0:
            zones.destroy(self, m, by)

    def disrupt_by_ability(self, m: Mini, by: Player) -> None:
        """Dissipate: marked now and disrupted in combat step 7 by ``by`` (FAQ)."""
        if self.combat is None:
            self.combat = Combat(-1, (), self.step)
            self.combat.marks[m.id] = (Fate.DISRUPT, by)
            procedure.check_combat(self)
        else:
            self.combat.marks[m.id] = (Fate.DISRUPT, by)
