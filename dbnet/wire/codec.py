"""The wire format: strict msgpack decoding and the typed, validated messages.

This is the only module of dbnet that imports msgpack. Everything that comes
from a peer or a file goes through ``decode`` (bounded, no extension types, no
floats, string keys only, no duplicate keys, no trailing bytes, at most 16
levels deep) and then through a ``from_wire`` that checks the exact shape of
one message and names the field that is wrong (``entry.body.links[2][1]:
expected 32 bytes, got 31``). Any problem is a ``DecodeError``; no input makes
this module raise anything else.

A game entry is signed over its exact bytes, never over a re-encoding, and
those bytes must be the one canonical encoding of the entry (shortest forms,
map keys in the documented order): ``decode_entry`` refuses anything else, so
one entry has exactly one byte string. The format is specified in
``docs/entries.md``.
"""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

import msgpack

from dbnet.engine import board
from dbnet.engine.game import check_warband_size
from dbnet.engine.model import (
    ACTIVATION_TEXT,
    ASPECT_TEXT,
    KIND_TEXT,
    AbilityDef,
    Activation,
    Aspect,
    GameSetup,
    MapDef,
    MiniatureDef,
    MiniKind,
    Options,
    Warband,
)
from dbnet.errors import DataError, DecodeError
from dbnet.wire.keys import public_key_problem

__all__ = [
    "HASH_SIZE", "MAX_ENTRY_SIZE", "MAX_MESSAGE_SIZE", "PROTOCOL_VERSION", "PROTOCOL_VERSIONS",
    "REPLAY_FORMAT", "REPLAY_FORMATS",
    "SIGNATURE_SIZE", "ZERO_HASH", "AcceptBody", "Body", "ClaimBody", "CosignBody", "Entry",
    "EntryKind", "FinalBody", "OfferBody", "PlayBody", "ReplayHeader", "ResignBody",
    "SignedEntry", "decode", "decode_entry", "decode_replay_header", "decode_signed_entry",
    "encode", "encode_entry", "encode_replay_header", "encode_signed_entry", "entry_hash",
    "setup_from_wire", "setup_to_wire", "sign_entry", "signing_message", "warband_from_wire",
    "warband_to_wire",
]  # fmt: skip

PROTOCOL_VERSION: Final = 2
"""The protocol version this dbnet writes. Version 2 (2026-11) adds the joiner's nonce to
the OFFER and the game id (docs/entries.md, section 7); version 1 is still read."""
PROTOCOL_VERSIONS: Final = (1, 2)
"""Every protocol version this dbnet reads (and so verifies)."""
REPLAY_FORMAT: Final = 2
"""The replay format this dbnet writes: format N holds entries of protocol version N."""
REPLAY_FORMATS: Final = {1: 1, 2: 2}
"""Every replay format this dbnet reads, with the protocol version of its entries."""
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

# --- low-level msgpack ---------------------------------------------------------------------

_SCALARS: Final = (type(None), bool, int, str, bytes)


def encode(obj: object) -> bytes:
    """The canonical msgpack bytes of a plain value (the packer always picks the shortest form).

    ``obj`` is made of None, bool, int, str, bytes, lists (or tuples) and dicts
    with str keys; map keys are written in the dict's order.
    """
    data: bytes = _PACKER.pack(obj)
    return data


_PACKER: Final = msgpack.Packer(use_bin_type=True)
"""One packer for every ``encode`` (it empties its buffer after each value, also on error)."""


def decode(data: bytes, *, max_size: int = MAX_MESSAGE_SIZE, where: str = "message") -> object:
    """The plain value in ``data``, decoded strictly.

    Refused (``DecodeError``, its path starting with ``where``): more than
    ``max_size`` bytes, malformed or truncated msgpack, trailing bytes, invalid
    UTF-8, extension types (timestamps included), floats, map keys that are not
    strings, duplicate map keys, and arrays or maps nested more than 16 deep.
    Arrays decode as lists, maps as dicts in wire order, bin as bytes.

    Raises:
        DecodeError: for any input that is not such a value; never anything else.
    """
    obj = _unpack(data, max_size, where)
    _check_tree(obj, where)
    return obj


def _unpack(data: bytes, max_size: int, where: str) -> object:
    """``decode`` without the walk that refuses floats and deep nesting."""
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
    return obj


