"""``dbnet.replay.html``: the replay page read as text, without a browser: what it holds,
that its pictures are the positions of the game, that it can fetch nothing, and that a
peer's names cannot inject anything. ``test_browser.py`` opens it in chromium."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import re

import pytest

from dbnet.engine import Player
from dbnet.protocol.identity import fingerprint
from dbnet.replay import html, svg
from dbnet.replay.steps import StepKind
from dbnet.replay.story import Story

from .shipped import ABILITIES, LONG, SHORT, story, walked

CHECKED = html.Checked("ab" * 32, "9.9.9")
DATA = re.compile(r'<script type="application/json" id="dbnet-data">(.*?)</script>', re.S)
URL_ATTRIBUTES = re.compile(
    r"""\b(?:src|href|action|xlink:href|srcset|poster|data)\s*=\s*["']?([^"'\s>]*)""", re.I
)


def data_of(page: str) -> dict[str, object]:
    found = DATA.search(page)
    assert found is not None
    value = json.loads(found.group(1))
    assert isinstance(value, dict)
    return value


def source(data: dict[str, object], n: int) -> str:
    """What the page's script puts in the board for step ``n`` (its ``source``)."""
    steps, pieces, groups, wrap = data["steps"], data["pieces"], data["groups"], data["wrap"]
    status = data["status"]
    assert isinstance(steps, list)
    assert isinstance(pieces, list)
    assert isinstance(groups, list)
    assert isinstance(wrap, list)
    assert isinstance(status, list)
    cells, lists, state, _turn = steps[n]

    def group(opening: str, g: int) -> str:
        return opening + "".join(pieces[i] for i in groups[g]) + str(wrap[2])

    board = group(wrap[0], cells) + group(wrap[1], lists) + status[state]
    return f"{data['open']}{data['frame']}{board}"


def standalone_as_inline(picture: str) -> str:
    return picture.replace(f' xmlns="{svg.SVG_NAMESPACE}"', "", 1)


@pytest.mark.parametrize("name", [SHORT, LONG])
def test_the_page_holds_every_position_of_the_game(name: str) -> None:
    page = html.page(story(name), CHECKED)
    data = data_of(page)
    walk = walked(name)
    steps = data["steps"]
    assert isinstance(steps, list)
    assert len(steps) == len(walk.steps)
    for n, game in enumerate(walk.positions):
        assert source(data, n) == standalone_as_inline(svg.board(game)), n
        assert steps[n][3] == walk.steps[n].turn
    turns = data["turns"]
    assert isinstance(turns, dict)
    for turn, first in turns.items():
        assert walk.steps[first].turn == int(turn)
        assert first == 0 or walk.steps[first - 1].turn != int(turn)


def test_the_move_list_has_every_step_with_its_story() -> None:
    page = html.page(story(ABILITIES), CHECKED)
    walk = walked(ABILITIES)
    items = re.findall(r'<li class="st (\w+)" data-step="(\d+)"', page)
    assert [int(n) for _, n in items] == list(range(len(walk.steps)))
    assert [k for k, _ in items] == [s.kind.value for s in walk.steps]
    bodies = dict(re.findall(r'<li class="st \w+" data-step="(\d+)"[^>]*>(.*?)</li>', page))
    for step in walk.steps[1:80]:
        body = bodies[str(step.number)]
        if step.seq is not None:
            assert f'<span class="seq">{step.seq}</span>' in body
        if step.kind is StepKind.CHOICE:
            assert f"<code>{step.notation}</code>" in body
            assert step.outcome.replace("'", "&#x27;") in body
        elif step.kind is StepKind.ROLL:
            assert f"<code>{step.notation}</code>" in body
            assert step.words.replace("'", "&#x27;") in body
            boxes = re.findall(r'<span class="die"[^>]*>([^<]*)</span>', body)
            if step.faces:  # attack dice as faces: 1 2 3, - for a miss, B for a blade
                assert boxes == ["123--B"[v - 1] for v in step.dice]
            else:
                assert boxes == [str(v) for v in step.dice]
    assert page.count('<span class="die"') == sum(len(s.dice) for s in walk.steps)
    results = [text for s in walk.steps for text in s.after]
    assert page.count('<span class="after">') == len(results)
    for turn in {s.turn for s in walk.steps if s.turn}:
        assert f'<li class="turn" id="turn-{turn}">Turn {turn}</li>' in page
        assert f'<option value="{turn}">Turn {turn}</option>' in page


