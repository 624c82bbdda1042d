"""Local games saved as they are played (``replay.saved``): a new game's start."""

from __future__ import annotations

import random
from pathlib import Path

from dbnet.bots import RandomBot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup
from dbnet.match.keys import MatchKeys
from dbnet.match.seats import BotSeat, PersonSeat
from dbnet.replay.file import load_replay
from dbnet.replay.saved import start_saved


def test_a_local_game_start_encodes_its_setup_once(
    tmp_path: Path, setup_encodings: list[object]
) -> None:
    """Issue 34: the replay's header (the game id), both chain secrets, A's OFFER and both
    logs' checks of it take the setup's bytes from one encoding."""
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    keys = MatchKeys.from_seed(b"test-saved:1")
    seats = (PersonSeat(), BotSeat(RandomBot(random.Random(1))))
    saved = start_saved(setup, seats, keys, tmp_path / "game.dbnr")
    saved.writer.close()
    assert len(setup_encodings) == 1
    records = load_replay(tmp_path / "game.dbnr").records
    assert len(records) == 2  # the OFFER and the ACCEPT, saved
    assert load_replay(tmp_path / "game.dbnr").header.game_id == saved.local.match.log.game_id