def _check_tree(root: object, where: str) -> None:
    """Refuse floats, other non-plain types and nesting deeper than MAX_DEPTH.

    The walk keeps no paths (it runs on every message); only when it finds a problem
    does the slower walk below name where.
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


# --- field checks ----------------------------------------------------------------------------

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
    if isinstance(value, float):
        return f"{value!r} (a float)"
    return f"a {type(value).__name__}"


def _int(value: object, path: str, low: int = 0, high: int = MAX_INT) -> int:
    if type(value) is not int:
        raise DecodeError(path, f"expected an integer, got {_show(value)}")
    if not low <= value <= high:
        bound = f"at least {low}" if high == MAX_INT else f"from {low} to {high}"
        raise DecodeError(path, f"expected an integer {bound}, got {_quote(value)}")
    return value


def _optional_int(value: object, path: str, low: int = 0, high: int = MAX_INT) -> int | None:
    return None if value is None else _int(value, path, low, high)


def _bool(value: object, path: str) -> bool:
    if type(value) is not bool:
        raise DecodeError(path, f"expected true or false, got {_show(value)}")
    return value


def _str(value: object, path: str, max_len: int | None = None, *, nonblank: bool = False) -> str:
    if type(value) is not str:
        raise DecodeError(path, f"expected a string, got {_show(value)}")
    if max_len is not None and len(value) > max_len:
        raise DecodeError(path, f"expected at most {max_len} characters, got {len(value)}")
    if nonblank and not value.strip():
        raise DecodeError(path, f"expected a non-blank string, got {_quote(value)}")
    return value


def _optional_str(value: object, path: str, *, nonblank: bool = False) -> str | None:
    return None if value is None else _str(value, path, nonblank=nonblank)


def _choice(value: object, path: str, choices: Sequence[str]) -> str:
    text = _str(value, path)
    if text not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise DecodeError(path, f"expected one of {allowed}, got {_quote(text)}")
    return text


def _bytes(value: object, path: str, size: int) -> bytes:
    if type(value) is not bytes:
        raise DecodeError(path, f"expected {size} bytes, got {_show(value)}")
    if len(value) != size:
        raise DecodeError(path, f"expected {size} bytes, got {len(value)}")
    return value


def _key(value: object, path: str) -> bytes:
    """A player's Ed25519 public key: 32 bytes that ``identity.public_key_problem`` accepts."""
    key = _bytes(value, path, 32)
    problem = public_key_problem(key)
    if problem is not None:
        raise DecodeError(path, f"the key {key.hex()} is {problem}")
    return key


def _list(
    value: object, path: str, *, max_len: int | None = None, exact: int | None = None
) -> list[object]:
    if type(value) is not list:
        raise DecodeError(path, f"expected an array, got {_show(value)}")
    if exact is not None and len(value) != exact:
        raise DecodeError(path, f"expected an array of {exact} items, got {len(value)}")
    if max_len is not None and len(value) > max_len:
        raise DecodeError(path, f"expected at most {max_len} items, got {len(value)}")
    return value


def _map(
    value: object,
    path: str,
    keys: Sequence[str],
    optional: Sequence[str] = (),
    *,
    ordered: bool = False,
) -> dict[str, object]:
    """``value`` as a map with exactly ``keys`` (those in ``optional`` may be left out);
    with ``ordered``, they must come in the order of ``keys`` (canonical entries)."""
    if type(value) is not dict:
        raise DecodeError(path, f"expected a map, got {_show(value)}")
    if tuple(value) == tuple(keys):  # the common case: every key, in order
        return value
    last = -1
    for key in value:
        if type(key) is not str:
            raise DecodeError(path, f"map keys must be strings, got {_show(key)}")
        if key not in keys:
            allowed = ", ".join(repr(k) for k in keys)
            raise DecodeError(path, f"unknown key {_quote(key)} (allowed: {allowed})")
        if ordered:
            index = keys.index(key)
            if index < last:
                raise DecodeError(path, "map keys are not in the canonical order (docs/entries.md)")
            last = index
    for key in keys:
        if key not in value and key not in optional:
            raise DecodeError(path, f"missing key {key!r}")
    return value


def _links(value: object, path: str) -> tuple[tuple[int, bytes], ...]:
    items = _list(value, path, max_len=MAX_LINKS)
    links: list[tuple[int, bytes]] = []
    for i, item in enumerate(items):
        pair = _list(item, f"{path}[{i}]", exact=2)
        links.append((_int(pair[0], f"{path}[{i}][0]"), _bytes(pair[1], f"{path}[{i}][1]", 32)))
    return tuple(links)


def _links_to_wire(links: Sequence[tuple[int, bytes]]) -> list[object]:
    return [[r, link] for r, link in links]


# --- the setup -------------------------------------------------------------------------------

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_KIND_NAMES: Final = {text: kind for kind, text in KIND_TEXT.items()}
_ASPECT_NAMES: Final = {text: aspect for aspect, text in ASPECT_TEXT.items()}
_ACTIVATION_NAMES: Final = {text: activation for activation, text in ACTIVATION_TEXT.items()}
# 900.8: a creature's least power, defense and life
_CREATURE_STATS: Final = (("power", 0), ("defense", 1), ("life", 1))
(_, _LEAST_POWER), (_, _LEAST_DEFENSE), (_, _LEAST_LIFE) = _CREATURE_STATS

_SETUP_KEYS: Final = ("map", "options", "warbands")
_MAP_KEYS: Final = ("name", "values", "reconstructed")
_OPTIONS_KEYS: Final = ("tournament_initiative", "turns_to_win")
_WARBAND_KEYS: Final = ("name", "minis")
_MINI_KEYS: Final = (
    "slug", "name", "kind", "spawn_cost", "aspects", "power", "defense", "life", "lineage",
    "official", "set", "abilities",
)  # fmt: skip
_ABILITY_KEYS: Final = (
    "keyword", "activation", "x", "modifier", "spawn_cost", "cost_x", "score", "text",
)  # fmt: skip


def setup_to_wire(setup: GameSetup) -> dict[str, object]:
    """The setup as a plain value (the map's ``note`` is informative and not sent)."""
    return {
        "map": {
            "name": setup.map.name,
            "values": list(setup.map.values),
            "reconstructed": setup.map.reconstructed,
        },
        "options": {
            "tournament_initiative": setup.options.tournament_initiative,
            "turns_to_win": setup.options.turns_to_win,
        },
        "warbands": [warband_to_wire(w) for w in setup.warbands],
    }


