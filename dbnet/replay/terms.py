"""What defined a local game beyond its replay: the bot and its budget, who sits where,
the seed, the build time; kept beside the replay (``REPLAY.game``), so that ``dbnet play
--resume FILE`` alone goes on with the same game, and the replay's bytes stay the same.

The file is text, one ``key value`` a line after its first line::

    dbnet-local-game 1
    game 3f2a...                 (the game id, hex: the file belongs to this game)
    seats A                      (the person's seat: A, B, or both for hotseat)
    bot hard                     (the bot's level; - in a hotseat game)
    think 2.5                    (seconds per decision; - for the level's default)
    playouts 400                 (per decision; - for none)
    seed 7                       (- for a game of the owner's identity)
    build-minutes 10             (a Limited game's build time)

The warbands, the map, the Limited format and the players' names are in the replay's
OFFER already; they are not repeated here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dbnet.engine import Player
from dbnet.files import replace_atomically
from dbnet.replay.errors import ReplayError

TERMS_SUFFIX: Final = ".game"
_MAGIC: Final = "dbnet-local-game 1"
_KEYS: Final = ("game", "seats", "bot", "think", "playouts", "seed", "build-minutes")
NONE: Final = "-"


@dataclass(frozen=True, slots=True)
class LocalTerms:
    """The terms of a local game that its replay does not hold."""

    person: Player | None
    """The person's seat; None: people in both seats (hotseat)."""
    bot: str | None
    """The bot's level; None in a hotseat game."""
    think: float | None = None
    playouts: int | None = None
    seed: int | None = None
    build_minutes: float = 10.0


def terms_path(replay: Path) -> Path:
    """Where the terms of the game of ``replay`` are kept: beside it."""
    return replay.with_name(replay.name + TERMS_SUFFIX)


def _word(value: object) -> str:
    return NONE if value is None else str(value)


def save_terms(replay: Path, game_id: bytes, terms: LocalTerms) -> None:
    """Write the terms beside ``replay`` (atomically; mode 0600: a seed makes the keys).

    Raises:
        ReplayError: the file cannot be written.
    """
    seats = "both" if terms.person is None else terms.person.name
    values = (
        game_id.hex(),
        seats,
        _word(terms.bot),
        _word(terms.think),
        _word(terms.playouts),
        _word(terms.seed),
        repr(terms.build_minutes),
    )
    text = "".join(f"{key} {value}\n" for key, value in zip(_KEYS, values, strict=True))
    path = terms_path(replay)
    try:
        replace_atomically(path, f"{_MAGIC}\n{text}".encode(), mode=0o600)
    except OSError as exc:
        raise ReplayError(str(path), f"cannot write the game's terms: {exc}") from exc


def load_terms(replay: Path, game_id: bytes) -> LocalTerms | None:
    """The terms kept beside ``replay`` for ``game_id``; None when there is no such file
    (a game saved before dbnet kept them).

    Raises:
        ReplayError: the file is unreadable, damaged, or another game's.
    """
    path = terms_path(replay)
    where = str(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(where, f"cannot read the game's terms: {exc}") from exc
    if not lines or lines[0] != _MAGIC:
        raise ReplayError(where, f"not a file of a game's terms (its first line is not {_MAGIC!r})")
    found: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        key, _, value = line.partition(" ")
        if key not in _KEYS or key in found or not value:
            raise ReplayError(where, f"line {number} is damaged: {line[:60]!r}")
        found[key] = value
    missing = [key for key in _KEYS if key not in found]
    if missing:
        raise ReplayError(where, f"damaged: no {missing[0]!r} line")
    if found["game"] != game_id.hex():
        raise ReplayError(where, "these are another game's terms, not this replay's")
    try:
        return LocalTerms(
            person=None if found["seats"] == "both" else Player[found["seats"]],
            bot=_text(found["bot"]),
            think=_float(found["think"]),
            playouts=_int(found["playouts"]),
            seed=_int(found["seed"]),
            build_minutes=float(found["build-minutes"]),
        )
    except (KeyError, ValueError) as exc:
        raise ReplayError(where, f"damaged: {exc}") from exc


def _text(value: str) -> str | None:
    return None if value == NONE else value


def _int(value: str) -> int | None:
    return None if value == NONE else int(value)


def _float(value: str) -> float | None:
    return None if value == NONE else float(value)
