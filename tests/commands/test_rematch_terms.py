"""The host's new terms for a rematch (``rematch --turns-to-win 4`` and so on): taken
when good, refused in one line when not (nothing changed, the question stays open); the
joiner, who has no terms to set, is told so and asked again."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from dbnet.catalog import default_warbands, load_catalog
from dbnet.commands.net_choosers import line_rematch
from dbnet.commands.rematch_terms import RematchTerms
from dbnet.net.session_values import NewGame
from dbnet.protocol.clock import ClockSetting


def terms() -> RematchTerms:
    return RematchTerms(NewGame(default_warbands(load_catalog())[0]))


def test_good_terms_are_taken() -> None:
    rematch = terms()
    assert rematch.change(["--turns-to-win", "4", "--clock", "10+5"]) is None
    assert rematch.game.options.turns_to_win == 4
    assert rematch.game.clock == ClockSetting(600_000, 5_000)


def test_bad_terms_are_one_line_and_change_nothing(tmp_path: Path) -> None:
    rematch = terms()
    before = rematch.game
    for words, said in (
        (["--turns-to-win", "0"], "--turns-to-win must be from 1 to 99"),
        (["--turns-to-win", "x"], "invalid int value: 'x'"),
        (["--clock", "soon"], "expected MINUTES[+SECONDS], got 'soon'"),
        (["--map", "big"], "unrecognized arguments: --map big"),
        (["--warband", str(tmp_path / "none.txt")], "none.txt"),
    ):
        wrong = rematch.change(words)
        assert wrong is not None, words
        assert "\n" not in wrong
        assert said in wrong, wrong
        assert wrong.endswith("the question stays open")
        assert rematch.game is before


def test_the_joiner_cannot_set_terms_and_is_asked_again(capsys: pytest.CaptureFixture[str]) -> None:
    lines = iter(["rematch --turns-to-win 4", "rematch"])

    async def read(prompt: str) -> str:
        return next(lines)

    assert trio.run(line_rematch(read), False) is True
    out = capsys.readouterr().out
    assert "rematch: only the host sets the terms: type rematch, or press Enter to leave" in out