def warband_to_wire(warband: Warband) -> dict[str, object]:
    """One warband as a plain value, as it appears in a setup."""
    return {"name": warband.name, "minis": [_mini_to_wire(d) for d in warband.minis]}


def warband_from_wire(obj: object, path: str) -> Warband:
    """The warband in ``obj`` (DecodeError naming the field, as for a setup's warbands)."""
    return _warband_from_wire(obj, path)


def _mini_to_wire(d: MiniatureDef) -> dict[str, object]:
    return {
        "slug": d.slug,
        "name": d.name,
        "kind": KIND_TEXT[d.kind],
        "spawn_cost": d.spawn_cost,
        "aspects": [ASPECT_TEXT[a] for a in d.aspects],
        "power": d.power,
        "defense": d.defense,
        "life": d.life,
        "lineage": d.lineage,
        "official": d.official,
        "set": d.set_name,
        "abilities": [_ability_to_wire(a) for a in d.abilities],
    }


def _ability_to_wire(a: AbilityDef) -> dict[str, object]:
    return {
        "keyword": a.keyword,
        "activation": ACTIVATION_TEXT[a.activation],
        "x": a.x,
        "modifier": a.modifier,
        "spawn_cost": a.spawn_cost,
        "cost_x": a.cost_x,
        "score": a.score,
        "text": a.text,
    }


def setup_from_wire(obj: object, path: str) -> GameSetup:
    """The ``GameSetup`` in a plain value, every field checked (the map's note is empty).

    Raises:
        DecodeError: naming the first field that is wrong, warband rules 600.1 and 600.3
            included.
    """
    m = _map(obj, path, _SETUP_KEYS, ordered=True)
    game_map = _map_from_wire(m["map"], f"{path}.map")
    where = f"{path}.options"
    o = _map(m["options"], where, _OPTIONS_KEYS, ordered=True)
    options = Options(
        tournament_initiative=_bool(o["tournament_initiative"], f"{where}.tournament_initiative"),
        turns_to_win=_int(o["turns_to_win"], f"{where}.turns_to_win", 1, MAX_TURNS_TO_WIN),
    )
    bands = _list(m["warbands"], f"{path}.warbands", exact=2)
    a, b = (_warband_from_wire(w, f"{path}.warbands[{i}]") for i, w in enumerate(bands))
    return GameSetup(game_map, (a, b), options)


def _map_from_wire(obj: object, path: str) -> MapDef:
    m = _map(obj, path, _MAP_KEYS, ordered=True)
    name = _str(m["name"], f"{path}.name", nonblank=True)
    items = _list(m["values"], f"{path}.values", exact=board.CELL_COUNT)
    if all(type(v) is int and 0 <= v <= MAX_STAT for v in items):  # no path to build
        values: tuple[int, ...] = tuple(items)  # type: ignore[arg-type]
    else:
        values = tuple(_int(v, f"{path}.values[{i}]", 0, MAX_STAT) for i, v in enumerate(items))
    for cell, value in enumerate(values):
        if value and cell not in board.KEY_CELLS:
            raise DecodeError(
                f"{path}.values[{cell}]",
                f"cell {board.cell_name(cell)} is not a key cell (b2-d4); its value must be 0, "
                f"got {value}",
            )
    return MapDef(name, values, _bool(m["reconstructed"], f"{path}.reconstructed"))


def _warband_from_wire(obj: object, path: str) -> Warband:
    m = _map(obj, path, _WARBAND_KEYS, ordered=True)
    name = _str(m["name"], f"{path}.name", nonblank=True)
    items = _list(m["minis"], f"{path}.minis", max_len=MAX_WARBAND)
    minis = tuple(_mini_from_wire(d, f"{path}.minis[{i}]") for i, d in enumerate(items))
    try:
        check_warband_size(name, minis)
    except DataError as exc:
        raise DecodeError(f"{path}.minis", exc.problem) from exc
    return Warband(name, minis)


def _mini_from_wire(obj: object, path: str) -> MiniatureDef:
    plain = _plain_mini(obj)
    return plain if plain is not None else _checked_mini(obj, path)


