"""A position drawn as a standalone SVG picture, like ``chess.svg.board``.

``board(game)`` draws the 5x5 dreamscape from A's side (row 5 at the top, column a at
the left: A's portal e1 at the bottom right, B's a5 at the top left) with the cell
names, each key cell's value and who scores it, the portals and spawn rows, every
miniature in its cell, both warbands' reserves (with their spawn cost now) and
graveyards, the phase, this turn's conquest points and the victory track.

Nothing means anything by colour alone: A's tokens are square with a solid border,
B's round with a dashed one, and each says its owner in text (``A:t-lion#2*3``, the
text board's tokens of ``match.render``: owner, short name, copy, damage taken). A
creature marked in the combat under way says ``(disrupt)`` or ``(destroy)``. The picture
has a ``viewBox`` and no fixed size, so it scales: its text is sized in the picture's
units, readable from about 400 pixels wide up.

The picture is built from layers that the HTML page (``replay.html``) stores once each
and reuses between steps: ``opening`` and ``frame`` depend only on the game's setup;
``cells`` (made of ``cell_tokens``), ``lists`` (of ``list_items``) and ``status`` on the
position. ``board`` is their concatenation.
Every name is escaped for XML after ``dbnet.text.printable``: a warband, its miniatures
and the map come from the other peer or the replay file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from dbnet.engine import Game, Mini, Player, Zone
from dbnet.engine.board import COLUMNS, PORTAL, SIZE
from dbnet.match.render import (
    cell_mark,
    conquest_now,
    describe_phase,
    describe_result,
    short_names,
    token,
)
from dbnet.text import markup as esc

__all__ = [
    "SVG_NAMESPACE",
    "board",
    "cell_tokens",
    "cells",
    "frame",
    "list_items",
    "lists",
    "opening",
    "status",
]

SVG_NAMESPACE: Final = "http://www.w3.org/2000/svg"

WIDTH: Final = 640
CELL: Final = 112
BOARD_X: Final = 40  # left edge of column a (row numbers to its left)
BOARD_Y: Final = 74  # top edge of row 5 (B's edge label above it)
BOARD_BOTTOM: Final = BOARD_Y + SIZE * CELL
TRACK_Y: Final = BOARD_BOTTOM + 66  # the victory track's first row
LISTS_Y: Final = TRACK_Y + 74  # the reserves' heading
ROW: Final = 16  # one line of the lists
LIST_COLUMN: Final = 150  # two per player
TOKEN_TOP: Final = 18  # below the cell's mark
TRACK_WIDTH: Final = 420  # the victory track's places, at most
MONO_WIDTH: Final = 0.6  # a monospace character's width, in font sizes

STYLE: Final = (
    "<style>"
    ".db-bg{fill:#fff}"
    ".db-cell{fill:#fff;stroke:#444;stroke-width:1}"
    ".db-key{fill:#ececec}"
    ".db-t{font-family:'DejaVu Sans','Liberation Sans',Arial,sans-serif;fill:#111}"
    ".db-m{font-family:'DejaVu Sans Mono','Liberation Mono',monospace;fill:#111}"
    ".db-dim{fill:#555}"
    ".db-value{font-family:'DejaVu Sans',sans-serif;fill:#000;fill-opacity:.13;"
    "font-weight:bold}"
    ".db-portal{fill:none;stroke:#333;stroke-width:2;stroke-dasharray:2 3}"
    ".db-a{fill:#dbe7fb;stroke:#1b4fa8;stroke-width:1.6}"
    ".db-b{fill:#fde2cf;stroke:#a8431b;stroke-width:1.6;stroke-dasharray:5 2.5}"
    ".db-loc{fill:#fff}"
    ".db-marked{stroke-width:3}"
    ".db-won{fill:#333}"
    ".db-open{fill:#fff;stroke:#333;stroke-width:1.4}"
    ".db-bold{font-weight:bold}"
    "</style>"
)


def board(game: Game) -> str:
    """The position ``game`` as a standalone SVG document (a string)."""
    return opening(game, namespace=True) + frame(game) + cells(game) + lists(game) + status(game)


def height(game: Game) -> int:
    """The picture's height: the lists have room for every miniature of the larger
    warband, so the picture keeps its size from the first step of a game to the last."""
    return LISTS_Y + 2 * (ROW + 6 + _list_rows(game) * ROW) + 3 * ROW + 6


def opening(game: Game, *, namespace: bool) -> str:
    """The ``<svg>`` start tag; ``namespace`` for a standalone file (inline SVG in an HTML
    page needs none, and the page then holds no URL at all)."""
    xmlns = f' xmlns="{SVG_NAMESPACE}"' if namespace else ""
    h = height(game)
    a, b = (game.setup.warbands[p].name for p in (Player.A, Player.B))
    label = esc(f"Dreamblade position: A {a!r} against B {b!r}")
    return (
        f'<svg{xmlns} viewBox="0 0 {WIDTH} {h}" role="img" aria-label="{label}" '
        f'class="db-board" font-size="12">'
    )


def closing() -> str:
    return "</svg>"


# --- the frame: what the setup alone decides ------------------------------------------


def frame(game: Game) -> str:
    """The style, background, title, grid, cell names and marks, key values, portals, the
    lists' headings and the legend: everything that no step of the game changes."""
    setup = game.setup
    out = [STYLE, f'<rect class="db-bg" width="{WIDTH}" height="{height(game)}"/>']
    a, b = (setup.warbands[p].name for p in (Player.A, Player.B))
    to_win = setup.options.turns_to_win
    title = f"A {a!r} against B {b!r}; map {setup.map.name!r}; first to win {to_win} turns"
    out.append(_text(BOARD_X - 20, 18, title, "db-t", 13, room=WIDTH - BOARD_X))
    out.append(_text(BOARD_X, BOARD_Y - 5, "B's edge (B's portal a5)", "db-t db-dim", 11))
    for cell in range(SIZE * SIZE):
        out.append(_cell_frame(game, cell))
    for c, letter in enumerate(COLUMNS):
        out.append(
            f'<text class="db-t db-bold" x="{BOARD_X + c * CELL + CELL // 2}" '
            f'y="{BOARD_BOTTOM + 18}" font-size="15" text-anchor="middle">{letter}</text>'
        )
    for r in range(SIZE):
        y = BOARD_Y + (SIZE - 1 - r) * CELL + CELL // 2 + 5
        out.append(
            f'<text class="db-t db-bold" x="{BOARD_X - 16}" y="{y}" font-size="15" '
            f'text-anchor="middle">{r + 1}</text>'
        )
    out.append(_text(BOARD_X, BOARD_BOTTOM + 34, "A's edge (A's portal e1)", "db-t db-dim", 11))
    out.append(_track_frame(game))
    rows = _list_rows(game)
    for player in (Player.A, Player.B):
        x = _list_x(player)
        out.append(
            _text(x, LISTS_Y, f"{player.name} reserves (spawn cost now)", "db-t db-bold", 12)
        )
        y = LISTS_Y + ROW + 6 + rows * ROW
        out.append(_text(x, y, f"{player.name} graveyard", "db-t db-bold", 12))
    legend_y = LISTS_Y + 2 * (ROW + 6 + rows * ROW) + 2
    legend = (
        "A:name#k*d = A's creature (copy k) with d damage; A@name = A's location. "
        "A's tokens are square and solid, B's round and dashed."
    )
    out.append(_text(BOARD_X - 20, legend_y, legend, "db-t db-dim", 10, room=WIDTH - 30))
    return "".join(out)


