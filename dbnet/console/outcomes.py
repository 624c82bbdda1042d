"""What a menu screen asks for when it closes (``picker.Picker.run``'s result): the next
screen, the builder, the replay viewer or a game. ``dbnet.console.home`` carries it out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dbnet.console.shelf import WarbandFile


@dataclass(frozen=True, slots=True)
class Back:
    """Back to the screen before (from the main menu: leave dbnet)."""


@dataclass(frozen=True, slots=True)
class Open:
    """Open the screen ``name`` (``'pregame'``, ``'warbands'``, ``'replays'``,
    ``'network'``)."""

    name: str


@dataclass(frozen=True, slots=True)
class Edit:
    """Open the builder on ``warband`` (a copy in your folder if it is read-only)."""

    warband: WarbandFile


@dataclass(frozen=True, slots=True)
class NewWarband:
    """Open the builder on a new, empty warband called ``name``."""

    name: str


@dataclass(frozen=True, slots=True)
class View:
    """Open the replay viewer on ``path``."""

    path: Path


@dataclass(frozen=True, slots=True)
class Start:
    """Start a game: the command line of ``dbnet play`` (after ``dbnet``) that plays it."""

    argv: tuple[str, ...]
