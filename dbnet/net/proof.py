"""The proof that a peer knows an invite's secret, bound to one connection.

An invite (``dbnet.net.invite``) carries a fresh one-game secret. Whoever plays
through the invite shows that it knows the secret in its HELLO, which travels
inside the authenticated channel: ``proof(secret, transcript, role)`` is an
HMAC-SHA256 keyed by the secret over the channel's final transcript hash (the
same on both sides, different for every handshake) and the sender's role. So
the proof cannot be replayed on another connection, nor reflected back by the
other side, and it tells nothing of the secret. A relay that glues the two TCP
streams, or anyone who learned the relay token (a one-way hash of the secret),
sees only encrypted frames and cannot make one.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Final

from dbnet.protocol.identity import Identity

__all__ = [
    "PROOF_SIZE",
    "SECRET_SIZE",
    "invite_secret",
    "proof",
    "proof_matches",
    "watch_proof",
    "watch_proof_matches",
    "watch_secret",
]

PROOF_SIZE: Final = 32
SECRET_SIZE: Final = 16  # dbnet.net.invite.SECRET_SIZE
_LABEL: Final = b"dbnet invite proof 1\x00"
_SECRET_LABEL: Final = b"dbnet invite secret 1\x00"
_WATCH_SECRET_LABEL: Final = b"dbnet watch secret 1\x00"
_WATCHER: Final = b"watcher"
_ROLES: Final = {True: b"joiner", False: b"host"}


def invite_secret(identity: Identity, nonce: bytes) -> bytes:
    """The secret of the invites a host prints for the game it plays with ``nonce`` (its
    own fresh nonce, which the OFFER records): only the holder of ``identity`` can work
    it out (Ed25519 signatures are deterministic), and it works it out again when it
    resumes the game, so the invite it prints then meets a joiner still waiting with the
    first one at the same relay token."""
    signature = identity.sign(_SECRET_LABEL + nonce)
    return hashlib.sha256(_SECRET_LABEL + signature).digest()[:SECRET_SIZE]


def watch_secret(identity: Identity, nonce: bytes) -> bytes:
    """The secret of the spectator invites a host prints for the game it plays with
    ``nonce``: made like ``invite_secret`` but under another label, so it is never the
    seat's secret, and a proof made with it never takes a seat."""
    signature = identity.sign(_WATCH_SECRET_LABEL + nonce)
    return hashlib.sha256(_WATCH_SECRET_LABEL + signature).digest()[:SECRET_SIZE]


def watch_proof(secret: bytes, transcript: bytes) -> bytes:
    """What a spectator sends in its WATCH on the connection whose handshake ended with
    ``transcript`` (the role ``watcher``: neither a joiner's nor a host's proof)."""
    message = _LABEL + _WATCHER + b"\x00" + transcript
    return hmac.new(secret, message, hashlib.sha256).digest()


def watch_proof_matches(secret: bytes, transcript: bytes, received: bytes | None) -> bool:
    """Whether ``received`` is the spectator's proof of ``secret`` on this connection;
    compared in constant time."""
    if received is None:
        return False
    return hmac.compare_digest(watch_proof(secret, transcript), received)


def proof(secret: bytes, transcript: bytes, *, joiner: bool) -> bytes:
    """What the joiner (``joiner=True``) or the host sends in its HELLO on the
    connection whose handshake ended with ``transcript``."""
    message = _LABEL + _ROLES[joiner] + b"\x00" + transcript
    return hmac.new(secret, message, hashlib.sha256).digest()


def proof_matches(
    secret: bytes, transcript: bytes, received: bytes | None, *, joiner: bool
) -> bool:
    """Whether ``received`` is the proof the joiner (or host) must send on this
    connection; compared in constant time."""
    if received is None:
        return False
    return hmac.compare_digest(proof(secret, transcript, joiner=joiner), received)
