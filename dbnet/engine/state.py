"""A game's state: everything that changes as the game is played, and its copy.

``State`` holds a reference to the game's ``Rules`` and the mutable fields only.
``FIELDS`` names every field with the way a copy copies it and is the class's
``__slots__``, so no field can be added without saying how it is copied; the
miniatures are ``Mini`` records, one per piece of the rules. The modules that
play the rules take a state (never the ``Game`` above them); ``Game`` (in
``game``) is this state with the public API on top.

Determinism: the fields are ints, enums, tuples, lists and frozen records; no
sets, no floats.
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING, Final, Self

from dbnet.engine import board
from dbnet.engine.canonical import int_words
from dbnet.engine.copying import Copy, CopyPlan
from dbnet.engine.enums import EndReason, Mode, Phase, Step, Zone
from dbnet.engine.model import AbilityDef, Aspect, MiniatureDef, Player
from dbnet.engine.rules import Rules
from dbnet.engine.waiting import Frame

if TYPE_CHECKING:
    from array import array

    from dbnet.engine.choices import Choice, Pending
    from dbnet.engine.combat import Combat, Rolling
    from dbnet.engine.limited import Build
    from dbnet.engine.waiting import Targeting


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
        """A copy (every field is immutable; written out, since a game copies them all).
        ``tests/engine/test_copy.py`` reads every slot of a clone, so none can be missed."""
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


_MINI_FIELDS = attrgetter("zone", "cell", "damage", "moved")
"""A miniature's hashed state, in ``State.mini_words`` order."""

FIELDS: Final[dict[str, Copy]] = {
    "rules": Copy.SHARE,
    "minis": Copy.CLONES,
    "warband_minis": Copy.DERIVED,
    "mini_words": Copy.LIST,
    "creatures": Copy.ROWS,
    "location_at": Copy.LIST,
    "creature_cells": Copy.LIST,
    "location_cells": Copy.SHARE,
    "aspect_counts": Copy.ROWS,
    "turn": Copy.SHARE,
    "phase": Copy.SHARE,
    "step": Copy.SHARE,
    "turns_won": Copy.LIST,
    "bonus": Copy.LIST,
    "kills": Copy.LIST,
    "initiative": Copy.LIST,
    "reroll": Copy.SHARE,
    "had_one_last_turn": Copy.SHARE,
    "skip_spawn": Copy.SHARE,
    "first": Copy.SHARE,
    "active": Copy.SHARE,
    "action_index": Copy.SHARE,
    "spawn_points": Copy.SHARE,
    "allies_at_spawn_start": Copy.SHARE,
    "spawned_into": Copy.LIST,
    "spawn_uses": Copy.LIST,
    "mode": Copy.SHARE,
    "attacked_cells": Copy.SHARE,
    "locked_cells": Copy.SHARE,
    "combat": Copy.CLONE,
    "winner": Copy.SHARE,
    "end_reason": Copy.SHARE,
    "conquest_history": Copy.LIST,
    "stack": Copy.ROWS,
    "rolling": Copy.CLONE,
    "choosing": Copy.SHARE,
    "no_disrupt": Copy.LIST,
    "damaged_outside_combat": Copy.SHARE,
    "build": Copy.SHARE,
    "_pending": Copy.CACHE,
    "_choices": Copy.CACHE,
    "_lists_ahead": Copy.SHARE,
}
"""Every field of a state and how ``State.copy`` copies it (the rules are shared)."""

_PLAN: Final = CopyPlan(FIELDS)


