"""Ed25519 arithmetic written out in Python, to make the signatures that implementations
disagree on: over any message, with a key whose secret scalar is known.

The curve and the encoding are RFC 8032's (section 5.1); points are kept in extended
coordinates (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z. Decoding is permissive (y is taken
modulo p), so that non-canonical encodings decode to the point they name. Slow (a few
milliseconds a scalar multiplication) and not constant-time: for tests only.
"""

from __future__ import annotations

import hashlib
from typing import Final, NamedTuple

P: Final = 2**255 - 19
L: Final = 2**252 + 27742317777372353535851937790883648493
"""The order of the base point (and of the prime-order subgroup)."""
D: Final = -121665 * pow(121666, -1, P) % P
_SQRT_M1: Final = pow(2, (P - 1) // 4, P)


class Point(NamedTuple):
    x: int
    y: int
    z: int
    t: int


IDENTITY: Final = Point(0, 1, 1, 0)


def add(a: Point, b: Point) -> Point:
    """RFC 8032 section 5.1.4, the addition law for a = -1."""
    pa = (a.y - a.x) * (b.y - b.x) % P
    pb = (a.y + a.x) * (b.y + b.x) % P
    pc = 2 * a.t * b.t * D % P
    pd = 2 * a.z * b.z % P
    e, f, g, h = pb - pa, pd - pc, pd + pc, pb + pa
    return Point(e * f % P, g * h % P, f * g % P, e * h % P)


def neg(a: Point) -> Point:
    return Point(-a.x % P, a.y, a.z, -a.t % P)


def mul(scalar: int, point: Point) -> Point:
    result = IDENTITY
    while scalar > 0:
        if scalar & 1:
            result = add(result, point)
        point = add(point, point)
        scalar >>= 1
    return result


def same(a: Point, b: Point) -> bool:
    return (a.x * b.z - b.x * a.z) % P == 0 and (a.y * b.z - b.y * a.z) % P == 0


def encode(point: Point) -> bytes:
    """The canonical encoding."""
    inverse = pow(point.z, -1, P)
    x, y = point.x * inverse % P, point.y * inverse % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def decode(encoding: bytes) -> Point:
    """The point ``encoding`` names, y taken modulo p (RFC 8032 section 5.1.3, without
    its refusal of y >= p)."""
    number = int.from_bytes(encoding, "little")
    y, sign = (number & ((1 << 255) - 1)) % P, number >> 255
    xx = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    x = pow(xx, (P + 3) // 8, P)
    if x * x % P != xx:
        x = x * _SQRT_M1 % P
    if x * x % P != xx:
        raise ValueError(f"{encoding.hex()} is not on the curve")
    if x & 1 != sign:
        x = -x % P
    return Point(x, y, 1, x * y % P)


BASE: Final = decode((4 * pow(5, -1, P) % P).to_bytes(32, "little"))
TORSION: Final = decode(
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
)
"""A point of order 8: its multiples are the eight points of order dividing 8."""


def order_of_torsion(point: Point) -> int:
    """The order of ``point`` if it divides 8, else 0."""
    multiple = point
    for order in range(1, 9):
        if same(multiple, IDENTITY):
            return order
        multiple = add(multiple, point)
    return 0


def secret_scalar(seed: bytes) -> int:
    """The clamped scalar a of an RFC 8032 private key (its public key is a B)."""
    digest = hashlib.sha512(seed).digest()
    return int.from_bytes(digest[:32], "little") & ~7 & ((1 << 254) - 1) | 1 << 254


def challenge(r: bytes, a: bytes, message: bytes) -> int:
    """k = SHA-512(R || A || M) modulo L."""
    return int.from_bytes(hashlib.sha512(r + a + message).digest(), "little") % L


def signature(r: bytes, s: int) -> bytes:
    return r + s.to_bytes(32, "little")


class Key(NamedTuple):
    """A key whose scalar is known: ``public`` is the encoding of ``scalar`` B plus
    ``torsion`` (the identity point for a key of prime order, as every real key is)."""

    scalar: int
    public: bytes

    @classmethod
    def of_seed(cls, seed: bytes, torsion: Point = IDENTITY) -> Key:
        scalar = secret_scalar(seed)
        return cls(scalar, encode(add(mul(scalar, BASE), torsion)))


def nonce(key: Key, message: bytes, attempt: int) -> int:
    """A nonce fixed by the key, the message and the attempt (so tests repeat)."""
    seed = key.public + attempt.to_bytes(4, "little") + message
    return int.from_bytes(hashlib.sha512(b"test nonce" + seed).digest(), "little") % L


def small_order_r(key: Key, message: bytes) -> bytes:
    """R is the identity point and S = k a: the cofactorless equation S B = R + k A holds
    for a key of prime order. OpenSSL accepts it; libsodium refuses every small-order R."""
    r = encode(IDENTITY)
    return signature(r, challenge(r, key.public, message) * key.scalar % L)


def non_canonical_r(key: Key, message: bytes) -> bytes:
    """As ``small_order_r``, but R is the identity encoded with y = p + 1: the point
    S B - k A is the identity, whose canonical encoding differs from R's bytes."""
    r = (P + 1).to_bytes(32, "little")
    return signature(r, challenge(r, key.public, message) * key.scalar % L)


def non_canonical_s(genuine: bytes) -> bytes:
    """A valid signature with S + L in place of S (still below 2^253)."""
    return signature(genuine[:32], int.from_bytes(genuine[32:], "little") + L)


def mixed_order(key: Key, torsion: Point, message: bytes, *, cofactorless: bool) -> bytes:
    """A signature under the mixed-order key a B + ``torsion`` (``key.public``).

    With ``cofactorless``, R = r B + T' where T' cancels k ``torsion``, so that S B = R + k A
    holds exactly (a nonce is tried until one of the eight T' fits); both libraries accept
    such a signature, as in speccheck's case 3. Without it, R = r B and k ``torsion`` is not
    the identity: only the cofactored equation 8 S B = 8 R + 8 k A holds, and both refuse
    it (speccheck's cases 4 and 5)."""
    for attempt in range(256):
        r_scalar = nonce(key, message, attempt)
        r_point = mul(r_scalar, BASE)
        candidates = [mul(j, TORSION) for j in range(8)] if cofactorless else [IDENTITY]
        for extra in candidates:
            r = encode(add(r_point, extra))
            k = challenge(r, key.public, message)
            cancels = same(add(extra, mul(k, torsion)), IDENTITY)
            if cancels == cofactorless:
                return signature(r, (r_scalar + k * key.scalar) % L)
    raise AssertionError("no nonce fitted in 256 attempts")