def _cell_frame(game: Game, cell: int) -> str:
    x, y = _cell_xy(cell)
    mark = cell_mark(game, cell)
    value = game.values[cell]
    shade = " db-key" if value else ""
    out = [f'<rect class="db-cell{shade}" x="{x}" y="{y}" width="{CELL}" height="{CELL}"/>']
    if value:
        out.append(
            f'<text class="db-value" x="{x + CELL - 8}" y="{y + CELL - 8}" font-size="44" '
            f'text-anchor="end">{value}</text>'
        )
    if cell in PORTAL:
        out.append(
            f'<circle class="db-portal" cx="{x + CELL // 2}" cy="{y + CELL // 2 + 6}" '
            f'r="{CELL // 2 - 14}"/>'
        )
    name = f"{COLUMNS[cell % SIZE]}{cell // SIZE + 1}"
    head = f"{name} {mark}" if mark else name
    out.append(_text(x + 4, y + 13, head, "db-t db-dim", 11, room=CELL - 8))
    return "".join(out)


def _track_frame(game: Game) -> str:
    """The victory track's empty places: squares for A, circles for B."""
    to_win = game.setup.options.turns_to_win
    out = [_text(BOARD_X - 20, TRACK_Y - 14, f"Victory track (first to {to_win})", "db-t", 12)]
    for player in (Player.A, Player.B):
        y = TRACK_Y + player * 20
        out.append(_text(BOARD_X - 20, y + 11, f"{player.name}", "db-t db-bold", 12))
        for i in range(to_win):
            out.append(_track_place(player, i, to_win, "db-open"))
    return "".join(out)


