"""The invite: one pasteable token that tells the opponent how to reach a host, sans-IO.

``dbnet host`` prints ``dbnet join INVITE``; the token carries the host's key
fingerprint, a fresh one-game secret, the direct addresses to try and an optional
relay. The format is specified in ``docs/network.md`` ("The invite"); in short:

- the text is ``DB`` and a format version (``1``), then Crockford base32 symbols
  (``0-9 A-Z`` without ``I L O U``; any case; ``O`` reads as ``0``, ``I`` and ``L`` as
  ``1``; ``-`` and whitespace are ignored, so an invite copied from a wrapped line
  still reads);
- after the prefix come the token's length (2 symbols) and the payload with a 3-byte
  checksum (the first bytes of its SHA-256), in base32;
- every 29 of those symbols are followed by 2 check symbols, a Reed-Solomon code over
  GF(32) that finds one mistyped character exactly (and tells a swap of two apart);
  the checksum confirms a correction before it is named.

So a typo is reported where it is (``its character 37 is 'X', it should be 'K'``),
a block with several typos by its character range, a cut-off token as cut short
after the characters that check out, and a token of a newer format as such.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import ipaddress
import itertools
import math
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from dbnet.net.errors import NetError

__all__ = [
    "ALPHABET",
    "MAX_CANDIDATES",
    "MAX_HOST_LEN",
    "PREFIX",
    "SECRET_SIZE",
    "VERSION",
    "Candidate",
    "IPAddress",
    "Invite",
    "InviteError",
    "PathKind",
    "address_problem",
    "candidate_problem",
    "looks_like_invite",
]

ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base32: a symbol's value is its index."""
ALIASES: Final = {"O": 0, "I": 1, "L": 1}
"""Letters left out of the alphabet that read as the digit they look like."""
PREFIX: Final = "DB"
VERSION: Final = 1
SECRET_SIZE: Final = 16
FINGERPRINT_SIZE: Final = 10
MAX_CANDIDATES: Final = 8
MAX_HOST_LEN: Final = 253
CHECKSUM_SIZE: Final = 3
BLOCK_DATA: Final = 29
"""Symbols of a block before its 2 check symbols (31 in all: GF(32) has 31 powers of g = 2)."""
BLOCK: Final = BLOCK_DATA + 2
HEADER: Final = 5
"""Symbols before the payload: ``D``, ``B``, the version, the token's length (2 symbols)."""

_HEAD: Final = [*(ALPHABET.index(char) for char in PREFIX), VERSION]
_FINGERPRINT = re.compile(r"[A-Z2-7]{4}(?:-[A-Z2-7]{4}){3}")
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_MAX_TRIALS: Final = 256

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class InviteError(NetError):
    """An invite that cannot be read or built: the message says what, where and why."""


class PathKind(enum.Enum):
    """How the joiner may reach the host directly."""

    LAN = "lan"
    """An IPv4 address of the host's own interfaces (its local network)."""
    IPV6 = "ipv6"
    """An IPv6 address of the host's own interfaces."""
    MAPPING = "mapping"
    """A public address and port a router forwards to the host (IPv4 or IPv6)."""


_KIND_CODES: Final = {PathKind.LAN: 0, PathKind.IPV6: 1, PathKind.MAPPING: 2}
_KINDS_BY_CODE: Final = {code: kind for kind, code in _KIND_CODES.items()}
_FAMILIES: Final = {PathKind.LAN: (4,), PathKind.IPV6: (6,), PathKind.MAPPING: (4, 6)}
_TAG_IPV6: Final = 0x04
_TAG_SAME_PORT: Final = 0x08
_COUNTS_RELAY: Final = 0x10
_COUNTS_WATCH: Final = 0x20