def _checked_mini(obj: object, path: str) -> MiniatureDef:
    """``_mini_from_wire`` field by field, naming the first field that is wrong."""
    m = _map(obj, path, _MINI_KEYS, ordered=True)
    slug = _str(m["slug"], f"{path}.slug")
    if not _SLUG.fullmatch(slug):
        raise DecodeError(
            f"{path}.slug",
            f"expected lower-case letters and digits joined by single '-', got {_quote(slug)}",
        )
    kind = _KIND_NAMES[_choice(m["kind"], f"{path}.kind", tuple(_KIND_NAMES))]
    aspect_items = _list(m["aspects"], f"{path}.aspects", max_len=MAX_ASPECTS)
    aspects = tuple(
        _ASPECT_NAMES[_choice(v, f"{path}.aspects[{i}]", tuple(_ASPECT_NAMES))]
        for i, v in enumerate(aspect_items)
    )
    stats: dict[str, int] = {}
    for key, minimum in _CREATURE_STATS:
        value = _int(m[key], f"{path}.{key}", 0, MAX_STAT)
        if kind is MiniKind.CREATURE and value < minimum:
            raise DecodeError(
                f"{path}.{key}", f"a creature's {key} is at least {minimum} (900.8), got {value}"
            )
        if kind is MiniKind.LOCATION and value != 0:
            raise DecodeError(f"{path}.{key}", f"a location has no {key}: expected 0, got {value}")
        stats[key] = value
    ability_items = _list(m["abilities"], f"{path}.abilities", max_len=MAX_ABILITIES)
    return MiniatureDef(
        slug=slug,
        name=_str(m["name"], f"{path}.name", nonblank=True),
        kind=kind,
        spawn_cost=_int(m["spawn_cost"], f"{path}.spawn_cost", 0, MAX_STAT),
        aspects=aspects,
        power=stats["power"],
        defense=stats["defense"],
        life=stats["life"],
        lineage=_optional_str(m["lineage"], f"{path}.lineage", nonblank=True),
        abilities=tuple(
            _ability_from_wire(a, f"{path}.abilities[{i}]") for i, a in enumerate(ability_items)
        ),
        official=_bool(m["official"], f"{path}.official"),
        set_name=_str(m["set"], f"{path}.set"),
    )


def _ability_from_wire(obj: object, path: str) -> AbilityDef:
    plain = _plain_ability(obj)
    return plain if plain is not None else _checked_ability(obj, path)


def _checked_ability(obj: object, path: str) -> AbilityDef:
    """``_ability_from_wire`` field by field, naming the first field that is wrong."""
    m = _map(obj, path, _ABILITY_KEYS, ordered=True)
    activation = _ACTIVATION_NAMES[
        _choice(m["activation"], f"{path}.activation", tuple(_ACTIVATION_NAMES))
    ]
    spawn_cost = _optional_int(m["spawn_cost"], f"{path}.spawn_cost", 0, MAX_STAT)
    cost_x = _bool(m["cost_x"], f"{path}.cost_x")
    if (activation is Activation.SPAWN) != (spawn_cost is not None or cost_x) or (
        cost_x and spawn_cost is not None
    ):
        raise DecodeError(
            f"{path}.spawn_cost",
            "a spawn ability has a spawn cost (a number, or X) and no other ability has one "
            f"(303.2a); activation {activation.value!r}, spawn cost "
            f"{'X' if cost_x else spawn_cost!r}",
        )
    return AbilityDef(
        keyword=_str(m["keyword"], f"{path}.keyword", nonblank=True),
        activation=activation,
        x=_optional_int(m["x"], f"{path}.x", -MAX_STAT, MAX_STAT),
        modifier=_optional_str(m["modifier"], f"{path}.modifier", nonblank=True),
        spawn_cost=spawn_cost,
        cost_x=cost_x,
        score=_bool(m["score"], f"{path}.score"),
        text=_str(m["text"], f"{path}.text"),
    )


def _plain_mini(obj: object) -> MiniatureDef | None:
    """The miniature in ``obj`` if ``_mini_from_wire`` accepts it, checked in one pass that
    builds no paths; None for anything else, which ``_mini_from_wire`` then checks field by
    field (with its precise errors). Accepts exactly a subset of what that accepts, only
    faster: a setup holds 32 miniatures, and every verifier reads one."""
    if type(obj) is not dict or tuple(obj) != _MINI_KEYS:
        return None
    (
        slug, name, kind_name, spawn_cost, aspect_names, power, defense, life, lineage,
        official, set_name, ability_items,
    ) = obj.values()  # fmt: skip
    kind = _KIND_NAMES.get(kind_name) if type(kind_name) is str else None
    if (
        kind is None
        or type(slug) is not str
        or not _SLUG.fullmatch(slug)
        or type(name) is not str
        or not name.strip()
        or type(spawn_cost) is not int
        or not 0 <= spawn_cost <= MAX_STAT
        or type(power) is not int
        or type(defense) is not int
        or type(life) is not int
        or (lineage is not None and (type(lineage) is not str or not lineage.strip()))
        or type(official) is not bool
        or type(set_name) is not str
        or type(aspect_names) is not list
        or len(aspect_names) > MAX_ASPECTS
        or type(ability_items) is not list
        or len(ability_items) > MAX_ABILITIES
    ):
        return None
    if kind is MiniKind.CREATURE:
        if not (
            _LEAST_POWER <= power <= MAX_STAT
            and _LEAST_DEFENSE <= defense <= MAX_STAT
            and _LEAST_LIFE <= life <= MAX_STAT
        ):
            return None
    elif power or defense or life:
        return None
    aspects: list[Aspect] = []
    for aspect_name in aspect_names:
        aspect = _ASPECT_NAMES.get(aspect_name) if type(aspect_name) is str else None
        if aspect is None:
            return None
        aspects.append(aspect)
    abilities: list[AbilityDef] = []
    for item in ability_items:
        ability = _plain_ability(item)
        if ability is None:
            return None
        abilities.append(ability)
    # positional (quicker than by keyword): the names are the fields', in their order
    return MiniatureDef(
        slug, name, kind, spawn_cost, tuple(aspects), power, defense, life, lineage,
        tuple(abilities), official, set_name,
    )  # fmt: skip


