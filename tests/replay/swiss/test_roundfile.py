"""Round files read back as written, and results recorded by hand checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from dbnet.replay.swiss.errors import EventFileError
from dbnet.replay.swiss.roundfile import (
    Outcome,
    Paired,
    RoundFile,
    Stage,
    Table,
    load_rounds,
    round_path,
    save,
)

A, B, C = "AAAA-AAAA-AAAA-AAAA", "BBBB-BBBB-BBBB-BBBB", "CCCC-CCCC-CCCC-CCCC"
PLAYERS = frozenset((A, B, C))


def test_a_round_file_reads_back_as_written(tmp_path: Path) -> None:
    one = RoundFile(
        1, Stage.SWISS, (Table(1, A, B, Outcome.B, 'no-show "late"'), Table(2, C, None))
    )
    two = RoundFile(
        2,
        Stage.SWISS,
        (Table(1, C, A),),
        (Paired(1, 1, A, B, Outcome.B), Paired(1, 2, C, None, Outcome.BYE)),
    )
    save(tmp_path, one)
    save(tmp_path, two)
    assert load_rounds(tmp_path, PLAYERS, 10) == (one, two)


def test_a_gap_and_a_drawn_cut_game_are_refused(tmp_path: Path) -> None:
    save(tmp_path, RoundFile(1, Stage.CUT, (Table(1, A, B, Outcome.A),)))
    save(tmp_path, RoundFile(3, Stage.CUT, (Table(1, A, B),)))
    with pytest.raises(EventFileError, match="round 2 has no file before it"):
        load_rounds(tmp_path, PLAYERS, 10)
    round_path(tmp_path, 3).unlink()
    save(tmp_path, RoundFile(1, Stage.CUT, (Table(1, A, B, Outcome.DRAW),)))
    with pytest.raises(EventFileError, match="a drawn one is played again"):
        load_rounds(tmp_path, PLAYERS, 10)
