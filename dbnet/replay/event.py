"""An event's replays as a roster, standings and a list of games (``dbnet event``).

From the facts of every file (``replay.gamefile``):

- **Games.** Files with one game id are copies of one game (each player keeps one) when
  they hold the same entries, or one holds the start of the other (a copy saved before
  the last entries came, or damaged after its valid entries: a *bad copy*, listed under
  its game): the game counts once, told by its most complete valid copy
  (``replay.forks``). Copies that fork prove, when one key signed both entries at the
  fork, that this key's owner cheated (*equivocation*), and so does an evidence file
  (``DBNEQUV1``) of the game: the game counts for the other player as a win by forfeit,
  whatever its moves say; when both keys equivocated it counts for nobody
  (``forks.forfeit_winner``, the rule an event may replace). Copies that fork between
  two authors (a claim crossing an entry) prove no equivocation: a claim its own author
  went on past in the other copy is refuted and the game told by that copy; copies that
  all give the same result count as they say; otherwise they are flagged and none
  counts. A file without a valid OFFER holds no game: it is listed as unreadable, never
  as a game (or as a bad copy of the game its header names, when other files hold it).
- **Standings** count only complete, verified games and wins by forfeit: ``complete``
  (both signed the result) and ``decided`` (the result derived by re-simulation when one
  player withheld the FINAL or its counter-signature; flagged). Unfinished games and
  games closed by a timeout claim or a clock claim (the claimant's word alone, disputed
  or not by the flagged player) are listed apart and count for nobody: the organiser
  decides them. Each player gets the games played, won (by forfeit too), drawn and lost,
  match points (``Points``, 3-1-0 by default), and the tie-break: the opponents' win
  rate, the mean over the player's games of each opponent's share of games won.
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from dbnet.replay.evidence import Proof
from dbnet.replay.forks import (
    Forfeit,
    Fork,
    GameCopies,
    Hashes,
    RefutedClaim,
    forfeit_winner,
    games_of,
    outcome,
)
from dbnet.replay.gamefile import GameFile, entry_hashes
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.text import counted

__all__ = [
    "NO_NAMES",
    "Entrant",
    "EventGame",
    "Flag",
    "FlagKind",
    "Points",
    "Report",
    "Standing",
    "headline",
    "no_names",
    "report",
]

NO_NAMES: Final = (
    "{files} no player names (replays before protocol version 3): their players "
    "are known by key fingerprint alone."
)
COUNTED: Final = (VerdictStatus.COMPLETE, VerdictStatus.DECIDED)


@dataclass(frozen=True, slots=True)
class Points:
    """Match points for a win, a draw and a loss."""

    win: int = 3
    draw: int = 1
    loss: int = 0


def no_names(files: int) -> str:
    """The roster's note on ``files`` files that record no player names."""
    return NO_NAMES.format(files=counted(files, "file records", "files record"))


class FlagKind(enum.Enum):
    EQUIVOCATION = "equivocation proven"
    REFUTED_CLAIM = "claim refuted by its author's own later entry"
    CLAIM_CROSSED = "copies that fork at a claim crossing the last entries (same result)"
    SAME_ID = "two different replays with one game id"
    INVALID = "damaged copy (invalid file)"
    UNREADABLE = "unreadable file (no game in it)"
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
    """One game of the event: its copies (``files``, the most complete valid one first),
    the verdict of that copy (of an evidence file, when the game has no copy), and whether
    it counts in the standings. ``bad`` are the verdicts of its damaged copies, ``proofs``
    the proofs of equivocation found against its players (in ``evidence`` files or in its
    copies) and ``forfeit`` the seat that wins by forfeit because of them (None when both
    equivocated)."""

    files: tuple[str, ...]
    verdict: Verdict
    game_id: str | None
    players: tuple[str, str] | None
    warbands: tuple[str, str] | None
    counted: bool
    flags: tuple[FlagKind, ...]
    names: tuple[str | None, str | None] = (None, None)
    bad: tuple[Verdict, ...] = ()
    proofs: tuple[Proof, ...] = ()
    evidence: tuple[str, ...] = ()
    forfeit: int | None = None
    refuted: tuple[RefutedClaim, ...] = ()

    @property
    def winner(self) -> int | None:
        """0 (A) or 1 (B) for a counted game with a winner; None for a draw or uncounted."""
        if not self.counted:
            return None
        if self.proofs:
            return self.forfeit
        if self.verdict.winner not in ("A", "B"):
            return None
        return 0 if self.verdict.winner == "A" else 1

    def result(self) -> str:
        """``A won (victory)``, ``B won (resignation), not counter-signed``, what is owed,
        ``A won by forfeit: B (FINGERPRINT) signed two different entries ...``."""
        if self.proofs:
            said = "; ".join(p.describe() for p in self.proofs)
            if self.forfeit is None:
                return (
                    "no result: both players signed two different entries for one place "
                    f"({said}); {outcome(None)}"
                )
            return f"{outcome(self.forfeit)}: {said}"
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
            "winner": None if self.winner is None else "AB"[self.winner],
            "counted": self.counted,
            "forfeit": bool(self.proofs) and self.counted,
            "equivocations": [p.to_json() for p in self.proofs],
            "refuted_claims": [
                {"player": "AB"[r.seat], "seq": r.seq, "file": r.copy, "later": r.later, "by": r.by}
                for r in self.refuted
            ],
            "bad_copies": [v.where for v in self.bad],
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
    forfeits: int = 0
    """Games won by forfeit (the opponent equivocated)."""

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
            "won_by_forfeit": self.forfeits,
        }


