"""An event's replays as a roster, standings and a list of games (``dbnet event``).

From the facts of every file (``replay.gamefile``):

- **Games.** Files with one game id are copies of one game (each player keeps one) when
  they hold the same entries, or one holds the start of the other (a copy saved before
  the last entries came): the game counts once, told by its most complete copy. Copies
  that disagree prove that someone signed two different games under one id: they are
  flagged and none counts. An invalid file or a file of evidence is a game of its own,
  flagged, never counted.
- **Standings** count only complete, verified games: ``complete`` (both signed the
  result) and ``decided`` (the result derived by re-simulation when one player
  withheld the FINAL or its counter-signature; flagged). Unfinished games and games
  closed by a timeout claim or a clock claim (the claimant's word alone, disputed or not
  by the flagged player) are listed apart and count for nobody: the organiser decides
  them. Each player gets the
  games played, won, drawn and lost, match points (``Points``, 3-1-0 by default), and
  the tie-break: the opponents' win rate, the mean over the player's games of each
  opponent's share of games won.
- **Roster.** Players are their keys, shown by fingerprint, with the names they signed
  (A's in the OFFER, B's in the ACCEPT: protocol version 3 and later), the warbands
  they played and their files and games. One key under several names and one name
  with several keys are flagged (a player's fingerprint is who they are; a name is only
  what they called themselves). Files of earlier versions record no names: the roster
  says how many.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from dbnet.replay.errors import ReplayError
from dbnet.replay.gamefile import GameFile, entry_hashes
from dbnet.replay.verify import Verdict, VerdictStatus

__all__ = [
    "NO_NAMES",
    "Entrant",
    "EventGame",
    "Flag",
    "FlagKind",
    "Points",
    "Report",
    "Standing",
    "report",
]

NO_NAMES: Final = (
    "{files} record no player names (replays before protocol version 3): their players "
    "are known by key fingerprint alone."
)
COUNTED: Final = (VerdictStatus.COMPLETE, VerdictStatus.DECIDED)


@dataclass(frozen=True, slots=True)
class Points:
    """Match points for a win, a draw and a loss."""

    win: int = 3
    draw: int = 1
    loss: int = 0


class FlagKind(enum.Enum):
    SAME_ID = "two different replays with one game id"
    INVALID = "invalid file"
    EVIDENCE = "equivocation evidence"
    UNFINISHED = "unfinished game"
    CLAIM = "game closed by a timeout claim"
    CLOCK_CLAIM = "clock claim, not acknowledged by the flagged player"
    DISPUTED_CLOCK = "disputed clock claim"
    DECIDED = "win not counter-signed"
    ONE_KEY = "one key on both seats"
    KEY_NAMES = "one key under several names"
    NAME_KEYS = "one name with several keys"


@dataclass(frozen=True, slots=True)
class Flag:
    """Something the organiser should look at: what, in words, and the files."""

    kind: FlagKind
    text: str
    files: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind.name.lower(),
            "what": self.kind.value,
            "text": self.text,
            "files": list(self.files),
        }


@dataclass(frozen=True, slots=True)
class EventGame:
    """One game of the event: its copies (``files``, the most complete first), the verdict
    of that copy, and whether it counts in the standings."""

    files: tuple[str, ...]
    verdict: Verdict
    game_id: str | None
    players: tuple[str, str] | None
    warbands: tuple[str, str] | None
    counted: bool
    flags: tuple[FlagKind, ...]
    names: tuple[str | None, str | None] = (None, None)

    @property
    def winner(self) -> int | None:
        """0 (A) or 1 (B) for a counted game with a winner; None for a draw or uncounted."""
        if not self.counted or self.verdict.winner not in ("A", "B"):
            return None
        return 0 if self.verdict.winner == "A" else 1

    def result(self) -> str:
        """``A won (victory)``, ``B won (resignation), not counter-signed``, what is owed."""
        v = self.verdict
        if v.status in COUNTED:
            won = f"{v.winner} won ({v.reason})" if v.winner else "a draw"
            return won + (", not counter-signed" if v.status is VerdictStatus.DECIDED else "")
        if v.status is VerdictStatus.UNFINISHED and v.owed is not None:
            return f"unfinished: {v.owed.player} owes entry {v.owed.seq}"
        if v.status is VerdictStatus.CLAIM and v.reason == "clock":
            flagged = v.flagged()
            said = f"{v.claimant} says {flagged}'s clock ran out before entry {v.flagged_at}"
            if v.disputed:
                return f"disputed clock claim: {said}; {flagged} disputes it"
            return f"clock claim, not acknowledged by {flagged}: {said}"
        if v.status is VerdictStatus.CLAIM and v.owed is not None:
            return f"claim: {v.claimant} says {v.owed.player} timed out"
        return v.summary()

    def to_json(self) -> dict[str, object]:
        return {
            "game_id": self.game_id,
            "files": list(self.files),
            "players": None if self.players is None else dict(zip("AB", self.players, strict=True)),
            "names": dict(zip("AB", self.names, strict=True)),
            "warbands": None
            if self.warbands is None
            else dict(zip("AB", self.warbands, strict=True)),
            "status": self.verdict.status.value,
            "result": self.result(),
            "winner": self.verdict.winner if self.counted else None,
            "counted": self.counted,
            "flags": [f.name.lower() for f in self.flags],
            "verdict": self.verdict.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player of the roster: a key, by fingerprint; the warbands it played; its files
    and its games (counted or not); and the names it signed (sorted)."""

    fingerprint: str
    key: str
    warbands: tuple[str, ...]
    files: int
    games: int
    names: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "fingerprint": self.fingerprint,
            "key": self.key,
            "names": list(self.names),
            "warbands": list(self.warbands),
            "files": self.files,
            "games": self.games,
        }


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings. ``rank`` is shared by players level on points and the
    tie-break; ``unsigned`` counts the player's games whose result was not counter-signed."""

    rank: int
    fingerprint: str
    played: int
    wins: int
    draws: int
    losses: int
    points: int
    opponents_win_rate: Fraction
    unsigned: int
    names: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "fingerprint": self.fingerprint,
            "names": list(self.names),
            "played": self.played,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "points": self.points,
            "opponents_win_rate": round(float(self.opponents_win_rate), 4),
            "not_counter_signed": self.unsigned,
        }


