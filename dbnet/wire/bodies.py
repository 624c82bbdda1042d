"""The body of each kind of entry, in every protocol version: the values the rest of
dbnet uses (``OfferBody``, ``PlayBody``...) and the shape each has on the wire
(docs/entries.md, sections 2 and 7)."""

from __future__ import annotations

import enum
from typing import Annotated, ClassVar, Final, Literal, cast

import msgspec
from msgspec import UNSET, Meta, Raw, UnsetType

from dbnet.engine.model import GameSetup
from dbnet.wire.schema import (
    Count,
    Hash,
    Name,
    Rules,
    Schema,
    Shape,
    Side,
    check_keys,
    plain,
    unset,
)
from dbnet.wire.setup import SETUP, SETUP_V2, EncodedSetup, SetupSchema, read_setup
from dbnet.wire.values import encode
from dbnet.wire.versions import PROTOCOL_VERSION

MAX_DECISION_LEN: Final = 512
MAX_LINKS: Final = 64
MAX_TURNS: Final = 10_000
MAX_CHAIN: Final = 1_000_000

Links = Annotated[tuple[tuple[Count, Hash], ...], Meta(max_length=MAX_LINKS)]
"""``[[roll, link], ...]``: a player's dice chain links, by roll index."""
Reading = tuple[Count, Count]
"""``[A, B]``: an author's reading of both players' remaining time, in milliseconds."""


class EntryKind(enum.IntEnum):
    """What an entry does; it decides the schema of the entry's body."""

    OFFER = 0  # entry 0, by A: the game's setup, both keys, A's chain anchor
    ACCEPT = 1  # entry 1, by B: B's chain anchor
    PLAY = 2  # a decision and/or dice links
    RESIGN = 3
    CLAIM = 4  # a unilateral timeout claim
    FINAL = 5  # the result, by the author of the last move
    COSIGN = 6  # the other player's counter-signature over FINAL
    DISPUTE = 7  # the flagged player's answer to a clock claim (version 4)

    def __repr__(self) -> str:
        return f"EntryKind.{self.name}"


class _WireBody(msgspec.Struct, frozen=True, gc=False):
    """What every entry body shares: its plain wire value, made from its one shape.

    Bodies, entries and signed entries are frozen msgspec structs rather than frozen
    dataclasses: two of each are made for every entry a peer writes or reads, and a
    struct is made several times faster (``gc=False``: they hold no cycles)."""

    def to_wire(self) -> dict[str, object]:
        """The body as plain values, as ``decode`` gives them (maps in the documented key
        order)."""
        wire: dict[str, object] = plain(body_shape(cast("Body", self)))
        return wire


class OfferBody(_WireBody, frozen=True, gc=False):
    """Entry 0: the rules version, both identity keys, both players' nonces (A's alone in
    protocol version 1), the setup and A's anchor.

    ``joiner_nonce`` is B's fresh nonce (version 2 and later), None in a version-1 OFFER:
    with it the game id, and so every chain secret derived from it, is fresh as long as
    either player is honest (docs/protocol.md, "Genesis"). ``name`` is A's name (version 3
    and later), None before."""

    KIND: ClassVar[EntryKind] = EntryKind.OFFER
    rules: str
    keys: tuple[bytes, bytes]
    nonce: bytes
    offered: EncodedSetup
    """The setup and the clock, with the bytes the OFFER carries."""
    chain: int
    anchor: bytes
    state: bytes
    joiner_nonce: bytes | None = None
    name: str | None = None

    @property
    def setup(self) -> GameSetup:
        return self.offered.setup

    @property
    def clock(self) -> tuple[int, int] | None:
        """The clock (version 3): ``(base, increment)`` in milliseconds; None: no clock."""
        return self.offered.clock

    @classmethod
    def from_wire(cls, obj: object, path: str, version: int = PROTOCOL_VERSION) -> OfferBody:
        body = BODY_SCHEMAS[version][EntryKind.OFFER].decode(encode(obj), path).value(path)
        assert isinstance(body, OfferBody)
        return body


class _Offer(Shape):
    """An OFFER of protocol version 2: both nonces."""

    rules: Rules
    keys: tuple[Hash, Hash]
    nonces: tuple[Hash, Hash]
    setup: Raw
    """The setup's bytes, read by ``read_setup`` with the setup schema of the version."""
    chain: Annotated[int, Meta(ge=2, le=MAX_CHAIN)]
    anchor: Hash
    state: Hash

    def value(self, path: str) -> OfferBody:
        return _offer_body(self, *self.nonces, SETUP_V2, path)


