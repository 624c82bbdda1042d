"""``dbnet event`` with an event file: the verbs ``new``, ``add``, ``drop`` and ``pair``,
the Swiss standings of a folder with ``event.toml``, ``--ratings``, and ``dbnet id``.

``commands.event`` hands a call here when ``wanted(args)``: a verb (``dbnet event pair
FOLDER``), a folder with an event file, or ``--ratings``. Everything an event decides
is in ``dbnet.replay.swiss``; this module reads the folder, writes the files (whole or
not at all) and prints. Bad input (a malformed fingerprint, a duplicate, a round
already paired, a hostile file) is one line on stderr, exit status 2, nothing changed."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import dbnet
from dbnet.commands.swiss_arguments import VERBS
from dbnet.commands.verify import UsageError, find_replays, jobs_for, with_progress
from dbnet.commands.workers import map_files
from dbnet.errors import DbnetError
from dbnet.replay.event import FAILING, Points, Report, report
from dbnet.replay.gamefile import GameFile, examine
from dbnet.replay.swiss import eventfile, roundfile
from dbnet.replay.swiss.errors import EventFileError
from dbnet.replay.swiss.eventfile import EventFile, EventPoints
from dbnet.replay.swiss.fields import canonical_fingerprint
from dbnet.replay.swiss.page import swiss_page
from dbnet.replay.swiss.ratings import Rated, rate_event, rate_folder
from dbnet.replay.swiss.results import Results, find_results
from dbnet.replay.swiss.roundfile import RoundFile
from dbnet.replay.swiss.standings import Line, standings
from dbnet.replay.swiss.tournament import champion, check, plan_round
from dbnet.text import printable

EXIT_OK: Final = 0
EXIT_FLAGGED: Final = 1
EXIT_USAGE: Final = 2
VERB_OPTIONS: Final = {
    "new": ("name", "rounds", "top"),
    "add": ("name",),
    "drop": (),
    "pair": ("check",),
    None: ("ratings",),
}


def wanted(args: argparse.Namespace) -> bool:
    """Whether this module runs the call rather than today's ``dbnet event``."""
    more = getattr(args, "more", None)
    if more or getattr(args, "ratings", False):
        return True
    return (Path(args.folder) / eventfile.EVENT_FILE).is_file()


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (DbnetError, UsageError) as exc:
        print(f"dbnet event: {printable(str(exc))}", file=sys.stderr)
        return EXIT_USAGE


def run_id(args: argparse.Namespace) -> int:
    from dbnet.protocol.identity import Identity

    print(Identity.load_or_create().fingerprint)
    return EXIT_OK


def _run(args: argparse.Namespace) -> int:
    verb = args.folder if args.folder in VERBS and args.more else None
    _only(args, verb)
    if verb is None:
        if args.more:
            raise UsageError(f"unexpected {args.more[0]!r} after the folder")
        return _show(args, Path(args.folder))
    folder, *rest = args.more
    path = Path(folder)
    if verb == "new":
        _no_more(rest)
        return _new(args, path)
    if not path.is_dir():
        raise UsageError(f"{folder}: no such folder")
    event = _load(path)
    if verb == "pair":
        _no_more(rest)
        return _check(args, path, event) if args.check else _pair(args, path, event)
    if len(rest) != 1:
        raise UsageError(f"'dbnet event {verb} FOLDER FINGERPRINT' takes one fingerprint")
    where = str(path / eventfile.EVENT_FILE)
    fp = canonical_fingerprint(rest[0], "")
    rounds = _rounds(path, event)
    if verb == "add":
        if rounds:
            raise EventFileError(
                where, f"round 1 is already paired: {fp} cannot join the event now"
            )
        name = eventfile.check_player_name(args.name or "", "--name")
        event = eventfile.with_player(event, eventfile.Entry(fp, name), where)
        eventfile.save(path, event)
        print(f"added {fp}{' (' + name + ')' if name else ''}: {len(event.players)} players")
        return EXIT_OK
    event = eventfile.with_drop(event, fp, len(rounds) + 1, where)
    eventfile.save(path, event)
    print(f"{fp} drops: not paired from round {len(rounds) + 1} on")
    return EXIT_OK


def _only(args: argparse.Namespace, verb: str | None) -> None:
    allowed = VERB_OPTIONS[verb]
    for option in ("name", "rounds", "top", "check", "ratings"):
        value = getattr(args, option, None)
        if value not in (None, False) and option not in allowed:
            what = f"'dbnet event {verb}'" if verb else "'dbnet event FOLDER'"
            raise UsageError(f"--{option} is not an option of {what}")
    if verb is not None and (args.json or args.html):
        raise UsageError(f"--json and --html show an event: not with 'dbnet event {verb}'")


def _no_more(rest: list[str]) -> None:
    if rest:
        raise UsageError(f"unexpected {rest[0]!r}")


