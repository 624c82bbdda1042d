"""Real short games between a few players, written as replay files, for ``dbnet event``."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import Decision, Game, GameSetup, Options, Player, format_choice
from dbnet.match.peers import LocalMatch
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog
from dbnet.protocol.peer import Peer
from dbnet.replay.file import ReplayWriter
from dbnet.wire.entries import decode_signed_entry
from dbnet.wire.replay_header import ReplayHeader


@dataclass(frozen=True)
class Played:
    """A whole game: its header and its entry records, FINAL and COSIGN last."""

    header: ReplayHeader
    records: tuple[bytes, ...]
    players: tuple[Identity, Identity]
    secrets: tuple[bytes, bytes]
    """A's and B's chain secrets: to write another entry for one of them (a forgery)."""

    def write(self, path: Path, *, upto: int | None = None, created: str = "") -> Path:
        """Write the game (its first ``upto`` records) to ``path``."""
        header = self.header
        if created:
            header = ReplayHeader(
                rules=header.rules, game_id=header.game_id, keys=header.keys, created=created
            )
        with ReplayWriter.create(path, header) as writer:
            for record in self.records[:upto]:
                writer.append(record)
        return path


def play(
    players: tuple[Identity, Identity],
    seed: int,
    *,
    nonces: tuple[bytes, bytes] | None = None,
    names: tuple[str, str] = ("A", "B"),
) -> Played:
    """A random-against-random game of one turn to win between ``players`` (A, B), who
    sign ``names``; the same ``nonces`` give the same game id whatever the seed."""
    catalog = load_catalog()
    setup = GameSetup(load_map(), default_warbands(catalog), Options(turns_to_win=1))
    rng = random.Random(seed)
    secrets = (rng.randbytes(32), rng.randbytes(32))
    nonce, joiner = nonces or (rng.randbytes(32), rng.randbytes(32))
    match = LocalMatch(
        setup, players, secrets=secrets, nonce=nonce, joiner_nonce=joiner, names=names
    )
    bots = {p: make_bot("random", random.Random(f"{seed}:{p.name}")) for p in Player}

    def choose(view: Game) -> str:
        pending = view.pending
        assert isinstance(pending, Decision)
        return format_choice(view, bots[pending.player].choose(view))

    while not match.is_closed:
        match.step(choose)
    log = match.peers[Player.A].log
    header = ReplayHeader(
        rules=log.rules, game_id=log.game_id, keys=log.keys, created="2025-01-01T00:00:00Z"
    )
    return Played(header, tuple(match.records), players, secrets)


def forge(game: Played, seat: Player, seq: int, *, claim: bool = False) -> tuple[bytes, ...]:
    """The entries of ``game`` before ``seq``, then an entry at ``seq`` signed with the real
    key of ``seat``: a RESIGN (``seat`` wrote entry ``seq`` of the honest game already: two
    different entries for one place), or a timeout claim (``claim``: the other player
    wrote entry ``seq``: a fork between two authors)."""
    log = GameLog.start(game.records[0])
    for record in game.records[1:seq]:
        log.append(record)
    peer = Peer.restore(game.players[seat], log, game.secrets[seat])
    return (*game.records[:seq], peer.claim_timeout() if claim else peer.resign())


def first_entry_of(game: Played, seat: Player, after: int = 1) -> int:
    """The sequence number of the first entry after ``after`` that ``seat`` wrote."""
    return next(
        seq
        for seq, record in enumerate(game.records)
        if seq > after and decode_signed_entry(record)[1].author == seat
    )