class _OfferV1(Shape):
    """An OFFER of protocol version 1: A's nonce alone."""

    rules: Rules
    keys: tuple[Hash, Hash]
    nonce: Hash
    setup: Raw
    """The setup's bytes, as in ``_Offer``."""
    chain: Annotated[int, Meta(ge=2, le=MAX_CHAIN)]
    anchor: Hash
    state: Hash

    def value(self, path: str) -> OfferBody:
        return _offer_body(self, self.nonce, None, SETUP_V2, path)


def _offer_body(
    shape: _Offer | _OfferV1,
    nonce: bytes,
    joiner_nonce: bytes | None,
    schema: SetupSchema,
    path: str,
    name: str | None = None,
) -> OfferBody:
    """The OFFER of ``shape`` (any version's), its keys checked and its setup read with
    ``schema``."""
    check_keys(shape.keys, f"{path}.keys")
    offered = read_setup(schema, shape.setup, f"{path}.setup")
    return OfferBody(
        shape.rules, shape.keys, nonce, offered, shape.chain, shape.anchor, shape.state,
        joiner_nonce, name,
    )  # fmt: skip


class AcceptBody(_WireBody, frozen=True, gc=False):
    """Entry 1: B's chain anchor, B's links for any roll already waiting, and B's name
    (version 3 and later; None before)."""

    KIND: ClassVar[EntryKind] = EntryKind.ACCEPT
    anchor: bytes
    links: tuple[tuple[int, bytes], ...]
    state: bytes
    name: str | None = None
    clock: tuple[int, int] | None = None  # see PlayBody


class _Accept(Shape):
    """An ACCEPT of protocol versions 1 and 2."""

    anchor: Hash
    links: Links
    state: Hash

    def value(self, path: str) -> AcceptBody:
        return AcceptBody(self.anchor, self.links, self.state)


class PlayBody(_WireBody, frozen=True, gc=False):
    """A decision in notation (or None), the author's chain links as ``(roll, link)``, the
    author's next-generation anchor (or None) and the state hash after the entry."""

    KIND: ClassVar[EntryKind] = EntryKind.PLAY
    decision: str | None
    links: tuple[tuple[int, bytes], ...]
    anchor: bytes | None
    state: bytes
    clock: tuple[int, int] | None = None
    """In a game with a clock (version 3): the author's reading of A's and B's remaining
    time when it signed, in milliseconds; None in a game without one."""


class _Play(Shape, kw_only=True):
    """A PLAY body: ``decision`` and ``anchor`` are left out when there is none (never nil)."""

    decision: Annotated[str, Meta(max_length=MAX_DECISION_LEN)] | UnsetType = UNSET
    links: Links
    anchor: Hash | UnsetType = UNSET
    state: Hash

    def value(self, path: str) -> PlayBody:
        decision, anchor = self.decision, self.anchor
        return PlayBody(
            None if decision is UNSET else decision,
            self.links,
            None if anchor is UNSET else anchor,
            self.state,
        )


class ResignBody(_WireBody, frozen=True, gc=False):
    KIND: ClassVar[EntryKind] = EntryKind.RESIGN
    state: bytes
    clock: tuple[int, int] | None = None  # see PlayBody


class _Resign(Shape):
    state: Hash

    def value(self, path: str) -> ResignBody:
        return ResignBody(self.state)


class ClaimBody(_WireBody, frozen=True, gc=False):
    """A unilateral claim: the entry ``waiting_for`` never came (``timeout``), or the other
    player's clock ran out before its entry ``waiting_for`` came (``clock``, version 3)."""

    KIND: ClassVar[EntryKind] = EntryKind.CLAIM
    reason: str
    waiting_for: int
    clock: tuple[int, int] | None = None  # see PlayBody


class _Claim(Shape):
    reason: Literal["timeout"]
    waiting_for: Count

    def value(self, path: str) -> ClaimBody:
        return ClaimBody(self.reason, self.waiting_for)


class FinalBody(_WireBody, frozen=True, gc=False):
    """The result: the winner (0 A, 1 B), how, the conquest points (A, B) of every turn."""

    KIND: ClassVar[EntryKind] = EntryKind.FINAL
    winner: int
    reason: str
    turns: tuple[tuple[int, int], ...]
    state: bytes
    clock: tuple[int, int] | None = None  # see PlayBody


