"""What waits in a game's state for its turn: plain values, made and resolved elsewhere.

A triggered ability waits as a ``Trigger`` (raised by an ``Event``); the parts of an
effect that happen one at a time wait as ``Op``s; one frame of ``State.stack`` holds
either (``Frame``); an activated ability whose targets are still to be chosen waits as a
``Targeting`` (``State.choosing``). They live here, below the state, so that the state
can hold them without importing the modules that make and resolve them (``stack``,
``effects``, ``activation``, ``targets``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from dbnet.engine.model import AbilityDef, Player


class EventKind(enum.IntEnum):
    """Game events that can trigger abilities (glossary: triggered ability)."""

    SPAWNED = 0  # came into play (303.2c)
    ENTERED = 1  # moved into a cell from another cell (glossary: enter)
    DESTROYED = 2
    DISRUPTED = 3
    COMBAT_ENDED = 4  # combat step 10

    def __repr__(self) -> str:
        return f"EventKind.{self.name}"


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened to miniature ``mini`` (-1: none) in ``cell`` (-1: none)."""

    kind: EventKind
    mini: int = -1
    cell: int = -1


@dataclass(frozen=True, slots=True)
class Trigger:
    """Ability ``index`` of ``mini``, controlled by ``controller``, triggered by ``event``."""

    controller: Player
    mini: int
    index: int
    event: Event


class OpKind(enum.IntEnum):
    MOVE = 0  # move ``mini`` to cell ``arg`` (if it still can)
    SWAP = 1  # exchange the cells of ``mini`` and ``arg``
    ATTACK = 2  # ``mini`` makes an ``extra``-power special attack against ``arg``
    WAIL = 3  # ``mini``'s Wail: roll two initiative dice, banish that spawn cost
    STRIKEBACK = 4  # ``mini`` attacked ``arg`` in cell ``extra`` outside a strike: Strikeback


class Op(NamedTuple):
    """One queued part of an effect (``OpKind``)."""

    kind: OpKind
    mini: int
    arg: int = -1
    extra: int = 0


Frame = list[Op] | list[Trigger]
"""One frame of ``State.stack``: simultaneous triggered effects, or the rest of an effect."""


@dataclass(frozen=True, slots=True)
class Targeting:
    """One activation's targeting: who chooses, for which ability, with what number."""

    holder: int  # the miniature whose ability it is now
    source: int  # the miniature that prints (or, for Hell's Fury, grants) the ability
    index: int  # the ability's index in ``source``'s abilities
    ability: AbilityDef
    controller: Player
    number: int  # the ability's X, or how many targets it may take
    context: int = -1  # the miniature of the triggering event (the entering one), or -1
