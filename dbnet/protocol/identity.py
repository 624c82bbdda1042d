"""Ed25519 identity keys, their fingerprints, and the known-peers file.

A player's identity is one long-term Ed25519 key, kept in ``identity.key`` in
the configuration directory (PEM, PKCS #8, unencrypted, readable only by its
owner). Its fingerprint is short enough to read aloud over the phone.
``known_peers`` pins the key of each peer by name in the manner of SSH's
``StrictHostKeyChecking accept-new``: a new name is remembered, a known name
with another key is refused.

Files are written whole to a temporary file in the same directory and then
moved into place, so a crash leaves either the old file or the new one.

Signing and verifying are libsodium's (through PyNaCl): about 1.4 times as fast to sign
and 1.6 times as fast to verify as OpenSSL's through ``cryptography`` on the same machine
(``benchmarks/ed25519.py``), and the signatures are the same bytes (Ed25519 is
deterministic). ``cryptography`` still reads and writes the key file (PEM, PKCS #8).
libsodium's verification is OpenSSL's with one rule more: a signature whose R is a
point of order 1, 2, 4 or 8 is refused (docs/entries.md section 3).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from nacl.bindings import crypto_sign, crypto_sign_open, crypto_sign_seed_keypair
from nacl.exceptions import CryptoError

from dbnet.errors import IdentityError, KnownPeerMismatchError, WeakKeyError
from dbnet.files import BINARY, replace_atomically, sync_folder, write_temp
from dbnet.wire.keys import PUBLIC_KEY_SIZE, public_key_problem

__all__ = [
    "Identity",
    "KnownPeers",
    "check_public_key",
    "config_dir",
    "fingerprint",
    "public_key_problem",
    "same_fingerprint",
    "verifier",
    "verify",
]

KEY_FILE: Final = "identity.key"
KNOWN_PEERS_FILE: Final = "known_peers"
SIGNATURE_SIZE: Final = 64
_NAME = re.compile(r"[^\s#][^\s]*")
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")
_KNOWN_PEERS_HEADER: Final = (
    "# dbnet known peers: one line per peer, NAME SHA256-OF-PUBLIC-KEY (hex).\n"
    "# A peer whose key changed is refused; remove its line only after comparing\n"
    "# fingerprints with the peer by another channel.\n"
)


def config_dir() -> Path:
    """dbnet's configuration directory, created (mode 0700) if it does not exist.

    ``$DBNET_HOME`` if set, else ``$XDG_CONFIG_HOME/dbnet``, else ``~/.config/dbnet``.
    """
    home = os.environ.get("DBNET_HOME")
    if home:
        directory = Path(home)
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME")
        # the XDG spec says a relative path is invalid and must be ignored
        base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".config"
        directory = base / "dbnet"
    _make_dir(directory)
    return directory


def _make_dir(directory: Path) -> None:
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise IdentityError(f"{directory}: cannot create the directory: {exc.strerror}") from exc


def fingerprint(public_key: bytes) -> str:
    """A short fingerprint to read aloud, such as ``KQ3X-7ZBD-M2LA-QX4P``.

    It is the base32 of the first 10 bytes of SHA-256(public key), in four groups of four.

    Raises:
        IdentityError: if ``public_key`` is not 32 bytes.
    """
    if type(public_key) is not bytes or len(public_key) != PUBLIC_KEY_SIZE:
        raise IdentityError(f"an Ed25519 public key is 32 bytes, got {public_key!r}")
    return _fingerprint_of_digest(hashlib.sha256(public_key).digest())


def same_fingerprint(one: str, other: str) -> bool:
    """Whether two fingerprints as people write them are the same: case, dashes and
    spaces do not count (``kq3x 7zbd-m2la-qx4p`` is ``KQ3X-7ZBD-M2LA-QX4P``)."""

    def plain(text: str) -> str:
        return "".join(ch for ch in text.upper() if ch.isalnum())

    return plain(one) == plain(other)


def _fingerprint_of_digest(digest: bytes) -> str:
    text = base64.b32encode(digest[:10]).decode("ascii")  # 16 characters, no padding
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def check_public_key(public_key: bytes, what: str = "the peer's key") -> bytes:
    """``public_key``, if it can be a peer's Ed25519 key (see ``public_key_problem``).

    Raises:
        WeakKeyError: it cannot; the message names ``what`` and the key, and says why.
    """
    problem = public_key_problem(public_key)
    if problem is not None:
        shown = public_key.hex() if type(public_key) is bytes else repr(public_key)
        raise WeakKeyError(f"{what} {shown} is not a usable Ed25519 public key: {problem}")
    return public_key


def verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s Ed25519 signature of ``message``.

    False (never an exception) for a bad signature or a malformed or degenerate key
    (``public_key_problem``) or signature.
    """
    if public_key_problem(public_key) is not None:
        return False
    if type(signature) is not bytes or len(signature) != SIGNATURE_SIZE:
        return False
    if not isinstance(message, bytes):
        return False
    try:  # libsodium's crypto_sign_open: the signature, then the message it signs
        crypto_sign_open(signature + message, public_key)
    except (CryptoError, ValueError, TypeError):
        return False
    return True