def _plain_ability(obj: object) -> AbilityDef | None:
    """The ability in ``obj`` if ``_ability_from_wire`` accepts it, checked in one pass;
    None for anything else (as ``_plain_mini``)."""
    if type(obj) is not dict or tuple(obj) != _ABILITY_KEYS:
        return None
    keyword, activation_name, x, modifier, spawn_cost, cost_x, score, text = obj.values()
    activation = _ACTIVATION_NAMES.get(activation_name) if type(activation_name) is str else None
    if (
        activation is None
        or type(keyword) is not str
        or not keyword.strip()
        or (x is not None and (type(x) is not int or not -MAX_STAT <= x <= MAX_STAT))
        or (modifier is not None and (type(modifier) is not str or not modifier.strip()))
        or (
            spawn_cost is not None
            and (type(spawn_cost) is not int or not 0 <= spawn_cost <= MAX_STAT)
        )
        or type(cost_x) is not bool
        or type(score) is not bool
        or type(text) is not str
        # 303.2a, as in ``_ability_from_wire``
        or (activation is Activation.SPAWN) != (spawn_cost is not None or cost_x)
        or (cost_x and spawn_cost is not None)
    ):
        return None
    # positional, as in ``_plain_mini``
    return AbilityDef(keyword, activation, x, modifier, spawn_cost, score, text, cost_x)


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

    def __repr__(self) -> str:
        return f"EntryKind.{self.name}"


@dataclass(frozen=True, slots=True)
class OfferBody:
    """Entry 0: the rules version, both identity keys, both players' nonces (A's alone in
    protocol version 1), the setup and A's anchor.

    ``joiner_nonce`` is B's fresh nonce (version 2 and later), None in a version-1 OFFER:
    with it the game id, and so every chain secret derived from it, is fresh as long as
    either player is honest (docs/protocol.md, "Genesis")."""

    KIND: ClassVar[EntryKind] = EntryKind.OFFER
    rules: str
    keys: tuple[bytes, bytes]
    nonce: bytes
    setup: GameSetup
    chain: int
    anchor: bytes
    state: bytes
    joiner_nonce: bytes | None = None

    def to_wire(self) -> dict[str, object]:
        nonces: tuple[str, object] = (
            ("nonce", self.nonce)
            if self.joiner_nonce is None
            else ("nonces", [self.nonce, self.joiner_nonce])
        )
        return {
            "rules": self.rules,
            "keys": list(self.keys),
            nonces[0]: nonces[1],
            "setup": setup_to_wire(self.setup),
            "chain": self.chain,
            "anchor": self.anchor,
            "state": self.state,
        }

    @classmethod
    def from_wire(cls, obj: object, path: str, version: int = PROTOCOL_VERSION) -> OfferBody:
        nonce_key = "nonce" if version == 1 else "nonces"
        m = _map(
            obj, path, ("rules", "keys", nonce_key, "setup", "chain", "anchor", "state"),
            ordered=True,
        )  # fmt: skip
        keys = _list(m["keys"], f"{path}.keys", exact=2)
        if version == 1:
            nonce, joiner_nonce = _bytes(m["nonce"], f"{path}.nonce", 32), None
        else:
            pair = _list(m["nonces"], f"{path}.nonces", exact=2)
            nonce = _bytes(pair[0], f"{path}.nonces[0]", 32)
            joiner_nonce = _bytes(pair[1], f"{path}.nonces[1]", 32)
        return cls(
            rules=_str(m["rules"], f"{path}.rules", MAX_RULES_LEN),
            keys=(_key(keys[0], f"{path}.keys[0]"), _key(keys[1], f"{path}.keys[1]")),
            nonce=nonce,
            setup=setup_from_wire(m["setup"], f"{path}.setup"),
            chain=_int(m["chain"], f"{path}.chain", 2, MAX_CHAIN),
            anchor=_bytes(m["anchor"], f"{path}.anchor", 32),
            state=_bytes(m["state"], f"{path}.state", 32),
            joiner_nonce=joiner_nonce,
        )


@dataclass(frozen=True, slots=True)
class AcceptBody:
    """Entry 1: B's chain anchor and B's links for any roll already waiting."""

    KIND: ClassVar[EntryKind] = EntryKind.ACCEPT
    anchor: bytes
    links: tuple[tuple[int, bytes], ...]
    state: bytes

    def to_wire(self) -> dict[str, object]:
        return {"anchor": self.anchor, "links": _links_to_wire(self.links), "state": self.state}

    @classmethod
    def from_wire(cls, obj: object, path: str) -> AcceptBody:
        m = _map(obj, path, ("anchor", "links", "state"), ordered=True)
        return cls(
            anchor=_bytes(m["anchor"], f"{path}.anchor", 32),
            links=_links(m["links"], f"{path}.links"),
            state=_bytes(m["state"], f"{path}.state", 32),
        )


