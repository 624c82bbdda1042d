"""``dbnet.replay.svg``: one position as a standalone SVG picture, read back as XML and
compared with the position it draws."""

from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

import pytest

from dbnet.engine import Game, Player, Zone
from dbnet.engine.board import KEY_CELLS, cell_name
from dbnet.match.render import describe_phase, describe_result
from dbnet.replay import svg

from .shipped import ABILITIES, LONG, SHORT, in_lists, on_board, story, walked

NS = {"s": svg.SVG_NAMESPACE}


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{{{svg.SVG_NAMESPACE}}}svg"
    return root


def tokens(root: ET.Element) -> set[tuple[str, str, int]]:
    return {
        (g.attrib["data-label"], g.attrib["data-cell"], int(g.attrib["data-damage"]))
        for g in root.iterfind(".//s:g[@data-cell]", NS)
    }


def listed(root: ET.Element) -> set[tuple[str, str]]:
    return {
        (g.attrib["data-label"], g.attrib["data-zone"])
        for g in root.iterfind(".//s:g[@data-zone]", NS)
    }


def texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iterfind(".//s:text", NS)]


def test_the_start_has_every_miniature_in_reserves_and_the_whole_dreamscape() -> None:
    game = walked(SHORT).positions[0]
    root = parse(svg.board(game))
    assert re.fullmatch(r"0 0 640 \d+", root.attrib["viewBox"])
    assert "width" not in root.attrib  # it scales to whatever holds it
    assert tokens(root) == set()
    assert listed(root) == in_lists(game)
    words = texts(root)
    for cell in range(25):
        assert any(w.startswith(f"{cell_name(cell)} ") or w == cell_name(cell) for w in words)
    at = {
        "".join(t.itertext()): (int(t.attrib["x"]), int(t.attrib["y"]))
        for t in root.iterfind(".//s:text", NS)
    }
    assert all(at[c][0] < at[d][0] for c, d in zip("abcd", "bcde", strict=True))
    assert all(at[r][1] > at[s][1] for r, s in zip("1234", "2345", strict=True))
    assert at["e1 A portal"][0] > at["a5 B portal"][0]  # A's portal at the bottom right
    assert at["e1 A portal"][1] > at["a5 B portal"][1]
    for cell in KEY_CELLS:
        assert str(game.values[cell]) in words  # the value, large, in its cell
    assert any(w.startswith("a5 B portal") for w in words)
    assert any(w.startswith("e1 A portal") for w in words)
    assert len(root.findall(".//s:circle[@class='db-portal']", NS)) == 2


