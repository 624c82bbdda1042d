"""Ed25519's edge cases, where implementations are known to disagree, through every path
that checks a signature: ``identity.verify``, ``dbnet verify`` (a real subprocess on a
real file), the live log (``GameLog.append``), a spectator's verifier
(``ReplayVerifier.add``, what ``net.watch`` runs on each entry) and the channel's greeting
(the handshake's signatures).

The verdicts are OpenSSL's (through ``cryptography``, what dbnet used before) behind
dbnet's own refusal of degenerate keys (``wire.keys``), with one rule more, libsodium's:
a signature whose R is a small-order point is refused (docs/entries.md section 3). No
genuine signature has one: R = r B with r from a hash is the identity with probability
2^-252, and never another small-order point.

Sources of the vectors:

- ``SPECCHECK``: the twelve test cases of Chalkias, Garillot, Nikolaenko, "Taming the many
  EdDSAs" (SSR 2020), as published in the paper's repository, novifinancial/ed25519-speccheck,
  file ``cases.txt`` (commit 2297da78dbbf8b2ace6b807208d09a3460ac67b8), copied here byte
  for byte; the comment on each is the paper's description of it.
- The per-path cases are built here over each path's own message (an entry's signing
  message, a handshake transcript), with the arithmetic of ``tests/protocol/ed25519.py``
  and the same shapes as the paper's cases: small-order R (case 2's R), non-canonical R
  (cases 8 and 9), non-canonical S (case 6), a mixed-order key with a signature valid by
  the cofactorless equation (case 3) or by the cofactored one only (cases 4 and 5).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, cast

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup, Options, Player
from dbnet.errors import DbnetError
from dbnet.match.peers import LocalMatch
from dbnet.net.errors import AuthenticationError
from dbnet.net.handshake import Handshake
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.identity import Identity, fingerprint, verify
from dbnet.protocol.log import GameLog, Status
from dbnet.replay.file import ReplayWriter
from dbnet.replay.verify import ReplayVerifier, VerdictStatus
from dbnet.wire.entries import (
    SignedEntry,
    decode_signed_entry,
    encode_signed_entry,
    signing_message,
)
from dbnet.wire.keys import public_key_problem
from dbnet.wire.replay_header import ReplayHeader, encode_replay_header

from . import ed25519
from .helpers import bot_chooser

# --- the published vectors ------------------------------------------------------------------


class Case(NamedTuple):
    message: str
    key: str
    signature: str
    what: str
    before: bool
    """dbnet's verdict before libsodium: OpenSSL's, behind the refusal of degenerate keys."""
    after: bool


SPECCHECK = (
    Case(
        "8c93255d71dcab10e8f379c26200f3c7bd5f09d9bc3068d3ef4edeb4853022b6",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0: small-order A, small-order R, S = 0",
        before=False,
        after=False,
    ),
    Case(
        "9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43"
        "a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
        "1: small-order A, mixed-order R",
        before=False,
        after=False,
    ),
    Case(
        "aebf3f2601a0c8c5d39cc7d8911642f740b78168218da8471772b35f9d35b9ab",
        "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"
        "8c4bd45aecaca5b24fb97bc10ac27ac8751a7dfe1baff8b953ec9f5833ca260e",
        "2: mixed-order A, small-order R (the one verdict that changes: now refused)",
        before=True,
        after=False,
    ),
    Case(
        "9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79",
        "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
        "9046a64750444938de19f227bb80485e92b83fdb4b6506c160484c016cc1852f"
        "87909e14428a7a1d62e9f22f3d3ad7802db02eb2e688b6c52fcd6648a98bd009",
        "3: mixed-order A and R, valid by the cofactorless equation",
        before=True,
        after=True,
    ),
    Case(
        "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
        "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
        "160a1cb0dc9c0258cd0a7d23e94d8fa878bcb1925f2c64246b2dee1796bed512"
        "5ec6bc982a269b723e0668e540911a9a6a58921d6925e434ab10aa7940551a09",
        "4: mixed-order A, valid by the cofactored equation only",
        before=False,
        after=False,
    ),
    Case(
        "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
        "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
        "21122a84e0b5fca4052f5b1235c80a537878b38f3142356b2c2384ebad4668b7"
        "e40bc836dac0f71076f9abe3a53f9c03c1ceeeddb658d0030494ace586687405",
        "5: mixed-order A and R, valid by the cofactored equation only",
        before=False,
        after=False,
    ),
    Case(
        "85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40",
        "442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623",
        "e96f66be976d82e60150baecff9906684aebb1ef181f67a7189ac78ea23b6c0e"
        "547f7690a0e2ddcd04d87dbc3490dc19b3b3052f7ff0538cb68afb369ba3a514",
        "6: S above L (non-canonical S)",
        before=False,
        after=False,
    ),
    Case(
        "85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40",
        "442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623",
        "8ce5b96c8f26d0ab6c47958c9e68b937104cd36e13c33566acd2fe8d38aa1942"
        "7e71f98a473474f2f13f06f97c20d58cc3f54b8bd0d272f42b695dd7e89a8c22",
        "7: S far above L (its top bits set)",
        before=False,
        after=False,
    ),
    Case(
        "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
        "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
        "03be9678ac102edcd92b0210bb34d7428d12ffc5df5f37e359941266a4e35f0f",
        "8: non-canonical R (a small-order point), mixed-order A",
        before=False,
        after=False,
    ),
    Case(
        "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
        "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
        "ca8c5b64cd208982aa38d4936621a4775aa233aa0505711d8fdcfdaa943d4908",
        "9: non-canonical R (a small-order point), mixed-order A",
        before=False,
        after=False,
    ),
    Case(
        "e96b7021eb39c1a163b6da4e3093dcd3f21387da4cc4572be588fafae23c155b",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dc"
        "a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
        "10: non-canonical A (a small-order point)",
        before=False,
        after=False,
    ),
    Case(
        "39a591f5321bbe07fd5a23dc2f39d025d74526615746727ceefd6e82ae65c06f",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dc"
        "a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
        "11: non-canonical A (a small-order point)",
        before=False,
        after=False,
    ),
)


def openssl_behind_the_key_check(key: bytes, signature: bytes, message: bytes) -> bool:
    """dbnet's verdict before libsodium, recomputed: the key check, then OpenSSL's."""
    if public_key_problem(key) is not None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


@pytest.mark.parametrize("case", SPECCHECK, ids=lambda case: case.what.split(":")[0])
def test_the_published_vectors_get_the_verdicts_of_before_or_stricter(case: Case) -> None:
    key, signature, message = (bytes.fromhex(x) for x in (case.key, case.signature, case.message))
    assert openssl_behind_the_key_check(key, signature, message) is case.before
    assert verify(key, signature, message) is case.after
    assert case.after <= case.before  # never more lenient than before


def test_only_a_small_order_r_changes_its_verdict() -> None:
    changed = [case for case in SPECCHECK if case.before != case.after]
    assert [case.what[0] for case in changed] == ["2"]
    r = ed25519.decode(bytes.fromhex(changed[0].signature)[:32])
    assert ed25519.order_of_torsion(r) == 8


# --- the per-path cases: real games, real files, real handshakes ------------------------------


def run_handshake(initiator: Handshake, responder: Handshake) -> None:
    """Both sides of a handshake in memory, in the order the wire allows (as
    tests/net/helpers.py does); errors propagate."""
    preamble_i, message1 = initiator.start()
    (preamble_r,) = responder.start()
    assert initiator.receive(preamble_r) == []
    assert responder.receive(preamble_i) == []
    (message2,) = responder.receive(message1)
    (message3,) = initiator.receive(message2)
    assert responder.receive(message3) == []


class Game(NamedTuple):
    header: ReplayHeader
    records: list[bytes]


def new_match(identities: tuple[Identity, Identity]) -> LocalMatch:
    """A short game (one turn to win, two-link chains, so that chains refill)."""
    setup = GameSetup(load_map(), default_warbands(load_catalog()), options=Options(turns_to_win=1))
    return LocalMatch(setup, identities, chain_length=2)


# ---------------------------------------------------------------------

SEEDS = (b"\x11" * 32, b"\x22" * 32)


class Signer:
    """An identity (its ``public_key``, ``fingerprint`` and ``sign``) that signs the way
    ``tamper`` says, with a key of known scalar whose point has ``torsion`` times a point
    of order 8 added: what a hostile or broken peer's program sends."""

    def __init__(
        self, seed: bytes, tamper: Callable[[ed25519.Key, bytes, bytes], bytes], torsion: int = 0
    ) -> None:
        self._key = ed25519.Key.of_seed(seed, ed25519.mul(torsion, ed25519.TORSION))
        self._torsion = torsion
        self._genuine = Identity.from_private_bytes(seed)
        self._tamper = tamper
        self.public_key = self._key.public

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, message: bytes) -> bytes:
        if self._torsion:
            torsion = ed25519.mul(self._torsion, ed25519.TORSION)
            genuine = ed25519.mixed_order(self._key, torsion, message, cofactorless=True)
        else:
            genuine = self._genuine.sign(message)
        return self._tamper(self._key, message, genuine)