@dataclass(frozen=True, slots=True)
class Candidate:
    """One direct address of the host. ``InviteError`` if it cannot be one."""

    kind: PathKind
    address: IPAddress
    port: int

    def __post_init__(self) -> None:
        if not isinstance(self.kind, PathKind):
            raise InviteError(f"a candidate's kind must be a PathKind, not {self.kind!r}")
        if not isinstance(self.address, ipaddress.IPv4Address | ipaddress.IPv6Address):
            raise InviteError(f"a candidate's address must be an IP address, not {self.address!r}")
        problem = candidate_problem(self.kind, self.address, self.port)
        if problem is not None:
            raise InviteError(f"direct candidate {self}: {problem}")

    def __str__(self) -> str:
        host = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return f"{self.kind.value} {host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Invite:
    """What ``dbnet join`` needs to reach a host and know it: ``text()`` is the token,
    ``parse`` reads one back (``Invite.parse(inv.text()) == inv``).

    ``fingerprint`` is the host's key fingerprint as ``identity.fingerprint`` prints it;
    ``secret`` is 16 fresh bytes for this game; ``direct`` the addresses to try;
    ``relay`` a relay's host (a lower-case DNS name or an IP address in its canonical
    form) and port; ``watch`` marks a spectator invite (``dbnet watch INVITE``), which
    never takes a seat. ``InviteError`` if any of them cannot be in an invite.
    """

    fingerprint: str
    secret: bytes = field(repr=False)
    direct: tuple[Candidate, ...]
    relay: tuple[str, int] | None
    watch: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.fingerprint, str) or not _FINGERPRINT.fullmatch(self.fingerprint):
            raise InviteError(
                f"an invite's fingerprint is written like 'KQ3X-7ZBD-M2LA-QX4P', "
                f"not {self.fingerprint!r}"
            )
        if type(self.secret) is not bytes or len(self.secret) != SECRET_SIZE:
            raise InviteError(f"an invite's secret is {SECRET_SIZE} bytes, not {self.secret!r}")
        if type(self.direct) is not tuple or not all(isinstance(c, Candidate) for c in self.direct):
            raise InviteError("an invite's direct candidates are a tuple of Candidate")
        problem = _candidates_problem(self.direct)
        if problem is not None:
            raise InviteError(f"an invite's direct candidates: {problem}")
        if self.relay is not None:
            if type(self.relay) is not tuple or len(self.relay) != 2:
                raise InviteError(f"an invite's relay is (host, port), not {self.relay!r}")
            host, port = self.relay
            problem = _host_problem(host) or _port_problem(port)
            if problem is not None:
                raise InviteError(f"an invite's relay {host!r}, port {port!r}: {problem}")

    @classmethod
    def fresh(
        cls,
        fingerprint: str,
        direct: Iterable[Candidate],
        relay: tuple[str, int] | None,
    ) -> Invite:
        """A new invite with a fresh secret. The fingerprint may be in any case, with or
        without dashes; the relay's host name in any case, with or without a final dot."""
        plain = fingerprint.replace("-", "").upper() if isinstance(fingerprint, str) else ""
        if len(plain) == 16:
            fingerprint = "-".join(plain[i : i + 4] for i in range(0, 16, 4))
        if relay is not None and isinstance(relay[0], str):
            relay = (_normal_host(relay[0]), relay[1])
        return cls(fingerprint, secrets.token_bytes(SECRET_SIZE), tuple(direct), relay)

    @property
    def fingerprint_bytes(self) -> bytes:
        """The 10 bytes the fingerprint spells (the first of SHA-256 of the host's key)."""
        return base64.b32decode(self.fingerprint.replace("-", ""))

    def payload(self) -> bytes:
        """The invite's bytes, as ``docs/network.md`` lays them out (without checksum)."""
        out = bytearray(self.fingerprint_bytes + self.secret)
        counts = len(self.direct) | (_COUNTS_RELAY if self.relay is not None else 0)
        out.append(counts | (_COUNTS_WATCH if self.watch else 0))
        previous_port: int | None = None
        for candidate in self.direct:
            tag = _KIND_CODES[candidate.kind]
            if candidate.address.version == 6:
                tag |= _TAG_IPV6
            same_port = candidate.port == previous_port
            if same_port:
                tag |= _TAG_SAME_PORT
            out.append(tag)
            out += candidate.address.packed
            if not same_port:
                out += candidate.port.to_bytes(2, "big")
            previous_port = candidate.port
        if self.relay is not None:
            host, port = self.relay
            out.append(len(host))
            out += host.encode("ascii")
            out += port.to_bytes(2, "big")
        return bytes(out)

    def text(self) -> str:
        """The token: ``DB1`` and upper-case base32 symbols, no spaces or dashes."""
        return _token(self.payload())

    @classmethod
    def parse(cls, text: str) -> Invite:
        """The invite of a token (``text()``'s, in any case, dashes and whitespace ignored:
        an invite copied from a wrapped line still reads).

        Raises:
            InviteError: the token is mistyped (the message names the character, or the
                characters, and what they should be when that is certain), cut short or
                too long, of a newer format, or its payload breaks the layout.
        """
        return _payload_invite(_read_token(text))