class State:
    """The rules of a game and where the game is now. See the module docstring."""

    __slots__ = tuple(FIELDS)

    rules: Rules
    minis: list[Mini]
    warband_minis: tuple[list[Mini], list[Mini]]
    mini_words: array[int]
    creatures: list[list[int]]
    location_at: list[int]
    creature_cells: list[int]
    location_cells: int
    aspect_counts: list[list[int]]
    turn: int
    phase: Phase
    step: Step
    turns_won: list[int]
    bonus: list[int]
    kills: list[int]
    initiative: list[int]
    reroll: tuple[Player, ...]
    had_one_last_turn: bool
    skip_spawn: bool
    first: Player
    active: Player
    action_index: int
    spawn_points: int
    allies_at_spawn_start: int
    spawned_into: list[int]
    spawn_uses: list[tuple[int, int]]
    mode: Mode
    attacked_cells: int
    locked_cells: int
    combat: Combat | None
    winner: Player | None
    end_reason: EndReason | None
    conquest_history: list[tuple[int, int]]
    stack: list[Frame]
    rolling: Rolling | None
    choosing: Targeting | None
    no_disrupt: list[int]
    damaged_outside_combat: bool
    build: Build | None
    _pending: Pending | None
    _choices: list[Choice] | None
    _lists_ahead: bool

    def __init__(self, rules: Rules) -> None:
        """The state before the first turn starts: every miniature in its reserves."""
        self.rules = rules
        self.minis = [
            Mini(i, p.owner, p.defn, p.handle, p.abilities) for i, p in enumerate(rules.pieces)
        ]
        self._derive()
        self.mini_words = int_words(chain.from_iterable(map(_MINI_FIELDS, self.minis)))
        """Every miniature's hashed fields (zone, cell, damage, moved), in id order: kept in
        step by each write (``sync``) so that the state hash reads them in one go."""
        # creature counts per player per cell, and the location in each cell (-1: none)
        self.creatures = [[0] * board.CELL_COUNT, [0] * board.CELL_COUNT]
        self.location_at = [-1] * board.CELL_COUNT
        self.creature_cells = [0, 0]
        """Per player, the cells where that player has a creature, as a bitmask (the cells
        whose count in ``creatures`` is not 0). Read-only outside ``zones.place``."""
        self.location_cells = 0
        """The cells with a location, as a bitmask (``location_at`` not -1). Read-only outside
        ``zones.place``."""
        self.aspect_counts = [[0] * len(Aspect), [0] * len(Aspect)]
        """Per player, per aspect: that player's miniatures of that aspect in the dreamscape
        or the graveyard, which count towards aspect costs (801.4). Read-only outside
        ``zones.place``."""

        self.turn = 0
        self.phase = Phase.INITIATIVE
        self.step = Step.ROLL_INITIATIVE
        self.turns_won = [0, 0]
        self.bonus = [0, 0]  # 801.2: bonus spawn points waiting for the next spawn phase
        self.kills = [0, 0]  # 803.2: enemy miniatures destroyed this turn
        self.initiative = [0, 0]
        self.reroll = (Player.A, Player.B)
        self.had_one_last_turn = False
        self.skip_spawn = False
        self.first = Player.A
        self.active = Player.A
        self.action_index = 0
        self.spawn_points = 0
        self.allies_at_spawn_start = 0  # bitmask of cells (801.5 condition 1)
        self.spawned_into = [0] * board.CELL_COUNT
        self.spawn_uses = []  # spawn abilities used this phase (801.8)
        self.mode = Mode.NONE
        self.attacked_cells = 0  # bitmask (802.2a)
        self.locked_cells = 0  # bitmask: Lockdown, no creature shifts out this turn
        self.combat = None
        self.winner = None
        self.end_reason = None
        self.conquest_history = []
        self.stack = []
        """Work waiting, innermost last: each frame is simultaneous triggered effects (900.7)
        or the rest of one effect (its moves, attacks and rolls, in order)."""
        self.rolling = None
        self.choosing = None  # an ability waiting for its targets (900.9)
        self.no_disrupt = []  # damaged by Relentless this phase: can't be disrupted
        self.damaged_outside_combat = False  # 900.3: check disruption once effects resolve
        self.build = None
        """A Limited game's build phase (``limited.Build``) until both warbands are revealed;
        None in every other game and once they are."""
        self._pending = None
        self._choices = None
        self._lists_ahead = False
        """Whether a spawn or a shift lists its choices as soon as it is reached, the list
        then saying whether it offers any: so once the last choice was picked from its
        list (a bot's), which costs one listing a decision. Else (choices read and checked
        one by one: a verifier's, a peer's) it only asks whether (``listing.may_spawn``,
        ``may_move``) and lists when asked. ``Game.apply`` sets it; no rule depends on it."""

    def _derive(self) -> None:
        """Set the ``Copy.DERIVED`` fields from the others: ``warband_minis``, each player's
        miniatures (objects of ``minis``) in id order, for the many passes over one player's."""
        split = self.rules.split
        self.warband_minis = (self.minis[:split], self.minis[split:])

    def copy(self) -> Self:
        """An independent state in the same position, sharing only immutable parts."""
        other = object.__new__(type(self))
        _PLAN.copy(self, other)
        other._derive()
        return other

    def copy_from(self, other: State) -> None:
        """Put this state in ``other``'s position, in place: what ``copy`` makes, in this
        object, so that whoever holds it sees the game move on (a game shown on a screen
        while another object plays it)."""
        _PLAN.copy(other, self)
        self._derive()

    def _invalidate(self) -> None:
        """Forget the pending item and its legal choices: the state is about to change."""
        self._pending = None
        self._choices = None

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

    def ongoing_combat(self) -> Combat:
        """The combat in progress (there must be one)."""
        assert self.combat is not None
        return self.combat


def sync(state: State, m: Mini) -> None:
    """Copy ``m``'s hashed fields into ``mini_words``: after every write to them."""
    words, i = state.mini_words, 4 * m.id
    words[i], words[i + 1], words[i + 2], words[i + 3] = m.zone, m.cell, m.damage, m.moved