def _load(folder: Path) -> EventFile:
    event = eventfile.load(folder)
    if event is None:
        raise UsageError(
            f"{folder}: no {eventfile.EVENT_FILE} (start one: dbnet event new {folder} "
            "--name NAME --rounds N)"
        )
    return event


def _rounds(folder: Path, event: EventFile) -> tuple[RoundFile, ...]:
    limit = event.rounds + (event.top.bit_length() - 1 if event.top else 0)
    return roundfile.load_rounds(folder, frozenset(e.fingerprint for e in event.players), limit)


def _new(args: argparse.Namespace, folder: Path) -> int:
    if args.name is None or args.rounds is None:
        raise UsageError("'dbnet event new FOLDER' needs --name NAME and --rounds N")
    path = folder / eventfile.EVENT_FILE
    if path.exists():
        raise EventFileError(str(path), "already exists: this folder has an event")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: not a folder")
    event = eventfile.new_event(args.name, args.rounds, args.top or 0, EventPoints(), "")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{folder}: cannot make the folder: {exc.strerror}") from exc
    eventfile.save(folder, event)
    cut = f", then a top {event.top}" if event.top else ""
    print(f"{path}: event {event.name!r} (id {event.event_id}), {event.rounds} rounds{cut}")
    return EXIT_OK


@dataclass(frozen=True, slots=True)
class Folder:
    """A folder's event as it stands: its files' report, rounds and results."""

    event: EventFile
    report: Report
    rounds: tuple[RoundFile, ...]
    results: Results


def _read(args: argparse.Namespace, folder: Path, event: EventFile) -> Folder:
    rounds = _rounds(folder, event)
    facts = _facts(args, folder)
    p = event.points
    made = report(facts, Points(p.win, p.draw, p.loss))
    return Folder(event, made, rounds, find_results(event, rounds, made.games))


def _facts(args: argparse.Namespace, folder: Path) -> list[GameFile]:
    if not folder.is_dir():
        raise UsageError(f"{folder}: no such folder")
    if not any(folder.rglob("*.dbnr")):
        return []
    files = find_replays([str(folder)])
    return with_progress(map_files(examine, files, jobs_for(args.jobs)), len(files))


def _pair(args: argparse.Namespace, folder: Path, event: EventFile) -> int:
    state = _read(args, folder, event)
    rnd = plan_round(event, state.rounds, state.results)
    roundfile.save(folder, rnd)
    names = {e.fingerprint: e.name for e in event.players}
    print(f"{roundfile.round_path(folder, rnd.number)}: round {rnd.number} ({rnd.stage.value})")
    for t in rnd.tables:
        b = "bye" if t.b is None else f"B {_named(t.b, names)}"
        print(printable(f"  table {t.number:>3}  A {_named(t.a, names)}  {b}"))
    return EXIT_OK


def _check(args: argparse.Namespace, folder: Path, event: EventFile) -> int:
    state = _read(args, folder, event)
    if not state.rounds:
        print("no round is paired yet: nothing to check")
        return EXIT_OK
    found = check(event, state.rounds, state.results)
    for d in found:
        kind = "differs" if d.fatal else "note"
        print(printable(f"round {d.round} {kind}: {d.text}"))
    fatal = [d for d in found if d.fatal]
    if not fatal:
        print(f"rounds 1 to {len(state.rounds)}: each is what its recorded results pair")
    return EXIT_FLAGGED if fatal else EXIT_OK


def _show(args: argparse.Namespace, folder: Path) -> int:
    event = eventfile.load(folder) if folder.is_dir() else None
    if event is None:  # --ratings on a folder of games alone
        facts = _facts(args, folder)
        if not facts:
            raise UsageError(f"{folder}: no replay files")
        made = report(facts, Points(*args.points))
        rated = rate_folder(made.games)
        if args.json:
            print(json.dumps({"ratings": [r.to_json() for r in rated]}, indent=2))
        else:
            for line in _rating_lines(rated, "one rating period: a game's time is not signed"):
                print(printable(line))
        return _exit(made)
    if tuple(args.points) != (3, 1, 0):
        raise UsageError(f"--points: the event's points are in {folder}/event.toml")
    state = _read(args, folder, event)
    swiss = _swiss_results(state)
    hand = [(r.round, r.table.number) for rnd in state.results.rounds for r in rnd if r.hand]
    lines = standings(event, swiss, hand)
    rated = rate_event(event, state.results) if args.ratings or args.html else ()
    if args.json:
        print(json.dumps(_json(state, lines, rated, args.ratings), indent=2))
    elif args.html:
        page = swiss_page(
            event,
            state.report,
            state.results,
            lines,
            rated,
            champion(event, state.rounds, state.results),
            version=dbnet.__version__,
            folder=str(folder),
        )
        sys.stdout.flush()
        sys.stdout.buffer.write(page.encode("utf-8"))
        sys.stdout.buffer.flush()
    else:
        for line in _text(state, lines, str(folder)):
            print(printable(line))
        if args.ratings:
            for line in _rating_lines(rated, "each round a rating period"):
                print(printable(line))
    return _exit(state.report)


