"""The host's terms for a rematch: ``rematch --clock 10+5`` / ``--turns-to-win 4`` /
``--warband FILE`` typed as the answer to the rematch question (docs/network.md section
13). The options are ``dbnet host``'s, read the same way; bad terms get one line and the
question stays open. The next game is offered with the new terms (the joiner is told
them before its ACCEPT, as at a fresh join)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import NoReturn

from dbnet.catalog import load_catalog, load_warband
from dbnet.commands.argument_types import _clock
from dbnet.errors import DbnetError, InvalidChoiceError
from dbnet.net.rematch import TERMS_HINT
from dbnet.net.session_values import NewGame
from dbnet.protocol.clock import ClockSetting

__all__ = ["TERMS_HINT", "RematchTerms"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InvalidChoiceError(message)


class RematchTerms:
    """The host's terms for its next game: ``game``, changed by ``change``."""

    def __init__(self, game: NewGame) -> None:
        self.game = game
        parser = _Parser(prog="rematch", add_help=False, exit_on_error=False)
        parser.add_argument("--turns-to-win", type=int, metavar="N")
        parser.add_argument("--clock", type=_clock, metavar="MINUTES[+SECONDS]")
        parser.add_argument("--warband", type=Path, metavar="FILE")
        self._parser = parser

    def change(self, words: list[str]) -> str | None:
        """Read ``words`` (after ``rematch``) as new terms for the next game: None when
        they are taken, else the one line that says what is wrong (nothing changed)."""
        try:
            options = self._parser.parse_args(words)
            game = self.game
            if options.turns_to_win is not None:
                if not 1 <= options.turns_to_win <= 99:
                    raise InvalidChoiceError("--turns-to-win must be from 1 to 99")
                game = dataclasses.replace(
                    game,
                    options=dataclasses.replace(game.options, turns_to_win=options.turns_to_win),
                )
            if options.clock is not None:
                game = dataclasses.replace(game, clock=ClockSetting(*options.clock))
            if options.warband is not None:
                if game.limited is not None:
                    raise InvalidChoiceError(
                        "--warband: a Limited game builds the warband from packs"
                    )
                game = dataclasses.replace(
                    game, warband=load_warband(options.warband, load_catalog())
                )
        except (DbnetError, argparse.ArgumentError) as exc:
            return f"rematch: {exc} (the terms: {TERMS_HINT}); the question stays open"
        self.game = game
        return None
