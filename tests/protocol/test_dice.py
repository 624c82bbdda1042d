"""Dice from hash chains: golden vectors (checked against the module and docs/dice.md),
chain verification over generations, rejections, fairness and input checks."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dbnet.errors import DbnetError
from dbnet.protocol import dice
from dbnet.protocol.dice import Chain, ChainVerifier, DiceError, chain_salt, roll_dice

DOCS = Path(__file__).resolve().parents[2] / "docs" / "dice.md"

# --- an independent, plain re-implementation of docs/dice.md -------------------------


def ref_salt(game_id: bytes, public_key: bytes) -> bytes:
    return hashlib.blake2b(game_id + public_key, digest_size=16, person=b"dbnet/salt/v1").digest()


def ref_link(value: bytes, salt: bytes) -> bytes:
    return hashlib.blake2b(value, digest_size=32, person=b"dbnet/chain/v1", salt=salt).digest()


def ref_seed(secret: bytes, g: int) -> bytes:
    data = secret + bytes([(g >> 24) & 255, (g >> 16) & 255, (g >> 8) & 255, g & 255])
    return hashlib.blake2b(data, digest_size=32, person=b"dbnet/seed/v1").digest()


def ref_value(secret: bytes, salt: bytes, n: int, g: int, k: int) -> bytes:
    """v_k of generation g: the seed hashed n - k times."""
    v = ref_seed(secret, g)
    for _ in range(n - k):
        v = ref_link(v, salt)
    return v


def ref_reveal(secret: bytes, salt: bytes, n: int, r: int) -> bytes:
    return ref_value(secret, salt, n, r // n, r % n + 1)


def ref_roll_message(game_id: bytes, r: int, link_a: bytes, link_b: bytes, ctr: int) -> bytes:
    message = b""
    for f in (game_id, r.to_bytes(8, "big"), link_a, link_b, ctr.to_bytes(4, "big")):
        message += len(f).to_bytes(4, "big") + f
    return message


def ref_roll_digest(game_id: bytes, r: int, link_a: bytes, link_b: bytes, ctr: int) -> bytes:
    message = ref_roll_message(game_id, r, link_a, link_b, ctr)
    return hashlib.blake2b(message, digest_size=32, person=b"dbnet/roll/v1").digest()


def ref_dice(game_id: bytes, r: int, link_a: bytes, link_b: bytes, count: int) -> list[int]:
    out: list[int] = []
    ctr = 0
    while len(out) < count:
        for byte in ref_roll_digest(game_id, r, link_a, link_b, ctr):
            if byte < 252 and len(out) < count:
                out.append(byte % 6 + 1)
        ctr += 1
    return out


# --- golden vectors ------------------------------------------------------------------

GAME_ID = bytes(range(32))
OTHER_GAME_ID = bytes(range(1, 33))
KEY_A = bytes(range(32, 64))
KEY_B = bytes(range(64, 96))
SECRET_A = bytes(range(96, 128))
SECRET_B = bytes(range(128, 160))
N = 4


def reference_vectors() -> dict[str, str]:
    """The golden vectors of docs/dice.md, computed by the reference implementation."""
    salt_a, salt_b = ref_salt(GAME_ID, KEY_A), ref_salt(GAME_ID, KEY_B)

    def la(r: int) -> bytes:
        return ref_reveal(SECRET_A, salt_a, N, r)

    def lb(r: int) -> bytes:
        return ref_reveal(SECRET_B, salt_b, N, r)

    def digits(values: list[int]) -> str:
        return "".join(str(v) for v in values)

    rows = {
        "salt_a": salt_a,
        "salt_b": salt_b,
        "seed_a_g0": ref_seed(SECRET_A, 0),
        "seed_a_g1": ref_seed(SECRET_A, 1),
        "anchor_a_g0": ref_value(SECRET_A, salt_a, N, 0, 0),
        "anchor_a_g1": ref_value(SECRET_A, salt_a, N, 1, 0),
        "anchor_b_g0": ref_value(SECRET_B, salt_b, N, 0, 0),
        "anchor_b_g1": ref_value(SECRET_B, salt_b, N, 1, 0),
        "anchor_a_g0_n1024": ref_value(SECRET_A, salt_a, 1024, 0, 0),
        "link_a_r0": la(0),
        "link_a_r1": la(1),
        "link_a_r2": la(2),
        "link_a_r3": la(3),
        "link_a_r4": la(4),
        "link_b_r0": lb(0),
        "link_b_r1": lb(1),
        "link_b_r3": lb(3),
        "link_b_r4": lb(4),
        "roll_message_r0_c0": ref_roll_message(GAME_ID, 0, la(0), lb(0), 0),
        "roll_digest_r0_c0": ref_roll_digest(GAME_ID, 0, la(0), lb(0), 0),
        "roll_digest_r1_c0": ref_roll_digest(GAME_ID, 1, la(1), lb(1), 0),
        "roll_digest_r1_c1": ref_roll_digest(GAME_ID, 1, la(1), lb(1), 1),
    }
    table = {name: value.hex() for name, value in rows.items()}
    table["dice_r0_k6"] = digits(ref_dice(GAME_ID, 0, la(0), lb(0), 6))
    table["dice_r1_k32"] = digits(ref_dice(GAME_ID, 1, la(1), lb(1), 32))
    table["dice_r4_k40"] = digits(ref_dice(GAME_ID, 4, la(4), lb(4), 40))
    return table


def module_vectors() -> dict[str, str]:
    """The same vectors from dbnet.protocol.dice."""
    salt_a, salt_b = chain_salt(GAME_ID, KEY_A), chain_salt(GAME_ID, KEY_B)
    a, b = Chain.create(SECRET_A, salt_a, N), Chain.create(SECRET_B, salt_b, N)

    def digits(values: tuple[int, ...]) -> str:
        return "".join(str(v) for v in values)

    def rolled(r: int, count: int) -> str:
        return digits(roll_dice(GAME_ID, r, a.reveal(r), b.reveal(r), count))

    rows = {
        "salt_a": salt_a,
        "salt_b": salt_b,
        "seed_a_g0": dice.generation_seed(SECRET_A, 0),
        "seed_a_g1": dice.generation_seed(SECRET_A, 1),
        "anchor_a_g0": a.anchor(0),
        "anchor_a_g1": a.anchor(1),
        "anchor_b_g0": b.anchor(0),
        "anchor_b_g1": b.anchor(1),
        "anchor_a_g0_n1024": Chain.create(SECRET_A, salt_a).anchor(0),
        "link_a_r0": a.reveal(0),
        "link_a_r1": a.reveal(1),
        "link_a_r2": a.reveal(2),
        "link_a_r3": a.reveal(3),
        "link_a_r4": a.reveal(4),
        "link_b_r0": b.reveal(0),
        "link_b_r1": b.reveal(1),
        "link_b_r3": b.reveal(3),
        "link_b_r4": b.reveal(4),
    }
    table = {name: value.hex() for name, value in rows.items()}
    table["dice_r0_k6"] = rolled(0, 6)
    table["dice_r1_k32"] = rolled(1, 32)
    table["dice_r4_k40"] = rolled(4, 40)
    return table


VECTOR_ROW = re.compile(r"^\| `([a-z0-9_]+)` \| `([0-9a-f]+)` \|")


def docs_vectors() -> dict[str, str]:
    """The golden vector table of docs/dice.md: rows ``| `name` | `value` | ... |``."""
    table: dict[str, str] = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        match = VECTOR_ROW.match(line)
        if match:
            name, value = match.groups()
            assert name not in table, f"docs/dice.md lists {name} twice"
            table[name] = value
    return table


def test_reference_vectors_cover_the_cases_they_claim() -> None:
    table = reference_vectors()
    assert table["seed_a_g0"] != table["seed_a_g1"]
    # link_a_r3 ends generation 0 and link_a_r4 starts generation 1
    assert ref_link(bytes.fromhex(table["link_a_r0"]), bytes.fromhex(table["salt_a"])) == (
        bytes.fromhex(table["anchor_a_g0"])
    )
    assert ref_link(bytes.fromhex(table["link_a_r4"]), bytes.fromhex(table["salt_a"])) == (
        bytes.fromhex(table["anchor_a_g1"])
    )
    assert bytes.fromhex(table["link_a_r3"]) == bytes.fromhex(table["seed_a_g0"])
    # roll 1's first digest skips a byte, so its 32nd die comes from the second digest
    first = bytes.fromhex(table["roll_digest_r1_c0"])
    second = bytes.fromhex(table["roll_digest_r1_c1"])
    kept = [b % 6 + 1 for b in first + second if b < 252]
    assert len([b for b in first if b < 252]) < 32
    assert table["dice_r1_k32"] == "".join(str(v) for v in kept[:32])
    assert len(table["dice_r4_k40"]) == 40


def test_module_matches_reference_vectors() -> None:
    reference = reference_vectors()
    module = module_vectors()
    assert module == {name: reference[name] for name in module}


def test_docs_table_matches_reference_vectors() -> None:
    assert docs_vectors() == reference_vectors()


def test_docs_table_inputs_match_the_test_inputs() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for value in (GAME_ID, KEY_A, KEY_B, SECRET_A, SECRET_B):
        assert value.hex() in text


# --- hashes and inputs ---------------------------------------------------------------


def test_dice_error_is_a_dbnet_value_error() -> None:
    assert issubclass(DiceError, DbnetError)
    assert issubclass(DiceError, ValueError)


def test_chain_salt_depends_on_game_and_key() -> None:
    salts = {
        chain_salt(GAME_ID, KEY_A),
        chain_salt(GAME_ID, KEY_B),
        chain_salt(OTHER_GAME_ID, KEY_A),
    }
    assert len(salts) == 3
    assert all(len(s) == 16 for s in salts)


@pytest.mark.parametrize(
    ("game_id", "key", "message"),
    [
        (GAME_ID[:31], KEY_A, "game id must be 32 bytes, not 31"),
        (GAME_ID, KEY_A + b"\0", "public key must be 32 bytes, not 33"),
        ("00" * 32, KEY_A, "game id must be bytes, not str"),
    ],
)
def test_chain_salt_rejects_wrong_sizes(game_id: bytes, key: bytes, message: str) -> None:
    with pytest.raises(DiceError, match=re.escape(message)):
        chain_salt(game_id, key)


def test_link_rejects_short_salt_and_value() -> None:
    # blake2b would zero-pad a short salt; the chain refuses it
    with pytest.raises(DiceError, match="chain salt must be 16 bytes, not 15"):
        dice.link(bytes(32), bytes(15))
    with pytest.raises(DiceError, match="chain value must be 32 bytes, not 0"):
        dice.link(b"", bytes(16))


def test_generation_seed_rejects_bad_generations() -> None:
    with pytest.raises(DiceError, match=re.escape("generation must be in 0..4294967295, not -1")):
        dice.generation_seed(SECRET_A, -1)
    with pytest.raises(
        DiceError, match=re.escape("generation must be in 0..4294967295, not 4294967296")
    ):
        dice.generation_seed(SECRET_A, 2**32)
    with pytest.raises(DiceError, match="generation must be an int, not bool"):
        dice.generation_seed(SECRET_A, True)


# --- the player's chain --------------------------------------------------------------


def salt_a() -> bytes:
    return chain_salt(GAME_ID, KEY_A)


def test_chain_repr_hides_the_secret() -> None:
    chain = Chain.create(SECRET_A, salt_a(), N)
    text = repr(chain)
    assert SECRET_A.hex() not in text
    assert repr(SECRET_A) not in text
    assert "secret" not in text
    assert "length=4" in text


def test_chain_reveal_walks_down_each_generation() -> None:
    chain = Chain.create(SECRET_A, salt_a(), N)
    for g in range(3):
        values = chain.values(g)
        assert len(values) == N + 1
        assert values[0] == chain.anchor(g)
        assert values[N] == dice.generation_seed(SECRET_A, g)
        for p in range(N):
            assert chain.reveal(g * N + p) == values[p + 1]
            assert dice.link(values[p + 1], salt_a()) == values[p]


def test_chain_reveal_is_the_same_in_any_order() -> None:
    forward = Chain.create(SECRET_A, salt_a(), N)
    backward = Chain.create(SECRET_A, salt_a(), N)
    rolls = range(5 * N)
    assert [forward.reveal(r) for r in rolls] == [backward.reveal(r) for r in reversed(rolls)][::-1]


def test_chain_caches_the_latest_two_generations() -> None:
    chain = Chain.create(SECRET_A, salt_a(), N)
    for r in range(6 * N):
        chain.reveal(r)
        chain.anchor(r // N + 1)
        assert sorted(chain._values) == [r // N, r // N + 1]


def test_chain_of_length_one() -> None:
    chain = Chain.create(SECRET_A, salt_a(), 1)
    verifier = chain.verifier()
    for r in range(5):
        verifier.check(r, chain.reveal(r))
        verifier.add_anchor(r + 1, chain.anchor(r + 1))
        assert chain.reveal(r) == dice.generation_seed(SECRET_A, r)


def test_chain_new_draws_a_fresh_secret() -> None:
    first, second = Chain.new(salt_a(), N), Chain.new(salt_a(), N)
    assert first.secret != second.secret
    assert first.anchor(0) != second.anchor(0)
    assert Chain.new(salt_a()).length == dice.DEFAULT_CHAIN_LENGTH


@pytest.mark.parametrize(
    ("secret", "salt", "length", "message"),
    [
        (SECRET_A[:16], bytes(16), N, "chain secret must be 32 bytes"),
        (SECRET_A, bytes(32), N, "chain salt must be 16 bytes, not 32"),
        (SECRET_A, bytes(16), 0, "chain length must be >= 1, not 0"),
        (SECRET_A, bytes(16), True, "chain length must be an int, not bool"),
    ],
)
def test_chain_rejects_bad_inputs(secret: bytes, salt: bytes, length: int, message: str) -> None:
    with pytest.raises(DiceError, match=re.escape(message)) as caught:
        Chain.create(secret, salt, length)
    assert SECRET_A.hex() not in str(caught.value)


def test_chain_rejects_bad_roll_index() -> None:
    chain = Chain.create(SECRET_A, salt_a(), N)
    with pytest.raises(
        DiceError, match=re.escape("roll index must be in 0..18446744073709551615, not -1")
    ):
        chain.reveal(-1)


# --- the verifier --------------------------------------------------------------------


def play_links(chain: Chain, verifier: ChainVerifier, rolls: range) -> None:
    """Check each roll's link and, with the last link of a generation, add the next anchor."""
    for r in rolls:
        verifier.check(r, chain.reveal(r))
        if (r + 1) % chain.length == 0:
            verifier.add_anchor((r + 1) // chain.length, chain.anchor((r + 1) // chain.length))


def test_verifier_accepts_links_over_several_generations() -> None:
    chain = Chain.create(SECRET_A, salt_a(), N)
    verifier = ChainVerifier(salt_a(), N, chain.anchor(0), owner="A")
    assert verifier.next_roll == 0
    assert verifier.last_value == chain.anchor(0)
    for r in range(4 * N):
        play_links(chain, verifier, range(r, r + 1))
        assert verifier.next_roll == r + 1
        assert verifier.last_value == chain.reveal(r)
    assert verifier.generations == 5
    assert [verifier.anchor(g) for g in range(5)] == [chain.anchor(g) for g in range(5)]


def test_verifier_accepts_the_reference_links() -> None:
    salt = ref_salt(GAME_ID, KEY_B)
    verifier = ChainVerifier(salt, N, ref_value(SECRET_B, salt, N, 0, 0))
    for r in range(3 * N):
        verifier.check(r, ref_reveal(SECRET_B, salt, N, r))
        if (r + 1) % N == 0:
            verifier.add_anchor((r + 1) // N, ref_value(SECRET_B, salt, N, (r + 1) // N, 0))


@pytest.fixture
def chain() -> Chain:
    return Chain.create(SECRET_A, salt_a(), N)


@pytest.fixture
def verifier(chain: Chain) -> ChainVerifier:
    """A verifier of player A that has accepted rolls 0..5 (generation 1 known)."""
    v = ChainVerifier(salt_a(), N, chain.anchor(0), owner="A")
    play_links(chain, v, range(6))
    return v


def assert_rejected(verifier: ChainVerifier, r: int, value: bytes, message: str) -> None:
    before = (verifier.next_roll, verifier.last_value, verifier.generations)
    with pytest.raises(DiceError, match=message):
        verifier.check(r, value)
    assert (verifier.next_roll, verifier.last_value, verifier.generations) == before


def test_verifier_rejects_a_tampered_link(chain: Chain, verifier: ChainVerifier) -> None:
    good = chain.reveal(6)
    tampered = bytes([good[0] ^ 1]) + good[1:]
    assert_rejected(
        verifier,
        6,
        tampered,
        rf"player A's link for roll 6 \(generation 1, position 2\): {tampered.hex()} does not "
        r"hash to the link for roll 5",
    )
    verifier.check(6, good)


def test_verifier_rejects_a_skipped_roll(chain: Chain, verifier: ChainVerifier) -> None:
    assert_rejected(
        verifier, 7, chain.reveal(7), "player A's link for roll 7: skips roll 6, whose link must"
    )


def test_verifier_rejects_a_repeated_roll(chain: Chain, verifier: ChainVerifier) -> None:
    assert_rejected(
        verifier,
        5,
        chain.reveal(5),
        r"player A's link for roll 5: already revealed .*next is roll 6",
    )


def test_verifier_rejects_a_link_from_another_generation(
    chain: Chain, verifier: ChainVerifier
) -> None:
    # roll 6 is generation 1, position 2; the same position of generations 0 and 2 is no good
    for wrong in (chain.values(0)[3], chain.values(2)[3]):
        assert_rejected(
            verifier, 6, wrong, r"link for roll 6 \(generation 1, position 2\): .* does not hash to"
        )


def test_verifier_rejects_a_first_link_from_another_generation(chain: Chain) -> None:
    verifier = chain.verifier(owner="B")
    play_links(chain, verifier, range(N))
    assert_rejected(
        verifier,
        N,
        chain.reveal(0),
        r"player B's link for roll 4 \(generation 1, position 0\): .* does not hash to the "
        r"anchor of generation 1",
    )


def test_verifier_rejects_a_link_before_its_anchor(chain: Chain) -> None:
    verifier = chain.verifier(owner="A")
    for r in range(N):
        verifier.check(r, chain.reveal(r))  # no refill with roll 3
    assert_rejected(
        verifier,
        N,
        chain.reveal(N),
        r"player A's link for roll 4: the anchor of generation 1 is not known \(it must come "
        r"with the link for roll 3\)",
    )
    verifier.add_anchor(1, chain.anchor(1))
    verifier.check(N, chain.reveal(N))


def test_verifier_rejects_a_link_from_another_game(chain: Chain) -> None:
    other = Chain.create(SECRET_A, chain_salt(OTHER_GAME_ID, KEY_A), N)
    # the other game's link against this game's anchor
    verifier = chain.verifier(owner="A")
    assert_rejected(verifier, 0, other.reveal(0), "does not hash to the anchor of generation 0")
    # the other game's whole chain, replayed under this game's salt
    replayed = ChainVerifier(salt_a(), N, other.anchor(0), owner="A")
    assert_rejected(replayed, 0, other.reveal(0), "does not hash to the anchor of generation 0")
    # the other player's chain in the same game
    theirs = Chain.create(SECRET_A, chain_salt(GAME_ID, KEY_B), N)
    assert_rejected(verifier, 0, theirs.reveal(0), "does not hash to the anchor of generation 0")


def test_verifier_rejects_malformed_links(chain: Chain, verifier: ChainVerifier) -> None:
    assert_rejected(verifier, 6, chain.reveal(6)[:31], "link for roll 6 must be 32 bytes, not 31")
    assert_rejected(verifier, -1, chain.reveal(6), "roll index must be in 0..")


def test_verifier_add_anchor_rejects_repeats_and_skips(
    chain: Chain, verifier: ChainVerifier
) -> None:
    with pytest.raises(DiceError, match="player A's anchor of generation 1: already recorded"):
        verifier.add_anchor(1, chain.anchor(1))
    with pytest.raises(DiceError, match="anchor of generation 3: skips generation 2"):
        verifier.add_anchor(3, chain.anchor(3))
    with pytest.raises(DiceError, match="anchor of generation 2 must be 32 bytes, not 0"):
        verifier.add_anchor(2, b"")
    assert verifier.generations == 2
    verifier.add_anchor(2, chain.anchor(2))
    assert verifier.anchor(2) == chain.anchor(2)


def test_verifier_anchor_of_an_unknown_generation(verifier: ChainVerifier) -> None:
    with pytest.raises(DiceError, match=r"anchor of generation 2 is not known \(known: .*0..1\)"):
        verifier.anchor(2)


def test_verifier_rejects_bad_construction() -> None:
    with pytest.raises(DiceError, match="anchor of generation 0 must be 32 bytes"):
        ChainVerifier(salt_a(), N, bytes(16))
    with pytest.raises(DiceError, match="chain length must be >= 1"):
        ChainVerifier(salt_a(), 0, bytes(32))
    with pytest.raises(DiceError, match="chain salt must be 16 bytes"):
        ChainVerifier(bytes(8), N, bytes(32))


def test_verifier_copy_is_independent(chain: Chain, verifier: ChainVerifier) -> None:
    twin = verifier.copy()
    play_links(chain, twin, range(6, 9))
    assert (twin.next_roll, twin.generations) == (9, 3)
    assert (verifier.next_roll, verifier.generations) == (6, 2)
    assert verifier.last_value == chain.reveal(5)
    play_links(chain, verifier, range(6, 9))
    assert verifier.last_value == twin.last_value


# --- dice ----------------------------------------------------------------------------

LINK_A = bytes(range(200, 232))
LINK_B = bytes(range(0, 256, 8))


def test_dice_are_uniform_by_chi_square() -> None:
    counts = Counter[int]()
    for r in range(12_000):
        counts.update(roll_dice(GAME_ID, r, LINK_A, LINK_B, 10))
    assert sum(counts.values()) == 120_000
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    expected = 120_000 / 6
    statistic = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert statistic < 20.515  # the 0.999 quantile of chi-square with 5 degrees of freedom


def first_rejecting_roll() -> tuple[int, bytes]:
    """The first roll index whose ctr-0 digest holds a byte >= 252, and that digest."""
    for r in range(1000):
        digest = ref_roll_digest(GAME_ID, r, LINK_A, LINK_B, 0)
        if any(b >= 252 for b in digest):
            return r, digest
    raise AssertionError("no digest with a byte >= 252 in 1000 rolls")


def test_dice_skip_bytes_from_252_up() -> None:
    r, digest = first_rejecting_roll()
    kept = [b % 6 + 1 for b in digest if b < 252]
    assert len(kept) < 32
    assert roll_dice(GAME_ID, r, LINK_A, LINK_B, len(kept)) == tuple(kept)
    naive = tuple(b % 6 + 1 for b in digest[: len(kept)])
    assert roll_dice(GAME_ID, r, LINK_A, LINK_B, len(kept)) != naive


def test_dice_continue_into_the_next_digest() -> None:
    kept: list[int] = []
    for ctr in range(4):
        kept.extend(b % 6 + 1 for b in ref_roll_digest(GAME_ID, 7, LINK_A, LINK_B, ctr) if b < 252)
    assert len(kept) >= 100
    assert roll_dice(GAME_ID, 7, LINK_A, LINK_B, 100) == tuple(kept[:100])


def test_dice_count_zero_and_prefixes() -> None:
    assert roll_dice(GAME_ID, 0, LINK_A, LINK_B, 0) == ()
    many = roll_dice(GAME_ID, 3, LINK_A, LINK_B, 1000)
    assert len(many) == 1000
    for count in (1, 5, 31, 32, 33, 999):
        assert roll_dice(GAME_ID, 3, LINK_A, LINK_B, count) == many[:count]


def test_dice_depend_on_every_input() -> None:
    base = roll_dice(GAME_ID, 3, LINK_A, LINK_B, 20)
    assert roll_dice(OTHER_GAME_ID, 3, LINK_A, LINK_B, 20) != base
    assert roll_dice(GAME_ID, 4, LINK_A, LINK_B, 20) != base
    assert roll_dice(GAME_ID, 3, LINK_B, LINK_A, 20) != base
    assert roll_dice(GAME_ID, 3, LINK_A, bytes(32), 20) != base


links = st.binary(min_size=32, max_size=32)
wrong_size = st.binary(max_size=64).filter(lambda b: len(b) != 32)


@given(
    game_id=links,
    roll_index=st.integers(0, 2**64 - 1),
    link_a=links,
    link_b=links,
    count=st.integers(0, 200),
)
def test_dice_of_any_links_are_faces(
    game_id: bytes, roll_index: int, link_a: bytes, link_b: bytes, count: int
) -> None:
    values = roll_dice(game_id, roll_index, link_a, link_b, count)
    assert values == tuple(ref_dice(game_id, roll_index, link_a, link_b, count))
    assert len(values) == count
    assert all(1 <= v <= 6 for v in values)


@given(data=st.data(), bad=wrong_size, position=st.sampled_from(["game_id", "link_a", "link_b"]))
def test_dice_reject_wrong_sizes(data: st.DataObject, bad: bytes, position: str) -> None:
    fields = {"game_id": GAME_ID, "link_a": LINK_A, "link_b": LINK_B, position: bad}
    count = data.draw(st.integers(0, 10))
    with pytest.raises(DiceError, match=f"must be 32 bytes, not {len(bad)}"):
        roll_dice(fields["game_id"], 0, fields["link_a"], fields["link_b"], count)


@pytest.mark.parametrize(
    ("roll_index", "count", "message"),
    [
        (-1, 1, "roll index must be in 0..18446744073709551615, not -1"),
        (2**64, 1, "roll index must be in 0..18446744073709551615, not 18446744073709551616"),
        (False, 1, "roll index must be an int, not bool"),
        (0, -1, "dice count of roll 0 must be >= 0, not -1"),
        (5, 1.0, "dice count of roll 5 must be an int, not float"),
    ],
)
def test_dice_reject_bad_ints(roll_index: int, count: int, message: str) -> None:
    with pytest.raises(DiceError, match=re.escape(message)):
        roll_dice(GAME_ID, roll_index, LINK_A, LINK_B, count)


def test_dice_name_the_player_of_a_bad_link() -> None:
    with pytest.raises(DiceError, match="player B's link for roll 9 must be bytes, not str"):
        roll_dice(GAME_ID, 9, LINK_A, "ab" * 32, 1)  # type: ignore[arg-type]