@dataclass(frozen=True, slots=True)
class PlayBody:
    """A decision in notation (or None), the author's chain links as ``(roll, link)``, the
    author's next-generation anchor (or None) and the state hash after the entry."""

    KIND: ClassVar[EntryKind] = EntryKind.PLAY
    decision: str | None
    links: tuple[tuple[int, bytes], ...]
    anchor: bytes | None
    state: bytes

    def to_wire(self) -> dict[str, object]:
        wire: dict[str, object] = {}
        if self.decision is not None:
            wire["decision"] = self.decision
        wire["links"] = _links_to_wire(self.links)
        if self.anchor is not None:
            wire["anchor"] = self.anchor
        wire["state"] = self.state
        return wire

    @classmethod
    def from_wire(cls, obj: object, path: str) -> PlayBody:
        m = _map(
            obj,
            path,
            ("decision", "links", "anchor", "state"),
            ("decision", "anchor"),
            ordered=True,
        )
        decision = None
        if "decision" in m:
            decision = _str(m["decision"], f"{path}.decision", MAX_DECISION_LEN)
        anchor = None if "anchor" not in m else _bytes(m["anchor"], f"{path}.anchor", 32)
        return cls(
            decision=decision,
            links=_links(m["links"], f"{path}.links"),
            anchor=anchor,
            state=_bytes(m["state"], f"{path}.state", 32),
        )


@dataclass(frozen=True, slots=True)
class ResignBody:
    KIND: ClassVar[EntryKind] = EntryKind.RESIGN
    state: bytes

    def to_wire(self) -> dict[str, object]:
        return {"state": self.state}

    @classmethod
    def from_wire(cls, obj: object, path: str) -> ResignBody:
        m = _map(obj, path, ("state",), ordered=True)
        return cls(state=_bytes(m["state"], f"{path}.state", 32))


@dataclass(frozen=True, slots=True)
class ClaimBody:
    """A unilateral claim that the entry ``waiting_for`` never came."""

    KIND: ClassVar[EntryKind] = EntryKind.CLAIM
    reason: str
    waiting_for: int

    def to_wire(self) -> dict[str, object]:
        return {"reason": self.reason, "waiting_for": self.waiting_for}

    @classmethod
    def from_wire(cls, obj: object, path: str) -> ClaimBody:
        m = _map(obj, path, ("reason", "waiting_for"), ordered=True)
        return cls(
            reason=_choice(m["reason"], f"{path}.reason", ("timeout",)),
            waiting_for=_int(m["waiting_for"], f"{path}.waiting_for"),
        )


@dataclass(frozen=True, slots=True)
class FinalBody:
    """The result: the winner (0 A, 1 B), how, the conquest points (A, B) of every turn."""

    KIND: ClassVar[EntryKind] = EntryKind.FINAL
    winner: int
    reason: str
    turns: tuple[tuple[int, int], ...]
    state: bytes

    def to_wire(self) -> dict[str, object]:
        return {
            "winner": self.winner,
            "reason": self.reason,
            "turns": [[a, b] for a, b in self.turns],
            "state": self.state,
        }

    @classmethod
    def from_wire(cls, obj: object, path: str) -> FinalBody:
        m = _map(obj, path, ("winner", "reason", "turns", "state"), ordered=True)
        items = _list(m["turns"], f"{path}.turns", max_len=MAX_TURNS)
        turns: list[tuple[int, int]] = []
        for i, item in enumerate(items):
            where = f"{path}.turns[{i}]"
            pair = _list(item, where, exact=2)
            turns.append((_int(pair[0], f"{where}[0]"), _int(pair[1], f"{where}[1]")))
        return cls(
            winner=_int(m["winner"], f"{path}.winner", 0, 1),
            reason=_choice(m["reason"], f"{path}.reason", ("victory", "resignation")),
            turns=tuple(turns),
            state=_bytes(m["state"], f"{path}.state", 32),
        )


@dataclass(frozen=True, slots=True)
class CosignBody:
    """The counter-signature: the hash of the FINAL entry and the winner it agrees to."""

    KIND: ClassVar[EntryKind] = EntryKind.COSIGN
    head: bytes
    winner: int

    def to_wire(self) -> dict[str, object]:
        return {"head": self.head, "winner": self.winner}

    @classmethod
    def from_wire(cls, obj: object, path: str) -> CosignBody:
        m = _map(obj, path, ("head", "winner"), ordered=True)
        return cls(
            head=_bytes(m["head"], f"{path}.head", 32),
            winner=_int(m["winner"], f"{path}.winner", 0, 1),
        )


Body = OfferBody | AcceptBody | PlayBody | ResignBody | ClaimBody | FinalBody | CosignBody

_BODY_TYPES: Final[dict[EntryKind, type[Body]]] = {
    t.KIND: t
    for t in (OfferBody, AcceptBody, PlayBody, ResignBody, ClaimBody, FinalBody, CosignBody)
}


_ENTRY_KINDS: Final = tuple(EntryKind)  # by number, without the enum's lookup by value


@dataclass(frozen=True, slots=True)
class Entry:
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

    @classmethod
    def from_wire(cls, obj: object, path: str = "entry") -> Entry:
        items = _list(obj, path, exact=7)
        version = _int(items[0], f"{path}.v")
        if version not in PROTOCOL_VERSIONS:
            raise DecodeError(f"{path}.v", _unsupported("protocol version", version))
        number = _int(items[5], f"{path}.kind")
        if not EntryKind.OFFER <= number <= EntryKind.COSIGN:
            raise DecodeError(f"{path}.kind", f"unknown entry kind {number} (known: 0 to 6)")
        kind = _ENTRY_KINDS[number]
        where = f"{path}.body"
        body = (
            OfferBody.from_wire(items[6], where, version)
            if kind is EntryKind.OFFER
            else _BODY_TYPES[kind].from_wire(items[6], where)
        )
        return cls(
            version=version,
            game_id=_bytes(items[1], f"{path}.game_id", 32),
            seq=_int(items[2], f"{path}.seq"),
            author=_int(items[3], f"{path}.author", 0, 1),
            prev_hash=_bytes(items[4], f"{path}.prev_hash", 32),
            kind=kind,
            body=body,
        )


