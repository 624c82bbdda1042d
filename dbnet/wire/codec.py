"""The wire format: one declarative schema per message, decoded strictly.

This is the only module of dbnet that imports a msgpack library. Every wire shape (an
entry, its body, the setup inside an OFFER, a replay header, a message of the channel)
is described once, as a ``Shape``: a msgspec ``Struct`` whose annotated fields are the
keys in their order, their types and their limits (``Meta(ge=..., max_length=...,
pattern=...)``). A ``Schema`` decodes bytes into a shape with msgspec's strict msgpack
decoder, then re-encodes what it decoded and compares: the bytes must be the one
canonical encoding of the value (shortest forms, keys in the documented order, no
duplicate key, nothing after the value), so one entry has exactly one byte string. A
shape's ``value`` turns it into the value the rest of dbnet uses (``PlayBody``,
``GameSetup``, ...) and checks the rules that tie fields together (a creature's least
defense, a spawn ability's cost); the format is specified in ``docs/entries.md``.

A refusal is a ``DecodeError`` naming the field (``entry.body.links[2][1]: expected 32
bytes, got 31``): ``decode`` (the strict reader of any msgpack value) names what no
schema can read, and the schema's description names the rest. No input makes this
module raise anything else.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Final, Generic, Literal, TypeVar, cast

import msgpack
import msgspec
import msgspec.inspect as mi
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
from dbnet.wire.keys import public_key_problem

__all__ = [
    "DISPUTE_VERSION", "HASH_SIZE", "MAX_ENTRY_SIZE", "MAX_MESSAGE_SIZE", "NAME_PATTERN",
    "PROTOCOL_VERSION", "PROTOCOL_VERSIONS", "REPLAY_FORMAT", "REPLAY_FORMATS",
    "SIGNATURE_SIZE", "ZERO_HASH", "AcceptBody", "Body", "ClaimBody", "CosignBody",
    "DisputeBody", "EncodedSetup", "Entry", "EntryKind", "FinalBody", "Hash", "Meta", "Name",
    "OfferBody", "PlayBody", "ReplayHeader", "ResignBody", "Schema", "Shape", "SignedEntry",
    "WarbandShape", "decode", "decode_entry", "decode_replay_header", "decode_signed_entry",
    "encode", "encode_entry", "encode_replay_header", "encode_setup", "encode_signed_entry",
    "entry_hash", "is_frozen_value", "refuse", "replace", "setup_from_wire",
    "setup_to_wire", "sign_entry", "signing_message",
]  # fmt: skip

PROTOCOL_VERSION: Final = 3
"""The protocol version this dbnet writes for a game without a clock (``DISPUTE_VERSION``
for a game with one). Version 2 (2026-11) adds the joiner's nonce to the OFFER and the
game id; version 3 (2026-11) each player's name, signed by that player, in the OFFER (A's)
and the ACCEPT (B's), and the optional clock; version 4 (2026-11) the DISPUTE entry
(docs/entries.md, section 7). Versions 1 and 2 are still read."""
PROTOCOL_VERSIONS: Final = (1, 2, 3, 4)
"""Every protocol version this dbnet reads (and so verifies)."""
REPLAY_FORMAT: Final = 3
"""The replay format this dbnet writes for a game without a clock: format N holds entries
of protocol version N (a game with a clock: ``DISPUTE_VERSION``)."""
REPLAY_FORMATS: Final = {1: 1, 2: 2, 3: 3, 4: 4}
"""Every replay format this dbnet reads, with the protocol version of its entries."""
# --- protocol version 3: clocks (docs/entries.md section 7) ---------------------------------
# A game with a clock holds it in its setup, and every entry after the OFFER its author's
# reading of both clocks (version 3 and later).
CLOCK_VERSION: Final = 3
"""The first protocol version (and replay format) with clocks."""
DISPUTE_VERSION: Final = 4
"""The first protocol version (and replay format) with the DISPUTE entry, which answers a
clock claim its flagged player's own measurement refutes: what dbnet writes for a game with
a clock (docs/protocol.md, "Clocks")."""
MAX_CLOCK_MS: Final = 100 * 3_600_000
"""The longest base time of a clock: 100 hours, in milliseconds."""
MAX_INCREMENT_MS: Final = 3_600_000
"""The longest increment of a clock: an hour, in milliseconds."""
# --- end of protocol version 3 ---------------------------------------------------------------
MAX_MESSAGE_SIZE: Final = 65536
# A signed entry record is [signed (bin16), signature (bin8, 64 bytes)]: 70 bytes of framing.
MAX_ENTRY_SIZE: Final = MAX_MESSAGE_SIZE - 70
MAX_DEPTH: Final = 16
HASH_SIZE: Final = 32
SIGNATURE_SIZE: Final = 64
ZERO_HASH: Final = bytes(HASH_SIZE)
MAX_INT: Final = 2**63 - 1  # every integer field fits a signed 64-bit integer

SIGNING_TAG: Final = b"dbnet/entry/v1\x00"
HASH_PERSON: Final = b"dbnet/entry/v1"

MAX_RULES_LEN: Final = 64
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""A player's name (1-32 letters, digits, '_', '.' or '-', starting with a letter or a
digit): in HELLO, where the other side pins the key under it, and in the player's own
OFFER or ACCEPT (version 3 and later), where it is signed."""
MAX_DECISION_LEN: Final = 512
MAX_CREATED_LEN: Final = 64
MAX_LINKS: Final = 64
MAX_TURNS: Final = 10_000
MAX_CHAIN: Final = 1_000_000
MAX_STAT: Final = 99  # any stat, cost, cell value or ability number; real ones stay below 20
MAX_TURNS_TO_WIN: Final = 99
MAX_WARBAND: Final = 16
MAX_ASPECTS: Final = 8
MAX_ABILITIES: Final = 16
MAX_PACK_RARITY: Final = 500  # the miniatures of one rarity in a Limited pack set

# --- any msgpack value -----------------------------------------------------------------------

_SCALARS: Final = (type(None), bool, int, str, bytes)
_ENCODER: Final = msgspec.msgpack.Encoder()
"""Writes every byte dbnet sends or signs: the shortest form of every header (the same
bytes as msgpack-python's ``Packer(use_bin_type=True)``), map keys in field order."""


def encode(obj: object) -> bytes:
    """The canonical msgpack bytes of ``obj``: a ``Shape``, or a plain value made of None,
    bool, int, str, bytes, lists (or tuples) and dicts with str keys, written in the
    dict's order. Every header takes its shortest form."""
    return _ENCODER.encode(obj)


def decode(data: bytes, *, max_size: int = MAX_MESSAGE_SIZE, where: str = "message") -> object:
    """The plain value in ``data``, decoded strictly but with no schema.

    Refused (``DecodeError``, its path starting with ``where``): more than
    ``max_size`` bytes, malformed or truncated msgpack, trailing bytes, invalid
    UTF-8, extension types (timestamps included), floats, map keys that are not
    strings, duplicate map keys, and arrays or maps nested more than 16 deep.
    Arrays decode as lists, maps as dicts in wire order, bin as bytes. The bytes need
    not be canonical: this is also what tells why a ``Schema`` refused some bytes.

    Raises:
        DecodeError: for any input that is not such a value; never anything else.
    """
    if len(data) > max_size:
        raise DecodeError(where, f"{len(data)} bytes is more than the limit of {max_size} bytes")
    limit = len(data)  # every element takes at least one byte

    def refuse_ext(code: int, payload: bytes) -> object:
        raise DecodeError(where, f"extension type {code} is not allowed ({len(payload)} bytes)")

    def build_map(pairs: list[tuple[object, object]]) -> dict[str, object]:
        result: dict[str, object] = {}
        for key, value in pairs:
            if type(key) is not str:
                raise DecodeError(where, f"map keys must be strings, got {_show(key)}")
            if key in result:
                raise DecodeError(where, f"duplicate map key {_quote(key)}")
            result[key] = value
        return result

    try:
        obj: object = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=refuse_ext,
            object_pairs_hook=build_map,
            max_str_len=limit,
            max_bin_len=limit,
            max_array_len=limit,
            max_map_len=limit,
        )
    except DecodeError:
        raise
    except msgpack.ExtraData as exc:
        raise DecodeError(
            where, f"{len(exc.extra)} bytes of trailing data after the value"
        ) from exc
    except (msgpack.StackError, RecursionError) as exc:
        raise DecodeError(where, "arrays or maps nested too deeply") from exc
    except msgpack.FormatError as exc:
        raise DecodeError(where, "not msgpack: a reserved type byte (0xc1)") from exc
    except UnicodeDecodeError as exc:
        raise DecodeError(
            where, f"a string is not valid UTF-8 ({exc.reason} at byte {exc.start} of it)"
        ) from exc
    except msgpack.OutOfData as exc:
        raise DecodeError(where, "truncated: the input ends inside a value") from exc
    except (ValueError, TypeError, OverflowError, msgpack.UnpackException) as exc:
        text = str(exc)
        if "incomplete input" in text:
            raise DecodeError(where, "truncated: the input ends inside a value") from exc
        if "is not allowed for map key" in text:  # strict_map_key
            key_type = text.split(" ", 1)[0]
            raise DecodeError(
                where, f"map keys must be strings, got a key of type {key_type}"
            ) from exc
        raise DecodeError(where, f"malformed msgpack: {text}") from exc
    _check_tree(obj, where)
    return obj


