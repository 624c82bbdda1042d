"""What every full-screen app shares (``dbnet.console.fullscreen``), on a small app of
its own, with real prompt-toolkit keys through a pipe."""

from __future__ import annotations

import asyncio
import io

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import FormattedTextControl, Layout, Window
from prompt_toolkit.output import Output
from prompt_toolkit.output.vt100 import Vt100_Output

from dbnet.console.fullscreen import EXIT_ERROR, FullScreen, application

from .helpers import TIMEOUT, SizedOutput
from .test_app import colour_codes


class Counter(FullScreen):
    """``+`` counts, ``q`` quits with the count, ``!`` fails in its key handler; with
    ``broken_start``, the app fails before its first key. The count is drawn in player
    A's colour."""

    def __init__(self, pipe: PipeInput, output: Output, *, colour: bool | None = None) -> None:
        self.count = 0
        self.broken_start = False
        keys = KeyBindings()
        keys.add("+")(self.guard(self.add))
        keys.add("!")(self.guard(self.fail))
        keys.add("q")(self.guard(lambda: self.app.exit(result=self.count)))
        shown = Window(FormattedTextControl(lambda: [("class:owner-a", f"count {self.count}")]))
        self.open(application(Layout(shown), keys, colour=colour, input=pipe, output=output))

    def add(self) -> None:
        self.count += 1

    def fail(self) -> None:
        raise RuntimeError(f"failed at {self.count}")

    def starting(self) -> None:
        if self.broken_start:
            raise RuntimeError("failed before the first key")


def play(keys: str, *, broken_start: bool = False) -> tuple[int, Counter]:
    """Run a ``Counter`` on ``keys`` (sent in one write): its exit code, and the app."""

    async def scenario() -> tuple[int, Counter]:
        with create_pipe_input() as pipe:
            app = Counter(pipe, SizedOutput(80, 24))
            app.broken_start = broken_start
            pipe.send_text(keys)
            return await asyncio.wait_for(app.run_async(), TIMEOUT), app

    return asyncio.run(scenario())


def test_keys_reach_the_app_and_its_exit_code_comes_back() -> None:
    code, app = play("+++q")
    assert code == 3
    assert app.error is None
    assert app.screen_text().splitlines()[0].rstrip() == "count 3"


def test_an_error_in_a_key_handler_ends_the_app_with_its_traceback() -> None:
    code, app = play("++!+q")
    assert code == EXIT_ERROR
    assert app.error is not None
    assert "RuntimeError: failed at 2" in app.error
    assert app.count == 2  # no key after the failure was handled


def test_an_error_before_the_first_key_ends_the_app_with_its_traceback() -> None:
    code, app = play("+q", broken_start=True)
    assert code == EXIT_ERROR
    assert app.error is not None
    assert "RuntimeError: failed before the first key" in app.error
    assert app.count == 0


def test_the_size_is_the_terminal_s_now() -> None:
    output = SizedOutput(100, 30)
    with create_pipe_input() as pipe:
        app = Counter(pipe, output)
        assert app.size == (100, 30)
        output.columns, output.rows = 80, 24
        assert app.size == (80, 24)


@pytest.mark.parametrize(
    ("no_color", "colour", "coloured"),
    [
        (None, None, True),
        ("1", None, False),
        ("", None, True),  # NO_COLOR empty: as if unset
        ("1", True, True),
        (None, False, False),
    ],
)
def test_colour_follows_no_color_unless_told(
    monkeypatch: pytest.MonkeyPatch, no_color: str | None, colour: bool | None, coloured: bool
) -> None:
    if no_color is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", no_color)
    written = io.StringIO()
    output = Vt100_Output(written, lambda: Size(rows=24, columns=80), term="xterm")

    async def scenario() -> int:
        with create_pipe_input() as pipe:
            app = Counter(pipe, output, colour=colour)
            pipe.send_text("+q")
            return await asyncio.wait_for(app.run_async(), TIMEOUT)

    assert asyncio.run(scenario()) == 1
    assert "count 1" in written.getvalue()
    assert (colour_codes(written.getvalue()) != []) is coloured