def honest(key: ed25519.Key, message: bytes, genuine: bytes) -> bytes:
    return genuine


def small_order_r(key: ed25519.Key, message: bytes, genuine: bytes) -> bytes:
    return ed25519.small_order_r(key, message)


def non_canonical_r(key: ed25519.Key, message: bytes, genuine: bytes) -> bytes:
    return ed25519.non_canonical_r(key, message)


def non_canonical_s(key: ed25519.Key, message: bytes, genuine: bytes) -> bytes:
    return ed25519.non_canonical_s(genuine)


def cofactored_only(key: ed25519.Key, message: bytes, genuine: bytes) -> bytes:
    torsion = ed25519.mul(1, ed25519.TORSION)
    return ed25519.mixed_order(key, torsion, message, cofactorless=False)


class PathCase(NamedTuple):
    name: str
    tamper: Callable[[ed25519.Key, bytes, bytes], bytes]
    torsion: int
    before: bool
    after: bool


PATH_CASES = (
    PathCase("genuine", honest, 0, before=True, after=True),
    PathCase("small-order R", small_order_r, 0, before=True, after=False),
    PathCase("non-canonical R", non_canonical_r, 0, before=False, after=False),
    PathCase("non-canonical S", non_canonical_s, 0, before=False, after=False),
    PathCase("mixed-order key, cofactorless", honest, 1, before=True, after=True),
    PathCase("mixed-order key, cofactored only", cofactored_only, 1, before=False, after=False),
)
IDS = [case.name for case in PATH_CASES]
TAMPERED = 7
"""The record (entry 6, by the player who wrote it) whose signature a case replaces."""


