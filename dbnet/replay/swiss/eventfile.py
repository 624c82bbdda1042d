"""``event.toml``: an event's id, name, rounds, top cut, points and players.

The id is 16 random bytes made once, at ``dbnet event new``; every tie of the pairings
and the standings is broken from it, so anyone with the folder finds the same. A player
is a key fingerprint, with the name they sign and the round they dropped from (not
paired from that round on). The file is written whole or not at all
(``files.replace_atomically``); every edit is checked first and changes nothing when
refused."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from dbnet.files import replace_atomically
from dbnet.replay.swiss import fields
from dbnet.replay.swiss.errors import EventFileError
from dbnet.replay.swiss.toml import dumps, read_table

__all__ = [
    "EVENT_FILE",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "Entry",
    "EventFile",
    "EventPoints",
    "load",
    "new_event",
    "save",
]

EVENT_FILE: Final = "event.toml"
FORMAT: Final = 1
MAX_PLAYERS: Final = 4096
MAX_ROUNDS: Final = 32
MAX_NAME: Final = 100
HEAD: Final = (
    "A dbnet event (docs/publishing.md). Edit it with 'dbnet event add' and 'dbnet event drop';\n"
    "the id breaks every tie of the pairings, so keep it as it is."
)


@dataclass(frozen=True, slots=True)
class EventPoints:
    """Match points for a win (a bye counts as one), a draw and a loss."""

    win: int = 3
    draw: int = 1
    loss: int = 0


@dataclass(frozen=True, slots=True)
class Entry:
    """A player: a key fingerprint, the name they sign, the round they dropped from."""

    fingerprint: str
    name: str = ""
    dropped: int | None = None

    def active(self, round_number: int) -> bool:
        return self.dropped is None or round_number < self.dropped


@dataclass(frozen=True, slots=True)
class EventFile:
    event_id: str
    name: str
    rounds: int
    top: int
    points: EventPoints
    players: tuple[Entry, ...]

    def entry(self, fingerprint: str) -> Entry | None:
        for e in self.players:
            if e.fingerprint == fingerprint:
                return e
        return None

    def to_json(self) -> dict[str, object]:
        p = self.points
        return {
            "id": self.event_id,
            "name": self.name,
            "rounds": self.rounds,
            "top": self.top,
            "points": {"win": p.win, "draw": p.draw, "loss": p.loss},
            "players": [
                {"fingerprint": e.fingerprint, "name": e.name, "dropped": e.dropped}
                for e in self.players
            ],
        }


def check_name(name: str, where: str) -> str:
    """An event's name: printable text of 1 to 100 characters."""
    if not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise EventFileError(
            where, f"the event's name must be 1 to {MAX_NAME} printable characters"
        )
    return name


def check_player_name(name: str, where: str) -> str:
    if name and not fields.NAME.fullmatch(name):
        raise EventFileError(
            where,
            f"{name[:40]!r} is not a name a player can sign (a letter or digit, then up to "
            "31 letters, digits, '_', '.' or '-')",
        )
    return name


def new_event(name: str, rounds: int, top: int, points: EventPoints, where: str) -> EventFile:
    """A new event with a fresh random id and no players yet."""
    event = EventFile(secrets.token_hex(16), name, rounds, top, points, ())
    _check(event, where)
    return event


def _check(event: EventFile, where: str) -> None:
    check_name(event.name, where)
    if not 1 <= event.rounds <= MAX_ROUNDS:
        raise EventFileError(where, f"rounds must be from 1 to {MAX_ROUNDS}, not {event.rounds}")
    if event.top and (event.top < 2 or event.top & (event.top - 1) or event.top > 256):
        raise EventFileError(
            where, f"the top cut must be 0 (none) or 2, 4, 8, ... up to 256, not {event.top}"
        )
    p = event.points
    if not p.win >= p.draw >= p.loss >= 0 or p.win > 100 or p.win == 0:
        raise EventFileError(where, "points must be win >= draw >= loss >= 0, win 1 to 100")


