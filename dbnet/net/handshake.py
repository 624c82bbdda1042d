"""The channel handshake and the encrypted channel it yields, sans-IO.

The handshake has the shape of Noise XX and SIGMA-I, built from ``cryptography``
primitives: fresh X25519 keys on both sides, a running SHA-256 transcript hash,
HKDF-SHA256, ChaCha20-Poly1305, and each side's long-term Ed25519 identity
signing the transcript. ``docs/channel.md`` specifies every byte::

    initiator                                  responder
    preamble: b"DBNET\\0" n versions    <->    preamble (both send theirs at once)
    1: e_i                               ->
                                         <-    2: e_r || AEAD(id_r || sig_r)
    3: AEAD(id_i || sig_i)               ->
    encrypted frames                    <->    encrypted frames

No sockets, clock or framing here: payloads in, payloads out. Usage::

    handshake = Handshake(identity, initiator=True)
    send(handshake.start())                    # payloads to frame and send now
    while not handshake.done:
        send(handshake.receive(next_payload()))
    channel = handshake.channel()              # channel.peer_key is authenticated

Whether ``channel.peer_key`` is the key expected (known peers, ``--expect``) is
the caller's decision; the handshake only guarantees that the peer holds its
private half and that both sides saw the same messages.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from dbnet.net.errors import (
    AuthenticationError,
    ChannelError,
    FrameError,
    HandshakeError,
    LocalNetError,
    VersionMismatchError,
)
from dbnet.net.framing import MAX_FRAME, MAX_PLAINTEXT, TAG_SIZE
from dbnet.protocol.identity import Identity, fingerprint, public_key_problem, verify

__all__ = [
    "CHAT_VERSION",
    "HOST",
    "JOINER",
    "MAGIC",
    "MAX_NONCE",
    "PUNCH_VERSION",
    "SUPPORTED_VERSIONS",
    "Channel",
    "Handshake",
    "choose_version",
    "encode_preamble",
    "parse_preamble",
]

CHAT_VERSION: Final = 4
"""The first channel version with the CHAT message (``dbnet.net.chat``) and the REMATCH
message (``dbnet.net.rematch``)."""
ROLES_VERSION: Final = 4
"""The first version whose handshake carries the roles; before it the initiator is the
joiner."""
PUNCH_VERSION: Final = 5
"""The first version with the PUNCH message (``dbnet.net.punch``)."""
_ALL_VERSIONS: Final[tuple[int, ...]] = (5, 4, 3)
_CAP: Final = os.environ.get("DBNET_CHANNEL_VERSION", "")
SUPPORTED_VERSIONS: Final[tuple[int, ...]] = (
    tuple(v for v in _ALL_VERSIONS if v <= int(_CAP)) or _ALL_VERSIONS
    if _CAP.isdigit()
    else _ALL_VERSIONS
)
"""The channel versions this build speaks. Version 2 (game protocol 2) added the joiner's
nonce to HELLO, version 3 the proof of an invite's secret, version 4 the roles in the
handshake (which side is the host, whoever connected), the players' CHAT, REMATCH and
the joiner's CANDIDATES (a peer of version 3 plays on without chat, cannot rematch
(``dbnet.net.rematch``), and its game stays on the path it connected by), version 5
the PUNCH of hole punching (with a peer of version 4 a relayed game stays relayed,
unless the joiner's router maps a port); a peer that
speaks only an older version is told that one side must upgrade.
``DBNET_CHANNEL_VERSION=3`` in the environment offers only the versions up to 3 (to play
as an older dbnet does: tests, troubleshooting)."""
HOST: Final = "host"
"""The role of the side that serves the game (writes the OFFER, admits spectators)."""
JOINER: Final = "joiner"
"""The role of the side that comes to the host: a joiner, a resumer, a spectator."""

MAGIC: Final = b"DBNET\x00"
MAX_VERSIONS: Final = 255
MAX_VERSION: Final = 0xFFFF
KEY_SIZE: Final = 32  # X25519 and Ed25519 public keys, symmetric keys, hashes
SIGNATURE_SIZE: Final = 64
MESSAGE1_SIZE: Final = KEY_SIZE
MESSAGE2_SIZE: Final = KEY_SIZE + KEY_SIZE + SIGNATURE_SIZE + TAG_SIZE  # 144
MESSAGE3_SIZE: Final = KEY_SIZE + SIGNATURE_SIZE + TAG_SIZE  # 112
MAX_NONCE: Final = 2**64 - 1
"""The last nonce (frame counter) a key may use."""

PROTOCOL_NAME: Final = b"dbnet channel 1: X25519 HKDF-SHA256 ChaCha20-Poly1305 Ed25519"
SIGNATURE_CONTEXT: Final = b"dbnet channel 1: signature\x00"
INITIATOR: Final = b"initiator"
RESPONDER: Final = b"responder"
HANDSHAKE_I2R: Final = b"dbnet channel 1: handshake initiator->responder"
HANDSHAKE_R2I: Final = b"dbnet channel 1: handshake responder->initiator"
TRAFFIC_I2R: Final = b"dbnet channel 1: traffic initiator->responder"
TRAFFIC_R2I: Final = b"dbnet channel 1: traffic responder->initiator"
ROLES: Final = {
    True: b"dbnet channel 4: the host is the initiator",
    False: b"dbnet channel 4: the host is the responder",
}

_ZERO_NONCE: Final = bytes(12)


# --- the preamble ------------------------------------------------------------------------


def encode_preamble(versions: Sequence[int]) -> bytes:
    """``MAGIC || u8 n || n x u16 BE``, the versions in strictly decreasing order.

    Raises:
        LocalNetError: no versions, more than 255, one outside 1..65535, or a repeat.
    """
    ordered = _check_versions(versions)
    return MAGIC + bytes([len(ordered)]) + b"".join(v.to_bytes(2, "big") for v in ordered)


def parse_preamble(payload: bytes) -> tuple[int, ...]:
    """The versions a peer's preamble offers, highest first.

    Raises:
        HandshakeError: the payload is not a well-formed preamble.
    """
    if not payload.startswith(MAGIC):
        raise HandshakeError(
            f"handshake: the peer's first frame {payload[:16]!r} is not a dbnet preamble "
            f"(which starts {MAGIC!r}): the peer does not speak dbnet"
        )
    if len(payload) < len(MAGIC) + 1:
        raise HandshakeError(f"handshake: the peer's preamble stops after {len(payload)} bytes")
    count = payload[len(MAGIC)]
    size = len(MAGIC) + 1 + 2 * count
    if count == 0:
        raise HandshakeError("handshake: the peer's preamble offers no version")
    if len(payload) != size:
        raise HandshakeError(
            f"handshake: the peer's preamble offers {count} versions, so it should be "
            f"{size} bytes, but it is {len(payload)}"
        )
    start = len(MAGIC) + 1
    versions = tuple(int.from_bytes(payload[i : i + 2], "big") for i in range(start, size, 2))
    if 0 in versions or any(a <= b for a, b in itertools.pairwise(versions)):
        raise HandshakeError(
            f"handshake: the peer's preamble must list versions from 1 to {MAX_VERSION} in "
            f"strictly decreasing order, got {list(versions)}"
        )
    return versions


def choose_version(ours: Sequence[int], theirs: Sequence[int]) -> int:
    """The highest version both sides offer.

    Raises:
        VersionMismatchError: there is none.
    """
    common = set(ours) & set(theirs)
    if not common:
        raise VersionMismatchError(sorted(ours, reverse=True), sorted(theirs, reverse=True))
    return max(common)


def _check_versions(versions: Sequence[int]) -> tuple[int, ...]:
    offered = tuple(versions)
    if (
        not 1 <= len(offered) <= MAX_VERSIONS
        or any(type(v) is not int or not 1 <= v <= MAX_VERSION for v in offered)
        or len(set(offered)) != len(offered)
    ):
        raise LocalNetError(
            f"versions must be 1 to {MAX_VERSIONS} distinct integers from 1 to {MAX_VERSION}, "
            f"not {list(offered)!r}"
        )
    return tuple(sorted(offered, reverse=True))


# --- primitives --------------------------------------------------------------------------


def _mix(transcript: bytes, data: bytes) -> bytes:
    return hashlib.sha256(transcript + data).digest()


def _derive(secret: bytes, salt: bytes, label: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=KEY_SIZE, salt=salt, info=label).derive(secret)


def _nonce(counter: int) -> bytes:
    return bytes(4) + counter.to_bytes(8, "big")


def _signed_message(role: bytes, transcript: bytes) -> bytes:
    return SIGNATURE_CONTEXT + role + transcript


# --- the channel -------------------------------------------------------------------------


class _Cipher:
    """One direction of a channel: a key and the counter that makes its nonces."""

    __slots__ = ("_aead", "counter", "failure")

    def __init__(self, key: bytes, counter: int) -> None:
        if len(key) != KEY_SIZE:
            raise LocalNetError(f"a channel key is {KEY_SIZE} bytes, not {len(key)}")
        if not 0 <= counter <= MAX_NONCE + 1:
            raise LocalNetError(f"a frame counter is from 0 to 2**64, not {counter}")
        self._aead = ChaCha20Poly1305(key)
        self.counter = counter
        self.failure: str | None = None

    def encrypt(self, plaintext: bytes) -> bytes:
        if self.counter > MAX_NONCE:
            raise ChannelError(
                "cannot send: this channel has used all 2**64 nonces of its key; reconnect "
                "for fresh keys"
            )
        ciphertext = self._aead.encrypt(_nonce(self.counter), plaintext, None)
        self.counter += 1
        return ciphertext

    def decrypt(self, ciphertext: bytes) -> bytes:
        if self.failure is not None:
            raise ChannelError(
                f"cannot receive: {self.failure}; the channel stays unusable (reconnect)"
            )
        number = self.counter
        if number > MAX_NONCE:
            raise ChannelError(
                "cannot receive: the peer has used all 2**64 nonces of its key; reconnect"
            )
        if len(ciphertext) > MAX_FRAME:
            raise FrameError(
                f"incoming frame {number}: {len(ciphertext)} bytes is more than the limit of "
                f"{MAX_FRAME} bytes"
            )
        try:
            if len(ciphertext) < TAG_SIZE:
                raise InvalidTag
            plaintext = self._aead.decrypt(_nonce(number), ciphertext, None)
        except InvalidTag:
            self.failure = f"incoming frame {number} failed authentication"
            raise ChannelError(
                f"incoming frame {number} failed authentication: the bytes were changed, "
                "dropped or replayed in transit"
            ) from None
        self.counter += 1
        return plaintext


@dataclass(frozen=True, slots=True, eq=False)
class Channel:
    """The encrypted channel of a finished handshake: one key and counter per direction.

    Every frame is ChaCha20-Poly1305 under this side's sending key with the nonce
    ``4 zero bytes || u64 BE counter``, the counter starting at 0 for the first
    frame and going up by one; so a frame that is altered, dropped, replayed or
    moved fails to decrypt. Get one from ``Handshake.channel()``; ``from_keys`` is
    for tests and test vectors.
    """

    peer_key: bytes
    """The other side's Ed25519 identity key; it proved it holds the private half."""
    version: int
    """The channel version both sides chose."""
    transcript: bytes
    """The final transcript hash, the same on both sides: an identifier of the session."""
    _sender: _Cipher = field(repr=False)
    _receiver: _Cipher = field(repr=False)
    role: str = JOINER
    """This side's role, ``HOST`` or ``JOINER`` (the peer has the other): from version 4
    bound into the transcript, whoever connected; before it the initiator's is JOINER."""

    def __repr__(self) -> str:
        return f"<Channel v{self.version} with {fingerprint(self.peer_key)}>"

    @classmethod
    def from_keys(
        cls,
        *,
        peer_key: bytes,
        version: int,
        transcript: bytes,
        send_key: bytes,
        receive_key: bytes,
        send_counter: int = 0,
        receive_counter: int = 0,
        role: str = JOINER,
    ) -> Channel:
        """A channel from its keys (and, for tests, counters other than 0)."""
        return cls(
            peer_key,
            version,
            transcript,
            _Cipher(send_key, send_counter),
            _Cipher(receive_key, receive_counter),
            role,
        )

    @property
    def sent(self) -> int:
        """How many frames were encrypted: the counter of the next one."""
        return self._sender.counter

    @property
    def received(self) -> int:
        """How many frames were decrypted: the counter expected next."""
        return self._receiver.counter

    def encrypt(self, plaintext: bytes) -> bytes:
        """The next frame's ciphertext (plaintext plus 16 bytes of tag).

        Raises:
            FrameError: ``plaintext`` is longer than ``MAX_PLAINTEXT``.
            ChannelError: the sending key has used all its nonces.
        """
        if len(plaintext) > MAX_PLAINTEXT:
            raise FrameError(
                f"outgoing message: {len(plaintext)} bytes is more than the limit of "
                f"{MAX_PLAINTEXT} bytes"
            )
        return self._sender.encrypt(plaintext)

    def decrypt(self, ciphertext: bytes) -> bytes:
        """The plaintext of the next frame received.

        Raises:
            ChannelError: the frame failed authentication (altered, dropped, replayed,
                reordered or forged); the receiving side stays unusable afterwards.
            FrameError: the frame is longer than ``MAX_FRAME``.
        """
        return self._receiver.decrypt(ciphertext)


# --- the handshake -----------------------------------------------------------------------


class _State(enum.Enum):
    NEW = "not started"
    PREAMBLE = "the peer's preamble"
    MESSAGE1 = "handshake message 1"
    MESSAGE2 = "handshake message 2"
    MESSAGE3 = "handshake message 3"
    DONE = "done"
    FAILED = "failed"


class Handshake:
    """One side of a handshake. See the module docstring for the flow.

    Args:
        identity: this side's long-term Ed25519 identity.
        initiator: True on the side that connected (it sends messages 1 and 3).
        versions: the channel versions this side offers.
        ephemeral: the raw X25519 private key to use instead of a fresh one, for test
            vectors only (reusing one would give away past sessions).
        role: this side's role, ``HOST`` or ``JOINER``; None: the initiator is the joiner
            (the only way before version 4). From version 4 the roles are mixed into the
            transcript, so two sides that disagree on them (two hosts, two joiners) fail
            the handshake; a version 3 peer can only play the role its side implies.

    Raises:
        LocalNetError: bad ``versions``, ``ephemeral`` or ``role``.
    """

    def __init__(
        self,
        identity: Identity,
        *,
        initiator: bool,
        versions: Sequence[int] = SUPPORTED_VERSIONS,
        ephemeral: bytes | None = None,
        role: str | None = None,
    ) -> None:
        self._identity = identity
        self.initiator = initiator
        if role is None:
            role = JOINER if initiator else HOST
        if role not in (HOST, JOINER):
            raise LocalNetError(f"a role is {HOST!r} or {JOINER!r}, not {role!r}")
        self.role = role
        self.versions = _check_versions(versions)
        if ephemeral is None:
            self._ephemeral = X25519PrivateKey.generate()
        elif type(ephemeral) is bytes and len(ephemeral) == KEY_SIZE:
            self._ephemeral = X25519PrivateKey.from_private_bytes(ephemeral)
        else:
            raise LocalNetError(f"an X25519 private key is {KEY_SIZE} bytes")
        self._ephemeral_public = self._ephemeral.public_key().public_bytes_raw()
        self._preamble = encode_preamble(self.versions)
        self._state = _State.NEW
        self._failure = ""
        self._transcript = hashlib.sha256(PROTOCOL_NAME).digest()
        self._secret = b""  # X25519(e_i, e_r), once known
        self._handshake_keys = (b"", b"")  # (initiator->responder, responder->initiator)
        self._peer_key = b""
        self.peer_versions: tuple[int, ...] | None = None
        """The versions the peer offered, once its preamble is in."""
        self.version: int | None = None
        """The version chosen, once the peer's preamble is in."""
        self._channel: Channel | None = None

    def __repr__(self) -> str:
        role = "initiator" if self.initiator else "responder"
        return f"<Handshake {role} of {self._identity.fingerprint}: {self.waiting_for}>"

    @property
    def done(self) -> bool:
        """Whether the handshake is complete: ``channel()`` may be called."""
        return self._state is _State.DONE

    @property
    def waiting_for(self) -> str:
        """What the handshake waits for now, for messages: "handshake message 2", "done"."""
        return self._state.value

    def start(self) -> list[bytes]:
        """The payloads to send first: the preamble, and for the initiator message 1.

        Raises:
            LocalNetError: called twice.
        """
        self._expect(_State.NEW, "start()")
        self._state = _State.PREAMBLE
        if self.initiator:
            return [self._preamble, self._ephemeral_public]
        return [self._preamble]

    def receive(self, payload: bytes) -> list[bytes]:
        """Handle one payload from the peer; return the payloads to send in reply.

        Raises:
            VersionMismatchError: the preambles have no version in common.
            AuthenticationError: a message failed decryption or its signature did not
                verify: it was tampered with, replayed, or signed by another key.
            HandshakeError: a malformed message.
            LocalNetError: called before ``start()``, after the end, or after a failure.
        """
        state = self._state
        if state in (_State.NEW, _State.DONE, _State.FAILED):
            self._expect(_State.PREAMBLE, "receive()")
        try:
            if state is _State.PREAMBLE:
                return self._receive_preamble(payload)
            if state is _State.MESSAGE1:
                return self._receive_message1(payload)
            if state is _State.MESSAGE2:
                return self._receive_message2(payload)
            return self._receive_message3(payload)
        except BaseException as exc:
            self._state = _State.FAILED
            self._failure = str(exc)
            self._secret = b""
            self._handshake_keys = (b"", b"")
            raise

    def channel(self) -> Channel:
        """The encrypted channel; always the same object (its counters must not be shared).

        Raises:
            LocalNetError: the handshake is not done.
        """
        if self._channel is None:
            self._expect(_State.DONE, "channel()")
        assert self._channel is not None
        return self._channel

    # --- the steps ---

    def _receive_preamble(self, payload: bytes) -> list[bytes]:
        self.peer_versions = parse_preamble(payload)
        self.version = choose_version(self.versions, self.peer_versions)
        host_initiates = (self.role == HOST) == self.initiator
        if self.version < ROLES_VERSION and host_initiates:
            raise VersionMismatchError(
                [v for v in self.versions if v >= ROLES_VERSION],
                list(self.peer_versions),
                what=(
                    f"the {self.role} connected to the other side here, which needs channel "
                    f"version {ROLES_VERSION} or later (the roles in the handshake)"
                ),
            )
        if self.initiator:
            self._mix(self._preamble)
            self._mix(payload)
        else:
            self._mix(payload)
            self._mix(self._preamble)
        if self.version >= ROLES_VERSION:
            self._mix(ROLES[host_initiates])
        if self.initiator:
            self._mix(self._ephemeral_public)  # message 1, sent already
            self._state = _State.MESSAGE2
        else:
            self._state = _State.MESSAGE1
        return []

    def _receive_message1(self, payload: bytes) -> list[bytes]:
        _check_size(payload, MESSAGE1_SIZE, "handshake message 1 (the initiator's X25519 key)")
        self._mix(payload)
        self._mix(self._ephemeral_public)
        self._key_exchange(payload, "handshake message 1")
        sealed = self._seal(RESPONDER, self._handshake_keys[1])
        self._state = _State.MESSAGE3
        return [self._ephemeral_public + sealed]

    def _receive_message2(self, payload: bytes) -> list[bytes]:
        _check_size(payload, MESSAGE2_SIZE, "handshake message 2")
        ephemeral = payload[:KEY_SIZE]
        self._mix(ephemeral)
        self._key_exchange(ephemeral, "handshake message 2")
        self._open(payload[KEY_SIZE:], self._handshake_keys[1], "handshake message 2", RESPONDER)
        sealed = self._seal(INITIATOR, self._handshake_keys[0])
        self._finish()
        return [sealed]

    def _receive_message3(self, payload: bytes) -> list[bytes]:
        _check_size(payload, MESSAGE3_SIZE, "handshake message 3")
        self._open(payload, self._handshake_keys[0], "handshake message 3", INITIATOR)
        self._finish()
        return []

    # --- helpers ---

    def _mix(self, data: bytes) -> None:
        self._transcript = _mix(self._transcript, data)

    def _key_exchange(self, peer_ephemeral: bytes, what: str) -> None:
        try:
            secret = self._ephemeral.exchange(X25519PublicKey.from_public_bytes(peer_ephemeral))
        except ValueError as exc:  # an all-zero result: a low-order point
            raise AuthenticationError(
                f"{what}: the peer's X25519 key {peer_ephemeral.hex()} is a low-order point "
                "that gives no shared secret"
            ) from exc
        self._secret = secret
        self._handshake_keys = (
            _derive(secret, self._transcript, HANDSHAKE_I2R),
            _derive(secret, self._transcript, HANDSHAKE_R2I),
        )

    def _seal(self, role: bytes, key: bytes) -> bytes:
        """Our identity key and our signature of the transcript, encrypted; both mixed in.

        The associated data is the transcript before them.
        """
        associated_data = self._transcript
        self._mix(self._identity.public_key)
        signature = self._identity.sign(_signed_message(role, self._transcript))
        self._mix(signature)
        plaintext = self._identity.public_key + signature
        return ChaCha20Poly1305(key).encrypt(_ZERO_NONCE, plaintext, associated_data)

    def _open(self, sealed: bytes, key: bytes, what: str, role: bytes) -> None:
        """Decrypt the peer's identity key and signature, check the signature, mix them in."""
        try:
            plaintext = ChaCha20Poly1305(key).decrypt(_ZERO_NONCE, sealed, self._transcript)
        except InvalidTag:
            raise AuthenticationError(
                f"{what} failed authentication: it was altered or replayed from another "
                "handshake, or a preamble or X25519 key was rewritten in transit"
            ) from None
        peer_key, signature = plaintext[:KEY_SIZE], plaintext[KEY_SIZE:]
        problem = public_key_problem(peer_key)
        if problem is not None:
            raise AuthenticationError(
                f"{what}: the {role.decode()}'s identity key {peer_key.hex()} is {problem}"
            )
        self._mix(peer_key)
        if not verify(peer_key, signature, _signed_message(role, self._transcript)):
            raise AuthenticationError(
                f"{what}: the {role.decode()}'s signature does not verify with the key it "
                f"presents ({fingerprint(peer_key)}): it does not hold that key"
            )
        self._mix(signature)
        self._peer_key = peer_key

    def _finish(self) -> None:
        i2r = _derive(self._secret, self._transcript, TRAFFIC_I2R)
        r2i = _derive(self._secret, self._transcript, TRAFFIC_R2I)
        assert self.version is not None
        self._channel = Channel.from_keys(
            peer_key=self._peer_key,
            version=self.version,
            transcript=self._transcript,
            send_key=i2r if self.initiator else r2i,
            receive_key=r2i if self.initiator else i2r,
            role=self.role,
        )
        self._secret = b""
        self._handshake_keys = (b"", b"")
        self._state = _State.DONE

    def _expect(self, state: _State, call: str) -> None:
        if self._state is state:
            return
        if self._state is _State.FAILED:
            raise LocalNetError(f"{call}: the handshake failed earlier: {self._failure}")
        if self._state is _State.DONE:
            raise LocalNetError(f"{call}: the handshake is already done")
        if self._state is _State.NEW:
            raise LocalNetError(f"{call}: the handshake is not started (call start() first)")
        raise LocalNetError(f"{call}: the handshake is waiting for {self._state.value}")


def _check_size(payload: bytes, size: int, what: str) -> None:
    if len(payload) != size:
        raise HandshakeError(f"{what}: expected {size} bytes, got {len(payload)}")
