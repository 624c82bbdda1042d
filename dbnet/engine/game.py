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
(the mutable fields and their copy), ``listing`` and ``checking`` (the legal
choices listed, one choice checked), ``turnflow`` (pending item, automatic work,
the turn), ``zones`` (spawning, moving, destroying), ``stack`` and ``activation``
(the work waiting, and abilities activated), ``effects``, ``procedure`` and
``resolution`` (combat and rolls), ``abilities`` (what abilities change) and
``statehash``. Each of them works on the state (``State``, which holds the
``Rules``), never on this facade: ``Game`` is the state with the public API on
top, and the only module that imports them all (docs/architecture.md, "Inside
the engine").

Determinism: no floats, clocks, randomness or iteration over sets; the state
is ints, tuples and lists, and ``state_hash`` packs it into fixed-width ints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import is_

from dbnet.engine import (
    abilities,
    checking,
    costs,
    limited,
    listing,
    procedure,
    statehash,
    turnflow,
)
from dbnet.engine.choices import (
    ChanceRequest,
    Choice,
    CommitChoice,
    Decision,
    Pending,
    RevealChoice,
)
from dbnet.engine.combat import ATTACK_DAMAGE, BLADE_VALUE, dice_damage
from dbnet.engine.enums import EndReason, Mode, Phase, Step, Zone
from dbnet.engine.model import GameSetup, Player
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
from dbnet.engine.state import Mini, State
from dbnet.engine.statehash import HASH_VERSION
from dbnet.engine.statics import Statics
from dbnet.engine.waiting import Frame
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

    legal_choices = listing.legal_choices
    """Every legal choice for the pending decision, in a fixed order (see
    ``listing.legal_choices``)."""

    def check_choice(self, choice: Choice) -> None:
        """Raise InvalidChoiceError or IllegalChoiceError unless ``choice`` is legal now."""
        if self.build is not None or isinstance(choice, (CommitChoice, RevealChoice)):
            self._check_build(choice)
            return
        checking.checked(self, self.pending, choice)

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
        picked = listed is not None and any(map(is_, listed, repeat(choice)))
        if picked:
            pending = self.pending  # taken from the legal choices, as bots take them
            assert isinstance(pending, Decision)
        else:
            pending = checking.checked(self, self.pending, choice)
        self._invalidate()
        self._lists_ahead = picked
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

    # --- queries ----------------------------------------------------------------
    # The state's own (``in_cell``, ``creature_ids``, ...) come with ``State``; these are
    # ``abilities``' functions of a state, made methods of the game as they are.

    power = abilities.power
    defense = abilities.defense
    life = abilities.life
    stat = abilities.stat
    ability_def = abilities.ability_def
    claimed_points = abilities.claimed_points
    attack_bonus = abilities.attack_bonus
    bodyguards = abilities.bodyguards
    bodyguard_need = abilities.bodyguard_need
    end_of_combat_due = abilities.end_of_combat_due

    def spawn_cost(self, m: Mini) -> int:
        """What spawning ``m`` costs its owner now: spawn cost (Respawn's cost from the
        graveyard) plus aspect shortfall (801.4), less Channel, at least 0 (900.8)."""
        return costs.spawn_cost(self, m, self.aspect_counts[m.owner])

    def spawn_cost_parts(self, m: Mini) -> tuple[int, int, int]:
        """``spawn_cost`` in parts, before the 900.8 floor: (spawn cost, aspect
        shortfall, Channel's reduction)."""
        return costs.spawn_cost_parts(self, m, self.aspect_counts[m.owner])
