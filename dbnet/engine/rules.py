"""What a game's setup fixes for the whole game, derived once.

``Rules`` holds everything a game works out from its ``GameSetup`` that never
changes: the miniatures as the game plays them, their abilities indexed by what
they do, the notation handles, and the state hash's setup prefix. Every state
of the game, and every copy of one, shares the same ``Rules`` by reference.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from dbnet.engine.canonical import setup_bytes
from dbnet.engine.kept import KeptFor
from dbnet.engine.keywords import check_ability
from dbnet.engine.model import AbilityDef, Activation, GameSetup, MiniatureDef, Player
from dbnet.engine.statics import Statics
from dbnet.errors import DataError

if TYPE_CHECKING:
    from _hashlib import HASH

MAX_WARBAND = 16  # 600.1
MAX_COPIES = 3  # 600.3
MAX_WARBAND_POWER: Final = 1000  # bounds any roll's dice; real warbands have well under 200
CREATURES_PER_PLAYER_PER_CELL: Final = 4  # 301.1a

INERT = AbilityDef("(not played)", Activation.UNKNOWN)
"""Stands in for an ability the engine can't play, in a game that allows such miniatures."""


@dataclass(frozen=True, slots=True)
class Piece:
    """One miniature as the setup fixes it: its owner, definition, notation handle, and
    abilities as the game plays them (``INERT`` for one the engine can't play)."""

    owner: Player
    defn: MiniatureDef
    handle: str
    abilities: tuple[AbilityDef, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Rules:
    """A game's setup and all the game derives from it once (immutable, shared by copies)."""

    setup: GameSetup
    values: tuple[int, ...]
    """Each cell's key-cell value (the map's)."""
    pieces: tuple[Piece, ...]
    """Every miniature by id: A's warband, then B's, each in its order."""
    split: int
    """The id of B's first miniature (A's are the ids below it)."""
    statics: Statics
    """The abilities indexed by what they do (never changed after it is built)."""
    handles: tuple[Mapping[str, int], Mapping[str, int]]
    """Each player's miniature ids by handle."""
    hash_start: HASH
    """The state hash with the setup digest in: copied for each state, never updated."""

    @classmethod
    def from_setup(cls, setup: GameSetup, *, allow_unimplemented: bool = False) -> Rules:
        """The rules of ``setup``. A miniature with an ability the engine does not play is
        refused (DataError naming it and why) unless ``allow_unimplemented``, when that
        ability simply has no effect.

        The rules of the last few setups are kept: games of one setup (selfplay, a
        bot's playouts, a tournament's rounds) share them, as copies of one game do."""
        kept = _KEPT.get(setup, allow_unimplemented)
        if kept is not None:
            return kept
        rules = cls._made(setup, allow_unimplemented)
        _KEPT.put(setup, rules, allow_unimplemented)
        return rules

    @classmethod
    def _made(cls, setup: GameSetup, allow_unimplemented: bool) -> Rules:
        pieces: list[Piece] = []
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
                        _refuse(warband.name, defn)
                pieces.append(Piece(player, defn, handle, abilities))
        return cls(
            setup=setup,
            values=setup.map.values,
            pieces=tuple(pieces),
            split=len(setup.warbands[Player.A].minis),
            statics=Statics([p.abilities for p in pieces]),
            handles=(_handles(pieces, Player.A), _handles(pieces, Player.B)),
            hash_start=hashlib.sha256(hashlib.sha256(setup_bytes(setup)).digest()),
        )


_KEPT: Final = KeptFor[GameSetup, Rules](16)
"""The rules of the last 16 setups (``Rules.from_setup``), by the setup and
``allow_unimplemented``."""


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


@dataclass(frozen=True, slots=True)
class Breach:
    """One way a warband breaks a rule of its construction: the rule and what is wrong."""

    rule: str
    """The rule's number (``'600.3'``), or ``'dbnet'`` for a limit of this program."""
    problem: str

    def __str__(self) -> str:
        return f"{self.rule}: {self.problem}"


def warband_breaches(entries: Iterable[tuple[MiniatureDef, int]]) -> list[Breach]:
    """Every rule of 600 a warband of ``entries`` (a miniature and its number of copies;
    a miniature may come in several entries) breaks, in rule order: 600.1 (at most 16
    miniatures), 600.3 (at most three copies of one), then dbnet's bound on the power of
    a whole warband. An empty list: the warband may be played.

    600.2 (any aspect combination), 600.4 and 600.5 (advice) and 600.7 (etiquette)
    forbid nothing; 600.6 (limited play) is a way of choosing the miniatures.
    """
    copies: dict[str, int] = {}
    names: dict[str, str] = {}
    total = power = 0
    for mini, count in entries:
        copies[mini.slug] = copies.get(mini.slug, 0) + count
        names.setdefault(mini.slug, mini.name)
        total += count
        power += mini.power * count
    breaches = []
    if total > MAX_WARBAND:
        breaches.append(Breach("600.1", f"{total} miniatures (at most {MAX_WARBAND})"))
    for slug, n in copies.items():
        if n > MAX_COPIES:
            breaches.append(
                Breach("600.3", f"{n} copies of {names[slug]!r} (at most {MAX_COPIES})")
            )
    if power > MAX_WARBAND_POWER:
        breaches.append(
            Breach(
                "dbnet",
                f"{power} power in all (at most {MAX_WARBAND_POWER}: it bounds the dice of a roll)",
            )
        )
    return breaches


def check_warband_size(name: str, minis: Sequence[MiniatureDef]) -> None:
    """Refuse a warband that breaks a rule of 600 (``warband_breaches``: 600.1, 600.3)
    with a ``DataError`` naming the first breach."""
    breaches = warband_breaches((mini, 1) for mini in minis)
    if breaches:
        raise DataError(name, str(breaches[0]))


def playable_abilities(defn: MiniatureDef) -> tuple[AbilityDef, ...]:
    """The miniature's abilities with the ones the engine can't play replaced by ``INERT``."""
    location = defn.is_location
    return tuple(INERT if check_ability(a, location=location) else a for a in defn.abilities)


def _refuse(warband: str, defn: MiniatureDef) -> None:
    for ability in defn.abilities:
        problem = check_ability(ability, location=defn.is_location)
        if problem:
            raise DataError(
                f"warband {warband!r}, {defn.name}",
                f"ability {ability.keyword!r} can't be played: {problem}",
            )


def _handles(pieces: Sequence[Piece], player: Player) -> Mapping[str, int]:
    return MappingProxyType({p.handle: i for i, p in enumerate(pieces) if p.owner is player})