def _check_tree(root: object, where: str) -> None:
    """Refuse floats, other non-plain types and nesting deeper than MAX_DEPTH.

    The walk keeps no paths; only when it finds a problem does the slower walk below
    name where.
    """
    stack: list[tuple[object, int]] = [(root, 0)]
    while stack:
        value, depth = stack.pop()
        kind = type(value)
        if kind is list:
            if depth >= MAX_DEPTH:
                break
            stack.extend((v, depth + 1) for v in value)  # type: ignore[attr-defined]
        elif kind is dict:
            if depth >= MAX_DEPTH:
                break
            stack.extend((v, depth + 1) for v in value.values())  # type: ignore[attr-defined]
        elif kind not in _SCALARS:
            break
    else:
        return
    _find_tree_problem(root, where)


def _find_tree_problem(root: object, where: str) -> None:
    stack: list[tuple[object, int, str]] = [(root, 0, where)]
    while stack:
        value, depth, path = stack.pop()
        kind = type(value)
        if kind is list or kind is dict:
            if depth >= MAX_DEPTH:
                raise DecodeError(path, f"arrays or maps nested more than {MAX_DEPTH} deep")
            if isinstance(value, list):
                stack.extend((v, depth + 1, f"{path}[{i}]") for i, v in enumerate(value))
            elif isinstance(value, dict):
                stack.extend((v, depth + 1, _field(path, k)) for k, v in value.items())
        elif kind is float:
            raise DecodeError(path, f"floats are not allowed, got {value!r}")
        elif kind not in _SCALARS:
            raise DecodeError(path, f"values of type {kind.__name__} are not allowed")


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _field(path: str, key: object) -> str:
    if isinstance(key, str) and _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{_quote(key)}]"


