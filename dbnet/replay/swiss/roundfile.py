"""``round-K.toml``: one round's tables and the results it was paired from.

A table is two players by fingerprint, ``a`` playing A, or one player and a bye. An
organiser records a result by hand on a table (``result = "A"``, ``"B"`` or
``"draw"``, with a ``note``): a no-show, a ruling on a disputed clock claim. Below the
tables, ``[[results]]`` lists every result of the earlier rounds as it stood when this
round was paired (the game id it came from, or none for a bye or a hand-recorded one),
so ``dbnet event pair --check`` recomputes the round from what it was paired from, and a
late file or ruling never changes a round already paired."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dbnet.files import replace_atomically
from dbnet.replay.swiss import fields
from dbnet.replay.swiss.errors import EventFileError
from dbnet.replay.swiss.toml import dumps, read_table

__all__ = ["Outcome", "Paired", "RoundFile", "Stage", "Table", "load_rounds", "round_path", "save"]

FORMAT: Final = 1
MAX_TABLES: Final = 4096
HEAD: Final = (
    "A round of a dbnet event, written by 'dbnet event pair' (docs/publishing.md).\n"
    'Record a result by hand on a table: result = "A", "B" or "draw", and a note.'
)


class Stage(enum.Enum):
    SWISS = "swiss"
    CUT = "cut"


class Outcome(enum.Enum):
    """A table's result: A won, B won, a draw, or a bye (A alone, counted as a win)."""

    A = "A"
    B = "B"
    DRAW = "draw"
    BYE = "bye"


@dataclass(frozen=True, slots=True)
class Table:
    number: int
    a: str
    b: str | None
    result: Outcome | None = None
    note: str = ""

    @property
    def players(self) -> tuple[str, ...]:
        return (self.a,) if self.b is None else (self.a, self.b)


@dataclass(frozen=True, slots=True)
class Paired:
    """One result a round was paired from: round, table, players, outcome, game id."""

    round: int
    table: int
    a: str
    b: str | None
    outcome: Outcome
    game: str | None = None


@dataclass(frozen=True, slots=True)
class RoundFile:
    number: int
    stage: Stage
    tables: tuple[Table, ...]
    paired_from: tuple[Paired, ...] = ()


def round_path(folder: Path, number: int) -> Path:
    return folder / f"round-{number}.toml"


def save(folder: Path, rnd: RoundFile) -> None:
    path = round_path(folder, rnd.number)
    text = dumps(
        HEAD,
        {"format": FORMAT, "round": rnd.number, "stage": rnd.stage.value},
        {},
        {
            "tables": [
                {
                    "table": t.number,
                    "a": t.a,
                    "b": t.b,
                    "bye": True if t.b is None else None,
                    "result": t.result.value if t.result is not None else None,
                    "note": t.note or None,
                }
                for t in rnd.tables
            ],
            "results": [
                {
                    "round": p.round,
                    "table": p.table,
                    "a": p.a,
                    "b": p.b,
                    "result": p.outcome.value,
                    "game": p.game,
                }
                for p in rnd.paired_from
            ],
        },
    )
    try:
        replace_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise EventFileError(str(path), f"cannot write it: {exc.strerror or exc}") from exc


def load_rounds(folder: Path, players: frozenset[str], limit: int) -> tuple[RoundFile, ...]:
    """The round files of ``folder``: round-1.toml, round-2.toml, ... up to the first
    missing one (at most ``limit``). Every player must be one of ``players``.

    Raises:
        EventFileError: a file cannot be read or breaks a rule; a round file after a gap.
    """
    rounds: list[RoundFile] = []
    while len(rounds) < limit and round_path(folder, len(rounds) + 1).exists():
        rounds.append(_load(round_path(folder, len(rounds) + 1), len(rounds) + 1, players))
    after = round_path(folder, len(rounds) + 2)
    if after.exists():
        raise EventFileError(str(after), f"round {len(rounds) + 1} has no file before it")
    return tuple(rounds)


def _load(path: Path, number: int, players: frozenset[str]) -> RoundFile:
    where = str(path)
    doc = read_table(path)
    fields.known_keys(doc, ("format", "round", "stage", "tables", "results"), where)
    version = fields.integer(doc, "format", where, low=0, high=1 << 30)
    if version != FORMAT:
        raise EventFileError(where, f"format {version}: this dbnet reads format {FORMAT}")
    if fields.integer(doc, "round", where, low=1, high=1 << 16) != number:
        raise EventFileError(where, f"'round' must be {number}, as the file's name says")
    stage_text = fields.string(doc, "stage", where)
    try:
        stage = Stage(stage_text)
    except ValueError:
        raise EventFileError(where, '\'stage\' must be "swiss" or "cut"') from None
    tables = []
    seen: set[str] = set()
    for i, row in enumerate(fields.tables(doc, "tables", where, most=MAX_TABLES), start=1):
        at = f"{where}: table {i}"
        fields.known_keys(row, ("table", "a", "b", "bye", "result", "note"), at)
        if fields.integer(row, "table", at, low=1, high=MAX_TABLES) != i:
            raise EventFileError(at, f"'table' must be {i} (tables are numbered in order)")
        a = _player(row, "a", at, players)
        b = None if row.get("bye") is True and "b" not in row else _player(row, "b", at, players)
        for p in (a, b):
            if p is not None and p in seen:
                raise EventFileError(at, f"{p} plays at two tables of this round")
            if p is not None:
                seen.add(p)
        result = _outcome(row, at) if "result" in row else None
        if result is Outcome.BYE or (b is None and result is not None):
            raise EventFileError(at, "a bye's result is the bye: record no result on it")
        if result is Outcome.DRAW and stage is Stage.CUT:
            raise EventFileError(at, "a top-cut game has a winner: a drawn one is played again")
        note = fields.string(row, "note", at, required=False)
        if len(note) > 200 or not note.isprintable():
            raise EventFileError(at, "'note' must be at most 200 printable characters")
        tables.append(Table(i, a, b, result, note))
    paired_from = []
    for i, row in enumerate(fields.tables(doc, "results", where, most=MAX_TABLES * 64), start=1):
        at = f"{where}: result {i}"
        fields.known_keys(row, ("round", "table", "a", "b", "result", "game"), at)
        r = fields.integer(row, "round", at, low=1, high=number - 1 if number > 1 else 0)
        t = fields.integer(row, "table", at, low=1, high=MAX_TABLES)
        a = _player(row, "a", at, players)
        b = _player(row, "b", at, players) if "b" in row else None
        outcome = _outcome(row, at)
        game = fields.string(row, "game", at, required=False) or None
        if game is not None and not fields.GAME_ID.fullmatch(game):
            raise EventFileError(at, "'game' must be a game id: 64 lowercase hex digits")
        paired_from.append(Paired(r, t, a, b, outcome, game))
    return RoundFile(number, stage, tuple(tables), tuple(paired_from))


def _player(row: Mapping[str, object], key: str, at: str, players: frozenset[str]) -> str:
    fp = fields.canonical_fingerprint(fields.string(row, key, at), at)
    if fp not in players:
        raise EventFileError(at, f"{fp} is not a player of the event (event.toml)")
    return fp


def _outcome(row: Mapping[str, object], at: str) -> Outcome:
    text = fields.string(row, "result", at)
    try:
        return Outcome(text)
    except ValueError:
        raise EventFileError(at, '\'result\' must be "A", "B", "draw" or "bye"') from None
