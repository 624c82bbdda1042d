"""Which 32-byte strings can be a player's Ed25519 public key: the one check that every
reader of keys (wire messages, replay headers, known peers) shares."""

from __future__ import annotations

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
#
# The eight points are told apart by y alone: y = 1 is the identity (x = 0), y = p - 1 the
# point of order 2 (x = 0), y = 0 the two of order 4, and y = Y8 or p - Y8 the four of order
# 8. Any other y names a point of larger order, or none on the curve (no signature verifies
# under such a key, so there is nothing to refuse). So no square root is taken here, which
# costs a hundred times the rest; tests/protocol/test_identity.py derives the eight points
# and their orders independently.

_P: Final = 2**255 - 19
_Y8: Final = 0x05FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826
_SMALL_ORDER: Final = {1: 1, _P - 1: 2, 0: 4, _Y8: 8, _P - _Y8: 8}
"""The order of the points with each y coordinate that only points of order 1, 2, 4 or 8
have."""
_Y_MASK: Final = (1 << 255) - 1


def public_key_problem(public_key: bytes) -> str | None:
    """Why ``public_key`` cannot be a peer's Ed25519 key, or None if it can.

    Refused: anything but 32 bytes, a non-canonical encoding, and the small-order points
    (order 1, 2, 4 or 8), whatever their encoding. This is the one place that decides.
    """
    if type(public_key) is not bytes or len(public_key) != PUBLIC_KEY_SIZE:
        return f"not {PUBLIC_KEY_SIZE} bytes: {public_key!r}"
    number = int.from_bytes(public_key, "little")
    y = number & _Y_MASK
    if y >= _P:
        return "not canonical (its y coordinate is not reduced modulo 2^255 - 19)"
    order = _SMALL_ORDER.get(y)
    if order is None:
        return None
    if order <= 2 and number >> 255:
        return "not canonical (x is 0 but its sign bit is set)"
    return (
        f"a small-order point (order {order}) that no private key matches: a signature "
        "under it proves nothing"
    )
