"""The state's small enumerations: where a miniature is (``Zone``), where the turn is
(``Phase``, ``Step``, ``Mode``) and how a game ended (``EndReason``). A leaf module, so
that every part of the engine can name them without importing the state."""

from __future__ import annotations

import enum


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
    """Where the turn is (abilities may interrupt any step, see ``dbnet.engine.game``)."""

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
