"""The games this player has started over the network, by game id (``played_games``).

A new game whose id this player has played or recorded before is refused: its dice
chains would be the ones of the earlier game, whose links the opponent has seen. With
both players' fresh nonces in the game id (protocol version 2) that cannot happen by
chance, so a repeat means a peer replayed an earlier game's nonces (or both sides used
the same ``--seed``, a testing aid). Resuming a game is not starting one: it is allowed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from dbnet.errors import IdentityError
from dbnet.files import BINARY
from dbnet.protocol.identity import config_dir

PLAYED_GAMES_FILE: Final = "played_games"
_HEX_DIGITS: Final = 64


class PlayedGames:
    """A file of game ids in hex, one a line, appended and fsynced as games start."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def in_dir(cls, directory: Path | None = None) -> PlayedGames:
        """The played games of ``directory`` (default: ``config_dir()``)."""
        return cls((config_dir() if directory is None else directory) / PLAYED_GAMES_FILE)

    def __contains__(self, game_id: object) -> bool:
        return isinstance(game_id, bytes) and game_id.hex() in self._ids()

    def add(self, game_id: bytes) -> None:
        """Record ``game_id`` (appended and fsynced before the game goes on).

        Raises:
            IdentityError: the file cannot be written (names it and why).
        """
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | BINARY, 0o600)
            try:
                os.write(fd, f"{game_id.hex()}\n".encode("ascii"))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise IdentityError(f"{self.path}: cannot record the game: {exc.strerror}") from exc

    def _ids(self) -> set[str]:
        try:
            text = self.path.read_text(encoding="ascii", errors="replace")
        except FileNotFoundError:
            return set()
        except OSError as exc:
            raise IdentityError(f"{self.path}: cannot read: {exc.strerror}") from exc
        # a line torn by a crash is shorter than an id and is ignored
        return {line for line in text.split() if len(line) == _HEX_DIGITS}
