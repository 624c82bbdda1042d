"""``dbnet replay FILE`` and ``dbnet export FILE``: a replay file, checked, then told.

Both commands verify the file first (``dbnet.replay.verify``) and say what it
proves, then re-play its entries with the engine:

- ``replay`` prints the game turn by turn: every decision in notation, every
  roll with its dice (attack and deathblow dice also as faces, ``[2 3 - B]``),
  the conquest points of every turn and the result. ``--at TURN`` draws the
  position at the start of that turn instead. On a terminal (stdin and stdout
  both terminals) it opens the full-screen viewer (``dbnet.console``) instead,
  at the first step of ``--at TURN`` if given; ``--plain``, or a stdout or
  stdin that is not a terminal (``dbnet replay FILE | less``), prints the text.
- ``export`` prints the same content for programs: ``--format json`` (the
  default) one JSON document with the header, the players' key fingerprints,
  the verdict and every entry (sequence number, author, kind, decision, the
  rolls it completed with their dice, state hash, entry hash); ``--format
  text`` the same as plain text, one block per entry.

The file is read as ``dbnet verify`` reads it (``dbnet.replay.checked``: the same
size limit, and nothing past the first invalid record), so a hostile file costs
what verifying it costs. An invalid file is still told up to the record before
the invalid one, and the output says where and why it stops (``export`` also
says it in one line on stderr). Exit status: 0 for a valid file
(complete, unfinished or closed by a claim), 1 for an invalid one, 2 for a
file that cannot be read or a turn the game does not have.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from dbnet import codec
from dbnet.codec import (
    ClaimBody,
    CosignBody,
    Entry,
    EntryKind,
    FinalBody,
    OfferBody,
    ReplayHeader,
)
from dbnet.engine import Game, GameSetup, Player
from dbnet.engine.notation import format_attack_dice
from dbnet.errors import DbnetError
from dbnet.identity import fingerprint
from dbnet.localplay import Event, EventKind, Narrator
from dbnet.protocol.log import GameLog, Roll
from dbnet.render import describe_result, render_position, render_score_by_turn
from dbnet.replay.checked import CheckedReplay, check_bytes, read_checked
from dbnet.replay.file import EXTENSION, decode_header
from dbnet.replay.verify import Verdict, VerdictStatus
from dbnet.text import printable

EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``replay`` and ``export`` commands."""
    replay = subparsers.add_parser(
        "replay",
        help="check a replay file, then show the game turn by turn",
        description=(
            f"Verify a replay file (*{EXTENSION}) and show the game. On a terminal this "
            "opens the full-screen viewer (step through it with the arrow keys; 'help' "
            "inside). With --plain, or when stdin or stdout is not a terminal (a pipe, a "
            "file), it prints the game turn by turn instead: decisions in notation, dice, "
            "conquest points of every turn, the result. Exit status 0 for a valid file, 1 "
            "for an invalid one (shown up to where it stops), 2 when it cannot be read."
        ),
    )
    replay.add_argument("file", type=Path, metavar="FILE", help="the replay file")
    replay.add_argument(
        "--at",
        type=_turn,
        metavar="TURN",
        help="print the position at the start of TURN instead of the whole game; full "
        "screen: open the viewer at the first step of TURN",
    )
    replay.add_argument(
        "--plain",
        action="store_true",
        help="print the text even on a terminal (it is printed anyway when stdin or stdout "
        "is not a terminal)",
    )
    replay.set_defaults(func=run_replay)

    export = subparsers.add_parser(
        "export",
        help="print a replay file's checked content as JSON or text",
        description=(
            "Verify a replay file and print its header, the players' key fingerprints, the "
            "verdict and every entry (sequence number, author, kind, decision, dice, state "
            "hash). Exit status 0 for a valid file, 1 for an invalid one, 2 when it cannot "
            "be read."
        ),
    )
    export.add_argument("file", type=Path, metavar="FILE", help="the replay file")
    export.add_argument(
        "--format",
        choices=("json", "text"),
        default="json",
        help="json (default): one JSON document; text: the same as plain text",
    )
    export.set_defaults(func=run_export)


