"""Immutable definitions the engine plays with: players, aspects, miniatures, maps, options.

Every type here is a frozen, slotted value whose repr can be pasted back into
Python. The catalog loader builds them from TOML; scenario files may define
them inline.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Player(enum.IntEnum):
    """The two seats. A sits at rows 1-2 with its portal in e1; B faces A."""

    A = 0
    B = 1

    @property
    def other(self) -> Player:
        return _OTHER[self]

    def __repr__(self) -> str:
        return f"Player.{self.name}"


_OTHER: tuple[Player, Player] = (Player.B, Player.A)
"""Each player's opponent, by player (a tuple: looking a member up on an enum class is slow)."""

PLAYERS: tuple[Player, Player] = (Player.A, Player.B)
"""The players by number (``Player(n)`` goes through the enum class, which is slow)."""


class Aspect(enum.IntEnum):
    """The four aspects (rules 400-403)."""

    VALOR = 0
    MADNESS = 1
    FEAR = 2
    PASSION = 3

    def __repr__(self) -> str:
        return f"Aspect.{self.name}"


_ASPECTS: tuple[Aspect, ...] = tuple(Aspect)
"""The aspects by number (``Aspect(n)`` goes through the enum class, which is slow)."""


class MiniKind(enum.IntEnum):
    CREATURE = 0
    LOCATION = 1

    def __repr__(self) -> str:
        return f"MiniKind.{self.name}"


class Activation(enum.Enum):
    """How an ability is switched on (rule 303 and the glossary)."""

    ALWAYS = "always"
    BLADE = "blade"
    MULTIBLADE = "multiblade"
    DOUBLE_BLADE = "double_blade"
    DOUBLE_MULTIBLADE = "double_multiblade"
    SPAWN = "spawn"
    COMES_INTO_PLAY = "comes_into_play"
    UNKNOWN = "unknown"  # our sources do not say; such an ability is never implemented

    def __repr__(self) -> str:
        return f"Activation.{self.name}"

    @property
    def is_blade(self) -> bool:
        return self in _BLADE_ACTIVATIONS


# Tuples, not sets: membership by identity needs no hash (an Enum's hash is Python code).
_BLADE_ACTIVATIONS = (
    Activation.BLADE,
    Activation.MULTIBLADE,
    Activation.DOUBLE_BLADE,
    Activation.DOUBLE_MULTIBLADE,
)
_DOUBLE_BLADE = (Activation.DOUBLE_BLADE, Activation.DOUBLE_MULTIBLADE)
_SINGLE_USE_BLADE = (Activation.BLADE, Activation.DOUBLE_BLADE)


# Each member's text in the wire format and the canonical setup (docs/entries.md,
# docs/state-hash.md), looked up rather than read from the member (slow on 3.11).
KIND_TEXT: dict[MiniKind, str] = {kind: kind.name.lower() for kind in MiniKind}
ASPECT_TEXT: dict[Aspect, str] = {aspect: aspect.name.lower() for aspect in Aspect}
ACTIVATION_TEXT: dict[Activation, str] = {activation: activation.value for activation in Activation}


@dataclass(frozen=True, slots=True)
class AbilityDef:
    """One ability as printed: keyword, activation, number and modifier (900.14, 900.15).

    ``keyword`` is the glossary name (``"Crit"``) or, for an ability that is no
    glossary keyword, the miniature's own name for it. ``spawn_cost`` is the
    spawn-point cost of a spawn ability; ``cost_x`` marks a spawn ability whose
    cost is X, chosen when it is activated, which is also its number (``{oX}:
    Assault X``). ``score`` marks the score condition (303.2b). ``text`` is the
    full rules text shown to players.
    """

    keyword: str
    activation: Activation = Activation.ALWAYS
    x: int | None = None
    modifier: str | None = None
    spawn_cost: int | None = None
    score: bool = False
    text: str = ""
    cost_x: bool = False

    @property
    def is_double_blade(self) -> bool:
        return self.activation in _DOUBLE_BLADE

    @property
    def is_single_use_blade(self) -> bool:
        """Blade and double blade abilities take blades once per attack (303.1a, 303.1c)."""
        return self.activation in _SINGLE_USE_BLADE


@dataclass(frozen=True, slots=True)
class MiniatureDef:
    """A catalog entry: one kind of miniature (rule 300).

    Locations have no power, defense or life (they are stored as 0 and never read).
    ``official`` is False for miniatures designed by the project.
    """

    slug: str
    name: str
    kind: MiniKind
    spawn_cost: int
    aspects: tuple[Aspect, ...]
    power: int = 0
    defense: int = 0
    life: int = 0
    lineage: str | None = None
    abilities: tuple[AbilityDef, ...] = ()
    official: bool = False
    set_name: str = ""

    @property
    def is_creature(self) -> bool:
        return self.kind is MiniKind.CREATURE

    @property
    def is_location(self) -> bool:
        return self.kind is MiniKind.LOCATION

    def aspect_needs(self) -> tuple[tuple[Aspect, int], ...]:
        """How many miniatures of each aspect the aspect cost asks for (300.3), by aspect."""
        counts = [0, 0, 0, 0]
        for aspect in self.aspects:
            counts[aspect] += 1
        return tuple([(_ASPECTS[i], n) for i, n in enumerate(counts) if n])


@dataclass(frozen=True, slots=True)
class MapDef:
    """A dreamscape map: the conquest value of each cell (0 for cells that are not key cells).

    ``reconstructed`` marks a map whose values are not confirmed by any source.
    """

    name: str
    values: tuple[int, ...]
    reconstructed: bool = False
    note: str = ""


@dataclass(frozen=True, slots=True)
class Options:
    """Rule options chosen at setup; recorded in replay headers. Defaults are tournament play."""

    tournament_initiative: bool = True  # FAQ rule 430
    turns_to_win: int = 6  # rule 1, 803.3


@dataclass(frozen=True, slots=True)
class Warband:
    """A player's miniatures in warband order (rule 600: at most 16, at most 3 copies)."""

    name: str
    minis: tuple[MiniatureDef, ...]


@dataclass(frozen=True, slots=True)
class PackSet:
    """The miniatures Limited packs are drawn from, by rarity, each tuple in a fixed order
    (the catalog's): a draw picks an index into one of them (docs/limited.md)."""

    rare: tuple[MiniatureDef, ...]
    uncommon: tuple[MiniatureDef, ...]
    common: tuple[MiniatureDef, ...]

    def of(self, rarity: int) -> tuple[MiniatureDef, ...]:
        """The miniatures of rarity ``rarity``: 0 rare, 1 uncommon, 2 common."""
        return (self.rare, self.uncommon, self.common)[rarity]


@dataclass(frozen=True, slots=True)
class Limited:
    """Limited play (600.6): the format (``'3-boosters'`` or ``'starter+booster'``) and
    the pack set. ``pools`` is None in the offered setup; the setup a game has once both
    warbands are revealed holds each player's pool (docs/limited.md)."""

    format: str
    packs: PackSet
    pools: tuple[tuple[MiniatureDef, ...], tuple[MiniatureDef, ...]] | None = None


@dataclass(frozen=True, slots=True)
class GameSetup:
    """Everything that fixes a game before the first decision. ``limited`` makes it a
    Limited game: its warbands are empty until both are built (docs/limited.md)."""

    map: MapDef
    warbands: tuple[Warband, Warband]
    options: Options = field(default_factory=Options)
    limited: Limited | None = None