def load(folder: Path) -> EventFile | None:
    """The event file of ``folder``, or None when it has none.

    Raises:
        EventFileError: it cannot be read or breaks a rule (the message says where).
    """
    path = folder / EVENT_FILE
    if not path.exists():
        return None
    where = str(path)
    doc = read_table(path)
    fields.known_keys(doc, ("format", "id", "name", "rounds", "top", "points", "players"), where)
    version = fields.integer(doc, "format", where, low=0, high=1 << 30)
    if version != FORMAT:
        raise EventFileError(where, f"format {version}: this dbnet reads format {FORMAT}")
    event_id = fields.string(doc, "id", where)
    if not fields.EVENT_ID.fullmatch(event_id):
        raise EventFileError(where, "'id' must be 32 lowercase hex digits")
    pts = fields.table(doc, "points", where)
    fields.known_keys(pts, ("win", "draw", "loss"), f"{where}: [points]")
    points = EventPoints(
        *(
            fields.integer(pts, k, f"{where}: [points]", low=0, high=100, default=d)
            for k, d in (("win", 3), ("draw", 1), ("loss", 0))
        )
    )
    rounds = fields.integer(doc, "rounds", where, low=1, high=MAX_ROUNDS)
    players = []
    seen: set[str] = set()
    for i, row in enumerate(fields.tables(doc, "players", where, most=MAX_PLAYERS), start=1):
        at = f"{where}: player {i}"
        fields.known_keys(row, ("fingerprint", "name", "dropped"), at)
        fp = fields.canonical_fingerprint(fields.string(row, "fingerprint", at), at)
        if fp in seen:
            raise EventFileError(at, f"{fp} is listed twice")
        seen.add(fp)
        name = check_player_name(fields.string(row, "name", at, required=False), at)
        dropped = (
            fields.integer(row, "dropped", at, low=1, high=MAX_ROUNDS + 16)
            if "dropped" in row
            else None
        )
        players.append(Entry(fp, name, dropped))
    event = EventFile(
        event_id,
        fields.string(doc, "name", where),
        rounds,
        fields.integer(doc, "top", where, low=0, high=256, default=0),
        points,
        tuple(players),
    )
    _check(event, where)
    return event


def save(folder: Path, event: EventFile) -> None:
    """Write ``event`` to ``folder``'s event file, whole or not at all."""
    p = event.points
    text = dumps(
        HEAD,
        {
            "format": FORMAT,
            "id": event.event_id,
            "name": event.name,
            "rounds": event.rounds,
            "top": event.top,
        },
        {"points": {"win": p.win, "draw": p.draw, "loss": p.loss}},
        {
            "players": [
                {"fingerprint": e.fingerprint, "name": e.name or None, "dropped": e.dropped}
                for e in event.players
            ]
        },
    )
    path = folder / EVENT_FILE
    try:
        replace_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise EventFileError(str(path), f"cannot write it: {exc.strerror or exc}") from exc


def with_player(event: EventFile, entry: Entry, where: str) -> EventFile:
    if event.entry(entry.fingerprint) is not None:
        raise EventFileError(where, f"{entry.fingerprint} is already a player of this event")
    if len(event.players) >= MAX_PLAYERS:
        raise EventFileError(where, f"an event has at most {MAX_PLAYERS} players")
    return replace(event, players=(*event.players, entry))


def with_drop(event: EventFile, fingerprint: str, round_number: int, where: str) -> EventFile:
    entry = event.entry(fingerprint)
    if entry is None:
        raise EventFileError(where, f"{fingerprint} is not a player of this event")
    if entry.dropped is not None:
        raise EventFileError(where, f"{fingerprint} already dropped (from round {entry.dropped})")
    dropped = replace(entry, dropped=round_number)
    return replace(event, players=tuple(dropped if e is entry else e for e in event.players))
