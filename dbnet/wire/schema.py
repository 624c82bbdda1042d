"""The wire format's idiom: one declarative schema per shape, decoded strictly.

Every wire shape (an entry, its body, the setup inside an OFFER, a replay header, a
message of the channel) is described once, as a ``Shape``: a msgspec ``Struct`` whose
annotated fields are the keys in their order, their types and their limits
(``Meta(ge=..., max_length=..., pattern=...)``). A ``Schema`` decodes bytes into a shape
with msgspec's strict msgpack decoder, then re-encodes what it decoded and compares: the
bytes must be the one canonical encoding of the value (shortest forms, keys in the
documented order, no duplicate key, nothing after the value), so one entry has exactly
one byte string. A shape's ``value`` turns it into the value the rest of dbnet uses
(``PlayBody``, ``GameSetup``, ...) and checks the rules that tie fields together (a
creature's least defense, a spawn ability's cost); the format is specified in
``docs/entries.md``.

A refusal is a ``DecodeError`` naming the field (``entry.body.links[2][1]: expected 32
bytes, got 31``): ``wire.values.decode`` (the strict reader of any msgpack value) names
what no schema can read, and the schema's description names the rest. No input makes
a schema raise anything else. This module also holds the field types several shapes
share (a hash, a signature, a count, a player, a name...).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Annotated, Any, Final, Generic, TypeVar

import msgspec
import msgspec.inspect as mi
from msgspec import Meta as Meta  # re-exported: the shapes of net/messages.py use it
from msgspec import UnsetType

from dbnet.errors import DecodeError
from dbnet.wire.keys import public_key_problem
from dbnet.wire.values import (
    ENCODER,
    MAX_INT,
    MAX_MESSAGE_SIZE,
    decode,
    encode,
    first_difference,
    quote,
    show,
)

_encode: Final = ENCODER.encode
"""The canonical encoder's ``encode``, bound once: a method called on an imported name is
looked up as an attribute on every call (Python 3.11 makes a bound method each time),
which the schema's every decode would pay."""
HASH_SIZE: Final = 32
SIGNATURE_SIZE: Final = 64
MAX_RULES_LEN: Final = 64
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""A player's name (1-32 letters, digits, '_', '.' or '-', starting with a letter or a
digit): in HELLO, where the other side pins the key under it, and in the player's own
OFFER or ACCEPT (version 3 and later), where it is signed."""


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
        if self.canonical and _encode(value) != data:
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
        return DecodeError(path, f"not canonical msgpack: {first_difference(canonical, data)}")


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
            return path, f"expected an array [type, ...], got {show(value)}"
        tag = value[0]
        if type(tag) is not int or tag not in tags:
            problem = extra.get("refuse", "unknown type {value}")
            return f"{path}[0]", problem.format(value=quote(tag))
        return _problem(value, tags[tag], path)
    expected, broken = _check(value, kind)
    if expected is not None:
        return path, f"expected {expected}, got {show(value)}"
    if broken is not None:
        return path, extra["refuse"].format(value=quote(value)) if "refuse" in extra else broken
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
            return None, f"expected an integer {bound}, got {quote(value)}"
    elif isinstance(kind, mi.BoolType):
        if type(value) is not bool:
            return "true or false", None
    elif isinstance(kind, mi.StrType):
        if type(value) is not str:
            return "a string", None
        if kind.max_length is not None and len(value) > kind.max_length:
            return None, f"expected at most {kind.max_length} characters, got {len(value)}"
        if kind.pattern is not None and not re.search(kind.pattern, value):
            return None, f"expected a string matching {kind.pattern!r}, got {quote(value)}"
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
            return None, f"expected one of {allowed}, got {quote(value)}"
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
                return None, f"unknown key {quote(key)} (allowed: {allowed})"
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


def supported(versions: Collection[int], what: str) -> Meta:
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
NonBlank = Annotated[
    str, Meta(pattern=r"\S", extra=refuse("expected a non-blank string, got {value}"))
]
"""Text holding a character that is not white space (``str.isspace``, which ``\\S`` in a
regular expression follows)."""


def plain(shape: Shape) -> Any:
    """The plain value (lists, dicts, bytes...) of a shape, as ``decode`` would give it."""
    return msgspec.msgpack.decode(_encode(shape))


def check_keys(keys: tuple[bytes, ...], path: str) -> None:
    """Refuse a key that cannot be a player's Ed25519 key (``keys.public_key_problem``)."""
    for i, key in enumerate(keys):
        problem = public_key_problem(key)
        if problem is not None:
            raise DecodeError(f"{path}[{i}]", f"the key {key.hex()} is {problem}")


Rules = Annotated[str, Meta(max_length=MAX_RULES_LEN)]
"""The rules version a game is played under (in the OFFER and the replay header)."""
Name = Annotated[
    str,
    Meta(
        pattern=rf"^(?:{NAME_PATTERN.pattern})\Z",
        extra=refuse("expected a name of 1-32 letters, digits, '_', '.', '-': {value}"),
    ),
]


def unset(value: tuple[int, int] | UnsetType) -> tuple[int, int] | None:
    """None for a field left out (``UNSET``), else its value."""
    return None if isinstance(value, UnsetType) else value