def _track_pitch(to_win: int) -> tuple[int, int]:
    """The distance between places on the victory track and a place's size: smaller
    when there are many to fit (up to 99 turns to win)."""
    pitch = min(18, max(3, TRACK_WIDTH // max(1, to_win)))
    return pitch, pitch - 4 if pitch >= 10 else pitch - 1


def _track_place(player: Player, index: int, to_win: int, style: str) -> str:
    """Place ``index`` of ``player``'s victory track: a square for A, a circle for B."""
    pitch, size = _track_pitch(to_win)
    x = BOARD_X + index * pitch
    y = TRACK_Y + player * 20
    if player is Player.A:
        return f'<rect class="{style}" x="{x}" y="{y}" width="{size}" height="{size}"/>'
    r = size / 2
    return f'<circle class="{style}" cx="{x + r:g}" cy="{y + r:g}" r="{r:g}"/>'


# --- the position ------------------------------------------------------------------------


CELLS_OPEN: Final = '<g class="db-cells">'
LISTS_OPEN: Final = '<g class="db-lists">'
GROUP_CLOSE: Final = "</g>"


def cells(game: Game) -> str:
    """The miniatures in the dreamscape, in their cells (locations first, then A's, B's)."""
    return CELLS_OPEN + "".join(cell_tokens(game)) + GROUP_CLOSE


def cell_tokens(game: Game) -> list[str]:
    """``cells`` one token at a time (the HTML page stores each different token once)."""
    names = short_names(game)
    marks = _combat_marks(game)
    contents: list[list[Mini]] = [[] for _ in range(SIZE * SIZE)]
    for m in sorted(game.minis, key=lambda m: (m.defn.is_creature, m.owner, m.id)):
        if m.zone is Zone.DREAMSCAPE and m.cell >= 0:
            contents[m.cell].append(m)
    out: list[str] = []
    for cell, here in enumerate(contents):
        if here:
            out += _tokens(cell, here, names, marks)
    return out


def _tokens(
    cell: int, here: list[Mini], names: dict[int, str], marks: dict[int, str]
) -> Iterator[str]:
    """The tokens of the miniatures ``here`` in ``cell``, one row each, as many rows as fit."""
    x, y = _cell_xy(cell)
    step = min(22, (CELL - TOKEN_TOP - 4) // len(here))
    h = step - 2
    font = max(7, min(14, step - 6))
    where = f"{COLUMNS[cell % SIZE]}{cell // SIZE + 1}"
    for i, m in enumerate(here):
        top = y + TOKEN_TOP + i * step
        rx = 0 if m.owner is Player.A else h // 2
        style = "db-a" if m.owner is Player.A else "db-b"
        style += "" if m.defn.is_creature else " db-loc"
        mark = marks.get(m.id, "")
        data = f' data-mark="{mark}"' if mark else ""
        style += " db-marked" if mark else ""
        label = token(m, names[m.id]) + (f" ({mark})" if mark else "")
        inset = max(3, rx // 2)
        baseline = top + (h + font) // 2 - 1
        yield (
            f'<g data-label="{esc(m.label)}" data-cell="{where}" data-damage="{m.damage}"{data}>'
            f'<rect class="{style}" x="{x + 4}" y="{top}" width="{CELL - 8}" height="{h}" '
            f'rx="{rx}"/>'
            + _text(x + 4 + inset, baseline, label, "db-m", font, room=CELL - 8 - 2 * inset)
            + "</g>"
        )


def _combat_marks(game: Game) -> dict[int, str]:
    """The miniatures marked in the combat under way, to be ``disrupt``-ed or ``destroy``-ed
    at its end (combat step 7): the only disrupted state a position holds."""
    combat = game.combat
    if combat is None:
        return {}
    return {mini: fate.name.lower() for mini, (fate, _by) in combat.marks.items()}


def lists(game: Game) -> str:
    """Both warbands' reserves (with each one's spawn cost now) and graveyards, in two
    columns under the board, A's at the left."""
    return LISTS_OPEN + "".join(list_items(game)) + GROUP_CLOSE


def list_items(game: Game) -> list[str]:
    """``lists`` one item at a time (the HTML page stores each different item once)."""
    rows = _list_rows(game)
    out: list[str] = []
    for player in (Player.A, Player.B):
        reserves = sorted(
            (game.spawn_cost(m), m.handle, m)
            for m in game.minis
            if m.owner is player and m.zone is Zone.RESERVES
        )
        items = [(m, f"{m.handle} {cost}", "reserves") for cost, _, m in reserves]
        out += _list(player, LISTS_Y + 6, items)
        dead = [
            (m, m.handle + (" (removed)" if m.zone is Zone.REMOVED else ""), "graveyard")
            for m in game.minis
            if m.owner is player and m.zone in (Zone.GRAVEYARD, Zone.REMOVED)
        ]
        out += _list(player, LISTS_Y + ROW + 12 + rows * ROW, dead)
    return out


def _list(player: Player, top: int, items: list[tuple[Mini, str, str]]) -> Iterator[str]:
    x0 = _list_x(player)
    if not items:
        yield _text(x0, top + ROW - 2, "(none)", "db-m db-dim", 12)
        return
    rows = (len(items) + 1) // 2
    for i, (m, text, zone) in enumerate(items):
        x = x0 + (i // rows) * LIST_COLUMN
        y = top + (i % rows + 1) * ROW - 2
        yield (
            f'<g data-label="{esc(m.label)}" data-zone="{zone}">'
            + _text(x, y, text, "db-m", 12, room=LIST_COLUMN - 6)
            + "</g>"
        )


def status(game: Game) -> str:
    """The phase (or the result), the victory track and this turn's conquest points; the
    end of the picture."""
    line = describe_phase(game)
    if game.is_over:
        line = f"{line}. {describe_result(game)}"
    head = _text(BOARD_X - 20, 40, line, "db-t db-bold", 15, room=WIDTH - 30)
    out = ['<g class="db-status">', head]
    won = game.turns_won
    to_win = game.setup.options.turns_to_win
    for player in (Player.A, Player.B):
        for i in range(min(won[player], to_win)):
            out.append(_track_place(player, i, to_win, "db-won"))
        x = BOARD_X + to_win * _track_pitch(to_win)[0] + 8
        count = f"{won[player]}/{to_win} turns won"
        out.append(_text(x, TRACK_Y + player * 20 + 11, count, "db-t", 12))
    parts = []
    for player in (Player.A, Player.B):
        claimed, kills = game.claimed_points(player), game.kills[player]
        parts.append(f"{player.name} {conquest_now(game, player)} (cells {claimed}, kills {kills})")
    conquest = "Conquest this turn: " + "; ".join(parts)
    out.append(_text(BOARD_X - 20, TRACK_Y + 56, conquest, "db-t", 12, room=WIDTH - 30))
    out.append("</g>" + closing())
    return "".join(out)


# --- helpers ---------------------------------------------------------------------------


def _text(x: int, y: int, text: str, style: str, size: int, *, room: int | None = None) -> str:
    """One line of text at (x, y); squeezed to ``room`` units when it would be wider (an
    estimate: a monospace character is 0.6 font sizes wide, a proportional one less)."""
    fit = ""
    if room is not None and len(text) * size * MONO_WIDTH > room:
        fit = f' textLength="{room}" lengthAdjust="spacingAndGlyphs"'
    size_attr = "" if size == 12 else f' font-size="{size}"'
    return f'<text class="{style}" x="{x}" y="{y}"{size_attr}{fit}>{esc(text)}</text>'


def _cell_xy(cell: int) -> tuple[int, int]:
    """The top-left corner of ``cell``: row 5 at the top, column a at the left."""
    return BOARD_X + (cell % SIZE) * CELL, BOARD_Y + (SIZE - 1 - cell // SIZE) * CELL


def _list_x(player: Player) -> int:
    return BOARD_X - 20 + player * (WIDTH // 2)


def _list_rows(game: Game) -> int:
    """Rows of each list: half the larger warband, rounded up (two columns)."""
    largest = max(len(w.minis) for w in game.setup.warbands)
    return max(1, (largest + 1) // 2)
