"""The setup on the wire: the map, the options, both warbands, a Limited game's pack set
and the clock, as an OFFER carries them (docs/entries.md, section 3), and ``EncodedSetup``:
a setup with its canonical bytes, which a game's start encodes once and passes along."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from typing import Annotated, Final, Literal

from msgspec import UNSET, Meta, Raw, UnsetType

from dbnet.engine import board
from dbnet.engine.game import check_warband_size
from dbnet.engine.kept import Kept
from dbnet.engine.model import (
    KIND_TEXT,
    AbilityDef,
    Activation,
    Aspect,
    GameSetup,
    Limited,
    MapDef,
    MiniatureDef,
    MiniKind,
    Options,
    PackSet,
    Warband,
)
from dbnet.errors import DataError, DecodeError
from dbnet.wire.schema import NonBlank, Schema, Shape, plain, refuse, unset
from dbnet.wire.values import encode

MAX_STAT: Final = 99  # any stat, cost, cell value or ability number; real ones stay below 20
MAX_TURNS_TO_WIN: Final = 99
MAX_WARBAND: Final = 16
MAX_ASPECTS: Final = 8
MAX_ABILITIES: Final = 16
MAX_PACK_RARITY: Final = 500  # the miniatures of one rarity in a Limited pack set
MAX_CLOCK_MS: Final = 100 * 3_600_000
"""The longest base time of a clock: 100 hours, in milliseconds."""
MAX_INCREMENT_MS: Final = 3_600_000
"""The longest increment of a clock: an hour, in milliseconds."""

Stat = Annotated[int, Meta(ge=0, le=MAX_STAT)]
SetupClock = tuple[
    Annotated[int, Meta(ge=1, le=MAX_CLOCK_MS)], Annotated[int, Meta(ge=0, le=MAX_INCREMENT_MS)]
]
"""``[base, increment]``: the time each player starts with and gains per move, in ms."""


class _Aspect(enum.Enum):
    """An aspect on the wire (the names are the engine's ``Aspect``)."""

    VALOR = "valor"
    MADNESS = "madness"
    FEAR = "fear"
    PASSION = "passion"


_KINDS: Final[dict[str, MiniKind]] = {text: kind for kind, text in KIND_TEXT.items()}
_ASPECTS: Final = {a.name: Aspect[a.name] for a in _Aspect}
_ASPECT_WIRE: Final = {Aspect[a.name]: a for a in _Aspect}
_STATS: Final = ("power", "defense", "life")
_LEAST_STATS: Final = (0, 1, 1)  # 900.8: a creature's least power, defense and life


class _Ability(Shape):
    keyword: NonBlank
    activation: Activation  # its text: "always", "blade", ..., "spawn", ...
    x: Annotated[int, Meta(ge=-MAX_STAT, le=MAX_STAT)] | None
    modifier: NonBlank | None
    spawn_cost: Stat | None
    cost_x: bool
    score: bool
    text: str

    def value(self, path: str) -> AbilityDef:
        spawn = self.activation is Activation.SPAWN
        if spawn != (self.spawn_cost is not None or self.cost_x) or (
            self.cost_x and self.spawn_cost is not None
        ):
            raise DecodeError(
                f"{path}.spawn_cost",
                "a spawn ability has a spawn cost (a number, or X) and no other ability has "
                f"one (303.2a); activation {self.activation.value!r}, spawn cost "
                f"{'X' if self.cost_x else repr(self.spawn_cost)}",
            )
        return AbilityDef(
            self.keyword, self.activation, self.x, self.modifier, self.spawn_cost, self.score,
            self.text, self.cost_x,
        )  # fmt: skip

    @classmethod
    def of(cls, a: AbilityDef) -> _Ability:
        return cls(
            a.keyword, a.activation, a.x, a.modifier, a.spawn_cost, a.cost_x, a.score, a.text
        )


class _Mini(Shape):
    slug: Annotated[
        str,
        Meta(
            pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z",
            extra=refuse(
                "expected lower-case letters and digits joined by single '-', got {value}"
            ),
        ),
    ]
    name: NonBlank
    kind: Literal["creature", "location"]
    spawn_cost: Stat
    aspects: Annotated[tuple[_Aspect, ...], Meta(max_length=MAX_ASPECTS)]
    power: Stat
    defense: Stat
    life: Stat
    lineage: NonBlank | None
    official: bool
    set: str
    abilities: Annotated[tuple[_Ability, ...], Meta(max_length=MAX_ABILITIES)]

    def value(self, path: str) -> MiniatureDef:
        kind = _KINDS[self.kind]
        stats = self.power, self.defense, self.life
        for stat, value, least in zip(_STATS, stats, _LEAST_STATS, strict=True):
            if kind is MiniKind.CREATURE and value < least:
                raise DecodeError(
                    f"{path}.{stat}",
                    f"a creature's {stat} is at least {least} (900.8), got {value}",
                )
            if kind is MiniKind.LOCATION and value != 0:
                raise DecodeError(
                    f"{path}.{stat}", f"a location has no {stat}: expected 0, got {value}"
                )
        return MiniatureDef(
            self.slug, self.name, kind, self.spawn_cost,
            tuple([_ASPECTS[a._name_] for a in self.aspects]), *stats, self.lineage,
            tuple([a.value(f"{path}.abilities[{i}]") for i, a in enumerate(self.abilities)]),
            self.official, self.set,
        )  # fmt: skip

    @classmethod
    def of(cls, d: MiniatureDef) -> _Mini:
        return cls(
            d.slug, d.name, KIND_TEXT[d.kind], d.spawn_cost,  # type: ignore[arg-type]
            tuple(_ASPECT_WIRE[a] for a in d.aspects),
            d.power, d.defense, d.life, d.lineage, d.official, d.set_name,
            tuple(_Ability.of(a) for a in d.abilities),
        )  # fmt: skip


class WarbandShape(Shape):
    """A warband on the wire, as in a setup (and in a joiner's HELLO)."""

    name: NonBlank
    minis: Annotated[tuple[_Mini, ...], Meta(max_length=MAX_WARBAND)]

    def value(self, path: str) -> Warband:
        """The warband, rules 600.1 and 600.3 checked."""
        minis = tuple(m.value(f"{path}.minis[{i}]") for i, m in enumerate(self.minis))
        try:
            check_warband_size(self.name, minis)
        except DataError as exc:
            raise DecodeError(f"{path}.minis", exc.problem) from exc
        return Warband(self.name, minis)

    @classmethod
    def of(cls, warband: Warband) -> WarbandShape:
        return cls(warband.name, tuple(_Mini.of(d) for d in warband.minis))


class _Map(Shape):
    name: NonBlank
    values: Annotated[
        tuple[Stat, ...], Meta(min_length=board.CELL_COUNT, max_length=board.CELL_COUNT)
    ]
    reconstructed: bool

    def value(self, path: str) -> MapDef:
        for cell, value in enumerate(self.values):
            if value and cell not in board.KEY_CELLS:
                raise DecodeError(
                    f"{path}.values[{cell}]",
                    f"cell {board.cell_name(cell)} is not a key cell (b2-d4); its value must be "
                    f"0, got {value}",
                )
        return MapDef(self.name, self.values, self.reconstructed)


class _Options(Shape):
    tournament_initiative: bool
    turns_to_win: Annotated[int, Meta(ge=1, le=MAX_TURNS_TO_WIN)]


class _Setup(Shape):
    map: _Map
    options: _Options
    warbands: tuple[WarbandShape, WarbandShape]

    def value(self, path: str) -> GameSetup:
        a, b = (w.value(f"{path}.warbands[{i}]") for i, w in enumerate(self.warbands))
        options = Options(self.options.tournament_initiative, self.options.turns_to_win)
        return GameSetup(self.map.value(f"{path}.map"), (a, b), options)

    @classmethod
    def of(cls, setup: GameSetup) -> _Setup:
        """The setup's shape (the map's ``note`` is informative and not sent)."""
        m, o = setup.map, setup.options
        return cls(
            _Map(m.name, m.values, m.reconstructed),
            _Options(o.tournament_initiative, o.turns_to_win),
            (WarbandShape.of(setup.warbands[0]), WarbandShape.of(setup.warbands[1])),
        )


class _Packs(Shape):
    """A Limited setup's pack set: the miniatures of each rarity, in order."""

    rare: Annotated[tuple[_Mini, ...], Meta(min_length=1, max_length=MAX_PACK_RARITY)]
    uncommon: Annotated[tuple[_Mini, ...], Meta(min_length=1, max_length=MAX_PACK_RARITY)]
    common: Annotated[tuple[_Mini, ...], Meta(min_length=1, max_length=MAX_PACK_RARITY)]

    def value(self, path: str) -> PackSet:
        parts = []
        slugs: set[str] = set()
        for word in ("rare", "uncommon", "common"):
            minis = getattr(self, word)
            for i, m in enumerate(minis):
                if m.slug in slugs:
                    raise DecodeError(
                        f"{path}.{word}[{i}].slug", f"{m.slug!r} is already in the pack set"
                    )
                slugs.add(m.slug)
            parts.append(tuple(m.value(f"{path}.{word}[{i}]") for i, m in enumerate(minis)))
        return PackSet(parts[0], parts[1], parts[2])

    @classmethod
    def of(cls, packs: PackSet) -> _Packs:
        return cls(
            *(
                tuple(_Mini.of(d) for d in minis)
                for minis in (packs.rare, packs.uncommon, packs.common)
            )
        )


class _Limited(Shape):
    """Limited play (docs/limited.md): the format and the pack set; never the pools, which
    the game draws from its dice."""

    format: Literal["3-boosters", "starter+booster"]
    packs: _Packs

    def value(self, path: str) -> Limited:
        return Limited(self.format, self.packs.value(f"{path}.packs"))

    @classmethod
    def of(cls, limited: Limited | None) -> _Limited | UnsetType:
        if limited is None:
            return UNSET
        if limited.pools is not None:
            raise ValueError("a setup with pools is a built game's, never sent")
        return cls(limited.format, _Packs.of(limited.packs))  # type: ignore[arg-type]


class _SetupV3(_Setup, kw_only=True):
    """A setup of version 3: ``limited`` makes it a Limited game (docs/limited.md), whose
    warbands are empty (each is built in the game); ``clock``, last, is the clock."""

    limited: _Limited | UnsetType = UNSET
    clock: SetupClock | UnsetType = UNSET

    def value(self, path: str) -> GameSetup:
        setup = super().value(path)
        if isinstance(self.limited, UnsetType):
            return setup
        for i, warband in enumerate(setup.warbands):
            if warband.minis:
                raise DecodeError(
                    f"{path}.warbands[{i}].minis",
                    "a Limited setup's warbands are empty: each is built from its pool in the game",
                )
        return dataclasses.replace(setup, limited=self.limited.value(f"{path}.limited"))

    @classmethod
    def of(cls, setup: GameSetup, clock: tuple[int, int] | None = None) -> _SetupV3:
        shape = _Setup.of(setup)
        return cls(
            shape.map,
            shape.options,
            shape.warbands,
            limited=_Limited.of(setup.limited),
            clock=UNSET if clock is None else clock,
        )


SETUP: Final = Schema[_SetupV3](_SetupV3, "setup")
"""The setup of an OFFER of version 3 and later (a Limited game, a clock)."""
SETUP_V2: Final = Schema[_Setup](_Setup, "setup")
"""The setup of an OFFER of version 1 or 2 (no clock, no Limited play)."""
SetupSchema = Schema[_Setup] | Schema[_SetupV3]
"""The setup schema of some protocol version (``read_setup``)."""


def setup_to_wire(setup: GameSetup, clock: tuple[int, int] | None = None) -> dict[str, object]:
    """The setup as a plain value (the map's ``note`` is informative and not sent), with
    the ``clock`` setting ``(base, increment)`` in ms if given and a Limited game's
    ``limited`` part (both protocol version 3)."""
    wire: dict[str, object] = plain(_setup_shape(setup, clock))
    return wire


def _setup_shape(setup: GameSetup, clock: tuple[int, int] | None) -> _Setup:
    if clock is not None or setup.limited is not None:
        return _SetupV3.of(setup, clock)
    return _Setup.of(setup)


def encode_setup(setup: GameSetup, clock: tuple[int, int] | None = None) -> bytes:
    """``encode(setup_to_wire(setup, clock))``, the setup's bytes in the OFFER and the game
    id. A game's start calls it once (``EncodedSetup.of``) and passes the bytes along."""
    return encode(_setup_shape(setup, clock))


@dataclass(frozen=True, slots=True)
class EncodedSetup:
    """A game's setup and clock setting with their canonical bytes (``encode_setup``): what
    an OFFER carries and the game id hashes. Made once when a game starts (``of``), or
    from the bytes of an OFFER read (``OfferBody.offered``), and passed along with the
    setup, so that nothing on the way (the game id, the chain secrets, the replay header,
    the OFFER written and checked) encodes the setup again."""

    setup: GameSetup
    clock: tuple[int, int] | None
    """The clock (version 3): ``(base, increment)`` in milliseconds; None: no clock."""
    data: bytes
    """``encode_setup(setup, clock)``."""

    @classmethod
    def of(
        cls, setup: GameSetup | EncodedSetup, clock: tuple[int, int] | None = None
    ) -> EncodedSetup:
        """``setup`` with its bytes: encoded now, unless it is encoded already (then
        ``clock`` must be its own or None)."""
        if isinstance(setup, EncodedSetup):
            if clock is not None and clock != setup.clock:
                raise ValueError(f"the setup's clock is {setup.clock}, not {clock}")
            return setup
        return cls(setup, clock, encode_setup(setup, clock))


def read_setup(schema: SetupSchema, data: Raw, path: str) -> EncodedSetup:
    """The setup in an OFFER's setup bytes ``data`` read with ``schema`` (every check of
    ``Schema.decode``, errors under ``path``), with its clock setting (version 3) and
    those bytes, read once for the same bytes: a setup is a function of them and
    immutable, so the last few are kept and shared. Every OFFER of one setup (the games
    of a run, A's own OFFER read back by ``encode_entry``, a folder of replays) then reads
    to the same ``GameSetup``, whose rules the engine derives once, and its bytes are
    checked once."""
    key = (schema, bytes(data))
    kept = _DECODED.get(key)
    if kept is not None:
        return kept
    shape = schema.decode(key[1], path)
    clock = unset(shape.clock) if isinstance(shape, _SetupV3) else None
    made = EncodedSetup(shape.value(path), clock, key[1])
    _DECODED.put(key, made)
    return made


_DECODED: Final = Kept[tuple[object, bytes], EncodedSetup](16)
"""``read_setup``'s setups of the last 16 setups read, by schema and bytes."""


def setup_from_wire(obj: object, path: str) -> GameSetup:
    """The ``GameSetup`` in a plain value, every field checked (the map's note is empty).

    Raises:
        DecodeError: naming the first field that is wrong, warband rules 600.1 and 600.3
            included.
    """
    return SETUP.decode(encode(obj), path).value(path)
