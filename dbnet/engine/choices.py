"""What a player can choose, and what the engine is waiting for.

Miniatures are named by their index in the game (``Game.minis``): A's warband
first, then B's. Cells are ints (see ``board``). Choices are plain values; the
game decides whether one is legal now.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from dbnet.engine.board import CELL_COUNT
from dbnet.engine.model import Player


class DecisionKind(enum.Enum):
    """The kinds of decision a player can owe, in the order a turn meets them."""

    SPAWN = "spawn"  # 801: spawn a miniature or end the spawn phase
    ACTION = "action"  # 802: shift or strike
    SHIFT = "shift"  # 802.1: move one unengaged creature or end the shift
    STRIKE = "strike"  # 802.2: start a combat in a cell or end the strike
    BLADE = "blade"  # combat step 3: which blade ability takes the next blade
    DAMAGE = "damage"  # combat step 4 / 6: split damage among local enemies
    FATE = "fate"  # 802.2d: disrupt or destroy a creature that reached both
    DEATHBLOW = "deathblow"  # 802.2g: which dying creatures make the deathblow
    RESOLVE = "resolve"  # combat step 7: next creature to destroy or place
    ORDER = "order"  # 900.7a: which of one's simultaneous triggered effects resolves next
    TARGET = "target"  # 900.9: the targets of an ability being activated
    REROLL = "reroll"  # Fortunate: which dice to reroll
    COMMIT = "commit"  # Limited play: the hash of the warband built from one's pool
    REVEAL = "reveal"  # Limited play: the warband committed to and its salt

    def __repr__(self) -> str:
        return f"DecisionKind.{self.name}"


class ChanceKind(enum.Enum):
    INITIATIVE = "initiative"
    ATTACK = "attack"  # a regular attack while striking
    DEATHBLOW = "deathblow"
    SPECIAL = "special"  # a special attack of an ability (Ambush, Assault ...); blades miss
    REROLL = "reroll"  # Fortunate's rerolled dice
    WAIL = "wail"  # Wail's two initiative dice
    PACKS = "packs"  # Limited play: the dice the players' pools are drawn from

    def __repr__(self) -> str:
        return f"ChanceKind.{self.name}"


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision owed by ``player``.

    For DAMAGE the choice space is large: ``total`` is the damage to assign and
    ``targets`` the miniatures that may take it; the game validates a split.
    ``cell`` is the cell the decision is about (combat cell, deathblow cell).
    ``minis`` lists the miniatures the decision is about (dying creatures,
    creatures awaiting fate or resolution; for TARGET and REROLL the miniature
    whose ability it is; for ORDER the miniatures whose effects wait, as ``order N``
    counts them). ``ability`` names that ability as (source miniature, index): the
    source is the miniature that prints it (Copy) or grants it (Hell's Fury); for
    ORDER it holds each waiting effect's ability index, in the order of ``minis``.
    For REROLL, ``dice`` are the dice as they stand and ``total`` how many may be
    rerolled.
    """

    player: Player
    kind: DecisionKind
    cell: int = -1
    total: int = 0
    targets: tuple[int, ...] = ()
    minis: tuple[int, ...] = ()
    ability: tuple[int, ...] = ()
    dice: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class ChanceRequest:
    """The engine needs ``count`` six-sided dice (values 1-6).

    For INITIATIVE, ``players`` says whose initiative die each value is, in order.
    Attack dice read 1, 2, 3 as damage, 4 and 5 as misses, 6 as a blade (302).
    """

    kind: ChanceKind
    count: int
    players: tuple[Player, ...] = ()
    owner: Player | None = None


Pending = Decision | ChanceRequest


# --- choices ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Done:
    """End the current spawn phase, shift or strike."""


@dataclass(frozen=True, slots=True)
class SpawnChoice:
    """Spawn ``mini`` from the reserves (or, with Respawn, the graveyard) into ``cell``."""

    mini: int
    cell: int


@dataclass(frozen=True, slots=True)
class ActivateChoice:
    """801.8: activate spawn ability ``index`` of ``mini``; ``x`` is X for an X cost."""

    mini: int
    index: int
    x: int = 0


@dataclass(frozen=True, slots=True)
class ShiftChoice:
    """Choose to shift this action phase (802.1)."""