def verifier(public_key: bytes) -> Callable[[bytes, bytes], bool]:
    """``verify`` for many signatures by one key: ``verifier(key)(signature, message)`` is
    ``verify(key, signature, message)``, the key checked once (``public_key_problem``),
    not at every signature: a verifier checks hundreds of a file's entries by each key."""
    if public_key_problem(public_key) is not None:
        return _never

    def check(signature: bytes, message: bytes) -> bool:
        if type(signature) is not bytes or len(signature) != SIGNATURE_SIZE:
            return False
        if not isinstance(message, bytes):
            return False
        try:
            crypto_sign_open(signature + message, public_key)
        except (CryptoError, ValueError, TypeError):
            return False
        return True

    return check


def _never(signature: bytes, message: bytes) -> bool:
    """The verifier of a key that cannot be a player's: no signature is valid."""
    return False


@dataclass(frozen=True, slots=True)
class Identity:
    """This player's Ed25519 key pair. The repr shows the fingerprint, never the private key."""

    public_key: bytes
    _secret: bytes = field(repr=False, compare=False)
    """libsodium's secret key: the 32-byte seed, then the public key."""

    def __repr__(self) -> str:
        return f"<Identity {self.fingerprint}>"

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    @classmethod
    def generate(cls) -> Identity:
        """A fresh identity that is not saved anywhere (tests, local play)."""
        return cls._of(Ed25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, raw: bytes) -> Identity:
        """The identity of a raw 32-byte Ed25519 private key (seed).

        Raises:
            IdentityError: if ``raw`` is not 32 bytes.
        """
        if type(raw) is not bytes or len(raw) != 32:
            raise IdentityError("an Ed25519 private key is 32 bytes")
        public, secret = crypto_sign_seed_keypair(raw)
        return cls(public, secret)

    @classmethod
    def _of(cls, key: Ed25519PrivateKey) -> Identity:
        seed = key.private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return cls.from_private_bytes(seed)

    @classmethod
    def load_or_create(cls, directory: Path | None = None) -> Identity:
        """The identity in ``directory/identity.key`` (default: ``config_dir()``), created
        with a fresh key if the file does not exist yet.

        Raises:
            IdentityError: if the key file can be read by group or others, is not an
                unencrypted PEM PKCS #8 Ed25519 private key, is a folder, a FIFO or a
                symbolic link to nothing, or cannot be read or written.
        """
        if directory is None:
            directory = config_dir()
        else:
            _make_dir(directory)
        path = directory / KEY_FILE
        try:
            return cls._load(path)
        except FileNotFoundError:
            if path.is_symlink():
                raise _dangling_link(path) from None
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        if not _write_new(path, pem):
            try:
                return cls._load(path)  # another process created it first: use that one
            except FileNotFoundError:
                raise IdentityError(
                    f"{path}: the identity key vanished while it was being created; run "
                    "the command again"
                ) from None
        return cls._of(key)

    @classmethod
    def _load(cls, path: Path) -> Identity:
        """The identity in ``path``; FileNotFoundError if there is none."""
        try:  # O_NONBLOCK: a FIFO put there must not block the open
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | BINARY)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise IdentityError(f"{path}: cannot open the identity key: {exc.strerror}") from exc
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
            raise IdentityError(
                f"{path}: the identity key is {what}, so dbnet cannot read your key from "
                "it; move it away (dbnet then creates a new identity, and your peers see a "
                "new fingerprint) or put your identity.key file there"
            )
        with os.fdopen(fd, "rb") as handle:
            mode = stat.S_IMODE(info.st_mode)
            if os.name == "posix" and mode & 0o077:
                raise IdentityError(
                    f"{path}: permissions {mode:04o} are too open; the identity key must be "
                    f"readable only by you (run: chmod 600 {path})"
                )
            data = handle.read(64 * 1024)
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
            raise IdentityError(
                f"{path}: not an unencrypted PEM (PKCS #8) Ed25519 private key; move the file "
                "away to create a new identity (your peers will see a new fingerprint)"
            ) from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise IdentityError(f"{path}: the key is not an Ed25519 key ({type(key).__name__})")
        return cls._of(key)

    def sign(self, message: bytes) -> bytes:
        """The Ed25519 signature (64 bytes) of ``message``."""
        return crypto_sign(message, self._secret)[:SIGNATURE_SIZE]


def _dangling_link(path: Path) -> IdentityError:
    target = os.readlink(path)
    return IdentityError(
        f"{path}: the identity key is a symbolic link to {target}, which does not exist; "
        "restore that file, point the link at your key, or remove the link (dbnet then "
        "creates a new identity, and your peers see a new fingerprint)"
    )