@dataclass(frozen=True, slots=True)
class Report:
    files: int
    points: Points
    roster: tuple[Entrant, ...]
    standings: tuple[Standing, ...]
    games: tuple[EventGame, ...]
    flags: tuple[Flag, ...]
    notes: tuple[str, ...]

    @property
    def counted(self) -> tuple[EventGame, ...]:
        return tuple(g for g in self.games if g.counted)

    @property
    def apart(self) -> tuple[EventGame, ...]:
        """The games that count for nobody: unfinished, claims, invalid, in conflict."""
        return tuple(g for g in self.games if not g.counted)

    def to_json(self) -> dict[str, object]:
        p = self.points
        return {
            "files": self.files,
            "points": {"win": p.win, "draw": p.draw, "loss": p.loss},
            "tie_break": "opponents' win rate",
            "roster": [e.to_json() for e in self.roster],
            "standings": [s.to_json() for s in self.standings],
            "games": [g.to_json() for g in self.games],
            "flags": [f.to_json() for f in self.flags],
            "notes": list(self.notes),
        }


Hashes = Callable[[str], list[str]]
"""The entry hashes of a file (``gamefile.entry_hashes``; a fake in tests)."""


def report(
    files: Sequence[GameFile], points: Points = Points(), hashes: Hashes = entry_hashes
) -> Report:
    """The event of ``files`` (each file once, in the order given)."""
    games = _games(files, hashes)
    flags = (*_flags(games), *_name_flags(files))
    roster = tuple(_roster(files, games))
    unnamed = sum(1 for f in files if f.players is not None and None in f.names)
    noun = "1 file" if unnamed == 1 else f"{unnamed} files"
    return Report(
        files=len(files),
        points=points,
        roster=roster,
        standings=tuple(_standings(games, points, {e.fingerprint: e.names for e in roster})),
        games=tuple(games),
        flags=flags,
        notes=(NO_NAMES.format(files=noun),) if unnamed else (),
    )