@dataclass(frozen=True, slots=True)
class StrikeChoice:
    """Choose to strike this action phase (802.2)."""


@dataclass(frozen=True, slots=True)
class MoveChoice:
    mini: int
    cell: int


@dataclass(frozen=True, slots=True)
class AttackChoice:
    """Conduct combat in ``cell`` with ``attackers`` (sorted ids, at least one)."""

    cell: int
    attackers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BladeChoice:
    """Combat step 3: assign a blade (two for double blade abilities) to a blade ability of
    ``mini`` (an attacker, or a location of the attacking player in the combat cell):
    ability ``index`` of ``source``, which is ``mini`` itself (-1), or the creature whose
    ability ``mini`` copies, or the miniature whose Hell's Fury grants it."""

    mini: int
    index: int
    source: int = -1


@dataclass(frozen=True, slots=True)
class TargetChoice:
    """900.9: the targets of the ability being activated, in the order its kind takes them
    (miniature ids and cells); ``()`` uses a "may" ability without effect."""

    targets: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RerollChoice:
    """Fortunate: reroll one die showing each of these values (sorted; 4 stands for a miss,
    which a die shows as 4 or 5); ``()`` rerolls none."""

    dice: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DamageChoice:
    """Damage per target as sorted ``(mini, amount)`` pairs, amounts positive."""

    assignments: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class FateChoice:
    mini: int
    destroy: bool


@dataclass(frozen=True, slots=True)
class DeathblowChoice:
    """The dying creatures in ``cell`` that make the deathblow (sorted; may be empty)."""

    cell: int
    attackers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BuryChoice:
    """Combat step 7: put this creature marked for destruction into its graveyard now."""

    mini: int


@dataclass(frozen=True, slots=True)
class OrderChoice:
    """900.7a: resolve next the ``position``-th (0-based) of the deciding player's waiting
    triggered effects, as listed in ``Decision.minis`` order."""

    position: int


@dataclass(frozen=True, slots=True)
class PlaceChoice:
    """Combat step 7: move this disrupted creature to the empty ``cell``."""

    mini: int
    cell: int


@dataclass(frozen=True, slots=True)
class CommitChoice:
    """Limited play: commit to a warband by the SHA-256 of it and a salt
    (``limited.warband_commitment``), before either warband is revealed."""

    digest: bytes


@dataclass(frozen=True, slots=True)
class RevealChoice:
    """Limited play: the warband committed to, as slugs in warband order, and its salt."""

    slugs: tuple[str, ...]
    salt: bytes


Choice = (
    Done
    | SpawnChoice
    | ActivateChoice
    | TargetChoice
    | RerollChoice
    | ShiftChoice
    | StrikeChoice
    | MoveChoice
    | AttackChoice
    | BladeChoice
    | DamageChoice
    | FateChoice
    | DeathblowChoice
    | BuryChoice
    | PlaceChoice
    | OrderChoice
    | CommitChoice
    | RevealChoice
)

DONE = Done()
SHIFT = ShiftChoice()
STRIKE = StrikeChoice()


# --- shared choices ---------------------------------------------------------------------
# The legal choices are listed again after every decision; a spawn or a move is the same
# value every time, so each is made once per process and shared (``setdefault`` keeps the
# tables whole when bots think in several threads at once).

_SPAWNS: dict[int, tuple[SpawnChoice, ...]] = {}
MOVES_BY_MINI: dict[int, tuple[MoveChoice, ...]] = {}
"""``moves_of`` each miniature made so far, by id: read directly where every call counts."""


def spawns_of(mini: int) -> tuple[SpawnChoice, ...]:
    """``SpawnChoice(mini, cell)`` for every cell, by cell."""
    row = _SPAWNS.get(mini)
    if row is None:
        row = _SPAWNS.setdefault(mini, tuple(SpawnChoice(mini, c) for c in range(CELL_COUNT)))
    return row


def moves_of(mini: int) -> tuple[MoveChoice, ...]:
    """``MoveChoice(mini, cell)`` for every cell, by cell."""
    row = MOVES_BY_MINI.get(mini)
    if row is None:
        row = MOVES_BY_MINI.setdefault(mini, tuple(MoveChoice(mini, c) for c in range(CELL_COUNT)))
    return row
