"""``dbnet export FILE --format svg|html`` as a real process: which position the picture
shows, the page of a game, and bad input (one line, never a traceback, no output)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import dbnet
from dbnet.engine import Game, parse_choice
from dbnet.match.story import EventKind
from dbnet.replay import svg
from dbnet.replay.story import load_story

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
GAME = REPLAYS / "05-resignation.dbnr"


def export(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "DBNET_HOME": str(cwd / "home"),
        "DBNET_RELAY": "off",
        "DBNET_PORT_MAPPING": "off",
    }
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "export", *args],
        capture_output=True,
        cwd=cwd,
        timeout=60,
        env=env,
        check=False,
    )


def after_entry(path: Path, seq: int | None) -> Game:
    """The position after entry ``seq`` (the last if None), re-played here from the events
    the story tells, independently of the exporter."""
    told = load_story(path)
    assert told.setup is not None
    game = Game(told.setup)
    for entry in told.entries:
        if seq is not None and entry.entry.seq > seq:
            break
        for event in entry.events:
            if event.kind is EventKind.CHOICE:
                game.apply(parse_choice(game, event.notation))
            elif event.kind is EventKind.ROLL:
                game.roll(event.dice)
            elif event.kind is EventKind.RESIGN:
                assert event.player is not None
                game.resign(event.player)
    return game


@pytest.mark.parametrize("at", [None, 0, 1, 12, 20])
def test_svg_draws_the_position_after_an_entry(tmp_path: Path, at: int | None) -> None:
    args = [str(GAME), "--format", "svg"] + ([] if at is None else ["--at", str(at)])
    done = export(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b""
    picture = done.stdout.decode("utf-8")
    ET.fromstring(picture)  # a well-formed document
    assert picture == svg.board(after_entry(GAME, at))


def test_svg_at_the_start_of_a_turn(tmp_path: Path) -> None:
    told = load_story(GAME)
    assert told.narrator is not None
    done = export(tmp_path, str(GAME), "--format", "svg", "--turn", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == svg.board(told.narrator.turn_starts[2])


def test_html_writes_the_page_of_the_verified_file(tmp_path: Path) -> None:
    done = export(tmp_path, str(GAME), "--format", "html")
    assert done.returncode == 0, done.stderr
    page = done.stdout.decode("utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert hashlib.sha256(GAME.read_bytes()).hexdigest() in page
    assert f"Verified by dbnet {dbnet.__version__}" in page
    assert load_story(GAME).verdict.summary() in page


def test_an_entry_or_turn_past_the_end_names_the_last(tmp_path: Path) -> None:
    told = load_story(GAME)
    last_seq = told.entries[-1].entry.seq
    assert told.narrator is not None
    last_turn = max(told.narrator.turn_starts)
    done = export(tmp_path, str(GAME), "--format", "svg", "--turn", "99")
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode() == (
        f"dbnet export: {GAME}: the game has no turn 99 (its last turn is {last_turn})\n"
    )
    done = export(tmp_path, str(GAME), "--format", "svg", "--at", str(last_seq + 1))
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"dbnet export: {GAME}: the game has no entry {last_seq + 1} "
        f"(its entries are 0 to {last_seq})\n"
    )


@pytest.mark.parametrize("form", ["svg", "html"])
def test_an_invalid_replay_gives_no_picture_only_the_verdict(tmp_path: Path, form: str) -> None:
    data = bytearray(GAME.read_bytes())
    data[len(data) // 2] ^= 0x55
    bad = tmp_path / "bad.dbnr"
    bad.write_bytes(bytes(data))
    verdict = load_story(bad).verdict
    done = export(tmp_path, str(bad), "--format", form)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode() == f"dbnet export: {bad}: {verdict.summary()}\n"


@pytest.mark.parametrize("form", ["svg", "html"])
def test_unreadable_files_and_wrong_options(tmp_path: Path, form: str) -> None:
    done = export(tmp_path, "missing.dbnr", "--format", form)
    assert done.returncode == 2
    assert done.stdout == b""
    assert done.stderr.decode().startswith("dbnet export: missing.dbnr: ")
    assert len(done.stderr.decode().splitlines()) == 1
    junk = tmp_path / "junk.dbnr"
    junk.write_bytes(b"not a replay at all")
    done = export(tmp_path, str(junk), "--format", form)
    assert done.returncode == 1
    assert done.stdout == b""
    assert b"Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1
    both = export(tmp_path, str(GAME), "--format", "svg", "--at", "1", "--turn", "1")
    assert both.returncode == 2
    assert b"not allowed with argument" in both.stderr
    text = export(tmp_path, str(GAME), "--format", "json", "--turn", "1")
    assert text.returncode == 2
    assert text.stderr == b"dbnet export: --at and --turn choose a position for --format svg\n"