# --- games from files --------------------------------------------------------------------


def _games(files: Sequence[GameFile], hashes: Hashes) -> list[EventGame]:
    by_id: dict[str, list[GameFile]] = defaultdict(list)
    alone: list[GameFile] = []
    for f in files:
        status = f.verdict.status
        if (
            f.game_id is None
            or status is VerdictStatus.INVALID
            or status is VerdictStatus.EQUIVOCATION
        ):
            alone.append(f)
        else:
            by_id[f.game_id].append(f)
    games = []
    for copies in by_id.values():
        games.append(_one_game(copies, hashes))
    for f in alone:
        kind = (
            FlagKind.EVIDENCE
            if f.verdict.status is VerdictStatus.EQUIVOCATION
            else FlagKind.INVALID
        )
        games.append(_game([f], counted=False, flags=(kind,)))
    return games


def _one_game(copies: list[GameFile], hashes: Hashes) -> EventGame:
    """One game id's copies: one game, told by its most complete copy, unless they
    disagree."""
    copies = sorted(copies, key=lambda f: -f.entries)  # stable: the order given otherwise
    if len({f.head for f in copies}) > 1 and not _prefixes(copies, hashes):
        return _game(copies, counted=False, flags=(FlagKind.SAME_ID,))
    best = copies[0]
    status = best.verdict.status
    flags: list[FlagKind] = []
    if best.players is not None and best.players[0] == best.players[1]:
        flags.append(FlagKind.ONE_KEY)
    if status is VerdictStatus.DECIDED:
        flags.append(FlagKind.DECIDED)
    elif status is VerdictStatus.UNFINISHED:
        flags.append(FlagKind.UNFINISHED)
    elif status is VerdictStatus.CLAIM:
        if best.verdict.reason != "clock":
            flags.append(FlagKind.CLAIM)
        else:
            disputed = best.verdict.disputed
            flags.append(FlagKind.DISPUTED_CLOCK if disputed else FlagKind.CLOCK_CLAIM)
    counted = status in COUNTED and FlagKind.ONE_KEY not in flags
    return _game(copies, counted=counted, flags=tuple(flags))


def _prefixes(copies: list[GameFile], hashes: Hashes) -> bool:
    """Whether every copy holds the start of the longest one (``copies[0]``)."""
    try:
        longest = hashes(copies[0].where)
    except ReplayError:
        return False
    return all(0 < f.entries <= len(longest) and longest[f.entries - 1] == f.head for f in copies)


def _game(copies: list[GameFile], *, counted: bool, flags: tuple[FlagKind, ...]) -> EventGame:
    best = copies[0]
    return EventGame(
        files=tuple(f.where for f in copies),
        verdict=best.verdict,
        game_id=best.game_id,
        players=best.players,
        warbands=best.warbands,
        counted=counted,
        flags=flags,
        names=best.names,
    )


def _flags(games: Iterable[EventGame]) -> Iterable[Flag]:
    for game in games:
        for kind in game.flags:
            yield Flag(kind, _flag_text(kind, game), game.files)


def _flag_text(kind: FlagKind, game: EventGame) -> str:
    short = (game.game_id or "")[:16]
    if kind is FlagKind.SAME_ID:
        return (
            f"game {short}: {len(game.files)} files hold different entries under one game "
            "id (someone signed two different games); none counts"
        )
    if kind is FlagKind.ONE_KEY:
        return f"game {short}: both seats have one key; not counted"
    if kind is FlagKind.INVALID:
        return game.verdict.summary()
    return f"game {short}: {game.result()}" + ("" if kind is FlagKind.DECIDED else "; not counted")


# --- the roster and the standings ---------------------------------------------------------