class KnownPeers:
    """The ``known_peers`` file: peers' names and the SHA-256 of their public keys.

    Each line is ``NAME HEX`` (NAME has no spaces and does not start with ``#``;
    HEX is 64 hex digits); blank lines and lines starting with ``#`` are
    ignored. The file is read afresh by every call.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def __repr__(self) -> str:
        return f"KnownPeers({self.path!r})"

    @classmethod
    def in_dir(cls, directory: Path | None = None) -> KnownPeers:
        """The known peers of ``directory`` (default: ``config_dir()``)."""
        if directory is None:
            directory = config_dir()
        return cls(directory / KNOWN_PEERS_FILE)

    def check(self, name: str, public_key: bytes) -> Literal["new", "known"]:
        """ "known" if ``name`` is remembered with this key, "new" if ``name`` is not known.

        Raises:
            KnownPeerMismatchError: ``name`` is remembered with another key.
            IdentityError: a malformed file (naming the line) or a malformed name or key.
        """
        digest = _digest(public_key)
        entry = self._entries().get(_check_name(name))
        if entry is None:
            return "new"
        stored, line = entry
        if stored != digest:
            raise KnownPeerMismatchError(
                f"the key of peer {name!r} has CHANGED: it is not the key remembered for that "
                f"name.\n"
                f"  remembered fingerprint: {_fingerprint_of_digest(bytes.fromhex(stored))}\n"
                f"  offered fingerprint:    {_fingerprint_of_digest(bytes.fromhex(digest))}\n"
                f"Someone may be impersonating {name!r}. If the peer really has a new key, "
                f"compare fingerprints with them by another channel (phone, in person), then "
                f"remove line {line} ({name} ...) from {self.path} and connect again."
            )
        return "known"

    def remember(self, name: str, public_key: bytes) -> None:
        """Add ``name`` with this key (nothing to do if it is already known with it).

        The whole file is rewritten atomically, so earlier lines are never lost.

        Raises:
            KnownPeerMismatchError: ``name`` is remembered with another key.
            IdentityError: a malformed file, name or key, or the file cannot be written.
        """
        if self.check(name, public_key) == "known":
            return
        try:
            old = self.path.read_text(encoding="utf-8")
            mode = stat.S_IMODE(self.path.stat().st_mode)
        except FileNotFoundError:
            old, mode = _KNOWN_PEERS_HEADER, 0o600
        except OSError as exc:
            raise IdentityError(f"{self.path}: cannot read: {exc.strerror}") from exc
        if old and not old.endswith("\n"):
            old += "\n"
        text = f"{old}{name} {_digest(public_key)}\n"
        _write_replace(self.path, text.encode("utf-8"), mode)

    def _entries(self) -> dict[str, tuple[str, int]]:
        """Name -> (digest in lower-case hex, line number)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except UnicodeDecodeError as exc:
            raise IdentityError(f"{self.path}: not UTF-8 text ({exc.reason})") from exc
        except OSError as exc:
            raise IdentityError(f"{self.path}: cannot read: {exc.strerror}") from exc
        entries: dict[str, tuple[str, int]] = {}
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split()
            if len(parts) != 2 or not _HEX_DIGEST.fullmatch(parts[1]):
                raise IdentityError(
                    f"{self.path}, line {number}: expected NAME and the 64-hex-digit SHA-256 "
                    f"of the peer's key, got {raw.strip()[:80]!r}"
                )
            name, digest = parts[0], parts[1].lower()
            earlier = entries.get(name)
            if earlier is not None and earlier[0] != digest:
                raise IdentityError(
                    f"{self.path}, line {number}: peer {name!r} is also on line {earlier[1]} "
                    "with another key; remove the wrong line"
                )
            if earlier is None:
                entries[name] = (digest, number)
        return entries


def _check_name(name: str) -> str:
    if type(name) is not str or not _NAME.fullmatch(name):
        raise IdentityError(
            f"a peer name is one word without spaces, not starting with '#', got {name!r}"
        )
    return name


def _digest(public_key: bytes) -> str:
    if type(public_key) is not bytes or len(public_key) != PUBLIC_KEY_SIZE:
        raise IdentityError(f"an Ed25519 public key is 32 bytes, got {public_key!r}")
    check_public_key(public_key)
    return hashlib.sha256(public_key).hexdigest()


# --- atomic writes -----------------------------------------------------------------------------


def _write_temp(path: Path, data: bytes, mode: int) -> Path:
    try:
        return write_temp(path, data, mode)
    except OSError as exc:
        raise IdentityError(f"{path}: cannot write: {exc.strerror}") from exc


def _write_replace(path: Path, data: bytes, mode: int) -> None:
    """Replace ``path`` by a file holding ``data``, atomically (``dbnet.files``)."""
    try:
        replace_atomically(path, data, mode)
    except OSError as exc:
        raise IdentityError(f"{path}: cannot write: {exc.strerror}") from exc


def _write_new(path: Path, data: bytes) -> bool:
    """Create ``path`` (mode 0600) holding ``data`` atomically, unless it exists: then
    return False. A hard link never replaces an existing file, so two processes creating
    an identity at once cannot each keep a different key; where hard links are not
    supported, fall back to os.replace."""
    temp = _write_temp(path, data, 0o600)
    try:
        os.link(temp, path)
    except FileExistsError:
        return False
    except OSError:
        try:
            os.replace(temp, path)
        except OSError as exc:
            raise IdentityError(f"{path}: cannot write: {exc.strerror}") from exc
    finally:
        temp.unlink(missing_ok=True)
    sync_folder(path.parent)
    return True