@pytest.mark.parametrize("name", [SHORT, LONG, ABILITIES])
def test_every_position_shows_what_the_game_holds(name: str) -> None:
    walk = walked(name)
    for number in sorted({0, 1, 5, 20, len(walk.positions) // 2, len(walk.positions) - 1}):
        game = walk.positions[number]
        root = parse(svg.board(game))
        assert tokens(root) == on_board(game), number
        assert listed(root) == in_lists(game), number
        words = texts(root)
        phase = describe_phase(game)
        if game.is_over:
            phase += f". {describe_result(game)}"
        assert phase in words
        a, b = game.turns_won
        to_win = game.setup.options.turns_to_win
        assert f"{a}/{to_win} turns won" in words
        assert f"{b}/{to_win} turns won" in words
        won = root.findall(".//s:g[@class='db-status']/*[@class='db-won']", NS)
        assert len(won) == min(a, to_win) + min(b, to_win)


def test_the_picture_keeps_its_size_through_a_game() -> None:
    boxes = {parse(svg.board(g)).attrib["viewBox"] for g in walked(LONG).positions[::25]}
    assert len(boxes) == 1


def test_owners_are_told_apart_without_colour() -> None:
    """A's tokens are square with a solid border, B's round and dashed, and every token
    says its owner in text: the picture reads the same in grey."""
    game = walked(LONG).positions[-1]
    root = parse(svg.board(game))
    seen = {Player.A: 0, Player.B: 0}
    for g in root.iterfind(".//s:g[@data-cell]", NS):
        owner = Player[g.attrib["data-label"][0]]
        rect = g.find("s:rect", NS)
        text = g.find("s:text", NS)
        assert rect is not None
        assert text is not None
        assert (text.text or "").startswith(f"{owner.name}:") or (text.text or "").startswith(
            f"{owner.name}@"
        )
        if owner is Player.A:
            assert rect.attrib["rx"] == "0"
            assert "db-a" in rect.attrib["class"]
        else:
            assert int(rect.attrib["rx"]) > 0
            assert "db-b" in rect.attrib["class"]
        seen[owner] += 1
    assert seen[Player.A]
    assert seen[Player.B]
    style = root.find("s:style", NS)
    assert style is not None
    assert style.text is not None
    assert re.search(r"\.db-b\{[^}]*stroke-dasharray", style.text)
    assert not re.search(r"\.db-a\{[^}]*stroke-dasharray", style.text)


def test_creatures_marked_in_a_combat_say_so() -> None:
    """A creature marked to be disrupted or destroyed at the end of a combat (the only
    disrupted state a position holds) carries the mark in words."""
    found = 0
    for game in walked(ABILITIES).positions:
        combat = game.combat
        if combat is None or not combat.marks:
            continue
        root = parse(svg.board(game))
        marked = {
            g.attrib["data-label"]: g.attrib["data-mark"]
            for g in root.iterfind(".//s:g[@data-mark]", NS)
        }
        expected = {
            game.minis[i].label: fate.name.lower()
            for i, (fate, _) in combat.marks.items()
            if game.minis[i].zone is Zone.DREAMSCAPE
        }
        assert marked == expected
        for label, mark in marked.items():
            g = root.find(f".//s:g[@data-label='{label}'][@data-cell]", NS)
            assert g is not None
            assert f"({mark})" in "".join(g.itertext())
        found += 1
    assert found, "no position of the game has a combat with marks"


def test_the_picture_is_its_layers() -> None:
    game = walked(SHORT).positions[-1]
    layers = (
        svg.opening(game, namespace=True)
        + svg.frame(game)
        + svg.cells(game)
        + svg.lists(game)
        + svg.status(game)
    )
    assert svg.board(game) == layers
    assert svg.opening(game, namespace=False).startswith("<svg viewBox=")


HOSTILE = "<script>alert(1)</script>&amp;\x1b[2J\u202e\"'\n]]>"


def test_peer_chosen_names_are_escaped() -> None:
    """Warband, map and miniature names come from the other peer: the picture stays well
    formed, shows them as text, and holds no markup or control character of theirs."""
    told = story(SHORT)
    assert told.setup is not None
    setup = told.setup
    a, b = (
        dataclasses.replace(
            w,
            name=HOSTILE,
            minis=tuple(dataclasses.replace(m, slug=m.slug, name=HOSTILE) for m in w.minis),
        )
        for w in setup.warbands
    )
    hostile = dataclasses.replace(
        setup, warbands=(a, b), map=dataclasses.replace(setup.map, name=HOSTILE)
    )
    picture = svg.board(Game(hostile))
    root = parse(picture)  # well formed
    assert "<script" not in picture
    assert "\x1b" not in picture
    assert "\u202e" not in picture
    assert root.find(".//s:script", NS) is None
    title = texts(root)[0]
    assert "<script>alert(1)</script>&amp;\\x1b[2J\\u202e" in title
    assert "Dreamblade position: A '<script>" in root.attrib["aria-label"]


def test_handles_from_a_peer_are_escaped_in_tokens_and_lists() -> None:
    told = story(SHORT)
    assert told.setup is not None
    game = walked(SHORT).positions[-1].copy()
    mini = next(m for m in game.minis if m.zone is Zone.DREAMSCAPE)
    mini.handle = 'x"><script>1</script>'
    picture = svg.board(game)
    root = parse(picture)
    assert "<script>" not in picture
    labels = {g.attrib["data-label"] for g in root.iterfind(".//s:g[@data-label]", NS)}
    assert f'{mini.owner.name}:x"><script>1</script>' in labels


@pytest.mark.parametrize("to_win", [1, 6, 20, 99])
def test_the_victory_track_fits_any_number_of_turns(to_win: int) -> None:
    game = walked(SHORT).positions[0]
    setup = dataclasses.replace(
        game.setup, options=dataclasses.replace(game.setup.options, turns_to_win=to_win)
    )
    root = parse(svg.board(Game(setup)))
    places = root.findall(".//s:rect[@class='db-open']", NS)
    places += root.findall(".//s:circle[@class='db-open']", NS)
    assert len(places) == 2 * to_win
    right = [float(p.attrib.get("x", p.attrib.get("cx", "0"))) for p in places]
    assert max(right) < 600
    counts = [t for t in texts(root) if t.endswith("turns won")]
    assert counts == [f"0/{to_win} turns won"] * 2
