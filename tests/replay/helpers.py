"""Real bot games for the replay tests, recorded with ``ReplayWriter``."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import Decision, Game, GameSetup, Options, Player, format_choice
from dbnet.match.peers import Chooser, LocalMatch
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog
from dbnet.protocol.peer import Peer
from dbnet.replay.file import ReplayWriter
from dbnet.wire.replay_header import ReplayHeader

CREATED = "2025-01-01T00:00:00+00:00"


@dataclass(frozen=True)
class RecordedGame:
    """A game's identities, header, entry records, final log and replay file bytes."""

    identities: tuple[Identity, Identity]
    header: ReplayHeader
    records: tuple[bytes, ...]
    log: GameLog
    data: bytes


def setup_with(options: Options | None = None) -> GameSetup:
    catalog = load_catalog()
    if options is None:
        return GameSetup(load_map(), default_warbands(catalog))
    return GameSetup(load_map(), default_warbands(catalog), options=options)


def chooser(names: tuple[str, str], seed: int) -> Chooser:
    bots = {
        Player.A: make_bot(names[0], random.Random(f"{seed}:A")),
        Player.B: make_bot(names[1], random.Random(f"{seed}:B")),
    }

    def choose(view: Game) -> str:
        pending = view.pending
        assert isinstance(pending, Decision)
        return format_choice(view, bots[pending.player].choose(view))

    return choose


def new_match(
    options: Options | None = None,
    *,
    identities: tuple[Identity, Identity] | None = None,
    chain_length: int | None = None,
) -> LocalMatch:
    if identities is None:
        identities = (Identity.generate(), Identity.generate())
    return LocalMatch(setup_with(options), identities, chain_length=chain_length)


def play(
    match: LocalMatch,
    choose: Chooser,
    until: Callable[[LocalMatch], bool] = lambda m: m.is_closed,
) -> None:
    """Step ``match`` until ``until`` holds (by default: until its log is closed)."""
    while not until(match):
        match.step(choose)


def header_for(log: GameLog) -> ReplayHeader:
    return ReplayHeader(
        format=log.version,
        protocol=log.version,
        rules=log.rules,
        game_id=log.game_id,
        keys=log.keys,
        created=CREATED,
    )


def write_replay(
    path: Path, header: ReplayHeader, records: tuple[bytes, ...] | list[bytes]
) -> bytes:
    """Write a replay with ``ReplayWriter`` and return the file's bytes."""
    with ReplayWriter.create(path, header) as writer:
        for record in records:
            writer.append(record)
    return path.read_bytes()


def record_game(
    path: Path,
    match: LocalMatch,
    identities: tuple[Identity, Identity],
    records: list[bytes] | None = None,
) -> RecordedGame:
    """The game of ``match`` (or ``records`` of it) written to ``path``."""
    log = match.peers[Player.A].log
    header = header_for(log)
    chosen = tuple(match.records if records is None else records)
    return RecordedGame(identities, header, chosen, log, write_replay(path, header, chosen))


def bot_game(
    path: Path,
    options: Options | None,
    *,
    seed: int,
    names: tuple[str, str] = ("random", "greedy"),
    chain_length: int | None = None,
    identities: tuple[Identity, Identity] | None = None,
) -> RecordedGame:
    """A whole bot game (to COSIGN), recorded at ``path``."""
    ids = identities or (Identity.generate(), Identity.generate())
    match = new_match(options, identities=ids, chain_length=chain_length)
    play(match, chooser(names, seed))
    return record_game(path, match, ids)


def forge(
    records: tuple[bytes, ...],
    identity: Identity,
    secret: bytes,
    seq: int,
    *,
    claim: bool = False,
) -> tuple[bytes, ...]:
    """``records`` before ``seq``, then an entry at ``seq`` signed by the player of
    ``identity`` (its chain ``secret``), as its own client would write it: a RESIGN (when
    it wrote entry ``seq`` already: two different entries for one place) or a timeout
    claim (``claim``: the other player wrote entry ``seq``)."""
    log = GameLog.start(records[0])
    for record in records[1:seq]:
        log.append(record)
    peer = Peer.restore(identity, log, secret)
    return (*records[:seq], peer.claim_timeout() if claim else peer.resign())
