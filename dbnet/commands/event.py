"""``dbnet event FOLDER``: an event's replays verified, then its roster and standings.

Every ``*.dbnr`` file in the folder (and its subfolders) is verified as ``dbnet verify``
does it, in the same worker processes and with the same progress bar; then
``dbnet.replay.event`` makes the games (both players' copies of a game count once),
the roster, the flags and the standings, which count only complete, verified games and
wins by forfeit (a player proven to have equivocated loses the game). The output is
text, or ``--json`` (one document: ``roster``, ``standings``, ``games``, ``flags``,
``notes``, ``unreadable``), or ``--html`` (one self-contained page).

Exit status: 0 when every file is a valid replay (unfinished games and claims are
listed apart, not errors); 1 when a file is damaged or unreadable, a player is proven to
have equivocated, or copies of a game disagree; 2 for usage errors (no such folder, a
folder without replays, bad ``--points``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import Final

import dbnet
from dbnet.commands import swiss
from dbnet.commands.copies import read_in_workers
from dbnet.commands.verify import UsageError, find_replays, jobs_for, with_progress
from dbnet.commands.workers import map_files
from dbnet.replay.event import FAILING, EventGame, Points, Report, headline, report
from dbnet.replay.event_page import event_page
from dbnet.replay.gamefile import GameFile, examine
from dbnet.text import counted, printable

EXIT_OK: Final = 0
EXIT_FLAGGED: Final = 1
EXIT_USAGE: Final = 2


def run(args: argparse.Namespace) -> int:
    if swiss.wanted(args):  # a verb, a folder with an event file, --ratings
        return swiss.run(args)
    try:
        files = find_replays([args.folder])
        jobs = jobs_for(args.jobs)
    except UsageError as exc:
        print(f"dbnet event: {exc}", file=sys.stderr)
        return EXIT_USAGE
    facts = read_all(files, jobs)
    points = Points(*args.points)
    event = read_in_workers(lambda h, f: report(facts, points, h, fork=f), facts, jobs)
    if args.json:
        print(json.dumps(event.to_json(), indent=2))
    elif args.html:
        page = event_page(event, version=dbnet.__version__, folder=args.folder)
        sys.stdout.flush()
        sys.stdout.buffer.write(page.encode("utf-8"))
        sys.stdout.buffer.flush()
    else:
        for line in text_lines(event, args.folder):
            print(printable(line))
    failing = any(flag.kind in FAILING for flag in event.flags)
    return EXIT_FLAGGED if failing else EXIT_OK


def read_all(files: list[str], jobs: int) -> list[GameFile]:
    """The facts of every file, verified in ``jobs`` workers, with a progress bar on a
    terminal."""
    return with_progress(map_files(examine, files, jobs), len(files))


def text_lines(event: Report, folder: str) -> Iterator[str]:
    """The event for people (each line escaped by the caller: names come from files)."""
    yield f"{folder}: {headline(event)}"
    p = event.points
    yield ""
    yield (
        f"Standings (win {p.win}, draw {p.draw}, loss {p.loss}; ties broken by the opponents' "
        "win rate; complete, verified games only):"
    )
    if not event.standings:
        yield "  (no complete, verified game)"
    else:
        yield (
            f"  {'rank':>4}  {'player':<19}  played  won  drawn  lost  points  opp. win rate  names"
        )
        for s in event.standings:
            notes = [f"{s.unsigned} not counter-signed"] if s.unsigned else []
            notes += [f"{s.forfeits} won by forfeit"] if s.forfeits else []
            unsigned = f"  ({'; '.join(notes)})" if notes else ""
            names = ", ".join(s.names) or "-"
            yield (
                f"  {s.rank:>4}  {s.fingerprint:<19}  {s.played:>6}  {s.wins:>3}  {s.draws:>5}  "
                f"{s.losses:>4}  {s.points:>6}  {float(s.opponents_win_rate):>13.1%}  "
                f"{names}{unsigned}"
            )
    yield ""
    yield "Roster (players by key fingerprint):"
    for note in event.notes:
        yield f"  {note}"
    for e in event.roster:
        warbands = ", ".join(repr(w) for w in e.warbands)
        names = ", ".join(repr(n) for n in e.names) or "no name recorded"
        games = f"{counted(e.games, 'game')} in {counted(e.files, 'file')}"
        yield f"  {e.fingerprint}  {names}; {games}; warbands {warbands}"
    yield ""
    yield "Flags:"
    if not event.flags:
        yield "  (none)"
    for flag in event.flags:
        yield f"  {flag.kind.value}: {flag.text}"
        for name in flag.files:
            yield f"    {name}"
    yield ""
    yield "Games counted:"
    yield from _games(event.counted)
    yield ""
    yield "Games listed apart (not counted):"
    yield from _games(event.apart)
    if event.unreadable:
        yield ""
        yield "Unreadable files (no game in them; not counted):"
        for verdict in event.unreadable:
            yield f"  {verdict.where}: {verdict.summary()}"


def _games(games: tuple[EventGame, ...]) -> Iterator[str]:
    if not games:
        yield "  (none)"
    for game in games:
        a, b = (
            (_named(p, n) for p, n in zip(game.players, game.names, strict=True))
            if game.players is not None
            else ("?", "?")
        )
        short = (game.game_id or "-")[:16]
        yield f"  {short:<16}  A {a}  B {b}  {game.result()}"
        damaged = {v.where for v in game.bad}
        for name in game.files:
            yield f"    {name}" + ("  (damaged copy)" if name in damaged else "")
        for name in game.evidence:
            yield f"    {name}  (equivocation evidence)"


def _named(player: str, name: str | None) -> str:
    return player if name is None else f"{player} ({name})"
