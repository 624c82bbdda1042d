"""``dbnet verify FILE...``: check replay files and say what each one proves.

Arguments are replay files or folders (searched recursively for ``*.dbnr``). Each
file gets one verdict (docs/verifying.md): complete, unfinished, claim or invalid.
One file prints its verdict; several print a table and the counts; ``--json``
prints one JSON document with every verdict instead. Files are checked in
parallel worker processes when there are many (``--jobs``). A progress bar goes
to stderr when it is a terminal.

A file of equivocation evidence (``dbnet.replay.evidence``) gets the verdict
*equivocation* when it proves that a player signed two entries for one slot. Across
the files, copies of one game that hold two different entries signed by one key for
one place prove the same (``dbnet.replay.forks``): each such game is named after the
verdicts, with the key that signed twice and the forfeit it costs (``equivocations``
in JSON).

Exit status: 0 when every file is a complete, valid game and no key is proven to have
equivocated; 1 otherwise (an unfinished game, a claim or evidence is not a verified
result); 2 for usage errors (a path that does not exist, a folder without replays).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Final, TextIO, TypeVar

from dbnet.commands.copies import read_in_workers
from dbnet.commands.workers import map_files
from dbnet.errors import DbnetError
from dbnet.protocol.chat import chat_path, read_chat
from dbnet.protocol.log import GameLog
from dbnet.replay.checked import read_checked
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import EXTENSION, load_replay
from dbnet.replay.forks import GameCopies, forfeit_winner, games_of, outcome
from dbnet.replay.gamefile import examine
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.text import counted, printable

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
MIN_WIDTH: Final = 80
BAR_WIDTH: Final = 30
MIN_RESULT_WIDTH: Final = 40
COUNT_LABELS: Final = {
    VerdictStatus.COMPLETE: "complete",
    VerdictStatus.DECIDED: "decided",
    VerdictStatus.UNFINISHED: "unfinished",
    VerdictStatus.CLAIM: "claims",
    VerdictStatus.INVALID: "invalid",
    VerdictStatus.EQUIVOCATION: "equivocation evidence",
}


T = TypeVar("T")


class UsageError(Exception):
    """A bad argument: printed as one line, exit status 2 (internal to this command)."""


def run(args: argparse.Namespace) -> int:
    try:
        files = find_replays(args.paths)
        jobs = jobs_for(args.jobs)
    except UsageError as exc:
        print(f"dbnet verify: {exc}", file=sys.stderr)
        return EXIT_USAGE
    facts = with_progress(map_files(examine, files, jobs), len(files))
    verdicts = [f.verdict for f in facts]
    games = read_in_workers(lambda h, f: games_of(facts, h, f), facts, jobs)
    proven = [g for g in games if g.proofs]
    if args.json:
        print(json.dumps(json_document(verdicts, proven), indent=2))
    elif len(verdicts) == 1:
        print(format_single(verdicts[0]))
    else:
        print(format_table(verdicts, _width()))
        print(format_counts(verdicts, proven=bool(proven)))
    chats_ok = True
    if not args.json:
        for game in proven:
            print(printable(format_equivocation(game)))
        for verdict in verdicts:
            chat = chat_summary(verdict.where)
            if chat is not None:
                print(printable(chat[1]))
                chats_ok = chats_ok and chat[0]
    ok = all(v.ok for v in verdicts) and not proven and chats_ok
    return EXIT_OK if ok else EXIT_FAILED


def chat_summary(path: str) -> tuple[bool, str] | None:
    """The players' chat file beside the replay ``path``, checked against the game's id
    and keys (``dbnet.protocol.chat``): whether it verifies, and the line that says so;
    None when there is none."""
    chat = chat_path(Path(path))
    if not chat.exists():
        return None
    try:
        log = GameLog.start(load_replay(path).records[0])
        lines = read_chat(chat, log.game_id, log.keys)
    except (DbnetError, OSError, IndexError) as exc:
        return False, f"{chat}: the chat does not verify: {exc}"
    count = f"{len(lines)} chat line" + ("" if len(lines) == 1 else "s")
    return True, f"{chat}: {count}, each signed by its sender for this game"


# --- finding and checking files ---------------------------------------------------


def find_replays(paths: Sequence[str]) -> list[str]:
    """The files to check, in order: files as given, folders' ``*.dbnr`` files sorted;
    each file once.

    Raises:
        UsageError: a path does not exist, or a folder holds no replay file.
    """
    found: list[str] = []
    seen: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            inside = _walk(path)
            if not inside:
                raise UsageError(f"{path}: no *{EXTENSION} replay files in this folder")
        elif os.path.exists(path):
            inside = [path]
        else:
            raise UsageError(f"{path}: no such file or folder")
        for name in inside:
            key = os.path.realpath(name)
            if key not in seen:
                seen.add(key)
                found.append(name)
    return found


def _walk(folder: str) -> list[str]:
    def fail(exc: OSError) -> None:
        raise UsageError(f"{exc.filename or folder}: cannot read the folder: {exc.strerror}")

    names: list[str] = []
    for root, dirs, files in os.walk(folder, onerror=fail):
        dirs.sort()
        names += (os.path.join(root, f) for f in sorted(files) if f.endswith(EXTENSION))
    return names


def verify_file(path: str) -> Verdict:
    """The verdict on the file at ``path`` (an unreadable file is invalid, with why), read
    as ``dbnet replay`` and ``export`` read it (``read_checked``)."""
    try:
        return read_checked(path).verdict
    except ReplayError as exc:
        return Verdict(where=path, status=VerdictStatus.INVALID, entries=0, reason=exc.problem)


def verify_files(files: Sequence[str], jobs: int) -> Iterator[Verdict]:
    """The verdicts on ``files``, in order; in ``jobs`` worker processes when there are
    many files (signature checks dominate and a process uses one core)."""
    return map_files(verify_file, files, jobs)


def with_progress(results: Iterable[T], total: int) -> list[T]:
    """All of ``results`` (``total`` of them), with a progress bar on stderr while they
    come when it is a terminal and there is more than one."""
    progress = Progress(total, sys.stderr) if total > 1 else None
    done: list[T] = []
    try:
        for result in results:
            done.append(result)
            if progress is not None:
                progress.update(len(done))
    finally:
        if progress is not None:
            progress.clear()
    return done


def jobs_for(requested: int | None) -> int:
    """The worker processes to use: ``requested`` (``--jobs``), else one per CPU.

    Raises:
        UsageError: ``requested`` is below 1.
    """
    if requested is None:
        if hasattr(os, "sched_getaffinity"):
            return max(1, len(os.sched_getaffinity(0)))
        return os.cpu_count() or 1
    if requested < 1:
        raise UsageError(f"--jobs must be at least 1, got {requested}")
    return requested


# --- output ---------------------------------------------------------------------


class Progress:
    """``[#####.....] 37/120`` on one line of a terminal; silent when not a terminal."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total = total
        self.stream = stream
        self.active = stream.isatty()
        self._shown = 0

    def update(self, done: int) -> None:
        if not self.active:
            return
        filled = BAR_WIDTH * done // self.total
        line = f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{self.total}"
        self._shown = len(line) - 1
        self.stream.write(line)
        self.stream.flush()

    def clear(self) -> None:
        if self.active and self._shown:
            self.stream.write("\r" + " " * self._shown + "\r")
            self.stream.flush()


def format_single(verdict: Verdict) -> str:
    """The verdict on one file, escaped: its reason may quote what the file holds."""
    lines = [printable(f"{verdict.where}: {verdict.summary()}")]
    if verdict.game_id is not None and verdict.players is not None:
        a, b = verdict.players
        lines.append(
            f"  game {verdict.game_id}, "
            f"{counted(verdict.entries, 'valid entry', 'valid entries')}; "
            f"A {a}, B {b} (key fingerprints)"
        )
    return "\n".join(lines)


def result_text(verdict: Verdict) -> str:
    """The table's result column: the result and score, what is owed, or the reason."""
    status = verdict.status
    if status is VerdictStatus.COMPLETE:
        return f"{verdict.winner} won ({verdict.reason}), points {verdict.score()}"
    if status is VerdictStatus.INVALID:
        place = "file" if verdict.record is None else f"record {verdict.record}"
        return f"{place}: {verdict.reason}"
    if status is VerdictStatus.EQUIVOCATION:
        return f"proven: {verdict.reason}"
    owed = verdict.owed
    assert owed is not None
    if status is VerdictStatus.DECIDED:
        return (
            f"{verdict.winner} won ({verdict.reason}), points {verdict.score()}; "
            f"{owed.player} did not sign it"
        )
    if status is VerdictStatus.CLAIM and verdict.reason == "clock":
        flagged = verdict.flagged()
        said = f"{verdict.claimant} says {flagged}'s flag fell before entry {verdict.flagged_at}"
        if verdict.disputed:
            return f"disputed clock claim: {said}; {flagged} disputes it"
        return f"clock claim, not acknowledged by {flagged}: {said}"
    if status is VerdictStatus.CLAIM:
        return f"unilateral: {verdict.claimant} claims {owed.player} timed out (entry {owed.seq})"
    return f"{owed.player} owes entry {owed.seq}: {owed.describe()} (turn {verdict.turn})"


def format_table(verdicts: Iterable[Verdict], width: int = MIN_WIDTH) -> str:
    """One line per file: file, status, result or reason, entries. The result column is
    cut to fit ``width`` (never below MIN_RESULT_WIDTH); file names never are. Names and
    reasons are escaped (``dbnet.text.printable``): a reason may quote what a file holds."""
    rows = [
        (printable(v.where), v.status.value, printable(result_text(v)), str(v.entries))
        for v in verdicts
    ]
    header = ("file", "status", "result / reason", "entries")
    file_width = max(len(r[0]) for r in [header, *rows])  # file names are never cut
    status_width = max(len(s.value) for s in VerdictStatus)
    entries_width = len(header[3])
    result_width = max(MIN_RESULT_WIDTH, width - file_width - status_width - entries_width - 6)
    lines = []
    for name, status, result, entries in [header, *rows]:
        lines.append(
            f"{name:<{file_width}}  {status:<{status_width}}  "
            f"{_cut(result, result_width):<{result_width}}  {entries:>{entries_width}}"
        )
    return "\n".join(line.rstrip() for line in lines)


def format_equivocation(game: GameCopies) -> str:
    """``equivocation proven: game ID: B (FINGERPRINT) signed two different entries with
    sequence number 5 (FILE, FILE); A won by forfeit``."""
    said = "; ".join(f"{p.describe()} ({', '.join(p.files)})" for p in game.proofs)
    winner = forfeit_winner(game.cheats)
    return f"equivocation proven: game {game.game_id[:16]}: {said}; {outcome(winner)}"


def equivocation_json(game: GameCopies) -> dict[str, object]:
    winner = forfeit_winner(game.cheats)
    players = game.players
    return {
        "game_id": game.game_id[:16],
        "players": None if players is None else dict(zip("AB", players, strict=True)),
        "cheats": [p.to_json() for p in game.proofs],
        "winner": None if winner is None else "AB"[winner],
        "result": outcome(winner),
    }


def format_counts(verdicts: Sequence[Verdict], *, proven: bool = False) -> str:
    counts = dict.fromkeys(VerdictStatus, 0)
    for v in verdicts:
        counts[v.status] += 1
    rare = (VerdictStatus.DECIDED, VerdictStatus.EQUIVOCATION)  # shown only when present
    shown = [s for s in VerdictStatus if counts[s] or s not in rare]
    parts = ", ".join(f"{counts[s]} {COUNT_LABELS[s]}" for s in shown)
    ok = "all verified" if all(v.ok for v in verdicts) and not proven else "NOT all verified"
    return f"{counted(len(verdicts), 'file')}: {parts}; {ok}"


def json_document(
    verdicts: Sequence[Verdict], proven: Sequence[GameCopies] = ()
) -> dict[str, object]:
    counts = dict.fromkeys((s.value for s in VerdictStatus), 0)
    for v in verdicts:
        counts[v.status.value] += 1
    return {
        "ok": all(v.ok for v in verdicts) and not proven,
        "files": len(verdicts),
        "counts": counts,
        "verdicts": [v.to_json() for v in verdicts],
        "equivocations": [equivocation_json(g) for g in proven],
    }


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _width() -> int:
    return max(MIN_WIDTH, shutil.get_terminal_size((100, 24)).columns)
