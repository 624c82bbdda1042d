"""Games on this machine saved as they are played: a new game written to a new replay
file, or a game taken up again from its file (``dbnet play --resume FILE``).

A resumed game needs the keys it was started with. ``dbnet play`` makes them from the
machine owner's identity (``MatchKeys.for_owner``), so the owner can make them again from
the replay alone; a game played with ``--seed N`` resumes with the same ``--seed N``. What
else defined the game (the bot, its budget, the seats, the seed, the build time) is kept
beside the replay (``replay.terms``), so ``dbnet play --resume FILE`` alone is enough.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dbnet.engine import GameSetup, Player
from dbnet.errors import DbnetError
from dbnet.match.keys import MatchKeys, replay_header, seeded_keys
from dbnet.match.local import LocalGame
from dbnet.match.seats import Seat
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog
from dbnet.replay.errors import ReplayError
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.replay.paths import default_replay_path, now_utc, start_replay
from dbnet.replay.terms import LocalTerms, save_terms, terms_path
from dbnet.wire.bodies import OfferBody
from dbnet.wire.setup import EncodedSetup

MakeSeats = Callable[[Player | None], tuple[Seat, Seat]]
"""The seats of a resumed game, given the person's seat (None: people in both seats)."""


@dataclass(slots=True)
class SavedGame:
    """A local game and the replay file it is written to, record by record."""

    local: LocalGame
    writer: ReplayWriter

    @property
    def path(self) -> Path:
        return self.writer.path


def start_saved(
    setup: GameSetup,
    seats: tuple[Seat, Seat],
    keys: MatchKeys,
    path: Path | None = None,
    terms: LocalTerms | None = None,
) -> SavedGame:
    """A new game saved as it is played, at ``path`` (a new file) or by default at
    ``<config dir>/replays/YYYYMMDD-HHMMSS-<game id>.dbnr``; its ``terms``, if given,
    beside it (``replay.terms``).

    Raises:
        ReplayError: the file exists already or cannot be written.
    """
    created = now_utc()
    encoded = EncodedSetup.of(setup)  # once: the game id, the header and the game take it
    game_id = keys.game_id(encoded)
    path = path if path is not None else default_replay_path(game_id, created)
    writer = start_replay(path, replay_header(keys, encoded, created))
    try:
        if terms is not None:
            save_terms(writer.path, game_id, terms)
        local = LocalGame(encoded, seats, keys, on_record=writer.append)
    except BaseException:
        writer.close()
        raise
    return SavedGame(local, writer)


def resume_saved(
    path: Path, make_seats: MakeSeats, *, seed: int | None = None, seat: Player | None = None
) -> SavedGame:
    """The game saved at ``path``, to go on with, appending to the same file.

    Its keys are made again from this machine owner's identity, or from ``seed`` when
    given (a ``--seed`` game: ``seat`` is then the person's seat, None for two people).

    Raises:
        ReplayError: the file cannot be resumed: unreadable, not a game, already closed,
            or not a game these keys made (a network game resumes with ``dbnet resume``).
        DbnetError: a record in it is invalid.
    """
    writer = ReplayWriter.resume(path)
    try:
        records = list(load_replay(path).records)
        keys, person = _keys_of(path, records, seed, seat)
        local = LocalGame.resume(make_seats(person), keys, records, on_record=writer.append)
        if local.is_closed:
            raise ReplayError(str(path), "this game's log is closed already: nothing to resume")
    except BaseException:
        writer.close()
        raise
    return SavedGame(local, writer)


def _keys_of(
    path: Path, records: list[bytes], seed: int | None, seat: Player | None
) -> tuple[MatchKeys, Player | None]:
    where = str(path)
    if not records:
        raise ReplayError(where, "the game never started (the file holds only its header)")
    try:
        offer = GameLog.start(records[0]).decoded[0].body
    except DbnetError as exc:
        raise ReplayError(where, f"record 1 (the OFFER) is invalid: {exc}") from exc
    assert isinstance(offer, OfferBody)
    if seed is not None:
        keys = seeded_keys(seed)
        if (keys.identities[0].public_key, keys.identities[1].public_key) != offer.keys:
            raise ReplayError(where, f"this game was not played with --seed {seed}")
        return keys, seat
    owner = Identity.load_or_create()
    found = None
    if offer.joiner_nonce is not None:  # format 1 games were never made this way
        found = MatchKeys.recover(owner, offer.keys, offer.nonce, offer.joiner_nonce)
    if found is None:
        if owner.public_key in offer.keys:
            why = "a network game: resume it with 'dbnet resume FILE'"
        else:
            why = (
                "not a game of this identity's (another DBNET_HOME?), or one played with "
                "--seed N (resume it with the same --seed N)"
            )
        raise ReplayError(where, f"cannot resume here: {why}")
    return found


def resume_play_command(path: Path, seed: int | None = None) -> str:
    """The command that goes on with the local game saved at ``path``, quoted for a shell,
    with the ``DBNET_HOME`` (where the owner's identity lives) or the ``--seed`` it needs
    (none when the game's terms are kept beside it: they hold the seed)."""
    kept = terms_path(path).exists()
    words = [
        "dbnet",
        "play",
        "--resume",
        str(path),
        *(["--seed", str(seed)] if seed is not None and not kept else []),
    ]
    command = " ".join(shlex.quote(w) for w in words)
    home = os.environ.get("DBNET_HOME")
    return command if not home or seed is not None else f"DBNET_HOME={shlex.quote(home)} {command}"