def looks_like_invite(text: str) -> bool:
    """Whether ``dbnet join`` should read ``text`` as an invite rather than ``HOST:PORT``:
    it starts with ``DB`` (in any case) and holds neither ``:`` nor ``.``, which every
    ``HOST:PORT`` has (``[::1]:7117``, ``example.org:7117``, ``192.0.2.7:7117``).
    A text that passes may still be a broken invite: ``Invite.parse`` says what is wrong."""
    text = text.strip()
    return text[:2].upper() == PREFIX and ":" not in text and "." not in text


# --- validation shared by the constructors and the parser ------------------------------


def _port_problem(port: object) -> str | None:
    if type(port) is not int or not 1 <= port <= 65535:
        return f"the port must be 1-65535, not {port!r}"
    return None


def address_problem(address: IPAddress) -> str | None:
    """Why no peer can connect to ``address``, or None."""
    if address.is_unspecified:
        return "the unspecified address is no one's address"
    if address.is_multicast:
        return "a multicast address is no single machine's"
    if isinstance(address, ipaddress.IPv4Address):
        if address == ipaddress.IPv4Address("255.255.255.255"):
            return "the broadcast address is no single machine's"
        if address in ipaddress.IPv4Network("0.0.0.0/8"):
            return "an address of 0.0.0.0/8 ('this network') cannot be connected to"
        return None
    if address.ipv4_mapped is not None:
        return f"an IPv4-mapped address: give the IPv4 address {address.ipv4_mapped}"
    if address.is_link_local:
        return "a link-local IPv6 address needs an interface the invite cannot name"
    return None


def candidate_problem(kind: PathKind, address: IPAddress, port: int) -> str | None:
    """Why no invite can list ``address:port`` as a direct candidate of ``kind`` (no peer
    could connect to it), or None."""
    return _candidate_problem(kind, address) or _port_problem(port)


def _candidate_problem(kind: PathKind, address: IPAddress) -> str | None:
    if address.version not in _FAMILIES[kind]:
        families = " or ".join(f"IPv{v}" for v in _FAMILIES[kind])
        article = "an" if kind is PathKind.IPV6 else "a"
        return (
            f"{article} {kind.value} candidate has an {families} address, not IPv{address.version}"
        )
    return address_problem(address)


def _candidates_problem(direct: Sequence[Candidate]) -> str | None:
    if len(direct) > MAX_CANDIDATES:
        return f"at most {MAX_CANDIDATES}, not {len(direct)}"
    seen: dict[tuple[IPAddress, int], int] = {}
    for number, candidate in enumerate(direct, 1):
        key = (candidate.address, candidate.port)
        if key in seen:
            return f"candidate {number} ({candidate}) repeats candidate {seen[key]}'s address"
        seen[key] = number
    return None


def _host_problem(host: object) -> str | None:
    """Why ``host`` cannot be a relay's host in an invite (a lower-case DNS name, or an IP
    address in its canonical form), or None."""
    if not isinstance(host, str):
        return f"the host must be a string, not {host!r}"
    if not 1 <= len(host) <= MAX_HOST_LEN:
        return f"the host has 1 to {MAX_HOST_LEN} characters, not {len(host)}"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        pass
    else:
        if str(address) != host:
            return f"write the IP address as {str(address)!r}"
        return address_problem(address)
    if host != host.lower():
        return "write the host name in lower case"
    labels = host.split(".")
    for label in labels:
        if not _LABEL.fullmatch(label):
            return (
                f"{label!r} is not a label of a host name (1 to 63 of a-z 0-9 -, "
                "not starting or ending with -)"
            )
    if labels[-1].isdigit():
        return "it is neither an IP address nor a host name (its last label is a number)"
    return None


