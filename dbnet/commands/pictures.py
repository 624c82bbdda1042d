"""``dbnet export FILE --format svg|html``: a verified replay as a picture or a page.

- ``svg`` writes one position as a standalone SVG picture (``dbnet.replay.svg``): the
  final one, the one after entry ``--at ENTRY``, or the one at the start of turn
  ``--turn T``.
- ``html`` writes the whole game as one self-contained page (``dbnet.replay.html``).

The file is verified first and nothing is written for a file that is not a valid game:
the verifier's one-line verdict goes to stderr and the exit status is 1. A file that
cannot be read, or an entry or turn the game does not have, is one line and exit 2.
Unfinished games and games closed by a claim are drawn as far as they go; the verdict
in the page says what they are.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from typing import Final

import dbnet
from dbnet.engine import Game
from dbnet.replay import html, svg
from dbnet.replay.file import load_bytes
from dbnet.replay.steps import walk
from dbnet.replay.story import Story, read_story
from dbnet.replay.verify import VerdictStatus
from dbnet.text import printable

EXIT_OK: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2
DRAWN: Final = (
    VerdictStatus.COMPLETE,
    VerdictStatus.DECIDED,
    VerdictStatus.UNFINISHED,
    VerdictStatus.CLAIM,
)
"""The verdicts of a valid game, drawn; any other (invalid, evidence) draws nothing."""


def run(args: argparse.Namespace) -> int:
    data = load_bytes(args.file)  # ReplayError: one line, exit 2 (dbnet.cli)
    story = read_story(data, where=str(args.file))
    if story.verdict.status not in DRAWN or story.setup is None:
        _say(f"{story.where}: {story.verdict.summary()}")
        return EXIT_INVALID
    if args.format == "html":
        checked = html.Checked(hashlib.sha256(data).hexdigest(), dbnet.__version__)
        _write(html.page(story, checked))
        return EXIT_OK
    game = position(story, at=args.at, turn=args.turn)
    if isinstance(game, str):
        _say(f"{story.where}: {game}")
        return EXIT_USAGE
    _write(svg.board(game))
    return EXIT_OK


def position(story: Story, *, at: int | None = None, turn: int | None = None) -> Game | str:
    """The position after entry ``at``, at the start of turn ``turn``, or else the final
    one; or why the game has no such entry or turn (naming the last one it has)."""
    if turn is not None:
        starts = {} if story.narrator is None else story.narrator.turn_starts
        if turn not in starts:
            last = max(starts, default=0)
            return f"the game has no turn {turn} (its last turn is {last})"
        return starts[turn].copy()
    last_entry = story.entries[-1].entry.seq if story.entries else 0
    if at is not None and at > last_entry:
        return f"the game has no entry {at} (its entries are 0 to {last_entry})"
    chosen: Game | None = None
    for step, game in walk(story):  # ``game`` is live: the next step changes it
        if at is None:
            chosen = game
        elif step.seq is None or step.seq <= at:
            chosen = game.copy()
        else:
            break
    assert chosen is not None  # step 0, the start, always comes first
    return chosen


def _say(line: str) -> None:
    print(printable(f"dbnet export: {line}"), file=sys.stderr)


def _write(text: str) -> None:
    """Write ``text`` as UTF-8 whatever the locale (the page says it is UTF-8)."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()
