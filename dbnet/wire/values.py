"""Any msgpack value: the canonical encoder of everything dbnet sends or signs, and the
strict reader of a plain value with no schema (``decode``), which also says why a
``Schema`` refused some bytes (``wire.schema``).

This is the only module of dbnet that imports msgpack-python (its reader names what is
wrong with a value that no schema can read); the shapes are read by msgspec. No input
makes ``decode`` raise anything but ``DecodeError``.
"""

from __future__ import annotations

import re
from typing import Final

import msgpack
import msgspec

from dbnet.errors import DecodeError

MAX_MESSAGE_SIZE: Final = 65536
MAX_DEPTH: Final = 16
MAX_INT: Final = 2**63 - 1  # every integer field fits a signed 64-bit integer

_SCALARS: Final = (type(None), bool, int, str, bytes)
ENCODER: Final = msgspec.msgpack.Encoder()
"""Writes every byte dbnet sends or signs: the shortest form of every header (the same
bytes as msgpack-python's ``Packer(use_bin_type=True)``), map keys in field order."""


def encode(obj: object) -> bytes:
    """The canonical msgpack bytes of ``obj``: a ``Shape``, or a plain value made of None,
    bool, int, str, bytes, lists (or tuples) and dicts with str keys, written in the
    dict's order. Every header takes its shortest form."""
    return ENCODER.encode(obj)


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
                raise DecodeError(where, f"map keys must be strings, got {show(key)}")
            if key in result:
                raise DecodeError(where, f"duplicate map key {quote(key)}")
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
    return f"{path}[{quote(key)}]"


def quote(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def show(value: object) -> str:
    """A short description of a wire value for error messages (never a huge repr)."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return f"{value!r} (a bool)"
    if isinstance(value, int):
        return quote(value)
    if isinstance(value, str):
        return f"{quote(value)} (a string)"
    if isinstance(value, bytes):
        return f"{len(value)} bytes (bin)"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)} items"
    if isinstance(value, dict):
        return f"a map of {len(value)} keys"
    return f"a {type(value).__name__}"


def first_difference(canonical: bytes, received: bytes) -> str:
    for i, (a, b) in enumerate(zip(canonical, received, strict=False)):
        if a != b:
            return f"byte {i} is 0x{b:02x}, the shortest encoding has 0x{a:02x}"
    return f"{len(received)} bytes, the shortest encoding has {len(canonical)}"
