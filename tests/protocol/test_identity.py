"""Identity keys, fingerprints and the known-peers file, on real files in tmp_path."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from hypothesis import example, given
from hypothesis import strategies as st

from dbnet.errors import IdentityError, KnownPeerMismatchError, WeakKeyError
from dbnet.protocol.identity import (
    Identity,
    KnownPeers,
    check_public_key,
    config_dir,
    fingerprint,
    public_key_problem,
    verify,
)

# RFC 8032, section 7.1, TEST 1
RFC_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC_SIGNATURE = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065"
    "224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)
FINGERPRINT = re.compile(r"[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def _umask() -> Iterator[None]:
    """Run with the common umask, so modes are not an accident of the environment."""
    old = os.umask(0o022)
    yield
    os.umask(old)


# --- the configuration directory -------------------------------------------------------------


def test_config_dir_prefers_dbnet_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DBNET_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "home"
    assert mode(tmp_path / "home") == 0o700
    assert not (tmp_path / "xdg").exists()


def test_config_dir_uses_xdg_then_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DBNET_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "dbnet"
    assert mode(tmp_path / "xdg" / "dbnet") == 0o700
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert config_dir() == tmp_path / "user" / ".config" / "dbnet"
    assert mode(tmp_path / "user" / ".config" / "dbnet") == 0o700


# --- the identity key ---------------------------------------------------------------------------


def test_identity_is_created_private_and_reloaded(tmp_path: Path) -> None:
    directory = tmp_path / "config"
    first = Identity.load_or_create(directory)
    key_file = directory / "identity.key"
    assert mode(directory) == 0o700
    assert mode(key_file) == 0o600
    assert key_file.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----\n")
    assert len(first.public_key) == 32
    assert [p.name for p in directory.iterdir()] == ["identity.key"]  # no temp file left

    again = Identity.load_or_create(directory)
    assert again == first
    assert again.public_key == first.public_key
    assert verify(first.public_key, again.sign(b"hello"), b"hello")


def test_identity_in_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DBNET_HOME", str(tmp_path / "dbnet"))
    me = Identity.load_or_create()
    assert (tmp_path / "dbnet" / "identity.key").exists()
    assert Identity.load_or_create(tmp_path / "dbnet") == me


def test_key_file_is_pem_pkcs8_of_the_raw_key(tmp_path: Path) -> None:
    me = Identity.load_or_create(tmp_path)
    key = serialization.load_pem_private_key((tmp_path / "identity.key").read_bytes(), None)
    public = key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    assert public == me.public_key


@pytest.mark.parametrize("bad_mode", [0o640, 0o604, 0o620, 0o644])
def test_key_readable_by_others_is_refused(tmp_path: Path, bad_mode: int) -> None:
    Identity.load_or_create(tmp_path)
    key_file = tmp_path / "identity.key"
    key_file.chmod(bad_mode)
    with pytest.raises(IdentityError) as info:
        Identity.load_or_create(tmp_path)
    message = str(info.value)
    assert message.startswith(f"{key_file}: permissions {bad_mode:04o} are too open")
    assert f"chmod 600 {key_file}" in message


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not a key\n",
        b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        bytes(32),  # a raw key is not accepted: the file is PEM
    ],
)
def test_malformed_key_is_refused(tmp_path: Path, content: bytes) -> None:
    key_file = tmp_path / "identity.key"
    key_file.write_bytes(content)
    key_file.chmod(0o600)
    with pytest.raises(IdentityError, match="not an unencrypted PEM") as info:
        Identity.load_or_create(tmp_path)
    assert str(info.value).startswith(f"{key_file}: ")
    assert key_file.read_bytes() == content  # never overwritten


def test_a_folder_at_the_key_path_is_one_clear_error(tmp_path: Path) -> None:
    key_path = tmp_path / "identity.key"
    key_path.mkdir()
    with pytest.raises(IdentityError) as info:
        Identity.load_or_create(tmp_path)
    assert str(info.value) == (
        f"{key_path}: the identity key is a folder, so dbnet cannot read your key from it; "
        "move it away (dbnet then creates a new identity, and your peers see a new "
        "fingerprint) or put your identity.key file there"
    )
    assert key_path.is_dir()
    assert list(tmp_path.iterdir()) == [key_path]  # no temporary file left behind


def test_a_dangling_symlink_at_the_key_path_is_one_clear_error(tmp_path: Path) -> None:
    key_path = tmp_path / "identity.key"
    key_path.symlink_to(tmp_path / "gone" / "identity.key")
    with pytest.raises(IdentityError) as info:
        Identity.load_or_create(tmp_path)
    assert str(info.value) == (
        f"{key_path}: the identity key is a symbolic link to {tmp_path}/gone/identity.key, "
        "which does not exist; restore that file, point the link at your key, or remove "
        "the link (dbnet then creates a new identity, and your peers see a new fingerprint)"
    )
    assert key_path.is_symlink()
    assert not (tmp_path / "gone").exists()  # the link is never followed to write a key
    assert list(tmp_path.iterdir()) == [key_path]


def test_a_symlink_to_a_key_is_followed(tmp_path: Path) -> None:
    me = Identity.load_or_create(tmp_path / "real")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "identity.key").symlink_to(tmp_path / "real" / "identity.key")
    assert Identity.load_or_create(tmp_path / "home").public_key == me.public_key


def test_a_fifo_at_the_key_path_is_refused_without_blocking(tmp_path: Path) -> None:
    key_path = tmp_path / "identity.key"
    os.mkfifo(key_path, 0o600)
    with pytest.raises(IdentityError, match=r"identity key is not a regular file, so dbnet"):
        Identity.load_or_create(tmp_path)


def test_key_of_another_type_is_refused(tmp_path: Path) -> None:
    key_file = tmp_path / "identity.key"
    other = X25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    key_file.write_bytes(other)
    key_file.chmod(0o600)
    with pytest.raises(IdentityError, match="not an Ed25519 key"):
        Identity.load_or_create(tmp_path)


def test_repr_hides_the_private_key(tmp_path: Path) -> None:
    me = Identity.from_private_bytes(RFC_SECRET)
    assert repr(me) == "<Identity EH7D-DX5B-KSRG-CYTL>"
    assert RFC_SECRET.hex() not in repr(me)
    created = Identity.load_or_create(tmp_path)
    assert repr(created) == f"<Identity {created.fingerprint}>"
    pem_body = (tmp_path / "identity.key").read_text().splitlines()[1]
    assert pem_body not in repr(created)


# --- fingerprints, signatures -------------------------------------------------------------------


def test_fingerprint_golden_value() -> None:
    me = Identity.from_private_bytes(RFC_SECRET)
    assert me.public_key == RFC_PUBLIC
    assert fingerprint(RFC_PUBLIC) == "EH7D-DX5B-KSRG-CYTL"
    assert me.fingerprint == fingerprint(RFC_PUBLIC)


def test_fingerprint_format() -> None:
    prints = {Identity.generate().fingerprint for _ in range(20)}
    assert len(prints) == 20
    assert all(FINGERPRINT.fullmatch(p) for p in prints)
    with pytest.raises(IdentityError, match="32 bytes"):
        fingerprint(b"short")


def test_sign_matches_rfc_8032() -> None:
    me = Identity.from_private_bytes(RFC_SECRET)
    assert me.sign(b"") == RFC_SIGNATURE
    assert verify(RFC_PUBLIC, RFC_SIGNATURE, b"")


def test_verify_is_false_for_anything_wrong() -> None:
    me = Identity.generate()
    signature = me.sign(b"message")
    assert verify(me.public_key, signature, b"message")
    flipped = bytes([signature[0] ^ 1]) + signature[1:]
    assert not verify(me.public_key, flipped, b"message")
    assert not verify(me.public_key, signature, b"messagf")
    assert not verify(Identity.generate().public_key, signature, b"message")
    assert not verify(me.public_key[:31], signature, b"message")
    assert not verify(me.public_key, signature[:63], b"message")
    assert not verify(me.public_key, signature + b"\x00", b"message")
    assert not verify(b"\xff" * 32, signature, b"message")  # not a curve point
    assert not verify(bytes(32), bytes(64), b"message")
    assert not verify("key", signature, b"message")  # type: ignore[arg-type]
    assert not verify(me.public_key, None, b"message")  # type: ignore[arg-type]
    assert not verify(me.public_key, signature, "message")  # type: ignore[arg-type]


# --- degenerate public keys --------------------------------------------------------------------
#
# The eight points of order dividing 8, as listed in the literature (libsodium's blocklist;
# Chalkias, Garillot, Nikolaenko, "Taming the many EdDSAs", 2020, table 6), canonical
# encodings. The test checks them with its own affine arithmetic rather than trusting the list.

SMALL_ORDER = {
    "0100000000000000000000000000000000000000000000000000000000000000": 1,
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f": 2,
    "0000000000000000000000000000000000000000000000000000000000000000": 4,
    "0000000000000000000000000000000000000000000000000000000000000080": 4,
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05": 8,
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85": 8,
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a": 8,
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa": 8,
}
# Non-canonical encodings of small-order points: x = 0 with the sign bit set, y = p, p + 1.
NON_CANONICAL = {
    "0100000000000000000000000000000000000000000000000000000000000080": "x is 0",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff": "x is 0",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f": "y coordinate",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff": "y coordinate",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f": "y coordinate",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff": "y coordinate",
}
P = 2**255 - 19
D = -121665 * pow(121666, -1, P) % P
Affine = tuple[int, int]


def _add(a: Affine, b: Affine) -> Affine:
    """The twisted Edwards addition law (a = -1), in affine coordinates."""
    (x1, y1), (x2, y2) = a, b
    t = D * x1 * x2 * y1 * y2 % P
    return (x1 * y2 + y1 * x2) * pow(1 + t, -1, P) % P, (y1 * y2 + x1 * x2) * pow(1 - t, -1, P) % P


def _decode(encoding: bytes) -> Affine:
    """The point an encoding names, y taken modulo p (so non-canonical ones decode too)."""
    number = int.from_bytes(encoding, "little")
    y, sign = (number & (2**255 - 1)) % P, number >> 255
    xx = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    x = _sqrt(xx)
    return (P - x if x and x % 2 != sign else x), y


def _sqrt(value: int) -> int:
    root = pow(value, (P + 3) // 8, P)
    if root * root % P != value:
        root = root * pow(2, (P - 1) // 4, P) % P
    assert root * root % P == value, "not on the curve"
    return root


def _order(point: Affine) -> int:
    multiple, order = point, 1
    while multiple != (0, 1):
        multiple, order = _add(multiple, point), order + 1
        assert order <= 8, "not a small-order point"
    return order


def test_the_listed_small_order_points_are_the_eight_points_of_order_dividing_8() -> None:
    points = {_decode(bytes.fromhex(e)) for e in SMALL_ORDER}
    assert len(points) == 8
    for encoding, order in SMALL_ORDER.items():
        assert _order(_decode(bytes.fromhex(encoding))) == order
    for encoding in NON_CANONICAL:
        assert _decode(bytes.fromhex(encoding)) in points


@pytest.mark.parametrize(("encoding", "order"), SMALL_ORDER.items())
def test_small_order_keys_are_refused(encoding: str, order: int) -> None:
    key = bytes.fromhex(encoding)
    assert public_key_problem(key) == (
        f"a small-order point (order {order}) that no private key matches: a signature "
        "under it proves nothing"
    )
    with pytest.raises(WeakKeyError) as info:
        check_public_key(key, "bob's key")
    assert str(info.value).startswith(
        f"bob's key {encoding} is not a usable Ed25519 public key: a small-order point"
    )


@pytest.mark.parametrize(("encoding", "why"), NON_CANONICAL.items())
def test_non_canonical_keys_are_refused(encoding: str, why: str) -> None:
    problem = public_key_problem(bytes.fromhex(encoding))
    assert problem is not None
    assert problem.startswith("not canonical (")
    assert why in problem


def _reference_problem(encoding: bytes) -> str | None:
    """What ``public_key_problem`` must say, the slow way: decode the point (a square root)
    and multiply it until it reaches the identity or has shown an order above 8."""
    number = int.from_bytes(encoding, "little")
    y, sign = number & (2**255 - 1), number >> 255
    if y >= P:
        return "not canonical (its y coordinate is not reduced modulo 2^255 - 19)"
    xx = (y * y - 1) * pow(D * y * y + 1, -1, P) % P
    if pow(xx, (P - 1) // 2, P) not in (0, 1):
        return None  # not on the curve
    if xx == 0 and sign:
        return "not canonical (x is 0 but its sign bit is set)"
    point = _decode(encoding)
    multiple = point
    for order in range(1, 9):
        if multiple == (0, 1):
            return (
                f"a small-order point (order {order}) that no private key matches: a "
                "signature under it proves nothing"
            )
        multiple = _add(multiple, point)
    return None


@given(st.binary(min_size=32, max_size=32))
@example(bytes(32))
@example(bytes.fromhex(next(iter(NON_CANONICAL))))
@example((P - 1).to_bytes(32, "little"))
@example((2**256 - 1).to_bytes(32, "little"))
def test_the_problem_is_the_one_the_decoded_point_has(encoding: bytes) -> None:
    """Telling the small-order points apart by y alone says what decoding the point and
    finding its order says, for any 32 bytes."""
    assert public_key_problem(encoding) == _reference_problem(encoding)


@pytest.mark.parametrize("encoding", [*SMALL_ORDER, *NON_CANONICAL])
def test_the_listed_keys_get_the_problem_of_their_decoded_point(encoding: str) -> None:
    key = bytes.fromhex(encoding)
    assert public_key_problem(key) == _reference_problem(key) is not None


def test_real_keys_are_accepted() -> None:
    assert public_key_problem(RFC_PUBLIC) is None
    for seed in range(64):
        key = Identity.from_private_bytes(bytes([seed]) * 32).public_key
        assert public_key_problem(key) is None
        assert check_public_key(key) == key
    assert public_key_problem(b"short") == "not 32 bytes: b'short'"


def test_a_signature_under_a_small_order_key_does_not_verify() -> None:
    """With the identity point as key, R = identity and S = 0 pass the verification
    equation for every message (and OpenSSL accepts it): verify() must refuse the key."""
    identity_point = bytes.fromhex(next(iter(SMALL_ORDER)))
    forged = identity_point + bytes(32)
    for message in (b"", b"any message at all", b"OFFER"):
        assert not verify(identity_point, forged, message)


def test_known_peers_refuse_a_small_order_key(tmp_path: Path) -> None:
    peers = KnownPeers(tmp_path / "known_peers")
    for encoding in SMALL_ORDER:
        with pytest.raises(WeakKeyError, match="small-order point"):
            peers.remember("bob", bytes.fromhex(encoding))
    assert not peers.path.exists()


def test_private_key_must_be_32_bytes() -> None:
    with pytest.raises(IdentityError):
        Identity.from_private_bytes(b"x" * 31)


# --- known peers -------------------------------------------------------------------------------


def test_known_peers_accept_new(tmp_path: Path) -> None:
    peers = KnownPeers.in_dir(tmp_path)
    alice, bob = Identity.generate(), Identity.generate()
    assert peers.check("alice", alice.public_key) == "new"
    assert not peers.path.exists()  # check alone writes nothing
    peers.remember("alice", alice.public_key)
    assert peers.check("alice", alice.public_key) == "known"
    assert peers.check("bob", bob.public_key) == "new"
    peers.remember("alice", alice.public_key)  # already known: nothing changes
    lines = [ln for ln in peers.path.read_text().splitlines() if not ln.startswith("#")]
    assert lines == [f"alice {hashlib.sha256(alice.public_key).hexdigest()}"]


def test_known_peers_in_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DBNET_HOME", str(tmp_path / "cfg"))
    KnownPeers.in_dir().remember("carol", Identity.generate().public_key)
    assert (tmp_path / "cfg" / "known_peers").exists()


def test_changed_key_is_refused_with_instructions(tmp_path: Path) -> None:
    peers = KnownPeers(tmp_path / "known_peers")
    old, new = Identity.generate(), Identity.generate()
    peers.remember("bob", Identity.generate().public_key)
    peers.remember("alice", old.public_key)
    before = peers.path.read_bytes()
    with pytest.raises(KnownPeerMismatchError) as info:
        peers.check("alice", new.public_key)
    message = str(info.value)
    assert "'alice'" in message
    assert f"remembered fingerprint: {old.fingerprint}" in message
    assert f"offered fingerprint:    {new.fingerprint}" in message
    assert "another channel" in message
    assert f"remove line 5 (alice ...) from {peers.path}" in message
    with pytest.raises(KnownPeerMismatchError):
        peers.remember("alice", new.public_key)
    assert peers.path.read_bytes() == before  # nothing was replaced
    assert isinstance(info.value, IdentityError)


def test_rewrite_keeps_earlier_lines_and_comments(tmp_path: Path) -> None:
    path = tmp_path / "known_peers"
    keys = [Identity.generate().public_key for _ in range(3)]
    hand_written = f"# my peers\n\nzed  {'AB' * 32}\n  # indented comment"  # no final newline
    path.write_text(hand_written)
    path.chmod(0o644)
    peers = KnownPeers(path)
    for i, key in enumerate(keys):
        peers.remember(f"peer{i}", key)
    text = path.read_text()
    assert text.startswith(hand_written + "\n")
    for i, key in enumerate(keys):
        assert peers.check(f"peer{i}", key) == "known"
    assert mode(path) == 0o644  # the file's mode is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["known_peers"]  # no temp file left


def test_hex_digest_is_case_insensitive(tmp_path: Path) -> None:
    key = Identity.generate().public_key
    path = tmp_path / "known_peers"
    path.write_text(f"dora {hashlib.sha256(key).hexdigest().upper()}\n")
    assert KnownPeers(path).check("dora", key) == "known"


@pytest.mark.parametrize(
    "bad_line",
    [
        "alice",
        "alice 1234",
        f"alice {'g' * 64}",
        f"alice {'a' * 64} extra",
        f"alice {'a' * 65}",
    ],
)
def test_malformed_line_is_reported_with_its_number(tmp_path: Path, bad_line: str) -> None:
    path = tmp_path / "known_peers"
    path.write_text(f"# comment\nbob {'b' * 64}\n\n{bad_line}\n")
    peers = KnownPeers(path)
    with pytest.raises(IdentityError) as info:
        peers.check("bob", Identity.generate().public_key)
    assert str(info.value).startswith(f"{path}, line 4: expected NAME and the 64-hex-digit")
    assert not isinstance(info.value, KnownPeerMismatchError)
    with pytest.raises(IdentityError, match="line 4"):
        peers.remember("carol", Identity.generate().public_key)
    assert path.read_text().endswith(f"{bad_line}\n")  # a broken file is never rewritten


def test_same_name_with_two_keys_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "known_peers"
    path.write_text(f"bob {'b' * 64}\nbob {'B' * 64}\nbob {'c' * 64}\n")
    with pytest.raises(IdentityError, match=r"line 3: peer 'bob' is also on line 1 with another"):
        KnownPeers(path).check("bob", Identity.generate().public_key)


@pytest.mark.parametrize("name", ["", "two words", "#hash", "tab\there", "new\nline"])
def test_bad_peer_names_are_refused(tmp_path: Path, name: str) -> None:
    peers = KnownPeers(tmp_path / "known_peers")
    with pytest.raises(IdentityError, match="a peer name is one word"):
        peers.remember(name, Identity.generate().public_key)
    assert not peers.path.exists()


def test_bad_public_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IdentityError, match="32 bytes"):
        KnownPeers(tmp_path / "known_peers").check("bob", b"short")