def _signed_names(files: Sequence[GameFile]) -> Iterable[tuple[str, str, str]]:
    """Every (fingerprint, name, file) that a file's valid entries sign."""
    for f in files:
        if f.players is None:
            continue
        for player, name in zip(f.players, f.names, strict=True):
            if name is not None:
                yield player, name, f.where


def _name_flags(files: Sequence[GameFile]) -> Iterable[Flag]:
    """A key that signed several names, and a name that several keys signed."""
    by_key: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    by_name: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for player, name, where in _signed_names(files):
        by_key[player][name].append(where)
        by_name[name][player].append(where)
    for player in sorted(by_key):
        names = by_key[player]
        if len(names) > 1:
            listed = ", ".join(repr(n) for n in sorted(names))
            yield Flag(FlagKind.KEY_NAMES, f"key {player} signed as {listed}", _files(names))
    for name in sorted(by_name):
        players = by_name[name]
        if len(players) > 1:
            listed = ", ".join(sorted(players))
            yield Flag(FlagKind.NAME_KEYS, f"{name!r} signed by keys {listed}", _files(players))


def _files(groups: dict[str, list[str]]) -> tuple[str, ...]:
    """The files of every group, each once, in order."""
    return tuple(dict.fromkeys(where for key in sorted(groups) for where in groups[key]))


def _roster(files: Sequence[GameFile], games: Sequence[EventGame]) -> Iterable[Entrant]:
    keys: dict[str, str] = {}
    warbands: dict[str, set[str]] = defaultdict(set)
    names: dict[str, set[str]] = defaultdict(set)
    file_count: dict[str, int] = defaultdict(int)
    for player, name, _ in _signed_names(files):
        names[player].add(name)
    for f in files:
        if f.players is None or f.keys is None or f.warbands is None:
            continue
        for seat in (0, 1):
            player = f.players[seat]
            keys[player] = f.keys[seat]
            warbands[player].add(f.warbands[seat])
        for player in set(f.players):
            file_count[player] += 1
    game_count: dict[str, int] = defaultdict(int)
    for game in games:
        for player in set(game.players or ()):
            game_count[player] += 1
    for player in sorted(keys):
        yield Entrant(
            player,
            keys[player],
            tuple(sorted(warbands[player])),
            file_count[player],
            game_count[player],
            tuple(sorted(names[player])),
        )


def _standings(
    games: Sequence[EventGame], points: Points, names: dict[str, tuple[str, ...]]
) -> Iterable[Standing]:
    played: dict[str, list[tuple[str, int]]] = defaultdict(list)  # (opponent, 1 win 0 draw -1)
    unsigned: dict[str, int] = defaultdict(int)
    for game in games:
        if not game.counted or game.players is None:
            continue
        winner = game.winner
        for seat in (0, 1):
            me, them = game.players[seat], game.players[1 - seat]
            score = 0 if winner is None else (1 if winner == seat else -1)
            played[me].append((them, score))
            if game.verdict.status is VerdictStatus.DECIDED:
                unsigned[me] += 1
    rate = {p: Fraction(sum(s == 1 for _, s in g), len(g)) for p, g in played.items()}
    rows = []
    for player, results in played.items():
        wins = sum(s == 1 for _, s in results)
        draws = sum(s == 0 for _, s in results)
        losses = sum(s == -1 for _, s in results)
        opponents = sum((rate[o] for o, _ in results), Fraction(0)) / len(results)
        total = wins * points.win + draws * points.draw + losses * points.loss
        rows.append((player, len(results), wins, draws, losses, total, opponents))
    rows.sort(key=lambda r: (-r[5], -r[6], -r[2], r[0]))
    rank = 0
    previous: tuple[int, Fraction] | None = None
    for index, (player, n, wins, draws, losses, total, opponents) in enumerate(rows, start=1):
        if (total, opponents) != previous:
            rank, previous = index, (total, opponents)
        yield Standing(
            rank,
            player,
            n,
            wins,
            draws,
            losses,
            total,
            opponents,
            unsigned[player],
            names.get(player, ()),
        )