def _normal_host(host: str) -> str:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host.lower().removesuffix(".")


# --- GF(32) and the block code ---------------------------------------------------------

_EXP: list[int] = []
_LOG: list[int] = [0] * 32


def _fill_tables() -> None:
    x = 1
    for power in range(31):
        _EXP.append(x)
        _LOG[x] = power
        x <<= 1
        if x & 0x20:
            x ^= 0x25  # x^5 + x^2 + 1
    _EXP.extend(_EXP[:31])


_fill_tables()


def _mul(a: int, b: int) -> int:
    return 0 if a == 0 or b == 0 else _EXP[_LOG[a] + _LOG[b]]


def _div(a: int, b: int) -> int:
    return 0 if a == 0 else _EXP[(_LOG[a] - _LOG[b]) % 31]


def _syndromes(block: Sequence[int]) -> tuple[int, int]:
    """r(1) and r(2) of the block read as r(x), its last symbol the coefficient of x^0."""
    s0 = s1 = 0
    for value in block:
        s0 ^= value
        s1 = _mul(s1, 2) ^ value
    return s0, s1


def _checked(data: Sequence[int]) -> list[int]:
    """``data`` (at most 29 symbols) and its 2 check symbols: r(1) = r(2) = 0."""
    a, horner = _syndromes(data)
    b = _mul(horner, _EXP[2])
    p = _div(a ^ b, 3)  # (1 + 2) p = r(1) + r(2) of the data
    return [*data, p, a ^ p]