@dataclass(frozen=True, slots=True)
class Report:
    """An event: ``files`` files, of which ``unreadable`` (their verdicts) hold no game."""

    files: int
    points: Points
    roster: tuple[Entrant, ...]
    standings: tuple[Standing, ...]
    games: tuple[EventGame, ...]
    flags: tuple[Flag, ...]
    notes: tuple[str, ...]
    unreadable: tuple[Verdict, ...] = ()

    @property
    def copies(self) -> int:
        """The files that are copies of the games (damaged ones too)."""
        return sum(len(g.files) for g in self.games)

    @property
    def counted(self) -> tuple[EventGame, ...]:
        return tuple(g for g in self.games if g.counted)

    @property
    def apart(self) -> tuple[EventGame, ...]:
        """The games that count for nobody: unfinished, claims, without a valid copy, in
        conflict, with both players proven to have equivocated."""
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
            "unreadable": [{"file": v.where, "reason": v.summary()} for v in self.unreadable],
        }


def report(
    files: Sequence[GameFile],
    points: Points = Points(),
    hashes: Hashes = entry_hashes,
    *,
    fork: Fork | None = None,
    forfeit: Forfeit = forfeit_winner,
) -> Report:
    """The event of ``files`` (each file once, in the order given). ``hashes`` and ``fork``
    read copies that disagree (``replay.forks``); ``forfeit`` decides a game with proven
    equivocation."""
    files = _with_bad_copies(files)
    games = [_one_game(g, forfeit) for g in games_of(files, hashes, fork)]
    unreadable = tuple(f.verdict for f in files if f.game_id is None)
    flags = (
        *_flags(games),
        *(Flag(FlagKind.UNREADABLE, v.summary(), (v.where,)) for v in unreadable),
        *_name_flags(files),
    )
    roster = tuple(_roster(files, games))
    unnamed = sum(1 for f in files if f.is_copy and not f.damaged and None in f.names)
    return Report(
        files=len(files),
        points=points,
        roster=roster,
        standings=tuple(_standings(games, points, {e.fingerprint: e.names for e in roster})),
        games=tuple(games),
        flags=flags,
        notes=(no_names(unnamed),) if unnamed else (),
        unreadable=unreadable,
    )


def headline(event: Report) -> str:
    """``3 replay files hold 1 game (the copies of a game count once; 1 copy is damaged);
    2 files are unreadable (not replays); 1 counted, 0 listed apart.``"""
    copies = event.copies
    damaged = sum(len(g.bad) for g in event.games)
    notes = (
        ["the copies of a game count once"] if any(len(g.files) > 1 for g in event.games) else []
    )
    if damaged:
        notes.append(f"{counted(damaged, 'copy is', 'copies are')} damaged")
    hold = "holds" if copies == 1 else "hold"
    parts = [
        f"{counted(copies, 'replay file')} {hold} {counted(len(event.games), 'game')}"
        + (f" ({'; '.join(notes)})" if notes else "")
    ]
    evidence = sum(len(g.evidence) for g in event.games)
    if evidence:
        parts.append(f"{counted(evidence, 'file')} of equivocation evidence")
    if event.unreadable:
        unreadable = len(event.unreadable)
        parts.append(
            counted(
                unreadable,
                "file is unreadable (not a replay)",
                "files are unreadable (not replays)",
            )
        )
    parts.append(f"{len(event.counted)} counted, {len(event.apart)} listed apart.")
    return "; ".join(parts)


# --- games from files --------------------------------------------------------------------


def _with_bad_copies(files: Sequence[GameFile]) -> list[GameFile]:
    """``files``, each file without a valid OFFER whose header names a game that another
    file proves taken as a bad copy of that game."""
    known = {f.game: f for f in files if f.game is not None}
    return [
        f.as_bad_copy(known[f.header_id, f.protocol])
        if f.header_id is not None and (f.header_id, f.protocol) in known
        else f
        for f in files
    ]


