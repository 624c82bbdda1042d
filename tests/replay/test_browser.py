"""The replay page and the SVG picture in a real browser: Debian's headless ``chromium``,
run in a network namespace that has only loopback (``browser.py``).

- The page and the picture render to screenshots that are not blank (decoded pixel by
  pixel), at 400 and at 1200 pixels wide.
- Opened at ``#step=N`` (``--dump-dom``), and stepped with the keyboard and the buttons
  (the DevTools protocol), the board in the document is the position after step N: the
  same picture ``svg.board`` draws, and the miniatures the game holds.
- The page asks for nothing on the network: the browser reports no request but the page
  itself, the same check sees and blocks a request planted in a copy of the page, and
  the page holds no address.

chromium is installed by ``.ci/run``; without it (or without root for ``unshare -n``)
these tests fail, saying what to do.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dbnet.replay import html, svg

from .browser import (
    TIMEOUT,
    Browser,
    chromium_command,
    dump_dom,
    new_profile,
    png_pixels,
    screenshot,
)
from .shipped import ABILITIES, LONG, REPLAYS, in_lists, on_board, story, walked

SCREENSHOT_TO = "DBNET_SCREENSHOT_TO"
"""Set to a path to keep the wide screenshot of the page (the README's picture)."""
README_STEP = 343  # a busy position of the abilities game


@pytest.fixture
def profile() -> Iterator[Path]:
    folder = new_profile()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The shipped games' pages, written by ``dbnet export --format html``."""
    folder = tmp_path_factory.mktemp("pages")
    out = {}
    for name in (LONG, ABILITIES):
        path = folder / f"{name}.html"
        with path.open("wb") as stdout:
            done = subprocess.run(  # from the repository, so the page names replays/NAME
                [sys.executable, "-m", "dbnet", "export", f"replays/{name}", "--format", "html"],
                cwd=REPLAYS.parent,
                stdout=stdout,
                stderr=subprocess.PIPE,
                timeout=TIMEOUT,
                check=False,
                env={**os.environ, "DBNET_RELAY": "off", "DBNET_PORT_MAPPING": "off"},
            )
        assert done.returncode == 0, done.stderr
        out[name] = path
    return out


def not_blank(png: bytes, size: tuple[int, int]) -> None:
    """The screenshot has the size asked for, many colours, and a good share of pixels
    that are not the background (the top-left pixel)."""
    pixels = png_pixels(png)
    assert (pixels.width, pixels.height) == size
    colours = pixels.colours()
    assert len(colours) >= 16, f"only {len(colours)} colours: a blank page?"
    drawn = pixels.share_unlike(pixels.rows[0][: pixels.channels])
    assert drawn >= 0.08, f"only {drawn:.1%} of the pixels are drawn"


# --- (a) it renders ----------------------------------------------------------------------


@pytest.mark.parametrize("width", [400, 1200])
def test_the_page_renders_in_chromium(
    width: int, pages: dict[str, Path], profile: Path, tmp_path: Path
) -> None:
    size = (width, 1300)
    url = f"{pages[ABILITIES].as_uri()}#step={README_STEP}"
    png = screenshot(url, tmp_path / "page.png", size, profile)
    not_blank(png, size)
    keep = os.environ.get(SCREENSHOT_TO)
    if keep and width == 1200:
        shutil.copyfile(tmp_path / "page.png", keep)


@pytest.mark.parametrize("width", [400, 1200])
def test_the_picture_renders_in_chromium(width: int, profile: Path, tmp_path: Path) -> None:
    picture = tmp_path / "board.svg"
    picture.write_text(svg.board(walked(LONG).positions[-1]), encoding="utf-8")
    size = (width, width * 3 // 2)
    not_blank(screenshot(picture.as_uri(), tmp_path / "board.png", size, profile), size)


def test_a_blank_page_fails_the_check(profile: Path, tmp_path: Path) -> None:
    """The check above can fail: an empty page is blank."""
    empty = tmp_path / "empty.html"
    empty.write_text("<!DOCTYPE html><title>empty</title>", encoding="utf-8")
    png = screenshot(empty.as_uri(), tmp_path / "empty.png", (400, 300), profile)
    with pytest.raises(AssertionError, match="colours"):
        not_blank(png, (400, 300))


# --- (b) it shows the right position ------------------------------------------------------


class BoardReader(HTMLParser):
    """The board of a dumped document: its step, the tokens and list items it shows."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.step: int | None = None
        self.tokens: set[tuple[str, str, int]] = set()
        self.listed: set[tuple[str, str]] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "div" and a.get("id") == "board":
            self.depth = 1
            self.step = int(a["data-step"])
            return
        if not self.depth:
            return
        self.depth += 1
        if "data-cell" in a:
            self.tokens.add((a["data-label"], a["data-cell"], int(a["data-damage"])))
        elif "data-zone" in a:
            self.listed.add((a["data-label"], a["data-zone"]))

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1


@pytest.mark.parametrize("step", [0, 57, 481])
def test_a_step_in_the_address_opens_the_page_there(
    step: int, pages: dict[str, Path], profile: Path
) -> None:
    """``game.html#step=N``, dumped after its script ran: the board is position N."""
    walk = walked(ABILITIES)
    assert step < len(walk.positions)
    reader = BoardReader()
    reader.feed(dump_dom(f"{pages[ABILITIES].as_uri()}#step={step}", profile))
    assert reader.step == step
    game = walk.positions[step]
    assert reader.tokens == on_board(game)
    assert reader.listed == in_lists(game)


def test_keys_and_buttons_step_through_the_game(pages: dict[str, Path], profile: Path) -> None:
    """Driven over the DevTools protocol like a person would: after every key or button the
    board is the picture of the expected position, drawn in the document."""
    walk = walked(LONG)
    last = len(walk.steps) - 1
    first_of: dict[int, int] = {}
    for s in walk.steps:
        first_of.setdefault(s.turn, s.number)
    with Browser(profile) as browser:
        browser.load(pages[LONG].as_uri())

        def shows(expected: int) -> None:
            state = browser.evaluate(
                "JSON.stringify({step: dbnetReplay.current(),"
                " source: dbnetReplay.source(dbnetReplay.current()),"
                " board: document.getElementById('board').getAttribute('data-step'),"
                " hash: location.hash,"
                " now: document.getElementById('now').textContent,"
                " tokens: Array.from(document.querySelectorAll('#board [data-cell]'),"
                "   g => [g.dataset.label, g.dataset.cell, Number(g.dataset.damage)])})"
            )
            assert isinstance(state, str)
            seen = json.loads(state)
            assert seen["step"] == expected
            assert seen["board"] == str(expected)
            assert seen["hash"] == f"#step={expected}"
            game = walk.positions[expected]
            picture = svg.board(game).replace(f' xmlns="{svg.SVG_NAMESPACE}"', "", 1)
            assert seen["source"] == picture
            assert {tuple(t) for t in seen["tokens"]} == on_board(game)
            step = walk.steps[expected]
            assert (step.notation or step.words.split(":")[0]) in seen["now"]

        shows(0)
        moves = [
            ("ArrowRight", 1),
            ("ArrowRight", 2),
            ("ArrowLeft", 1),
            ("End", last),
            ("ArrowRight", last),  # stays at the end
            ("PageUp", first_of[walk.steps[last].turn]),
            ("PageUp", first_of[walk.steps[last].turn - 1]),
            ("PageDown", first_of[walk.steps[last].turn]),
            ("Home", 0),
            ("ArrowLeft", 0),  # stays at the start
            ("PageDown", first_of[1]),
            ("ArrowDown", first_of[1] + 1),
        ]
        for key, expected in moves:
            browser.press(key)
            shows(expected)
        for button, expected in [("last", last), ("back", last - 1), ("first", 0), ("forward", 1)]:
            browser.evaluate(f"document.getElementById({button!r}).click()")
            shows(expected)
        browser.evaluate(
            "(function (s) { s.value = '5'; s.dispatchEvent(new Event('change')); })"
            "(document.getElementById('turn'))"
        )
        shows(first_of[5])
        browser.evaluate("document.querySelector('#moves li[data-step=\"30\"] a').click()")
        shows(30)
        assert browser.errors == []


# --- (c) it fetches nothing ------------------------------------------------------------------


def test_the_browser_has_only_loopback() -> None:
    """The namespace the browser runs in: one interface, loopback."""
    done = subprocess.run(
        [*chromium_command(), "-1", "-1", "ip", "-o", "link", "show"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=True,
    )
    names = [line.split(":")[1].strip() for line in done.stdout.splitlines()]
    assert names == ["lo"]


def test_the_page_asks_for_nothing_on_the_network(
    pages: dict[str, Path], profile: Path, tmp_path: Path
) -> None:
    """The browser's own account of the page's requests: only the page itself, while it
    is stepped from the start to the end. A copy with a planted image and script shows
    that the account sees requests, and that the page's policy blocks them."""
    page = pages[ABILITIES]
    with Browser(profile) as browser:
        browser.load(page.as_uri())
        for key in ("ArrowRight", "End", "PageUp", "Home"):
            browser.press(key)
        browser.evaluate("document.getElementById('last').click()")
        assert [r["request"]["url"] for r in browser.requests] == [page.as_uri()]  # type: ignore[index]
        assert browser.failures == []
        assert browser.errors == []

        planted = tmp_path / "planted.html"
        text = page.read_text(encoding="utf-8").replace(
            "<body>",
            '<body><img src="http://127.0.0.1:9/x.png"><script src="https://example.invalid/x.js">'
            "</script>",
            1,
        )
        planted.write_text(text, encoding="utf-8")
        browser.requests.clear()
        browser.load(planted.as_uri())
        browser.evaluate("1")
        asked = [str(r["request"]["url"]) for r in browser.requests]  # type: ignore[index]
        assert asked[0] == planted.as_uri()
        assert set(asked[1:]) == {"http://127.0.0.1:9/x.png", "https://example.invalid/x.js"}
        assert {str(f.get("blockedReason")) for f in browser.failures} == {"csp"}
        assert len(browser.failures) == 2


def test_the_page_names_no_address(pages: dict[str, Path]) -> None:
    text = pages[ABILITIES].read_text(encoding="utf-8")
    assert "http:" not in text
    assert "https:" not in text
    assert "//" not in text
    assert html.SCRIPT in text
    assert story(ABILITIES).verdict.ok