def _unsupported(what: str, value: int) -> str:
    known = ", ".join(str(v) for v in PROTOCOL_VERSIONS)
    return f"unsupported {what} {value} (this dbnet reads {known})"


@dataclass(frozen=True, slots=True)
class SignedEntry:
    """An entry's exact bytes and its author's Ed25519 signature over ``signing_message``."""

    signed: bytes
    signature: bytes

    def to_wire(self) -> list[object]:
        return [self.signed, self.signature]

    @classmethod
    def from_wire(cls, obj: object, path: str = "signed_entry") -> SignedEntry:
        items = _list(obj, path, exact=2)
        signed = items[0]
        if type(signed) is not bytes:
            raise DecodeError(f"{path}.signed", f"expected bytes (bin), got {_show(signed)}")
        return cls(signed, _bytes(items[1], f"{path}.signature", SIGNATURE_SIZE))


def signing_message(signed: bytes) -> bytes:
    """What an entry's author signs: a domain tag and the entry's exact bytes."""
    return SIGNING_TAG + signed


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
    wire = entry.to_wire()
    if _plain_play_links(wire) is None:  # most entries pass the one-pass check, others in full
        Entry.from_wire(wire)
    data = encode(wire)
    if len(data) > MAX_ENTRY_SIZE:
        raise DecodeError("entry", f"{len(data)} bytes is more than the limit of {MAX_ENTRY_SIZE}")
    return data


def decode_entry(signed: bytes) -> Entry:
    """The entry in its signed bytes, which must be the entry's one canonical encoding.

    Raises:
        DecodeError: malformed bytes, a schema violation (naming the field), or an
            encoding that is not canonical (longer forms than needed, or map keys not
            in the documented order).
    """
    # No tree walk: ``from_wire`` checks the exact type of every value it keeps and the
    # order of every map's keys, and the bytes must be the shortest encoding of the
    # value, so they are the entry's one canonical encoding and nothing else can hide.
    if len(signed) <= MAX_ENTRY_SIZE:
        # A valid entry first, without the strict decoder's hooks: one whose bytes
        # re-encode exactly (so no duplicate key hid in them) and whose values all have
        # the exact types ``from_wire`` requires (so no extension or float either).
        try:
            quick = msgpack.unpackb(signed, raw=False, strict_map_key=True, use_list=True)
            entry = _plain_play(quick) or Entry.from_wire(quick)
        except Exception:  # any failure: the strict decoder below says what was wrong
            entry = None
        if entry is not None and encode(quick) == signed:
            return entry
    obj = _unpack(signed, MAX_ENTRY_SIZE, "entry")
    entry = _plain_play(obj) or Entry.from_wire(obj)
    canonical = encode(obj)
    if canonical != signed:
        raise DecodeError("entry", f"not canonical msgpack: {_first_difference(canonical, signed)}")
    return entry


_PLAY_KEY_ORDERS: Final = frozenset(
    {
        ("links", "state"),
        ("decision", "links", "state"),
        ("links", "anchor", "state"),
        ("decision", "links", "anchor", "state"),
    }
)
"""The keys a PLAY body may have, in their one allowed order."""
_PLAY_KIND: Final = EntryKind.PLAY  # looked up once: an enum class lookup is slow on 3.11
_PLAY: Final = int(_PLAY_KIND)


def _plain_play(obj: object) -> Entry | None:
    """A PLAY entry that ``Entry.from_wire`` would accept, checked in one pass; None for
    anything else, which ``from_wire`` then checks in full (with its precise errors).

    Most entries of a game are PLAY entries, and a verifier reads every one: this path
    accepts exactly a subset of what ``from_wire`` accepts, only faster.
    """
    links = _plain_play_links(obj)
    if links is None:
        return None
    assert type(obj) is list  # as _plain_play_links checked
    version, game_id, seq, author, prev_hash, _, body = obj
    decision, anchor = body.get("decision"), body.get("anchor")
    return Entry(
        version,
        game_id,
        seq,
        author,
        prev_hash,
        _PLAY_KIND,
        PlayBody(decision, links, anchor, body["state"]),
    )