class _EndReason(enum.Enum):
    """How a game ended, in a FINAL."""

    VICTORY = "victory"
    RESIGNATION = "resignation"


class _Final(Shape):
    winner: Side
    reason: _EndReason
    turns: Annotated[tuple[tuple[Count, Count], ...], Meta(max_length=MAX_TURNS)]
    state: Hash

    def value(self, path: str) -> FinalBody:
        return FinalBody(self.winner, self.reason.value, self.turns, self.state)


class CosignBody(_WireBody, frozen=True, gc=False):
    """The counter-signature: the hash of the FINAL entry and the winner it agrees to."""

    KIND: ClassVar[EntryKind] = EntryKind.COSIGN
    head: bytes
    winner: int
    clock: tuple[int, int] | None = None  # see PlayBody


class _Cosign(Shape):
    head: Hash
    winner: Side

    def value(self, path: str) -> CosignBody:
        return CosignBody(self.head, self.winner)


class DisputeBody(_WireBody, frozen=True, gc=False):
    """The flagged player's dispute of the clock claim just before it (protocol version 4):
    its own reading of both clocks (A's, B's, in ms) when the claim reached it, which shows
    it with time left (docs/protocol.md, "Clocks")."""

    KIND: ClassVar[EntryKind] = EntryKind.DISPUTE
    clock: tuple[int, int]


# --- protocol version 3: clocks ---------------------------------------------------------------
# Version 3 is version 2 with two optional keys, each the last of its map: the setup's
# ``clock`` ([base, increment] in ms) and, in every other body, ``clock``: its author's reading
# of both clocks ([A, B] in ms). Without a clock a version-3 body has the bytes of version 2.


class _OfferV3(_Offer):
    """An OFFER of version 3: A's name last, and the setup may end with the clock."""

    name: Name

    def value(self, path: str) -> OfferBody:
        return _offer_body(self, *self.nonces, SETUP, path, self.name)


class _AcceptV3(_Accept):
    """An ACCEPT of version 3: B's name, then (with a clock) B's reading."""

    name: Name
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> AcceptBody:
        return AcceptBody(self.anchor, self.links, self.state, self.name, unset(self.clock))


class _PlayV3(_Play, kw_only=True):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> PlayBody:
        decision, anchor = self.decision, self.anchor  # as _Play.value, with the clock
        return PlayBody(
            None if decision is UNSET else decision,
            self.links,
            None if anchor is UNSET else anchor,
            self.state,
            unset(self.clock),
        )


class _ResignV3(_Resign):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> ResignBody:
        return ResignBody(self.state, unset(self.clock))


class _ClaimV3(_Claim):
    reason: Literal["timeout", "clock"]  # type: ignore[assignment]
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> ClaimBody:
        return ClaimBody(self.reason, self.waiting_for, unset(self.clock))


class _FinalV3(_Final):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> FinalBody:
        reason = self.reason.value
        return FinalBody(self.winner, reason, self.turns, self.state, unset(self.clock))


class _CosignV3(_Cosign):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> CosignBody:
        return CosignBody(self.head, self.winner, unset(self.clock))


_CLOCK_SHAPES: Final = (_OfferV3, _AcceptV3, _PlayV3, _ResignV3, _ClaimV3, _FinalV3, _CosignV3)
"""The shape of each kind's body in version 3, by kind number."""
# --- end of protocol version 3 ----------------------------------------------------------------
# --- protocol version 4: disputes -------------------------------------------------------------
# Version 4 is version 3 with one more kind of entry, DISPUTE (7), whose body is its author's
# reading alone.


class _Dispute(Shape):
    clock: Reading

    def value(self, path: str) -> DisputeBody:
        return DisputeBody(self.clock)


_DISPUTE_SHAPES: Final = (*_CLOCK_SHAPES, _Dispute)
"""The shape of each kind's body in version 4, by kind number."""
# --- end of protocol version 4 ----------------------------------------------------------------

Body = (
    OfferBody | AcceptBody | PlayBody | ResignBody | ClaimBody | FinalBody | CosignBody
    | DisputeBody
)  # fmt: skip
BodyShape = (
    _OfferV3 | _Offer | _OfferV1 | _AcceptV3 | _Accept | _Play | _Resign | _Claim | _Final | _Cosign
    | _Dispute
)  # fmt: skip

