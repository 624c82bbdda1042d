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
from collections.abc import Iterable
from typing import Final

from dbnet.commands import pictures
from dbnet.match.render import render_position
from dbnet.replay.export import export_json, export_text, game_lines, preamble_lines
from dbnet.replay.story import Story, load_story
from dbnet.replay.verify import VerdictStatus
from dbnet.text import printable

EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2


# --- reading and re-playing --------------------------------------------------------------


# --- dbnet replay ----------------------------------------------------------------------------


def run_replay(args: argparse.Namespace) -> int:
    story = load_story(args.file)
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
        _print(preamble_lines(story))
        print(f"\nPosition at the start of turn {args.at}:")
        _print(render_position(starts[args.at]).split("\n"))
        return _exit(story)
    _print(preamble_lines(story))
    _print(game_lines(story))
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
    """0 for a valid game (complete, decided, unfinished or closed by a claim); 1 for an
    invalid file, or one that is not a game (evidence)."""
    valid = (
        VerdictStatus.COMPLETE,
        VerdictStatus.DECIDED,
        VerdictStatus.UNFINISHED,
        VerdictStatus.CLAIM,
    )
    return EXIT_OK if story.verdict.status in valid else EXIT_INVALID


# --- dbnet export ----------------------------------------------------------------------------


def run_export(args: argparse.Namespace) -> int:
    if args.format in ("svg", "html"):
        return pictures.run(args)
    if args.at is not None or args.turn is not None:
        print("dbnet export: --at and --turn choose a position for --format svg", file=sys.stderr)
        return EXIT_USAGE
    story = load_story(args.file)
    if story.stops_at is not None:  # stdout is for programs: the refusal, in one line
        print(f"dbnet export: {story.where}: {story.verdict.summary()}", file=sys.stderr)
    if args.format == "json":
        json.dump(export_json(story), sys.stdout, indent=2)
        print()
    else:
        _print(export_text(story))
    return _exit(story)