def _exit(made: Report) -> int:
    return EXIT_FLAGGED if any(f.kind in FAILING for f in made.flags) else EXIT_OK


def _swiss_results(state: Folder) -> list[roundfile.Paired]:
    return [p for p in state.results.known() if p.round <= state.event.rounds]


def _json(
    state: Folder, lines: tuple[Line, ...], rated: tuple[Rated, ...], ratings: bool
) -> dict[str, object]:
    out: dict[str, object] = {
        "event": state.event.to_json(),
        "rounds": [
            {
                "round": rnd.number,
                "stage": rnd.stage.value,
                "tables": [r.to_json() for r in found],
            }
            for rnd, found in zip(state.rounds, state.results.rounds, strict=True)
        ],
        "standings": [line.to_json() for line in lines],
        "tie_breaks": ["points", "opponents_match_win", "game_win", "opponents_game_win", "lot"],
        "champion": champion(state.event, state.rounds, state.results),
        "apart": [a.to_json() for a in state.results.apart],
        "files": state.report.to_json(),
    }
    if ratings:
        out["ratings"] = [r.to_json() for r in rated]
    return out


def _text(state: Folder, lines: tuple[Line, ...], folder: str) -> Iterator[str]:
    event, made = state.event, state.report
    p = event.points
    cut = f", then a top {event.top}" if event.top else ""
    yield (
        f"Event {event.name!r} (id {event.event_id}): {len(event.players)} players, "
        f"{event.rounds} Swiss rounds{cut}; {len(state.rounds)} rounds paired."
    )
    yield (
        f"{folder}: {made.files} replay files hold {len(made.games)} games; "
        f"{len(made.counted)} counted, {len(made.apart)} not counted."
    )
    names = {e.fingerprint: e.name for e in event.players}
    winner = champion(event, state.rounds, state.results)
    if winner is not None:
        yield f"Winner of the top cut: {_named(winner, names)}"
    yield ""
    yield (
        f"Standings of the Swiss rounds (win {p.win}, draw {p.draw}, loss {p.loss}, a bye a "
        "win; ties: opponents' match-win % floored at 1/3, game-win %, opponents' game-win %, "
        "then a lot drawn from the event id):"
    )
    yield (
        f"  {'rank':>4}  {'player':<19}  {'name':<16}  points  played  W-D-L  byes"
        "    OMW%     GW%    OGW%"
    )
    for s in lines:
        notes = []
        if s.dropped is not None:
            notes.append(f"dropped from round {s.dropped}")
        if s.hand:
            notes.append(f"{s.hand} hand-recorded")
        yield (
            f"  {s.rank:>4}  {s.fingerprint:<19}  {s.name or '-':<16}  {s.points:>6}  "
            f"{s.played:>6}  {s.wins}-{s.draws}-{s.losses:<3}  {s.byes:>4}  "
            f"{float(s.omw):>6.2%}  {float(s.gwp):>6.2%}  {float(s.ogw):>6.2%}"
            + (f"  ({'; '.join(notes)})" if notes else "")
        )
    names = {e.fingerprint: e.name for e in event.players}
    for rnd, found in zip(state.rounds, state.results.rounds, strict=True):
        yield ""
        yield f"Round {rnd.number} ({'top cut' if rnd.stage.value == 'cut' else 'Swiss'}):"
        for r in found:
            t = r.table
            b = "bye" if t.b is None else f"B {_named(t.b, names)}"
            yield f"  table {t.number:>3}  A {_named(t.a, names)}  {b}: {r.words()}"
    yield ""
    yield "Games apart (no table's result, never counted):"
    if not state.results.apart:
        yield "  (none)"
    for a in state.results.apart:
        yield f"  {(a.game.game_id or '-')[:16]}: {a.why}"
        for f in a.game.files:
            yield f"    {f}"
    yield ""
    yield "Flags:"
    if not made.flags:
        yield "  (none)"
    for flag in made.flags:
        yield f"  {flag.kind.value}: {flag.text}"


def _rating_lines(rated: tuple[Rated, ...], periods: str) -> Iterator[str]:
    yield ""
    yield f"Glicko-2 ratings ({periods}; start 1500, deviation 350, volatility 0.06, tau 0.5):"
    if not rated:
        yield "  (no counted game)"
    for i, r in enumerate(rated, start=1):
        yield (
            f"  {i:>4}  {r.fingerprint:<19}  {r.rating:>7.1f}  deviation {r.deviation:>5.1f}  "
            f"volatility {r.volatility:.4f}  games {r.games}"
        )


def _named(player: str, names: dict[str, str]) -> str:
    name = names.get(player)
    return f"{player} ({name})" if name else player