def _game(case: PathCase) -> Game:
    """A short real game by two players whose keys have ``case.torsion`` (every record
    signed by ``Signer``), then record ``TAMPERED`` signed the way ``case`` says."""
    identities = cast(
        tuple[Identity, Identity],
        (Signer(SEEDS[0], honest, case.torsion), Signer(SEEDS[1], honest, case.torsion)),
    )
    match = new_match(identities)
    choose = bot_chooser(("random", "random"), 5)
    while not match.is_closed:
        match.step(choose)
    records = list(match.records)
    signed, entry = decode_signed_entry(records[TAMPERED - 1])
    signer = Signer(SEEDS[entry.author], case.tamper, case.torsion)
    message = signing_message(signed.signed)
    forged = SignedEntry(signed.signed, signer.sign(message))
    records[TAMPERED - 1] = encode_signed_entry(forged)
    log = match.peers[Player.A].log
    header = ReplayHeader(
        format=log.version,
        protocol=log.version,
        rules=log.rules,
        game_id=log.game_id,
        keys=log.keys,
        created="2026-01-01T00:00:00+00:00",
    )
    key = header.keys[entry.author]
    assert openssl_behind_the_key_check(key, forged.signature, message) is case.before
    return Game(header, records)


@pytest.fixture(scope="module", params=PATH_CASES, ids=IDS)
def case_game(request: pytest.FixtureRequest) -> tuple[PathCase, Game]:
    case: PathCase = request.param
    return case, _game(case)


