"""The story of a replay file (``replay.story``): told as the file is verified, the same
story the game told live, and nothing past an invalid record."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from dbnet.bots import RandomBot
from dbnet.match.keys import MatchKeys
from dbnet.match.local import LocalGame
from dbnet.match.seats import BotSeat
from dbnet.match.story import EventKind
from dbnet.replay.file import LENGTH_SIZE, iter_records
from dbnet.replay.story import read_story
from dbnet.wire.bodies import PlayBody

from .helpers import header_for, setup_with, write_replay


def live_game(path: Path) -> tuple[LocalGame, bytes]:
    """A whole game between random bots told live, and its replay file's bytes."""
    records: list[bytes] = []
    seats = (BotSeat(RandomBot(random.Random(11))), BotSeat(RandomBot(random.Random(12))))
    local = LocalGame(
        setup_with(), seats, MatchKeys.from_seed(b"test-replay-story"), on_record=records.append
    )
    local.advance()
    assert local.is_closed
    return local, write_replay(path, header_for(local.match.log), records)


def test_a_replay_is_told_as_it_is_verified_and_as_it_was_told_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count_applies: Callable[[], list[int]]
) -> None:
    """Each decision is applied once, by the verifier, and the story told from that is the
    one the game told live, event for event."""
    local, data = live_game(tmp_path / "game.dbnr")
    calls = count_applies()
    story = read_story(data, where="game.dbnr")
    monkeypatch.undo()
    assert story.verdict.ok
    decisions = [
        e for e in local.match.log.decoded if isinstance(e.body, PlayBody) and e.body.decision
    ]
    assert len(decisions) > 50
    assert calls[0] == len(decisions)
    told = [event for entry in story.entries for event in entry.events]
    # live, the players are called by their seats (``A (random)``); in a file, by letter
    assert told == [replace(e, words=e.words.replace(" (random)", "", 1)) for e in local.log]
    assert len([e for e in told if e.kind is EventKind.CHOICE]) == len(decisions)
    assert [entry.rolls for entry in story.entries[1:]] == [
        tuple(local.match.log.rolls[a:b])
        for a, b in zip(local.match.log.rolls_at, local.match.log.rolls_at[1:], strict=False)
    ]
    assert story.game is not None
    assert story.game.state_hash() == local.game.state_hash()


def test_a_bad_signature_is_told_up_to_the_record_before_it(tmp_path: Path) -> None:
    """The verifier checks signatures after the rules, so its log applies records past a
    bad signature: the story still ends before that record, as if nothing after it had
    been read."""
    local, data = live_game(tmp_path / "game.dbnr")
    whole = read_story(data, where="game.dbnr")
    entry = len(whole.entries) // 2
    record = whole.entries[entry].record
    [(offset, length)] = [
        (at, len(framed))
        for index, at, framed in iter_records(data, where="game.dbnr")
        if index == record
    ]
    bad = bytearray(data)
    bad[offset + LENGTH_SIZE + length - 1] ^= 0xFF  # a record ends with its signature
    story = read_story(bytes(bad), where="bad.dbnr")
    assert story.stops_at == record
    assert "signature" in (story.verdict.reason or "")
    assert story.entries == whole.entries[:entry]
    assert story.narrator is not None
    assert story.narrator.events == [event for t in story.entries for event in t.events]
    assert story.narrator.told_at == (whole.narrator.told_at[:entry] if whole.narrator else [])
    assert story.game is not None
    after = [t.turn for t in whole.entries[entry:]]
    assert story.game.state_hash() != local.game.state_hash()
    assert story.game.turn == after[0]
