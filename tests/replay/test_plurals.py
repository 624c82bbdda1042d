"""Counts in words: one entry, one file (``dbnet verify``), never "1 entries"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from dbnet.commands.verify import format_counts
from dbnet.replay.verify import VerdictStatus, verify_replay

from .helpers import bot_game, header_for, write_replay


def test_one_entry_and_one_file_are_singular(tmp_path: Path) -> None:
    game = bot_game(tmp_path / "whole.dbnr", None, seed=1)
    path = tmp_path / "offer-only.dbnr"
    write_replay(path, header_for(game.log), game.records[:1])
    verdict = verify_replay(path.read_bytes(), where=str(path))
    assert verdict.status is VerdictStatus.UNFINISHED
    assert "unfinished after 1 entry" in verdict.summary()
    result = subprocess.run(
        [sys.executable, "-m", "dbnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "unfinished after 1 entry, " in result.stdout, result.stdout
    assert "1 valid entry;" in result.stdout, result.stdout
    assert format_counts([verdict]).startswith("1 file: ")
    assert format_counts([verdict, verdict]).startswith("2 files: ")
