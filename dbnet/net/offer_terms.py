"""A new game's terms between host and joiner (``dbnet.net.session``): the host's
Limited OFFER, the joiner's checks of the OFFER it is sent (its keys, nonce, rules,
warband and the name it signs) and the terms the joiner is told before it accepts
(docs/network.md, docs/limited.md)."""

from __future__ import annotations

from typing import Final

from dbnet.engine import GameSetup, Warband
from dbnet.engine.model import Limited
from dbnet.errors import DbnetError
from dbnet.net.session_values import GameSessionError
from dbnet.protocol.clock import ClockSetting
from dbnet.protocol.identity import Identity, fingerprint
from dbnet.protocol.peer import RULES_VERSION
from dbnet.text import printable
from dbnet.wire.bodies import AcceptBody, Body, OfferBody
from dbnet.wire.entries import decode_signed_entry

LIMITED_WARBAND: Final = "Limited warband"
"""The name of the empty warband of a Limited game's player (built from packs in the game)."""


def _warband_in(limited: Limited | None, warband: Warband) -> Warband:
    """The joiner's ``warband`` as a game of these terms holds it: in a Limited game empty
    (it is built from the pool in the game; a joiner who brought one plays the host's
    terms, docs/limited.md), under its own name if it was empty already."""
    if limited is None or not warband.minis:
        return warband
    return Warband(LIMITED_WARBAND, ())


def _limited_offer(setup: GameSetup, fmt: str) -> GameSetup:
    """The host's Limited OFFER (docs/limited.md): both warbands empty (each is built from
    its pool in the game), the pack set of this dbnet's catalog. A joiner who brought a
    warband is offered the Limited game all the same: the OFFER carries the format, and
    the joiner is told it before it accepts."""
    from dbnet.catalog.packs import pack_set

    limited = Limited(fmt, pack_set())
    return GameSetup(
        setup.map,
        (Warband(setup.warbands[0].name, ()), _warband_in(limited, setup.warbands[1])),
        setup.options,
        limited,
    )


def _check_limited_offer(setup: GameSetup, fmt: str | None) -> None:
    """Refuse an OFFER of another format than ``--limited`` asked for, if it asked: a
    joiner without it plays the format the OFFER carries (Limited or Constructed)."""
    offered = None if setup.limited is None else setup.limited.format
    if fmt is None or offered == fmt:
        return
    said = "a Constructed game" if offered is None else f"Limited {offered}"
    raise GameSessionError(
        f"the host offers {said}, and this side asked for Limited {fmt}: join without "
        "--limited to play the host's terms",
        to_peer=f"your OFFER is refused: this side asked for Limited {fmt}",
    )


def _terms(offer: OfferBody, warband: Warband) -> str:
    """The terms of the host's OFFER as the joiner is told them before it accepts: the
    map, the turns to win, the clock, the format and the warband this side plays."""
    setup, clock = offer.setup, offer.clock
    timed = "" if clock is None else f", a clock of {ClockSetting.from_wire(clock).describe()}"
    if setup.limited is None:
        kind, plays = "", printable(warband.name)
    else:
        kind = f", Limited {printable(setup.limited.format)}"
        plays = "a warband you build from your pool"
    return (
        f"the host offers: {printable(setup.map.name)}, {setup.options.turns_to_win} turns "
        f"to win{timed}{kind}; you play B with {plays}"
    )


def _offered_setup(
    record: bytes,
    identity: Identity,
    host_key: bytes,
    warband: Warband,
    nonce: bytes,
    host_name: str,
) -> OfferBody:
    """The host's OFFER, checked: written by the key the channel
    authenticated (``host_key``), made to this key, with this side's fresh ``nonce`` in
    its game id, this warband as B, and the name the host said in HELLO (``host_name``).
    (The game a host names in HELLO may be an OFFER nobody accepted, which it replaces
    with a new one for this joiner.)"""
    try:
        _, entry = decode_signed_entry(record)
    except DbnetError as exc:
        raise GameSessionError(f"the host's OFFER is malformed: {exc}") from exc
    body = entry.body
    if not isinstance(body, OfferBody):
        raise GameSessionError(f"the host's first entry is {entry.kind.name}, not an OFFER")
    if body.keys[0] != host_key:
        raise GameSessionError(
            f"the OFFER names {fingerprint(body.keys[0])} as A, but the host on this "
            f"connection is {fingerprint(host_key)}: refusing a game relayed from another "
            "player (a man in the middle)",
            to_peer="your OFFER is written by another key than yours",
        )
    if body.keys[1] != identity.public_key:
        raise GameSessionError("the host's OFFER is made to another player's key")
    if body.joiner_nonce != nonce:
        raise GameSessionError(
            "the host's OFFER does not carry the nonce this side sent: refusing it (a game "
            "id this side did not help choose could repeat an earlier game's dice)",
            to_peer="your OFFER does not carry my nonce",
        )
    if body.rules != RULES_VERSION:
        raise GameSessionError(f"the host plays rules {body.rules!r}; this is {RULES_VERSION!r}")
    if body.setup.warbands[1] != _warband_in(body.setup.limited, warband):
        raise GameSessionError("the host's OFFER does not give you your own warband")
    _check_signed_name(body, host_name)
    return body


def _check_signed_name(body: Body, said: str) -> None:
    """Refuse a genesis entry (OFFER or ACCEPT) that signs another name than the one its
    author ``said`` in HELLO: the name the replay keeps is the one the player is known by
    here. Any other entry is left to the log to judge."""
    if isinstance(body, OfferBody | AcceptBody) and body.name not in (None, said):
        raise GameSessionError(
            f"the peer said its name is {printable(said)!r} but signs {printable(body.name)!r} "
            f"in its {'OFFER' if isinstance(body, OfferBody) else 'ACCEPT'}: refusing it",
            to_peer="the name you sign is not the name you said in HELLO",
        )