_BODY_SHAPES: Final = (_Offer, _Accept, _Play, _Resign, _Claim, _Final, _Cosign)
"""The shape of each kind's body, by kind number (version 1 has its own OFFER)."""
_SHAPES_BY_VERSION: Final[dict[int, tuple[type[BodyShape], ...]]] = {
    1: (_OfferV1, *_BODY_SHAPES[1:]),
    2: _BODY_SHAPES,
    3: _CLOCK_SHAPES,
    4: _DISPUTE_SHAPES,
}
BODY_SCHEMAS: Final[dict[int, tuple[Schema[BodyShape], ...]]] = {
    version: tuple(Schema[BodyShape](shape, "entry.body") for shape in shapes)
    for version, shapes in _SHAPES_BY_VERSION.items()
}
"""The schema of each kind's body (by kind number), for each protocol version."""


def body_shape(body: Body) -> BodyShape:
    """The body's wire shape: a genesis entry with a name, or any body with a clock, as
    version 3 (whose other bodies without a clock have version 2's bytes); an OFFER with
    a joiner's nonce as version 2; else version 1's."""
    if isinstance(body, DisputeBody):
        return _Dispute(body.clock)
    if body.clock is not None or (
        isinstance(body, OfferBody | AcceptBody) and body.name is not None
    ):
        return _v3_shape(body)
    if isinstance(body, OfferBody) and body.setup.limited is not None:
        raise ValueError("a Limited setup is only written in protocol version 3")
    if isinstance(body, PlayBody):
        return _Play(
            decision=UNSET if body.decision is None else body.decision,
            links=body.links,
            anchor=UNSET if body.anchor is None else body.anchor,
            state=body.state,
        )
    if isinstance(body, OfferBody):
        setup = Raw(body.offered.data)
        if body.joiner_nonce is None:
            return _OfferV1(
                body.rules, body.keys, body.nonce, setup, body.chain, body.anchor, body.state
            )
        nonces = (body.nonce, body.joiner_nonce)
        return _Offer(body.rules, body.keys, nonces, setup, body.chain, body.anchor, body.state)
    if isinstance(body, AcceptBody):
        return _Accept(body.anchor, body.links, body.state)
    if isinstance(body, ResignBody):
        return _Resign(body.state)
    if isinstance(body, ClaimBody):
        return _Claim(body.reason, body.waiting_for)  # type: ignore[arg-type]
    if isinstance(body, FinalBody):
        # any text: the reason is written as it is, and decoding names a wrong one
        return _Final(body.winner, body.reason, body.turns, body.state)  # type: ignore[arg-type]
    return _Cosign(body.head, body.winner)


def _v3_shape(body: Body) -> BodyShape:
    """The version-3 shape of a body: an OFFER or ACCEPT with its author's name (one left
    out is written empty, which decoding refuses, naming the field), and the clock if
    any (a setting in an OFFER, else a reading)."""
    clock = body.clock
    if isinstance(body, OfferBody):
        b = body
        assert b.joiner_nonce is not None  # a version-3 OFFER has both nonces
        setup3 = Raw(b.offered.data)
        nonces = (b.nonce, b.joiner_nonce)
        name = b.name or ""
        return _OfferV3(b.rules, b.keys, nonces, setup3, b.chain, b.anchor, b.state, name)
    if isinstance(body, AcceptBody):
        return _AcceptV3(body.anchor, body.links, body.state, body.name or "", clock or UNSET)
    assert clock is not None
    if isinstance(body, PlayBody):
        return _PlayV3(
            decision=UNSET if body.decision is None else body.decision,
            links=body.links,
            anchor=UNSET if body.anchor is None else body.anchor,
            state=body.state,
            clock=clock,
        )
    if isinstance(body, ResignBody):
        return _ResignV3(body.state, clock)
    if isinstance(body, ClaimBody):
        return _ClaimV3(body.reason, body.waiting_for, clock)  # type: ignore[arg-type]
    if isinstance(body, FinalBody):
        return _FinalV3(body.winner, body.reason, body.turns, body.state, clock)  # type: ignore[arg-type]
    assert isinstance(body, CosignBody)  # a DISPUTE has its own shape (``_body_shape``)
    return _CosignV3(body.head, body.winner, clock)
