"""Dreamscape geometry: the 25 cells, their names, adjacency, rows and portals.

Cells are ints 0..24: ``row * 5 + col`` with columns ``a``-``e`` from A's left
and rows ``1``-``5`` from A's edge (DESIGN.md section 2). A's portal is ``e1``,
B's portal is ``a5``; row 1 is A's spawn row and row 5 is B's.
"""

from __future__ import annotations

from typing import Final

from dbnet.engine.model import Player

SIZE: Final = 5
CELL_COUNT: Final = SIZE * SIZE
ALL_CELLS: Final = (1 << CELL_COUNT) - 1
"""Every cell, as a bitmask (bit ``cell`` set)."""
COLUMNS: Final = "abcde"

CELL_NAMES: Final[tuple[str, ...]] = tuple(
    f"{COLUMNS[i % SIZE]}{i // SIZE + 1}" for i in range(CELL_COUNT)
)
_CELL_BY_NAME: Final[dict[str, int]] = {name: i for i, name in enumerate(CELL_NAMES)}


def cell_name(cell: int) -> str:
    """``'c3'`` for cell 12."""
    return CELL_NAMES[cell]


def parse_cell(text: str) -> int | None:
    """The cell named by ``text`` (case-insensitive), or None if it names none."""
    return _CELL_BY_NAME.get(text.strip().lower())


def cells_of(mask: int) -> list[int]:
    """The cells of a bitmask of cells (bit ``cell`` set), in order."""
    return [cell for cell in range(CELL_COUNT) if (mask >> cell) & 1]


def column(cell: int) -> int:
    return cell % SIZE


def row(cell: int) -> int:
    """0-based row: 0 is A's spawn row (rank 1), 4 is B's (rank 5)."""
    return cell // SIZE


def _neighbours(cell: int) -> tuple[int, ...]:
    r, c = divmod(cell, SIZE)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):  # 802.1b: no diagonals
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIZE and 0 <= cc < SIZE:
            out.append(rr * SIZE + cc)
    return tuple(out)


ADJACENT: Final[tuple[tuple[int, ...], ...]] = tuple(_neighbours(i) for i in range(CELL_COUNT))

PORTAL: Final[tuple[int, int]] = (_CELL_BY_NAME["e1"], _CELL_BY_NAME["a5"])
SPAWN_ROW: Final[tuple[int, int]] = (0, SIZE - 1)

KEY_CELLS: Final[tuple[int, ...]] = tuple(
    r * SIZE + c for r in range(1, SIZE - 1) for c in range(1, SIZE - 1)
)

# 301.4: the three key cells on the opponent's side and the centre row score for you.
_SCORING_ROWS: Final[tuple[tuple[int, ...], tuple[int, ...]]] = ((2, 3), (1, 2))
SCORING_CELLS: Final[tuple[tuple[int, ...], tuple[int, ...]]] = tuple(  # type: ignore[assignment]
    tuple(c for c in KEY_CELLS if row(c) in _SCORING_ROWS[p]) for p in (Player.A, Player.B)
)


_SPAWN_ROW_CELLS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(r * SIZE + c for c in range(SIZE)) for r in SPAWN_ROW
)


def spawn_row_cells(player: Player) -> tuple[int, ...]:
    return _SPAWN_ROW_CELLS[player]


def distance(a: int, b: int) -> int:
    """Orthogonal (Manhattan) distance between two cells: moves are never diagonal."""
    return abs(row(a) - row(b)) + abs(column(a) - column(b))
