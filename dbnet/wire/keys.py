"""Which 32-byte strings can be a player's Ed25519 public key: the one check that every
reader of keys (wire messages, replay headers, known peers) shares."""

from __future__ import annotations

import functools
from typing import Final

PUBLIC_KEY_SIZE: Final = 32

# --- degenerate public keys ----------------------------------------------------------------
#
# Ed25519 is the twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 over GF(p), p = 2^255 - 19
# (RFC 8032). A public key encodes y (255 bits, little-endian) and the sign of x (the top
# bit). Eight points have an order dividing 8; no private key yields them, and a signature
# "under" one proves nothing: with the identity point as key, R = identity and S = 0 verify
# for every message. Encodings with y >= p, or x = 0 with the sign bit set, are not
# canonical: a private key never yields them either.

_P: Final = 2**255 - 19
_D: Final = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1: Final = pow(2, (_P - 1) // 4, _P)
_Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z


def _decode_point(key: bytes) -> tuple[int, int] | str:
    """The affine point (x, y) that ``key`` encodes, or why it is not canonical."""
    number = int.from_bytes(key, "little")
    y, sign = number & ((1 << 255) - 1), number >> 255
    if y >= _P:
        return "not canonical (its y coordinate is not reduced modulo 2^255 - 19)"
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if (v * x * x - u) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (v * x * x - u) % _P != 0:
        return ""  # not on the curve: no signature verifies under it, nothing to refuse here
    if x == 0 and sign:
        return "not canonical (x is 0 but its sign bit is set)"
    if x & 1 != sign:
        x = _P - x
    return x, y


def _double(point: _Point) -> _Point:
    """2 * point (RFC 8032, section 5.1.4, dbl-2008-hwcd)."""
    x1, y1, z1, _ = point
    a, b, c = x1 * x1 % _P, y1 * y1 % _P, 2 * z1 * z1 % _P
    h = (a + b) % _P
    e = (h - (x1 + y1) * (x1 + y1)) % _P
    g = (a - b) % _P
    f = (c + g) % _P
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def public_key_problem(public_key: bytes) -> str | None:
    """Why ``public_key`` cannot be a peer's Ed25519 key, or None if it can.

    Refused: anything but 32 bytes, a non-canonical encoding, and the small-order points
    (order 1, 2, 4 or 8), whatever their encoding. This is the one place that decides.
    """
    if type(public_key) is not bytes or len(public_key) != PUBLIC_KEY_SIZE:
        return f"not {PUBLIC_KEY_SIZE} bytes: {public_key!r}"
    return _point_problem(public_key)


@functools.lru_cache(maxsize=256)
def _point_problem(public_key: bytes) -> str | None:
    decoded = _decode_point(public_key)
    if isinstance(decoded, str):
        return decoded or None
    x, y = decoded
    point: _Point = (x, y, 1, x * y % _P)
    for order in (1, 2, 4, 8):
        if point[0] == 0 and point[1] == point[2]:  # the identity (0, 1)
            return (
                f"a small-order point (order {order}) that no private key matches: a "
                "signature under it proves nothing"
            )
        point = _double(point)
    return None
