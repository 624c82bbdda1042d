"""What a scenario file says, as frozen values: a position, then steps with expectations.

A ``Scenario`` is fully checked when it is built (see ``load``): every name,
cell and number in it is known to make sense, so running it can only find
disagreements with the engine, never a malformed file.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from dbnet.engine.model import GameSetup, Player
from dbnet.engine.position import Position


class Subject(enum.Enum):
    """What an expectation looks at; the value is the key used in scenario files."""

    TURN = "turn"
    PHASE = "phase"
    FIRST = "first"
    PENDING = "pending"
    WINNER = "winner"
    SPAWN_POINTS = "spawn_points"
    CONQUEST = "conquest"  # claimed cells plus kills, per player
    CLAIMED = "claimed"
    KILLS = "kills"
    BONUS = "bonus"
    TURNS_WON = "turns_won"
    INITIATIVE = "initiative"
    LAST_CONQUEST = "last_conquest"  # the conquest points of the last finished turn
    AT = "at"  # per miniature: a cell name or a zone
    DAMAGE = "damage"
    MOVED = "moved"
    TARGETS = "targets"  # the miniatures a pending damage decision may hurt
    STATS = "stats"  # per miniature and stat: power, defense, life, cost after modifiers

    def __repr__(self) -> str:
        return f"Subject.{self.name}"


class LegalMode(enum.Enum):
    """How a list of choices is compared with the legal choices."""

    EXACTLY = "legal"
    INCLUDES = "legal_includes"
    EXCLUDES = "legal_excludes"

    def __repr__(self) -> str:
        return f"LegalMode.{self.name}"


@dataclass(frozen=True, slots=True)
class Expect:
    """``subject`` (of ``player`` or of the miniature labelled ``mini``) must read ``expected``.

    Values are compared as canonical text: ints as digits, booleans as
    ``true``/``false``, players as ``A``/``B``. For ``phase`` and ``pending``
    the expected words need only be a prefix of the actual words. ``stat`` names
    the stat a ``stats`` expectation reads: ``power``, ``defense``, ``life`` or ``cost``.
    """

    subject: Subject
    expected: str
    player: Player | None = None
    mini: str | None = None
    stat: str | None = None

    @property
    def name(self) -> str:
        """How the expectation is named in reports: ``conquest.A``, ``at.B:brute``."""
        if self.player is not None:
            return f"{self.subject.value}.{self.player.name}"
        if self.mini is not None and self.stat is not None:
            return f"{self.subject.value}.{self.mini}.{self.stat}"
        if self.mini is not None:
            return f"{self.subject.value}.{self.mini}"
        return self.subject.value


@dataclass(frozen=True, slots=True)
class ExpectLegal:
    """The legal choices, in notation, compared with ``choices`` as ``mode`` says."""

    mode: LegalMode
    choices: tuple[str, ...]


Expectation = Expect | ExpectLegal


@dataclass(frozen=True, slots=True)
class Play:
    """Play decisions in notation, in order."""

    choices: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Roll:
    """Supply the dice the game waits for."""

    dice: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Illegal:
    """A decision (or ``roll ...``) that the engine must refuse, leaving the game untouched.

    ``error``, when given, must occur in the refusal's message (case-insensitive).
    """

    text: str
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Resign:
    player: Player


Action = Play | Roll | Illegal | Resign


@dataclass(frozen=True, slots=True)
class Step:
    """One step: an optional action, then expectations checked after it."""

    index: int  # 1-based, as reports count
    action: Action | None
    expectations: tuple[Expectation, ...] = ()

    @property
    def text(self) -> str:
        """The step as reports quote it: ``play 'attack c3'``, ``roll [3, 5]``."""
        action = self.action
        if action is None:
            return "expect"
        if isinstance(action, Play):
            return "play " + ", ".join(repr(c) for c in action.choices)
        if isinstance(action, Roll):
            return f"roll {list(action.dice)!r}"
        if isinstance(action, Illegal):
            return f"illegal {action.text!r}"
        return f"resign {action.player.name}"


@dataclass(frozen=True, slots=True)
class Scenario:
    """A whole scenario file: where the game starts and what must happen."""

    path: str
    title: str
    setup: GameSetup
    position: Position
    steps: tuple[Step, ...]
    rules: tuple[str, ...] = ()
    description: str = ""
    allow_unimplemented: bool = False


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One expectation that did not hold, or an action that went wrong, at one step."""

    step: int
    step_text: str
    what: str
    expected: str
    actual: str

    def __str__(self) -> str:
        return (
            f"step {self.step} ({self.step_text}): {self.what}: "
            f"expected {self.expected}, got {self.actual}"
        )


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    """The outcome of one file: its mismatches, or the error that kept it from loading."""

    path: str
    title: str
    mismatches: tuple[Mismatch, ...] = ()
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and not self.mismatches
