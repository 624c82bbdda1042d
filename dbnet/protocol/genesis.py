"""A game's start, entry 0: the game id (what names a game and seeds its dice), and the
checks of an OFFER that every peer and verifier makes before a log holds it: its place,
its keys, its game id, its rules and its setup, card for card (docs/protocol.md,
"Genesis")."""

from __future__ import annotations

import hashlib
from typing import Final

from dbnet.catalog.check import check_setup
from dbnet.engine import PLAYERS, Game, GameSetup, Player
from dbnet.engine.game import warband_breaches
from dbnet.engine.kept import KeptFor
from dbnet.errors import DbnetError
from dbnet.protocol.errors import InvalidEntryError
from dbnet.wire.bodies import EntryKind, OfferBody
from dbnet.wire.entries import ZERO_HASH, Entry

RULES_VERSION = "dbnet-rules-2"
"""The rules this engine plays; a game recorded under other rules can't be re-simulated."""
GAME_ID_PERSONS: Final = {1: b"dbnet/game/v1", 2: b"dbnet/game/v2"}
"""The game id's BLAKE2b personalisation, by protocol version."""


def game_id_for(
    rules: str,
    keys: tuple[bytes, bytes],
    nonce: bytes,
    setup_bytes: bytes,
    joiner_nonce: bytes | None = None,
) -> bytes:
    """The game id binds both keys, the nonces, the rules version and the setup (options).

    With ``joiner_nonce`` (protocol version 2) both players' fresh randomness is in it, so
    no player alone can make a game repeat an earlier game's id (and dice); without it,
    the version-1 id of replays recorded before."""
    version = 1 if joiner_nonce is None else 2
    h = hashlib.blake2b(digest_size=32, person=GAME_ID_PERSONS[version])
    fields = [rules.encode(), keys[0], keys[1], nonce]
    if joiner_nonce is not None:
        fields.append(joiner_nonce)
    for field in (*fields, setup_bytes):
        h.update(len(field).to_bytes(4, "big"))
        h.update(field)
    return h.digest()


def check_offered_setup(setup: GameSetup, record: bytes = b"") -> None:
    """Refuse (as entry 0) a setup that is not made of this dbnet's catalog, card for card
    and the map's values included, or whose warbands break the limits every peer and
    verifier keeps: a peer's cards are checked, never taken on trust. A setup that passed
    is not checked again while it is kept (a setup is immutable, and so is the catalog):
    both peers of a local game, and the games of a run, share one."""
    if _CHECKED.get(setup):
        return
    for player, warband in zip(PLAYERS, setup.warbands, strict=True):
        # The one check of rule 600 (and the power bound) that `dbnet warband check` and
        # the warband builder make too.
        breaches = warband_breaches((mini, 1) for mini in warband.minis)
        if breaches:
            raise InvalidEntryError(0, f"{player.name}'s warband breaks {breaches[0]}", record)
    try:
        check_setup(setup)
    except DbnetError as exc:
        raise InvalidEntryError(0, f"the setup is not this dbnet's catalog: {exc}", record) from exc
    _CHECKED.put(setup, True)


_CHECKED: Final = KeptFor[GameSetup, bool](16)
"""The last 16 setups that passed ``check_offered_setup``."""


def check_offer(entry: Entry, record: bytes) -> OfferBody:
    """The OFFER's body, once its place, keys, game id and rules are checked (as entry 0)."""
    body = entry.body
    if entry.kind is not EntryKind.OFFER or not isinstance(body, OfferBody):
        raise InvalidEntryError(0, f"the first entry must be an OFFER, not {entry.kind.name}")
    if entry.seq != 0 or entry.author != Player.A or entry.prev_hash != ZERO_HASH:
        raise InvalidEntryError(0, "the OFFER must be entry 0 by A with a zero previous hash")
    if body.keys[0] == body.keys[1]:
        raise InvalidEntryError(0, "both players have the same key")
    game_id = game_id_for(
        body.rules, (body.keys[0], body.keys[1]), body.nonce, body.offered.data, body.joiner_nonce
    )
    if entry.game_id != game_id:
        raise InvalidEntryError(0, "the game id does not match the offer's contents", record)
    if body.rules != RULES_VERSION:
        raise InvalidEntryError(
            0,
            f"the game was played under rules {body.rules!r}; this dbnet plays "
            f"{RULES_VERSION!r} and can't re-simulate it",
            record,
        )
    return body


def offered_game(body: OfferBody, record: bytes) -> Game:
    """The game of the offered setup, once the setup is checked (as entry 0)."""
    check_offered_setup(body.setup, record)
    try:
        return Game(body.setup)
    except DbnetError as exc:
        raise InvalidEntryError(0, f"the setup cannot be played: {exc}", record) from exc