def test_dbnet_verify(tmp_path: Path, case_game: tuple[PathCase, Game]) -> None:
    case, game = case_game
    path = tmp_path / "game.dbnr"
    with ReplayWriter.create(path, game.header) as writer:
        for record in game.records:
            writer.append(record)
    result = subprocess.run(
        [sys.executable, "-m", "dbnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in result.stderr
    if case.after:
        assert result.returncode == 0, result.stdout
        assert result.stdout.startswith(f"{path}: complete: ")
    else:
        assert result.returncode == 1
        assert f"invalid at record {TAMPERED} (entry {TAMPERED - 1}, " in result.stdout
        assert "bad signature: not signed by " in result.stdout


def test_the_live_log(case_game: tuple[PathCase, Game]) -> None:
    case, game = case_game
    log = GameLog.start(game.records[0])
    if case.after:
        for record in game.records[1:]:
            log.append(record)
        assert log.status is Status.COMPLETE
        return
    for record in game.records[1 : TAMPERED - 1]:
        log.append(record)
    with pytest.raises(InvalidEntryError, match=r"bad signature: not signed by [AB].s key") as info:
        log.append(game.records[TAMPERED - 1])
    assert info.value.seq == TAMPERED - 1


def test_a_spectators_verifier(case_game: tuple[PathCase, Game]) -> None:
    case, game = case_game
    verifier = ReplayVerifier("the watched game")
    verifier.add(encode_replay_header(game.header))
    if case.after:
        for record in game.records:
            verifier.add(record)
        assert verifier.verdict().status is VerdictStatus.COMPLETE
        return
    for record in game.records[: TAMPERED - 1]:
        verifier.add(record)
    with pytest.raises(InvalidEntryError, match=r"bad signature: not signed by [AB].s key") as info:
        verifier.add(game.records[TAMPERED - 1])
    assert info.value.seq == TAMPERED - 1


@pytest.mark.parametrize("case", PATH_CASES, ids=IDS)
@pytest.mark.parametrize("role", ["responder", "initiator"])
def test_the_greeting(case: PathCase, role: str) -> None:
    signer = cast(Identity, Signer(SEEDS[0], case.tamper, case.torsion))
    other = Identity.from_private_bytes(SEEDS[1])
    initiator = Handshake(signer if role == "initiator" else other, initiator=True)
    responder = Handshake(other if role == "initiator" else signer, initiator=False)
    if case.after:
        run_handshake(initiator, responder)
        assert initiator.done
        assert responder.done
        return
    with pytest.raises(AuthenticationError, match=f"the {role}'s signature does not verify"):
        run_handshake(initiator, responder)


class _IdentityPoint:
    """The identity point as key, with the forgery that every verifier checking only the
    equation accepts: R = identity, S = 0."""

    public_key = ed25519.encode(ed25519.IDENTITY)
    fingerprint = "IDENTITY-POINT"

    def sign(self, message: bytes) -> bytes:
        return self.public_key + bytes(32)


def test_degenerate_keys_stay_refused() -> None:
    """A small-order key cannot be offered, nor greet (tests/net/test_handshake.py and
    tests/replay/test_verify.py feed the other small-order and non-canonical keys to the
    channel and the replay header); the signature check refuses it as before."""
    point = cast(Identity, _IdentityPoint())
    with pytest.raises(DbnetError, match="small-order point"):
        new_match((point, Identity.from_private_bytes(SEEDS[1])))
    with pytest.raises(AuthenticationError, match="small-order point"):
        run_handshake(
            Handshake(point, initiator=True), Handshake(Identity.generate(), initiator=False)
        )
    forged = point.sign(b"any message")
    assert openssl_behind_the_key_check(point.public_key, forged, b"any message") is False
    assert verify(point.public_key, forged, b"any message") is False