def _turn(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a turn number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: turns are numbered from 1")
    return value


# --- reading and re-playing --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Told:
    """One valid entry of the file, re-played: the rolls it completed and what happened."""

    record: int
    entry: Entry
    hash: bytes
    rolls: tuple[Roll, ...]
    events: tuple[Event, ...]
    turn: int


@dataclass(slots=True)
class Story:
    """What a replay file holds, as far as it is valid."""

    where: str
    verdict: Verdict
    header: ReplayHeader | None = None
    setup: GameSetup | None = None
    keys: tuple[bytes, bytes] | None = None
    entries: list[Told] = field(default_factory=list)
    narrator: Narrator | None = None

    @property
    def stops_at(self) -> int | None:
        """The invalid record, if the file is invalid."""
        if self.verdict.status is not VerdictStatus.INVALID:
            return None
        return 0 if self.verdict.record is None else self.verdict.record

    @property
    def game(self) -> Game | None:
        return None if self.narrator is None else self.narrator.game


def read_story(data: bytes, *, where: str) -> Story:
    """Verify ``data`` (a replay file's bytes), then re-play its valid records."""
    return story_of(check_bytes(data, where=where), where=where)


def story_of(checked: CheckedReplay, *, where: str) -> Story:
    """Re-play the records the verifier accepted (``dbnet.replay.checked``): an invalid
    file is told up to the record before the invalid one, and nothing past it is read."""
    story = Story(where, checked.verdict)
    records = checked.records
    try:
        if records:
            story.header = decode_header(records[0], where=where)
        if len(records) < 2:
            return story
        log = GameLog.start(records[1])
    except DbnetError:
        return story  # cannot happen for records the verifier accepted
    offer = log.decoded[0].body
    assert isinstance(offer, OfferBody)
    story.setup = offer.setup
    story.keys = log.keys
    narrator = Narrator(offer.setup)
    story.narrator = narrator
    story.entries.append(_told(1, log, 0, ()))
    for index, record in enumerate(records[2:], start=2):
        before = len(log.rolls)
        turn = narrator.game.turn
        try:
            entry = log.append(record, atomic=False)
        except DbnetError:
            break  # cannot happen for records the verifier accepted
        rolls = tuple(log.rolls[before:])
        events = narrator.entry(entry.kind, Player(entry.author), entry.body, rolls)
        story.entries.append(_told(index, log, turn, rolls, tuple(events)))
    return story


def _told(
    record: int, log: GameLog, turn: int, rolls: tuple[Roll, ...], events: tuple[Event, ...] = ()
) -> Told:
    signed = log.entries[-1]
    return Told(
        record=record,
        entry=log.decoded[-1],
        hash=codec.entry_hash(signed.signed),
        rolls=rolls,
        events=events,
        turn=max(turn, 1),
    )


def _load(path: Path) -> Story:
    """The story of the file at ``path``, read as ``dbnet verify`` reads it.

    Raises:
        ReplayError: the file cannot be read (``read_checked``'s limits).
    """
    return story_of(read_checked(path), where=str(path))


# --- dbnet replay ----------------------------------------------------------------------------


def run_replay(args: argparse.Namespace) -> int:
    story = _load(args.file)
    if not args.plain and _terminal() and story.setup is not None:
        return _view(story, args.at)
    if args.at is not None:
        narrator = story.narrator
        starts = {} if narrator is None else narrator.turn_starts
        if args.at not in starts:
            reached = f"it has turns 1 to {max(starts)}" if starts else "no turn can be read"
            print(
                f"dbnet replay: {story.where}: the game has no turn {args.at} ({reached})",
                file=sys.stderr,
            )
            return EXIT_USAGE
        _print(_preamble(story))
        print(f"\nPosition at the start of turn {args.at}:")
        _print(render_position(starts[args.at]).split("\n"))
        return _exit(story)
    _print(_preamble(story))
    _print(_game_lines(story))
    return _exit(story)


def _print(lines: Iterable[str]) -> None:
    """Print ``lines`` to stdout, one each, escaped: the text holds names, reasons and the
    header's ``created``, which the players or the file chose (see ``dbnet.text``)."""
    for line in lines:
        print(printable(line))


def _terminal() -> bool:
    """Whether stdin and stdout are both open terminals (the viewer needs keys)."""
    try:
        return sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()
    except ValueError:  # closed
        return False


def _view(story: Story, at: int | None) -> int:
    """The full-screen viewer, at the first step of turn ``at``."""
    from dbnet.console.replay_app import run_viewer  # prompt-toolkit only when asked for
    from dbnet.console.replay_view import ReplayModel

    model = ReplayModel(story)
    if at is not None and model.first_of_turn(at) is None:
        turns = model.turns
        reached = f"it has turns 1 to {turns[-1]}" if turns else "no turn can be read"
        print(
            f"dbnet replay: {story.where}: the game has no turn {at} ({reached})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return run_viewer(model, at=at)


def _exit(story: Story) -> int:
    """0 for a valid game; 1 for an invalid file, or one that is not a game (evidence)."""
    valid = (VerdictStatus.COMPLETE, VerdictStatus.UNFINISHED, VerdictStatus.CLAIM)
    return EXIT_OK if story.verdict.status in valid else EXIT_INVALID


def _preamble(story: Story) -> Iterator[str]:
    yield f"{story.where}: {story.verdict.summary()}"
    header = story.header
    if header is not None:
        yield (
            f"Game {header.game_id.hex()[:16]}, rules {header.rules}, "
            f"created {header.created} (informative)"
        )
    if story.setup is not None and story.keys is not None:
        for player in (Player.A, Player.B):
            warband = story.setup.warbands[player].name
            yield f"{player.name}: {warband!r}, key {fingerprint(story.keys[player])}"
        options = story.setup.options
        yield f"Map {story.setup.map.name!r}; first to win {options.turns_to_win} turns wins."


def _game_lines(story: Story) -> Iterator[str]:
    turn = 0
    for told in story.entries:
        entry = told.entry
        who = Player(entry.author).name
        seq = entry.seq
        for event in told.events:
            if event.kind is not EventKind.TURN and event.turn != turn:
                turn = event.turn
                yield ""
                yield f"Turn {turn}"
            if event.kind is EventKind.TURN:
                yield f"{'':8}{event.words}"
            elif event.kind is EventKind.ROLL:
                yield f"{seq:>6}    {event.notation:<14} {event.words}"
            else:
                yield f"{seq:>6}  {who} {event.notation}"
        body = entry.body
        if isinstance(body, FinalBody):
            yield ""
            yield f"{seq:>6}  {who} FINAL: {Player(body.winner).name} wins by {body.reason}"
        elif isinstance(body, CosignBody):
            yield f"{seq:>6}  {who} COSIGN: agrees that {Player(body.winner).name} wins"
        elif isinstance(body, ClaimBody):
            yield ""
            yield (
                f"{seq:>6}  {who} CLAIM: entry {body.waiting_for} never came "
                "(a unilateral claim, not a result)"
            )
    game = story.game
    if game is not None and game.is_over:
        yield ""
        yield describe_result(game)
        yield "Score by turn (conquest points):"
        yield from render_score_by_turn(game)
    if story.stops_at is not None and story.entries:
        yield ""
        yield f"The replay stops here: {story.verdict.summary()}"


# --- dbnet export ----------------------------------------------------------------------------


def run_export(args: argparse.Namespace) -> int:
    story = _load(args.file)
    if story.stops_at is not None:  # stdout is for programs: the refusal, in one line
        print(f"dbnet export: {story.where}: {story.verdict.summary()}", file=sys.stderr)
    if args.format == "json":
        json.dump(export_json(story), sys.stdout, indent=2)
        print()
    else:
        _print(export_text(story))
    return _exit(story)


def export_json(story: Story) -> dict[str, object]:
    """The story as plain JSON values (bytes as lower-case hex)."""
    header = story.header
    return {
        "file": story.where,
        "verdict": story.verdict.to_json(),
        "header": None
        if header is None
        else {
            "format": header.format,
            "protocol": header.protocol,
            "rules": header.rules,
            "game_id": header.game_id.hex(),
            "keys": [k.hex() for k in header.keys],
            "created": header.created,
        },
        "players": _players(story),
        "options": None
        if story.setup is None
        else {
            "map": story.setup.map.name,
            "turns_to_win": story.setup.options.turns_to_win,
            "tournament_initiative": story.setup.options.tournament_initiative,
        },
        "entries": [_entry_json(t) for t in story.entries],
        "stopped_at_record": story.stops_at,
    }


def _players(story: Story) -> dict[str, object] | None:
    if story.keys is None or story.setup is None:
        return None
    return {
        p.name: {
            "fingerprint": fingerprint(story.keys[p]),
            "key": story.keys[p].hex(),
            "warband": story.setup.warbands[p].name,
        }
        for p in (Player.A, Player.B)
    }


def _entry_json(told: Told) -> dict[str, object]:
    entry = told.entry
    body = entry.body
    state = getattr(body, "state", None)
    out: dict[str, object] = {
        "seq": entry.seq,
        "record": told.record,
        "author": Player(entry.author).name,
        "kind": entry.kind.name.lower(),
        "turn": told.turn,
        "decision": getattr(body, "decision", None),
        "rolls": [_roll_json(r) for r in told.rolls],
        "state": state.hex() if isinstance(state, bytes) else None,
        "hash": told.hash.hex(),
    }
    if isinstance(body, FinalBody):
        out["result"] = {
            "winner": Player(body.winner).name,
            "reason": body.reason,
            "turns": [[a, b] for a, b in body.turns],
        }
    elif isinstance(body, CosignBody):
        out["cosigned"] = {"head": body.head.hex(), "winner": Player(body.winner).name}
    elif isinstance(body, ClaimBody):
        out["claim"] = {"reason": body.reason, "waiting_for": body.waiting_for}
    if entry.kind is EntryKind.RESIGN:
        out["resigns"] = True
    return out


def _roll_json(roll: Roll) -> dict[str, object]:
    faces = None if roll.kind == "initiative" else format_attack_dice(roll.dice)
    return {"index": roll.index, "kind": roll.kind, "dice": list(roll.dice), "faces": faces}


def export_text(story: Story) -> Iterator[str]:
    """The JSON export's content as plain text (one line each; ``_print`` escapes them)."""
    yield f"file: {story.where}"
    yield f"verdict: {story.verdict.summary()}"
    header = story.header
    if header is not None:
        yield (
            f"header: format {header.format}, protocol {header.protocol}, rules {header.rules}, "
            f"created {header.created}"
        )
        yield f"game id: {header.game_id.hex()}"
    players = _players(story)
    if players is not None and story.keys is not None and story.setup is not None:
        for p in (Player.A, Player.B):
            yield (
                f"player {p.name}: key {story.keys[p].hex()} "
                f"(fingerprint {fingerprint(story.keys[p])}), warband "
                f"{story.setup.warbands[p].name!r}"
            )
    for told in story.entries:
        data = _entry_json(told)
        yield ""
        yield (
            f"entry {data['seq']} (record {data['record']}) by {data['author']}: "
            f"{str(data['kind']).upper()}, turn {data['turn']}"
        )
        for roll in told.rolls:
            faces = "" if roll.kind == "initiative" else f" {format_attack_dice(roll.dice)}"
            dice = " ".join(str(d) for d in roll.dice)
            yield f"  roll {roll.index} ({roll.kind}): {dice}{faces}"
        if data["decision"] is not None:
            yield f"  decision: {data['decision']}"
        for key in ("result", "cosigned", "claim"):
            if key in data:
                yield f"  {key}: {json.dumps(data[key])}"
        if data["state"] is not None:
            yield f"  state: {data['state']}"
        yield f"  hash: {data['hash']}"
    if story.stops_at is not None:
        yield ""
        yield f"stops here: {story.verdict.summary()}"
