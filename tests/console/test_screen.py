"""What the two screens share (``console.screen``): the cursor of a list never falls
past the lines it is drawn on, whatever its callers' state says by then."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import Window
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition

from dbnet.console import screen


def drawn(window: Window, columns: int = 20, rows: int = 3) -> list[str]:
    """``window`` written to a screen of ``columns`` x ``rows``: its rows as text."""
    out = Screen()
    window.write_to_screen(
        out, MouseHandlers(), WritePosition(0, 0, columns, rows), "", False, None
    )
    return [
        "".join(out.data_buffer[y][x].char for x in range(columns)).rstrip() for y in range(rows)
    ]


def numbered(n: int) -> list[StyleAndTextTuples]:
    return [[("", f"line {i} " + "word " * i)] for i in range(n)]


def test_a_list_s_cursor_stays_on_its_lines() -> None:
    """The cursor asked for is past the list (its model moved on before the draw): the
    list is drawn with the cursor on its last line, scrolled to it."""
    window = screen.cursor_list(lambda: screen.join(numbered(5)), lambda: 9)
    assert drawn(window, columns=40) == [
        "line 2 word word",
        "line 3 word word word",
        "line 4 word word word word",
    ]


@pytest.mark.parametrize("grows", [False, True])
def test_the_log_s_cursor_comes_from_the_lines_drawn(grows: bool) -> None:
    """The lines change between two looks (the terminal was resized in between): text and
    cursor still come from the same lines, with wrapping on, where a cursor past the
    drawn lines failed the draw."""
    sizes = [2, 6] if grows else [6, 2]
    looks = iter(sizes * 4)

    def lines() -> Sequence[StyleAndTextTuples]:
        return numbered(next(looks))

    last: Callable[[Sequence[StyleAndTextTuples]], int] = lambda drawn: len(drawn) + 3  # noqa: E731
    window = Window(screen.lines_control(lines, last), wrap_lines=True)
    rows = drawn(window, columns=40)
    newest = f"line {sizes[0] - 1}"
    assert any(row.startswith(newest) for row in rows), rows


def test_fitted_lines_end_with_an_ellipsis_when_cut() -> None:
    from dbnet.console.screen import fitted_lines

    lines: list[StyleAndTextTuples] = [[("s", "one")], [("s", "two")], [("s", "three")]]
    assert fitted_lines(lines, 3) == lines
    assert fitted_lines(lines, 2) == [[("s", "one")], [("s", "tw…")]]