def _plain_play_links(obj: object) -> tuple[tuple[int, bytes], ...] | None:
    """The links of ``obj`` if it is a PLAY entry that ``_plain_play`` accepts, else None:
    the check alone, for an entry about to be signed (``encode_entry``)."""
    if type(obj) is not list or len(obj) != 7:
        return None
    version, game_id, seq, author, prev_hash, kind, body = obj
    if (
        type(version) is not int
        or version not in PROTOCOL_VERSIONS
        or type(kind) is not int
        or kind != _PLAY
        or type(seq) is not int
        or not 0 <= seq <= MAX_INT
        or type(author) is not int
        or (author != 0 and author != 1)
        or type(game_id) is not bytes
        or len(game_id) != HASH_SIZE
        or type(prev_hash) is not bytes
        or len(prev_hash) != HASH_SIZE
        or type(body) is not dict
        or tuple(body) not in _PLAY_KEY_ORDERS
    ):
        return None
    decision = body.get("decision")
    anchor = body.get("anchor")
    links = body["links"]
    state = body["state"]
    if (
        ("decision" in body and (type(decision) is not str or len(decision) > MAX_DECISION_LEN))
        or ("anchor" in body and (type(anchor) is not bytes or len(anchor) != HASH_SIZE))
        or type(state) is not bytes
        or len(state) != HASH_SIZE
        or type(links) is not list
        or len(links) > MAX_LINKS
    ):
        return None
    pairs: list[tuple[int, bytes]] = []
    for pair in links:
        if type(pair) is not list or len(pair) != 2:
            return None
        roll, link = pair
        if type(roll) is not int or not 0 <= roll <= MAX_INT or type(link) is not bytes:
            return None
        if len(link) != HASH_SIZE:
            return None
        pairs.append((roll, link))
    return tuple(pairs)


def _first_difference(canonical: bytes, received: bytes) -> str:
    for i, (a, b) in enumerate(zip(canonical, received, strict=False)):
        if a != b:
            return f"byte {i} is 0x{b:02x}, the shortest encoding has 0x{a:02x}"
    return f"{len(received)} bytes, the shortest encoding has {len(canonical)}"


def encode_signed_entry(signed: SignedEntry) -> bytes:
    """The record of a signed entry: ``[signed, signature]``."""
    return encode(signed.to_wire())


_SIGNATURE_HEADER: Final = bytes((0xC4, SIGNATURE_SIZE))


def _split_signed_entry(data: bytes) -> SignedEntry | None:
    """The record's two parts when it has exactly the canonical layout
    ``0x92, bin(signed), bin(signature)``; None for anything else, which the general
    decoder then refuses with a precise reason (or accepts, if this missed a case)."""
    if len(data) < 3 or data[0] != 0x92:
        return None
    marker = data[1]
    if marker == 0xC4:
        size, start = data[2], 3
    elif marker == 0xC5 and len(data) >= 4:
        size, start = int.from_bytes(data[2:4], "big"), 4
        if size < 0x100:  # a shorter header exists: not canonical
            return None
    else:
        return None
    end = start + size
    if len(data) != end + 2 + SIGNATURE_SIZE or data[end : end + 2] != _SIGNATURE_HEADER:
        return None
    return SignedEntry(data[start:end], data[end + 2 :])


def decode_signed_entry(data: bytes) -> tuple[SignedEntry, Entry]:
    """A signed entry record and the entry in it. The signature is NOT checked here:
    check it over ``signing_message(signed.signed)`` (the exact received bytes).

    Raises:
        DecodeError: malformed or non-canonical bytes, or a schema violation.
    """
    signed = _split_signed_entry(data)
    if signed is not None:
        return signed, decode_entry(signed.signed)
    obj = decode(data, where="signed_entry")
    canonical = encode(obj)
    if canonical != data:
        raise DecodeError(
            "signed_entry", f"not canonical msgpack: {_first_difference(canonical, data)}"
        )
    signed = SignedEntry.from_wire(obj)
    return signed, decode_entry(signed.signed)


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

    def to_wire(self) -> dict[str, object]:
        return {
            "format": self.format,
            "protocol": self.protocol,
            "rules": self.rules,
            "game_id": self.game_id,
            "keys": list(self.keys),
            "created": self.created,
        }

    @classmethod
    def from_wire(cls, obj: object, path: str = "header") -> ReplayHeader:
        m = _map(obj, path, ("format", "protocol", "rules", "game_id", "keys", "created"))
        fmt = _int(m["format"], f"{path}.format")
        if fmt not in REPLAY_FORMATS:
            known = ", ".join(str(v) for v in REPLAY_FORMATS)
            raise DecodeError(
                f"{path}.format", f"unsupported replay format {fmt} (this dbnet reads {known})"
            )
        protocol = _int(m["protocol"], f"{path}.protocol")
        if protocol != REPLAY_FORMATS[fmt]:
            raise DecodeError(
                f"{path}.protocol",
                f"replay format {fmt} holds protocol version {REPLAY_FORMATS[fmt]} entries, "
                f"not {protocol}",
            )
        keys = _list(m["keys"], f"{path}.keys", exact=2)
        return cls(
            format=fmt,
            protocol=protocol,
            rules=_str(m["rules"], f"{path}.rules", MAX_RULES_LEN),
            game_id=_bytes(m["game_id"], f"{path}.game_id", 32),
            keys=(_key(keys[0], f"{path}.keys[0]"), _key(keys[1], f"{path}.keys[1]")),
            created=_str(m["created"], f"{path}.created", MAX_CREATED_LEN),
        )


def encode_replay_header(header: ReplayHeader) -> bytes:
    """The bytes of record 0 of a replay file (checked like a received header)."""
    wire = header.to_wire()
    ReplayHeader.from_wire(wire)
    return encode(wire)


def decode_replay_header(data: bytes) -> ReplayHeader:
    """The replay header in record 0 of a replay file."""
    return ReplayHeader.from_wire(decode(data, where="header"))
