"""Where replay files go and how a new one is started: ``<config dir>/replays/``, a name
from the time and the game id, never overwriting another game."""

from __future__ import annotations

import datetime
from pathlib import Path

from dbnet.protocol.identity import config_dir
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import EXTENSION, ReplayWriter, holds_no_entry
from dbnet.wire.replay_header import ReplayHeader


def now_utc() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0)


def default_replay_path(
    game_id: bytes, created: datetime.datetime, *, reuse_for: bytes | None = None
) -> Path:
    """``<config dir>/replays/YYYYMMDD-HHMMSS-<first 8 hex digits of the game id>.dbnr``
    (UTC), with ``-2``, ``-3``... added if that name is taken; with ``reuse_for`` (a
    player's public key), a name taken by a replay of that player's that holds no entry
    is not taken (``start_replay`` replaces such a file)."""
    directory = config_dir() / "replays"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ReplayError(str(directory), f"cannot create the folder: {exc.strerror}") from exc
    stem = f"{created:%Y%m%d-%H%M%S}-{game_id.hex()[:8]}"
    path = directory / f"{stem}{EXTENSION}"
    n = 2
    while path.exists() and not (reuse_for is not None and holds_no_entry(path, reuse_for)):
        path = directory / f"{stem}-{n}{EXTENSION}"
        n += 1
    return path


def start_replay(
    path: Path, header: ReplayHeader, *, replace_empty_for: bytes | None = None
) -> ReplayWriter:
    """A new replay file at ``path``, its folder created if needed. An existing file is
    never overwritten, except a replay of the player whose key is ``replace_empty_for``
    that holds no entry (see ``ReplayWriter.create``)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReplayError(str(path.parent), f"cannot create the folder: {exc.strerror}") from exc
    return ReplayWriter.create(path, header, replace_empty_for=replace_empty_for)