def _quote(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _show(value: object) -> str:
    """A short description of a wire value for error messages (never a huge repr)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return f"{value!r} (a bool)"
    if isinstance(value, int):
        return _quote(value)
    if isinstance(value, str):
        return f"{_quote(value)} (a string)"
    if isinstance(value, bytes):
        return f"{len(value)} bytes (bin)"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)} items"
    if isinstance(value, dict):
        return f"a map of {len(value)} keys"
    return f"a {type(value).__name__}"


def _first_difference(canonical: bytes, received: bytes) -> str:
    for i, (a, b) in enumerate(zip(canonical, received, strict=False)):
        if a != b:
            return f"byte {i} is 0x{b:02x}, the shortest encoding has 0x{a:02x}"
    return f"{len(received)} bytes, the shortest encoding has {len(canonical)}"


# --- the schema idiom ------------------------------------------------------------------------


class Shape(msgspec.Struct, forbid_unknown_fields=True):
    """One wire shape, described once: a map whose keys are the fields, in this order,
    each of its annotated type (``Annotated[int, Meta(ge=0, le=1)]``, another shape...).

    A field whose default is ``UNSET`` may be left out (and is left out when unset);
    every other key is required and no other key is allowed. A subclass declared with
    ``array_like=True`` is an array of the fields in order instead, and with ``tag=N``
    as well an array whose first item is N (a message of the channel; its errors name
    the fields ``WHERE.field``).
    """


def refuse(problem: str) -> dict[str, str]:
    """``Meta(extra=refuse("..."))``: how to say that a value of the right type breaks the
    field's limits, instead of the usual ``expected ..., got ...``; ``{value}`` is the
    value received."""
    return {"refuse": problem}


T = TypeVar("T")


class Schema(Generic[T]):
    """Reads one shape (or a tagged union of shapes) from bytes, strictly.

    ``decode`` refuses more than ``max_size`` bytes, anything msgspec's strict decoder
    refuses for the shape (a wrong type, a limit, an unknown or missing key, trailing
    bytes...) and, unless ``canonical`` is false, bytes that are not what re-encoding
    the decoded value gives (a wider integer or length, keys in another order, a
    duplicate key). With ``canonical`` false the keys may come in any order and the
    headers in any width, but duplicate keys are still refused.
    """

    def __init__(
        self, shape: Any, where: str, max_size: int = MAX_MESSAGE_SIZE, *, canonical: bool = True
    ) -> None:
        self.where = where
        self.max_size = max_size
        self.canonical = canonical
        self._decode = msgspec.msgpack.Decoder(shape).decode
        self._type = mi.type_info(shape)

    def decode(self, data: bytes, where: str | None = None) -> T:
        """The shape in ``data``; ``where`` (default: the schema's) starts every error's path.

        Raises:
            DecodeError: naming the field, or saying how the bytes are not canonical.
        """
        if len(data) > self.max_size or not self.canonical:
            self._check_plain(data, where)
        try:
            value: T = self._decode(data)
        except (msgspec.MsgspecError, ValueError, RecursionError) as exc:
            raise self._refusal(data, where, exc) from None
        if self.canonical and _ENCODER.encode(value) != data:
            raise self._refusal(data, where, None)
        return value

    def read_own(self, data: bytes, where: str | None = None) -> T:
        """The shape in ``data`` that ``encode`` just wrote (at most ``max_size`` bytes, the
        caller checked): ``decode`` without its comparison with the canonical bytes, which
        the encoder's own bytes pass by construction. The types and limits are checked as
        ``decode`` checks them, and refused in its words.

        Raises:
            DecodeError: naming the field.
        """
        try:
            value: T = self._decode(data)
        except (msgspec.MsgspecError, ValueError, RecursionError) as exc:
            raise self._refusal(data, where, exc) from None
        return value

    def _check_plain(self, data: bytes, where: str | None) -> None:
        """Refuse too many bytes, and what any msgpack value may not hold (duplicate keys,
        floats...): the checks of ``decode``."""
        decode(data, max_size=self.max_size, where=self.where if where is None else where)

    def _refusal(self, data: bytes, where: str | None, exc: Exception | None) -> DecodeError:
        """Why ``data`` was refused, in the words of ``decode`` and of the description."""
        path = self.where if where is None else where
        plain = decode(data, max_size=self.max_size, where=path)  # raises what it refuses
        found = _problem(plain, self._type, path)
        if found is not None:
            return DecodeError(*found)
        if exc is not None:  # not expected: the description should have named it
            return DecodeError(path, f"refused by the schema: {exc}")
        canonical = encode(plain)
        return DecodeError(path, f"not canonical msgpack: {_first_difference(canonical, data)}")


def _problem(value: object, kind: mi.Type, path: str) -> tuple[str, str] | None:
    """The first field of the plain ``value`` that breaks the description ``kind``, as
    ``(path, problem)``; None if there is none."""
    extra: dict[str, Any] = {}
    if isinstance(kind, mi.Metadata):
        extra, kind = kind.extra or {}, kind.type
    if isinstance(kind, mi.UnionType):
        if value is None and any(isinstance(t, mi.NoneType) for t in kind.types):
            return None
        choices = [t for t in kind.types if not isinstance(t, mi.NoneType)]
        if len(choices) == 1:
            return _problem(value, choices[0], path)
        tags = {t.tag: t for t in choices if isinstance(t, mi.StructType)}
        if type(value) is not list or not value:
            return path, f"expected an array [type, ...], got {_show(value)}"
        tag = value[0]
        if type(tag) is not int or tag not in tags:
            problem = extra.get("refuse", "unknown type {value}")
            return f"{path}[0]", problem.format(value=_quote(tag))
        return _problem(value, tags[tag], path)
    expected, broken = _check(value, kind)
    if expected is not None:
        return path, f"expected {expected}, got {_show(value)}"
    if broken is not None:
        return path, extra["refuse"].format(value=_quote(value)) if "refuse" in extra else broken
    return _inner_problem(value, kind, path)


def _check(value: object, kind: mi.Type) -> tuple[str | None, str | None]:
    """``(what was expected, None)`` if ``value`` has the wrong type for ``kind``, else
    ``(None, the limit it breaks)``, or ``(None, None)`` if it fits (its items aside)."""
    if isinstance(kind, mi.IntType):
        if type(value) is not int:
            return "an integer", None
        low = kind.ge if kind.gt is None else kind.gt + 1
        high = kind.le if kind.lt is None else kind.lt - 1
        if (low is not None and value < low) or (high is not None and value > high):
            bound = f"at least {low}" if high in (None, MAX_INT) else f"from {low} to {high}"
            return None, f"expected an integer {bound}, got {_quote(value)}"
    elif isinstance(kind, mi.BoolType):
        if type(value) is not bool:
            return "true or false", None
    elif isinstance(kind, mi.StrType):
        if type(value) is not str:
            return "a string", None
        if kind.max_length is not None and len(value) > kind.max_length:
            return None, f"expected at most {kind.max_length} characters, got {len(value)}"
        if kind.pattern is not None and not re.search(kind.pattern, value):
            return None, f"expected a string matching {kind.pattern!r}, got {_quote(value)}"
    elif isinstance(kind, mi.BytesType):
        size = kind.min_length if kind.min_length == kind.max_length else None
        if type(value) is not bytes:
            return ("bytes (bin)" if size is None else f"{size} bytes"), None
        if size is not None and len(value) != size:
            return None, f"expected {size} bytes, got {len(value)}"
    elif isinstance(kind, mi.LiteralType | mi.EnumType):
        choices = kind.values if isinstance(kind, mi.LiteralType) else [e.value for e in kind.cls]
        if type(value) is not type(choices[0]):
            return ("a string" if isinstance(choices[0], str) else "an integer"), None
        if value not in choices:
            allowed = ", ".join(repr(c) for c in choices)
            return None, f"expected one of {allowed}, got {_quote(value)}"
    elif isinstance(kind, mi.TupleType | mi.VarTupleType) or (
        isinstance(kind, mi.StructType) and kind.array_like
    ):
        if type(value) is not list:
            return "an array", None
        if isinstance(kind, mi.VarTupleType):
            least, most = kind.min_length or 0, kind.max_length
            if least == most and len(value) != most:
                return None, f"expected an array of {most} items, got {len(value)}"
            if most is not None and len(value) > most:
                return None, f"expected at most {most} items, got {len(value)}"
        else:
            size = (
                len(kind.item_types)
                if isinstance(kind, mi.TupleType)
                else len(kind.fields) + (kind.tag is not None)
            )
            if len(value) != size:
                return None, f"expected an array of {size} items, got {len(value)}"
    elif isinstance(kind, mi.StructType):
        if type(value) is not dict:
            return "a map", None
        names = [f.encode_name for f in kind.fields]
        for key in value:
            if key not in names:
                allowed = ", ".join(repr(k) for k in names)
                return None, f"unknown key {_quote(key)} (allowed: {allowed})"
        order = [names.index(key) for key in value]
        if order != sorted(order):
            return None, "map keys are not in the canonical order (docs/entries.md)"
        for f in kind.fields:
            if f.required and f.encode_name not in value:
                return None, f"missing key {f.encode_name!r}"
    return None, None


def _inner_problem(value: Any, kind: mi.Type, path: str) -> tuple[str, str] | None:
    """The first problem in the items or fields of ``value``, which has ``kind``'s type."""
    parts: list[tuple[object, mi.Type, str]]
    if isinstance(kind, mi.TupleType):
        items = zip(kind.item_types, value, strict=True)
        parts = [(v, t, f"{path}[{i}]") for i, (t, v) in enumerate(items)]
    elif isinstance(kind, mi.VarTupleType):
        parts = [(v, kind.item_type, f"{path}[{i}]") for i, v in enumerate(value)]
    elif isinstance(kind, mi.StructType) and kind.array_like:
        where = getattr(kind.cls, "WHERE", path)
        values = value[1:] if kind.tag is not None else value
        fields = zip(kind.fields, values, strict=True)
        parts = [(v, f.type, f"{where}.{f.name}") for f, v in fields]
    elif isinstance(kind, mi.StructType):
        present = (f for f in kind.fields if f.encode_name in value)
        parts = [(value[f.encode_name], f.type, f"{path}.{f.name}") for f in present]
    else:
        return None
    for item, item_kind, item_path in parts:
        found = _problem(item, item_kind, item_path)
        if found is not None:
            return found
    return None


Hash = Annotated[bytes, Meta(min_length=HASH_SIZE, max_length=HASH_SIZE)]
"""32 bytes: a hash, a nonce, a chain link or anchor, a public key."""
Signature = Annotated[bytes, Meta(min_length=SIGNATURE_SIZE, max_length=SIGNATURE_SIZE)]


def _supported(versions: Collection[int], what: str) -> Meta:
    """A version number this dbnet reads (``versions``, consecutive), else ``unsupported
    WHAT N (this dbnet reads ...)``."""
    known = ", ".join(str(v) for v in versions)
    return Meta(
        ge=min(versions),
        le=max(versions),
        extra=refuse(f"unsupported {what} {{value}} (this dbnet reads {known})"),
    )


Count = Annotated[int, Meta(ge=0, le=MAX_INT)]
"""Every integer of the format that has no other limit: 0 to 2^63 - 1."""
Side = Annotated[int, Meta(ge=0, le=1)]
"""A player: 0 (A) or 1 (B)."""
Stat = Annotated[int, Meta(ge=0, le=MAX_STAT)]
Links = Annotated[tuple[tuple[Count, Hash], ...], Meta(max_length=MAX_LINKS)]
"""``[[roll, link], ...]``: a player's dice chain links, by roll index."""
NonBlank = Annotated[
    str, Meta(pattern=r"\S", extra=refuse("expected a non-blank string, got {value}"))
]
"""Text holding a character that is not white space (``str.isspace``, which ``\\S`` in a
regular expression follows)."""


def _plain(shape: Shape) -> Any:
    """The plain value (lists, dicts, bytes...) of a shape, as ``decode`` would give it."""
    return msgspec.msgpack.decode(_ENCODER.encode(shape))


def _key_problem(keys: tuple[bytes, ...], path: str) -> None:
    """Refuse a key that cannot be a player's Ed25519 key (``keys.public_key_problem``)."""
    for i, key in enumerate(keys):
        problem = public_key_problem(key)
        if problem is not None:
            raise DecodeError(f"{path}[{i}]", f"the key {key.hex()} is {problem}")


# --- the setup -------------------------------------------------------------------------------


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


def setup_to_wire(setup: GameSetup, clock: tuple[int, int] | None = None) -> dict[str, object]:
    """The setup as a plain value (the map's ``note`` is informative and not sent), with
    the ``clock`` setting ``(base, increment)`` in ms if given and a Limited game's
    ``limited`` part (both protocol version 3)."""
    wire: dict[str, object] = _plain(_setup_shape(setup, clock))
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


def _setup_value(schema: Schema[_Setup] | Schema[_SetupV3], data: Raw, path: str) -> EncodedSetup:
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
    clock = _unset(shape.clock) if isinstance(shape, _SetupV3) else None
    made = EncodedSetup(shape.value(path), clock, key[1])
    _DECODED.put(key, made)
    return made


_DECODED: Final = Kept[tuple[object, bytes], EncodedSetup](16)
"""``_setup_value``'s setups of the last 16 setups read, by schema and bytes."""


def setup_from_wire(obj: object, path: str) -> GameSetup:
    """The ``GameSetup`` in a plain value, every field checked (the map's note is empty).

    Raises:
        DecodeError: naming the first field that is wrong, warband rules 600.1 and 600.3
            included.
    """
    return _SETUP.decode(encode(obj), path).value(path)


# --- entries ---------------------------------------------------------------------------------


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
        wire: dict[str, object] = _plain(_body_shape(cast("Body", self)))
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
        body = _BODIES[version][EntryKind.OFFER].decode(encode(obj), path).value(path)
        assert isinstance(body, OfferBody)
        return body


Name = Annotated[
    str,
    Meta(
        pattern=rf"^(?:{NAME_PATTERN.pattern})\Z",
        extra=refuse("expected a name of 1-32 letters, digits, '_', '.', '-': {value}"),
    ),
]


class _Offer(Shape):
    """An OFFER of protocol version 2: both nonces."""

    rules: Annotated[str, Meta(max_length=MAX_RULES_LEN)]
    keys: tuple[Hash, Hash]
    nonces: tuple[Hash, Hash]
    setup: Raw
    """The setup's bytes, read by ``_setup_value`` with the setup schema of the version."""
    chain: Annotated[int, Meta(ge=2, le=MAX_CHAIN)]
    anchor: Hash
    state: Hash

    def value(self, path: str) -> OfferBody:
        return _offer_body(self, *self.nonces, _SETUP_V2, path)


class _OfferV1(Shape):
    """An OFFER of protocol version 1: A's nonce alone."""

    rules: Annotated[str, Meta(max_length=MAX_RULES_LEN)]
    keys: tuple[Hash, Hash]
    nonce: Hash
    setup: Raw
    """The setup's bytes, as in ``_Offer``."""
    chain: Annotated[int, Meta(ge=2, le=MAX_CHAIN)]
    anchor: Hash
    state: Hash

    def value(self, path: str) -> OfferBody:
        return _offer_body(self, self.nonce, None, _SETUP_V2, path)


def _offer_body(
    shape: _Offer | _OfferV1,
    nonce: bytes,
    joiner_nonce: bytes | None,
    schema: Schema[_Setup] | Schema[_SetupV3],
    path: str,
    name: str | None = None,
) -> OfferBody:
    """The OFFER of ``shape`` (any version's), its keys checked and its setup read with
    ``schema``."""
    _key_problem(shape.keys, f"{path}.keys")
    offered = _setup_value(schema, shape.setup, f"{path}.setup")
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

SetupClock = tuple[
    Annotated[int, Meta(ge=1, le=MAX_CLOCK_MS)], Annotated[int, Meta(ge=0, le=MAX_INCREMENT_MS)]
]
"""``[base, increment]``: the time each player starts with and gains per move, in ms."""
Reading = tuple[Count, Count]
"""``[A, B]``: an author's reading of both players' remaining time, in milliseconds."""


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


_SETUP: Final = Schema[_SetupV3](_SetupV3, "setup")
_SETUP_V2: Final = Schema[_Setup](_Setup, "setup")
"""The setup of an OFFER of version 1 or 2 (no clock, no Limited play)."""


class _OfferV3(_Offer):
    """An OFFER of version 3: A's name last, and the setup may end with the clock."""

    name: Name

    def value(self, path: str) -> OfferBody:
        return _offer_body(self, *self.nonces, _SETUP, path, self.name)


class _AcceptV3(_Accept):
    """An ACCEPT of version 3: B's name, then (with a clock) B's reading."""

    name: Name
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> AcceptBody:
        return AcceptBody(self.anchor, self.links, self.state, self.name, _unset(self.clock))


class _PlayV3(_Play, kw_only=True):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> PlayBody:
        decision, anchor = self.decision, self.anchor  # as _Play.value, with the clock
        return PlayBody(
            None if decision is UNSET else decision,
            self.links,
            None if anchor is UNSET else anchor,
            self.state,
            _unset(self.clock),
        )


class _ResignV3(_Resign):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> ResignBody:
        return ResignBody(self.state, _unset(self.clock))


class _ClaimV3(_Claim):
    reason: Literal["timeout", "clock"]  # type: ignore[assignment]
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> ClaimBody:
        return ClaimBody(self.reason, self.waiting_for, _unset(self.clock))


class _FinalV3(_Final):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> FinalBody:
        reason = self.reason.value
        return FinalBody(self.winner, reason, self.turns, self.state, _unset(self.clock))


class _CosignV3(_Cosign):
    clock: Reading | UnsetType = UNSET

    def value(self, path: str) -> CosignBody:
        return CosignBody(self.head, self.winner, _unset(self.clock))


def _unset(value: tuple[int, int] | UnsetType) -> tuple[int, int] | None:
    return None if isinstance(value, UnsetType) else value


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
_BodyShape = (
    _OfferV3 | _Offer | _OfferV1 | _AcceptV3 | _Accept | _Play | _Resign | _Claim | _Final | _Cosign
    | _Dispute
)  # fmt: skip

_BODY_SHAPES: Final = (_Offer, _Accept, _Play, _Resign, _Claim, _Final, _Cosign)
"""The shape of each kind's body, by kind number (version 1 has its own OFFER)."""
_SHAPES_BY_VERSION: Final[dict[int, tuple[type[_BodyShape], ...]]] = {
    1: (_OfferV1, *_BODY_SHAPES[1:]),
    2: _BODY_SHAPES,
    3: _CLOCK_SHAPES,
    4: _DISPUTE_SHAPES,
}
_BODIES: Final[dict[int, tuple[Schema[_BodyShape], ...]]] = {
    version: tuple(Schema[_BodyShape](shape, "entry.body") for shape in shapes)
    for version, shapes in _SHAPES_BY_VERSION.items()
}
"""The schema of each kind's body (by kind number), for each protocol version."""


def _body_shape(body: Body) -> _BodyShape:
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


def _v3_shape(body: Body) -> _BodyShape:
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


class _Entry(Shape, array_like=True):
    """``[v, game_id, seq, author, prev_hash, kind, body]``; the body is read by its kind's
    schema once the version and the kind are known."""

    v: Annotated[int, _supported(PROTOCOL_VERSIONS, "protocol version")]
    game_id: Hash
    seq: Count
    author: Side
    prev_hash: Hash
    kind: Annotated[
        int,
        Meta(
            ge=EntryKind.OFFER.value,
            le=EntryKind.DISPUTE.value,
            extra=refuse("unknown entry kind {value} (known: 0 to 7)"),
        ),
    ]
    body: Raw


_ENTRY: Final = Schema[_Entry](_Entry, "entry", MAX_ENTRY_SIZE)
_ENTRY_KINDS: Final = tuple(EntryKind)  # by number, without the enum's lookup by value


class Entry(msgspec.Struct, frozen=True, gc=False):
    """One entry of a game's log: what its author signs.

    On the wire: ``[version, game_id, seq, author, prev_hash, kind, body]``.
    ``author`` is 0 (A) or 1 (B); ``prev_hash`` is the previous entry's
    ``entry_hash`` (32 zero bytes for entry 0).
    """

    version: int
    game_id: bytes
    seq: int
    author: int
    prev_hash: bytes
    kind: EntryKind
    body: Body

    def to_wire(self) -> list[object]:
        return [
            self.version,
            self.game_id,
            self.seq,
            int(self.author),
            self.prev_hash,
            int(self.kind),
            self.body.to_wire(),
        ]


class SignedEntry(msgspec.Struct, frozen=True, gc=False):
    """An entry's exact bytes and its author's Ed25519 signature over ``signing_message``."""

    signed: bytes
    signature: bytes

    def to_wire(self) -> list[object]:
        return [self.signed, self.signature]


class _Record(Shape, array_like=True):
    """``[signed, signature]``: an entry's exact bytes and its author's signature."""

    signed: bytes
    signature: Signature


_RECORD: Final = Schema[_Record](_Record, "signed_entry")


def signing_message(signed: bytes) -> bytes:
    """What an entry's author signs: a domain tag and the entry's exact bytes."""
    return SIGNING_TAG + signed


Wire = TypeVar("Wire", bound=msgspec.Struct)


def replace(value: Wire, **changes: object) -> Wire:
    """A copy of ``value`` (an entry, a signed entry or a body) with ``changes``."""
    return msgspec.structs.replace(value, **changes)


def is_frozen_value(value: object) -> bool:
    """Whether ``value`` is one of the wire's immutable values (an entry, a signed entry, a
    body), which a copy may share."""
    return isinstance(value, msgspec.Struct) and value.__struct_config__.frozen


def entry_hash(signed: bytes) -> bytes:
    """The hash of an entry's exact bytes (the signature is not hashed): the next ``prev_hash``."""
    hasher = _ENTRY_HASHER.copy()
    hasher.update(signed)
    return hasher.digest()


_ENTRY_HASHER: Final = hashlib.blake2b(digest_size=HASH_SIZE, person=HASH_PERSON)
"""Copied for each entry: quicker than setting the hash up again."""


def encode_entry(entry: Entry) -> bytes:
    """The canonical bytes of ``entry``, the bytes its author signs.

    Raises:
        DecodeError: if the entry breaks the format (naming the field) or is too large,
            so that nothing is signed that a peer would refuse.
    """
    e = entry
    body = encode(_body_shape(e.body))
    data = encode((e.version, e.game_id, e.seq, e.author, e.prev_hash, e.kind, Raw(body)))
    if len(data) > MAX_ENTRY_SIZE:
        raise DecodeError("entry", f"{len(data)} bytes is more than the limit of {MAX_ENTRY_SIZE}")
    # What a peer would refuse is refused here, naming the field: the checks of
    # ``decode_entry`` but its comparisons with the canonical bytes, which these are.
    envelope = _ENTRY.read_own(data)
    _body_schema(envelope).read_own(body).value("entry.body")
    return data


def decode_entry(signed: bytes) -> Entry:
    """The entry in its signed bytes, which must be the entry's one canonical encoding.

    Raises:
        DecodeError: malformed bytes, a schema violation (naming the field), or an
            encoding that is not canonical (longer forms than needed, or map keys not
            in the documented order).
    """
    e = _ENTRY.decode(signed)
    body = _body_schema(e).decode(bytes(e.body)).value("entry.body")
    return Entry(e.v, e.game_id, e.seq, e.author, e.prev_hash, _ENTRY_KINDS[e.kind], body)


def _body_schema(e: _Entry) -> Schema[_BodyShape]:
    """The schema of the body of an entry of ``e``'s version and kind (DISPUTE, 7, is
    known from version 4)."""
    schemas = _BODIES[e.v]
    if e.kind >= len(schemas):
        raise DecodeError(
            "entry.kind",
            f"unknown entry kind {e.kind} in protocol version {e.v} (known: 0 to "
            f"{len(schemas) - 1}; {EntryKind(e.kind).name} is version {DISPUTE_VERSION})",
        )
    return schemas[e.kind]


def encode_signed_entry(signed: SignedEntry) -> bytes:
    """The record of a signed entry: ``[signed, signature]``."""
    return encode(_Record(signed.signed, signed.signature))


def decode_signed_entry(data: bytes) -> tuple[SignedEntry, Entry]:
    """A signed entry record and the entry in it. The signature is NOT checked here:
    check it over ``signing_message(signed.signed)`` (the exact received bytes).

    Raises:
        DecodeError: malformed or non-canonical bytes, or a schema violation.
    """
    record = _RECORD.decode(data)
    return SignedEntry(record.signed, record.signature), decode_entry(record.signed)


def sign_entry(entry: Entry, sign: Callable[[bytes], bytes]) -> SignedEntry:
    """``entry`` encoded and signed with ``sign`` (such as ``Identity.sign``)."""
    signed = encode_entry(entry)
    return SignedEntry(signed, sign(signing_message(signed)))


# --- the replay header -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayHeader:
    """Record 0 of a replay file. ``created`` (ISO 8601) is informative only."""

    format: int = REPLAY_FORMAT
    protocol: int = PROTOCOL_VERSION
    rules: str
    game_id: bytes
    keys: tuple[bytes, bytes]
    created: str


class _Header(Shape):
    format: Annotated[int, _supported(REPLAY_FORMATS, "replay format")]
    protocol: Count
    rules: Annotated[str, Meta(max_length=MAX_RULES_LEN)]
    game_id: Hash
    keys: tuple[Hash, Hash]
    created: Annotated[str, Meta(max_length=MAX_CREATED_LEN)]

    def value(self, path: str) -> ReplayHeader:
        if self.protocol != REPLAY_FORMATS[self.format]:
            raise DecodeError(
                f"{path}.protocol",
                f"replay format {self.format} holds protocol version "
                f"{REPLAY_FORMATS[self.format]} entries, not {self.protocol}",
            )
        _key_problem(self.keys, f"{path}.keys")
        return ReplayHeader(
            format=self.format,
            protocol=self.protocol,
            rules=self.rules,
            game_id=self.game_id,
            keys=self.keys,
            created=self.created,
        )


_HEADER: Final = Schema[_Header](_Header, "header", canonical=False)
"""The header is not signed: a reader accepts any key order (docs/replay-format.md)."""


def encode_replay_header(header: ReplayHeader) -> bytes:
    """The bytes of record 0 of a replay file (checked like a received header)."""
    h = header
    data = encode(_Header(h.format, h.protocol, h.rules, h.game_id, h.keys, h.created))
    decode_replay_header(data)
    return data


def decode_replay_header(data: bytes) -> ReplayHeader:
    """The replay header in record 0 of a replay file."""
    return _HEADER.decode(data).value("header")