def _one_game(copies: GameCopies, forfeit: Forfeit) -> EventGame:
    """One game: told by its most complete valid copy (by its evidence when it has no
    copy); decided by ``forfeit`` when a player was proven to have equivocated; when its
    copies fork at a claim, told by the copy that refutes the claim, or by every copy when
    they all give the same result, or else counted for nobody."""
    ordered = sorted(copies.copies, key=lambda f: -f.entries)  # stable
    flags: list[FlagKind] = []
    winner: int | None = None
    live = copies.live
    if copies.proofs or len(copies.branches) == 1:
        best = _best(ordered) or copies.evidence[0]
        flags, counted = _told(best)
        if copies.proofs:
            flags = [FlagKind.EQUIVOCATION, *(f for f in flags if f is FlagKind.ONE_KEY)]
            winner = forfeit(copies.cheats)
            counted = winner is not None and FlagKind.ONE_KEY not in flags
    else:
        bests = [
            b for b in (_best(sorted(branch, key=lambda f: -f.entries)) for branch in live) if b
        ]
        best = max(bests, key=lambda f: f.entries) if bests else ordered[0]
        flags, counted = _told(best)
        flags[:0] = [FlagKind.REFUTED_CLAIM] if copies.refuted else []
        if len(bests) > 1 and _same_result(bests):
            flags.insert(0, FlagKind.CLAIM_CROSSED)
        elif len(bests) != 1:
            flags, counted = [FlagKind.SAME_ID], False
    bad = tuple(f.verdict for f in ordered if f.damaged)
    if bad:
        flags.append(FlagKind.INVALID)
    files = [best, *(f for f in ordered if f is not best)] if best.is_copy else ordered
    return EventGame(
        files=tuple(f.where for f in files),
        verdict=best.verdict,
        game_id=best.game_id,
        players=best.players,
        warbands=best.warbands,
        counted=counted,
        flags=tuple(flags),
        names=best.names,
        bad=bad,
        proofs=copies.proofs,
        evidence=tuple(f.where for f in copies.evidence),
        forfeit=winner,
        refuted=copies.refuted,
    )


def _best(ordered: Sequence[GameFile]) -> GameFile | None:
    """The most complete valid copy of ``ordered`` (the most complete first), else the
    most complete damaged one; None for no copy."""
    return next((f for f in ordered if not f.damaged), ordered[0] if ordered else None)


def _told(best: GameFile) -> tuple[list[FlagKind], bool]:
    """The flags of a game told by its copy ``best``, and whether it counts."""
    status = best.verdict.status
    flags: list[FlagKind] = []
    one_key = best.players is not None and best.players[0] == best.players[1]
    if one_key:
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
    return flags, status in COUNTED and not one_key


def _same_result(copies: Sequence[GameFile]) -> bool:
    """Whether the copies all hold a finished game with one result (a claim that crossed
    the last entries, after the game was decided, changes nothing)."""
    return all(f.verdict.status in COUNTED for f in copies) and (
        len({f.verdict.winner for f in copies}) == 1
    )


def _flags(games: Iterable[EventGame]) -> Iterable[Flag]:
    for game in games:
        short = (game.game_id or "")[:16]
        for kind in game.flags:
            if kind is FlagKind.INVALID:
                for bad in game.bad:
                    yield Flag(kind, _bad_copy(short, bad, game), (bad.where,))
            elif kind is FlagKind.REFUTED_CLAIM:
                for claim in game.refuted:
                    who = (
                        f"{'AB'[claim.seat]} ({game.players[claim.seat] if game.players else '?'})"
                    )
                    text = f"game {short}: {who} {claim.describe()}"
                    yield Flag(kind, text, (claim.copy, claim.by))
            elif kind is FlagKind.EQUIVOCATION:
                said = "; ".join(p.describe() for p in game.proofs)
                proven = tuple(dict.fromkeys(f for p in game.proofs for f in p.files))
                yield Flag(kind, f"game {short}: {said}; {outcome(game.forfeit)}", proven)
            else:
                yield Flag(kind, _flag_text(kind, game), game.files)


def _bad_copy(short: str, bad: Verdict, game: EventGame) -> str:
    if game.verdict.status is VerdictStatus.INVALID:
        return f"game {short}: {bad.summary()}; no valid copy of the game: not counted"
    valid = counted(len(game.files) - len(game.bad), "valid copy", "valid copies")
    return f"game {short}: a damaged copy ({bad.summary()}); the game is told by its {valid}"


def _flag_text(kind: FlagKind, game: EventGame) -> str:
    short = (game.game_id or "")[:16]
    if kind is FlagKind.SAME_ID:
        return (
            f"game {short}: {len(game.files)} files hold different entries under one game "
            "id, forking between two authors (a claim crossing an entry; no key signed two "
            "entries for one place); none counts"
        )
    if kind is FlagKind.ONE_KEY:
        return f"game {short}: both seats have one key; not counted"
    if kind is FlagKind.CLAIM_CROSSED:
        return (
            f"game {short}: {len(game.files)} files fork at a claim that crossed the last "
            f"entries; every copy gives the same result: {game.result()}"
        )
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
        if f.is_copy:
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
    forfeits: dict[str, int] = defaultdict(int)
    for game in games:
        if not game.counted or game.players is None:
            continue
        winner = game.winner
        for seat in (0, 1):
            me, them = game.players[seat], game.players[1 - seat]
            score = 0 if winner is None else (1 if winner == seat else -1)
            played[me].append((them, score))
            if game.proofs:
                forfeits[me] += score == 1
            elif game.verdict.status is VerdictStatus.DECIDED:
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
            forfeits[player],
        )