def test_the_header_says_what_was_verified() -> None:
    told = story(SHORT)
    page = html.page(told, CHECKED)
    assert told.keys is not None
    assert told.header is not None
    assert told.verdict.summary().replace("'", "&#x27;") in page
    for key in told.keys:
        assert fingerprint(key) in page
    assert CHECKED.sha256 in page
    assert "Verified by dbnet 9.9.9" in page
    assert told.header.game_id.hex() in page
    assert "Clocks" in page


def test_the_page_can_fetch_nothing() -> None:
    """No address anywhere (not even the SVG namespace), every link within the page, and
    a policy that forbids every request and every script but the page's own."""
    page = html.page(story(LONG), CHECKED)
    assert "http:" not in page
    assert "https:" not in page
    assert "//" not in page
    data = data_of(page)
    markup = [re.sub(r"<script>.*?</script>", "", page, flags=re.S)]  # the page's own script
    markup += [str(data["open"]), str(data["frame"])]
    markup += [str(piece) for key in ("pieces", "status") for piece in data[key]]  # type: ignore[attr-defined]
    values = [v for text in markup for v in URL_ATTRIBUTES.findall(text)]
    assert values
    assert all(v.startswith("#") for v in values), [v for v in values if not v.startswith("#")]
    assert "<iframe" not in page
    assert "@import" not in page
    assert "url(" not in page
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page)
    assert policy is not None
    rules = dict(rule.strip().split(" ", 1) for rule in policy.group(1).split(";"))
    digest = base64.b64encode(hashlib.sha256(html.SCRIPT.encode()).digest()).decode()
    assert rules == {
        "default-src": "'none'",
        "style-src": "'unsafe-inline'",
        "script-src": f"'sha256-{digest}'",
        "img-src": "data:",
        "base-uri": "'none'",
        "form-action": "'none'",
    }
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.S)
    assert scripts == [html.SCRIPT]  # the one script the policy allows, by its hash
    assert not re.search(r"\son\w+\s*=", page)  # no inline event handlers


def test_a_200_entry_game_is_well_under_a_megabyte() -> None:
    page = html.page(story(LONG), CHECKED)
    assert len(story(LONG).entries) > 200
    assert len(page.encode()) < 1_000_000


HOSTILE = "</script><script>alert(1)</script><!--\x1b]0;x\x07\u202e&\"'"


def test_a_peers_names_cannot_break_out(monkeypatch: pytest.MonkeyPatch) -> None:
    told = story(SHORT)
    assert told.setup is not None
    setup = told.setup
    a, b = (dataclasses.replace(w, name=HOSTILE) for w in setup.warbands)
    hostile = dataclasses.replace(
        setup, warbands=(a, b), map=dataclasses.replace(setup.map, name=HOSTILE)
    )
    # The steps are re-played from the setup: only the names change.
    changed = Story(told.where + HOSTILE, told.verdict, told.header, hostile, told.keys)
    changed.entries = told.entries
    changed.narrator = told.narrator
    page = html.page(changed, CHECKED)
    assert page.count("<script") == 2  # the data block and the page's own script
    assert page.count("</script>") == 2
    assert "<!--" not in page
    assert "\x1b" not in page
    assert "\u202e" not in page
    data = data_of(page)  # still one JSON document
    assert "&lt;/script&gt;" in str(data["open"])
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in page
    assert Player.A.name in page