def _length_of(content: int) -> int:
    return content + 2 * -(-content // BLOCK_DATA)


def _content_of(length: int) -> int | None:
    """How many symbols of a token of ``length`` are not check symbols, or None when no
    token has that length."""
    blocks, last = divmod(length, BLOCK)
    if last == 0:
        return blocks * BLOCK_DATA
    if last < 3:
        return None
    return blocks * BLOCK_DATA + last - 2


# --- writing -----------------------------------------------------------------------------


def _token(payload: bytes) -> str:
    """The token of any payload bytes (the parser's field checks come later)."""
    data = payload + hashlib.sha256(payload).digest()[:CHECKSUM_SIZE]
    bits = int.from_bytes(data, "big")
    count = -(-len(data) * 8 // 5)
    bits <<= count * 5 - len(data) * 8
    symbols = [(bits >> (5 * (count - 1 - i))) & 31 for i in range(count)]
    length = _length_of(HEADER + count)
    content = [*_HEAD, length >> 5, length & 31, *symbols]
    out: list[int] = []
    for start in range(0, len(content), BLOCK_DATA):
        out += _checked(content[start : start + BLOCK_DATA])
    return "".join(ALPHABET[value] for value in out)


# --- reading the token ---------------------------------------------------------------------

_VALUES: Final = {char: value for value, char in enumerate(ALPHABET)} | ALIASES


@dataclass(frozen=True, slots=True)
class _Symbols:
    """A token's symbols and where each stands in the text (1-based, dashes counted)."""

    text: str
    values: list[int]
    places: list[int]
    dashes: bool
    foreign: bool
    """Some characters were outside the alphabet (left out of ``values``)."""

    def span(self, start: int, stop: int) -> str:
        return f"{self.places[start]}-{self.places[stop - 1]}"


def _symbols(text: str) -> _Symbols:
    text = text.strip()
    if not text:
        raise InviteError("the invite is empty")
    values: list[int] = []
    places: list[int] = []
    bad: list[str] = []
    for place, char in enumerate(text, 1):
        if char == "-" or char.isspace():  # an invite wrapped, or spaced for reading
            continue
        value = _VALUES.get(char.upper())
        if value is None:
            bad.append(f"character {place}, {char!r},")
            continue
        values.append(value)
        places.append(place)
    if bad and _version(values) == VERSION:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise InviteError(
            f"the invite's {bad[0]} is not in its alphabet (0-9 and A-Z but I, L, O, U){more}"
        )
    spaced = any(char == "-" or char.isspace() for char in text)
    return _Symbols(text, values, places, spaced, bool(bad))


def _version(values: Sequence[int]) -> int | None:
    """The format version, when the symbols start with ``DB`` and a version."""
    if len(values) < 3 or [ALPHABET[v] for v in values[:2]] != list(PREFIX):
        return None
    return values[2]


def _read_token(text: str) -> bytes:
    """The payload of a token (checksum removed), or ``InviteError``."""
    symbols = _symbols(text)
    version = _version(symbols.values)
    if version == VERSION or (symbols.values == _HEAD[: len(symbols.values)] and symbols.values):
        return _read_v1(symbols)
    found = None if symbols.foreign else _found_typos(symbols)
    if found is not None:
        raise InviteError(_typo_message(symbols, found))
    if version is None:
        raise InviteError(
            f"this is not a dbnet invite: an invite starts with {PREFIX}{VERSION}, this with "
            f"{symbols.text[:3]!r}"
        )
    raise InviteError(
        f"the invite is of format version {ALPHABET[version]} (its third character): it was "
        f"made by a newer dbnet (this one reads version {VERSION}); upgrade dbnet to join with it"
    )


def _min_length() -> int:
    smallest = FINGERPRINT_SIZE + SECRET_SIZE + 1 + CHECKSUM_SIZE
    return _length_of(HEADER + -(-smallest * 8 // 5))


def _read_v1(symbols: _Symbols) -> bytes:
    values = symbols.values
    have = len(values)
    dashes = " (dashes and spaces not counted)" if symbols.dashes else ""
    if have < _min_length():
        raise InviteError(
            f"the invite is cut short: it has {have} characters{dashes}, an invite has at "
            f"least {_min_length()}"
        )
    if _syndromes(values[:BLOCK]) == (0, 0):
        length = values[3] << 5 | values[4]
        if length != have:
            raise InviteError(_length_message(symbols, length, dashes))
    payload = _payload_of(values)
    if payload is None:
        raise InviteError(_typos_problem(symbols, dashes))
    return payload


def _typos_problem(symbols: _Symbols, dashes: str) -> str:
    """What is wrong with a token of the right length that does not check out."""
    found = _found_typos(symbols)
    if found is not None:
        return _typo_message(symbols, found)
    values, have = symbols.values, len(symbols.values)
    failing = [
        start
        for start in range(0, have, BLOCK)
        if _syndromes(values[start : start + BLOCK]) != (0, 0)
    ]
    spans = [symbols.span(start, min(start + BLOCK, have)) for start in failing]
    if len(spans) == 1:
        return f"the invite's characters {spans[0]} do not check out: a typo there"
    if spans:
        listed = ", ".join(spans[:-1]) + " and " + spans[-1]
        return f"the invite's characters {listed} do not check out: typos there"
    if _padding_of(have) is None:
        return f"the invite's length, {have} characters{dashes}, is no invite's: it is damaged"
    return (
        "the invite does not check out as a whole (its checksum): several typos, or "
        "characters in the wrong order"
    )


def _length_message(symbols: _Symbols, length: int, dashes: str) -> str:
    have = len(symbols.values)
    intact = 0
    while intact + BLOCK <= min(have, length) and _syndromes(
        symbols.values[intact : intact + BLOCK]
    ) == (0, 0):
        intact += BLOCK
    after = f"after character {symbols.places[intact - 1]}" if intact else "in it"
    if have < length:
        missing = length - have
        what = "a character is" if missing == 1 else f"{missing} characters are"
        return (
            f"the invite is cut short: it has {have} characters{dashes} where it says it has "
            f"{length}; {what} missing {after} (the characters before check out)"
        )
    extra = have - length
    what = "a character" if extra == 1 else f"{extra} characters"
    return (
        f"the invite is too long: it has {have} characters{dashes} where it says it has "
        f"{length}; {what} too many {after} (the characters before check out)"
    )


def _padding_of(length: int) -> tuple[int, int] | None:
    """(bytes, padding bits) of a token of ``length``, or None when none has it."""
    content = _content_of(length)
    if content is None or content <= HEADER:
        return None
    bits = (content - HEADER) * 5
    size, padding = divmod(bits, 8)
    if padding >= 5 or size <= CHECKSUM_SIZE:
        return None
    return size, padding


def _payload_of(values: Sequence[int]) -> bytes | None:
    """The payload if every check holds: the prefix, the blocks, the length, the padding and
    the checksum."""
    layout = _padding_of(len(values))
    if layout is None or values[:3] != _HEAD or values[3] << 5 | values[4] != len(values):
        return None
    content: list[int] = []
    for start in range(0, len(values), BLOCK):
        block = values[start : start + BLOCK]
        if _syndromes(block) != (0, 0):
            return None
        content += block[:-2]
    size, padding = layout
    bits = 0
    for value in content[HEADER:]:
        bits = bits << 5 | value
    if bits & ((1 << padding) - 1):
        return None
    data = (bits >> padding).to_bytes(size, "big")
    payload, checksum = data[:-CHECKSUM_SIZE], data[-CHECKSUM_SIZE:]
    if hashlib.sha256(payload).digest()[:CHECKSUM_SIZE] != checksum:
        return None
    return payload


def _block_fixes(values: Sequence[int], start: int) -> list[dict[int, int]]:
    """The corrections that make the block at ``start`` check: one mistyped symbol (found
    by the code), or two adjacent symbols swapped (tried)."""
    block = values[start : start + BLOCK]
    s0, s1 = _syndromes(block)
    if (s0, s1) == (0, 0):
        return [{}]
    if s0 != 0:
        if s1 == 0:
            return []
        back = (_LOG[s1] - _LOG[s0]) % 31  # the error's power of 2: its place from the end
        if back >= len(block):
            return []
        index = start + len(block) - 1 - back
        return [{index: values[index] ^ s0}]
    fixes = []
    for offset in range(len(block) - 1):
        a, b = block[offset], block[offset + 1]
        back = len(block) - 1 - offset
        if a != b and _mul(_EXP[back] ^ _EXP[back - 1], a ^ b) == s1:
            fixes.append({start + offset: b, start + offset + 1: a})
    return fixes


def _found_typos(symbols: _Symbols) -> dict[int, int] | None:
    """The one set of corrections (symbol index -> value) after which the token checks
    out entirely; None when there is none, or more than one."""
    values = symbols.values
    per_block = [_block_fixes(values, start) for start in range(0, len(values), BLOCK)]
    if math.prod(len(fixes) for fixes in per_block) > _MAX_TRIALS:
        return None  # too many ways to read it: name the blocks instead
    found: dict[int, int] | None = None
    for combination in itertools.product(*per_block):
        fixes = {index: value for fix in combination for index, value in fix.items()}
        if not fixes:
            continue
        fixed = list(values)
        for index, value in fixes.items():
            fixed[index] = value
        if _payload_of(fixed) is not None:
            if found is not None:
                return None
            found = fixes
    return found


def _typo_message(symbols: _Symbols, fixes: dict[int, int]) -> str:
    values, places = symbols.values, symbols.places
    said: list[str] = []
    pending = sorted(fixes)
    while pending:
        index = pending.pop(0)
        if (
            pending
            and pending[0] == index + 1
            and fixes[index] == values[index + 1]
            and fixes[index + 1] == values[index]
        ):
            pending.pop(0)
            wrong = ALPHABET[values[index]] + ALPHABET[values[index + 1]]
            said.append(
                f"characters {places[index]} and {places[index + 1]} are swapped: "
                f"{wrong!r} should be {wrong[::-1]!r}"
            )
        else:
            said.append(
                f"character {places[index]} is {ALPHABET[values[index]]!r}, it should be "
                f"{ALPHABET[fixes[index]]!r}"
            )
    return ("the invite has a typo: its " if len(said) == 1 else "the invite has typos: its ") + (
        "; its ".join(said)
    )


# --- reading the payload ---------------------------------------------------------------------


class _Reader:
    """Reads the payload's fields in order; a field cut off is an ``InviteError`` naming it."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.offset = 0

    def take(self, size: int, what: str) -> bytes:
        if self.offset + size > len(self.payload):
            raise InviteError(
                f"the invite's payload ends inside {what} (byte {self.offset}, "
                f"{size} bytes wanted, {len(self.payload) - self.offset} left)"
            )
        out = self.payload[self.offset : self.offset + size]
        self.offset += size
        return out

    def byte(self, what: str) -> int:
        return self.take(1, what)[0]

    def port(self, what: str) -> int:
        offset = self.offset
        port = int.from_bytes(self.take(2, what), "big")
        if port == 0:
            raise InviteError(f"the invite's {what} (byte {offset}) is 0: no port is 0")
        return port


def _payload_invite(payload: bytes) -> Invite:
    reader = _Reader(payload)
    fingerprint_bytes = reader.take(FINGERPRINT_SIZE, "the fingerprint")
    secret = reader.take(SECRET_SIZE, "the secret")
    counts = reader.byte("the counts")
    count, has_relay = counts & 0x0F, bool(counts & _COUNTS_RELAY)
    if counts & 0xC0:
        raise InviteError(
            f"the invite's counts byte (byte 26) is {counts:#04x}: its bits 6-7 must be 0"
        )
    if count > MAX_CANDIDATES:
        raise InviteError(
            f"the invite's counts byte (byte 26) says {count} direct candidates, at most "
            f"{MAX_CANDIDATES} are allowed"
        )
    direct: list[Candidate] = []
    previous_port: int | None = None
    for number in range(1, count + 1):
        what = f"direct candidate {number}"
        offset = reader.offset
        tag = reader.byte(f"{what}'s tag")
        code = tag & 0x03
        if tag & 0xF0 or code not in _KINDS_BY_CODE:
            raise InviteError(
                f"the invite's {what} has tag {tag:#04x} (byte {offset}): not a known kind "
                "(bits 0-1: 0 lan, 1 ipv6, 2 mapping; bits 4-7 must be 0)"
            )
        kind = _KINDS_BY_CODE[code]
        six = bool(tag & _TAG_IPV6)
        raw = reader.take(16 if six else 4, f"{what}'s address")
        address: IPAddress = ipaddress.IPv6Address(raw) if six else ipaddress.IPv4Address(raw)
        if tag & _TAG_SAME_PORT:
            if previous_port is None:
                raise InviteError(
                    f"the invite's {what} (byte {offset}) takes the previous candidate's "
                    "port, but it is the first"
                )
            port = previous_port
        else:
            port = reader.port(f"{what}'s port")
        problem = _candidate_problem(kind, address)
        if problem is not None:
            raise InviteError(f"the invite's {what} ({kind.value} {address}:{port}): {problem}")
        direct.append(Candidate(kind, address, port))
        previous_port = port
    problem = _candidates_problem(direct)
    if problem is not None:
        raise InviteError(f"the invite's direct candidates: {problem}")
    relay: tuple[str, int] | None = None
    if has_relay:
        offset = reader.offset
        size = reader.byte("the relay's host length")
        if not 1 <= size <= MAX_HOST_LEN:
            raise InviteError(
                f"the invite's relay host length (byte {offset}) is {size}: it must be "
                f"1-{MAX_HOST_LEN}"
            )
        raw = reader.take(size, "the relay's host")
        try:
            host = raw.decode("ascii")
        except UnicodeDecodeError as exc:
            raise InviteError(
                f"the invite's relay host (byte {offset + 1}) is not ASCII: {raw!r}"
            ) from exc
        problem = _host_problem(host)
        if problem is not None:
            raise InviteError(f"the invite's relay host {host!r} (byte {offset + 1}): {problem}")
        relay = (host, reader.port("relay's port"))
    if reader.offset != len(payload):
        raise InviteError(
            f"the invite's payload has {len(payload) - reader.offset} bytes after its last "
            f"field (from byte {reader.offset})"
        )
    fingerprint = base64.b32encode(fingerprint_bytes).decode("ascii")
    invite = Invite(
        "-".join(fingerprint[i : i + 4] for i in range(0, 16, 4)),
        secret,
        tuple(direct),
        relay,
        watch=bool(counts & _COUNTS_WATCH),
    )
    if invite.payload() != payload:
        raise InviteError(
            "the invite's payload is not in its one canonical form (a candidate repeats the "
            "previous port instead of taking it)"
        )
    return invite
