"""Issue 19's protocol holes, each first as the attack that used to work.

Hole 1: a host that reuses an earlier game's nonce no longer repeats the joiner's dice.
Hole 2: a miniature's card (and the map) is checked against the receiver's catalog.
Hole 3 and 5 (the live session's side) are in ``tests/net/test_session_hostile.py``.
"""

from __future__ import annotations

import dataclasses

import pytest

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup, MapDef, Player, Warband
from dbnet.errors import DecodeError
from dbnet.protocol.errors import InvalidEntryError
from dbnet.protocol.genesis import RULES_VERSION, game_id_for
from dbnet.protocol.log import GameLog
from dbnet.protocol.peer import Peer
from dbnet.protocol.remote import RemoteGame
from dbnet.wire.bodies import AcceptBody, EntryKind, OfferBody
from dbnet.wire.entries import Entry, decode_signed_entry, replace
from dbnet.wire.setup import EncodedSetup, setup_to_wire
from dbnet.wire.values import decode, encode

from .helpers import bot_chooser, derive, identity, sign

ALICE, BOB = identity(5, "A"), identity(5, "B")
NONCE = derive(5, "nonce")


def b_links(setup: GameSetup, joiner_nonce: bytes, rolls: int) -> list[bytes]:
    """B's links for the first ``rolls`` rolls of a network game (chain secrets derived
    from key and game id, as ``dbnet join`` does) with A's nonce fixed."""
    saved: list[bytes] = []
    a = RemoteGame.offer(ALICE, BOB.public_key, setup, saved.append, nonce=NONCE,
                         joiner_nonce=joiner_nonce)  # fmt: skip
    b = RemoteGame.accept(BOB, a.records[0], saved.append)
    return [b.peer.chain.reveal(r) for r in range(rolls)]


def test_a_reused_host_nonce_does_not_repeat_the_joiners_dice(setup: GameSetup) -> None:
    """Before version 2 the game id was fixed by the host's nonce alone: a host reusing
    it got the joiner's chain of the earlier game again (42 of 42 rolls known). Now the
    joiner's fresh nonce is in the id, so no link repeats."""
    first = b_links(setup, derive(5, "joiner nonce 1"), 42)
    second = b_links(setup, derive(5, "joiner nonce 2"), 42)
    assert not set(first) & set(second)
    # the same joiner nonce (both sides replaying): the same game, which the session's
    # played-games file refuses (tests/net/test_processes.py)
    assert b_links(setup, derive(5, "joiner nonce 1"), 42) == first


def test_the_game_id_binds_both_nonces(setup: GameSetup) -> None:
    setup_bytes = encode(setup_to_wire(setup))
    keys = (ALICE.public_key, BOB.public_key)
    ids = {
        game_id_for("r", keys, NONCE, setup_bytes, derive(5, "j1")),
        game_id_for("r", keys, NONCE, setup_bytes, derive(5, "j2")),
        game_id_for("r", keys, derive(5, "other"), setup_bytes, derive(5, "j1")),
        game_id_for("r", keys, NONCE, setup_bytes),  # version 1: A's nonce alone
    }
    assert len(ids) == 4


def test_a_version_3_offer_carries_both_nonces_and_signed_names_and_entries_keep_its_version(
    setup: GameSetup,
) -> None:
    a, offer = Peer.offer(
        ALICE, BOB.public_key, setup, nonce=NONCE, joiner_nonce=bytes(32), name="alice"
    )
    fields = decode(decode_signed_entry(offer)[0].signed)
    assert isinstance(fields, list)
    assert fields[0] == 3
    assert list(fields[6]) == [
        "rules", "keys", "nonces", "setup", "chain", "anchor", "state", "name",
    ]  # fmt: skip
    assert fields[6]["nonces"] == [NONCE, bytes(32)]
    assert fields[6]["name"] == "alice"
    _, accept = Peer.accept(BOB, offer, name="bob")
    entry = decode_signed_entry(accept)[1]
    assert isinstance(entry.body, AcceptBody)
    assert entry.body.name == "bob"
    accept_fields = decode(decode_signed_entry(accept)[0].signed)
    assert isinstance(accept_fields, list)
    assert list(accept_fields[6]) == ["anchor", "links", "state", "name"]
    unnamed = replace(entry.body, name=None)  # the version-2 ACCEPT's form
    downgraded = sign(BOB, replace(entry, version=2, body=unnamed))
    with pytest.raises(InvalidEntryError, match="protocol version 2 in a game of version 3"):
        a.receive(downgraded)


def test_a_name_outside_the_pattern_is_never_signed(setup: GameSetup) -> None:
    """A name is 1-32 letters, digits, '_', '.' or '-' (like HELLO's): a name with spaces,
    controls or another script is refused before anything is signed."""
    for bad in ("", "a b", "-lead", "x" * 33, "\u202eevil", "Jos\u00e9"):
        with pytest.raises(DecodeError, match=r"entry\.body\.name: expected a name"):
            Peer.offer(ALICE, BOB.public_key, setup, nonce=NONCE, joiner_nonce=bytes(32), name=bad)


# --- hole 2: the cards are the catalog's -------------------------------------------------------


def forged_offer(setup: GameSetup) -> bytes:
    """A validly signed OFFER of ``setup`` by A, its game id computed from its contents,
    written by hand (``Peer.offer`` itself refuses a setup that is not the catalog's)."""
    keys = (ALICE.public_key, BOB.public_key)
    setup_bytes = encode(setup_to_wire(setup))
    game_id = game_id_for(RULES_VERSION, keys, NONCE, setup_bytes, NONCE)
    offered = EncodedSetup(setup, None, setup_bytes)
    body = OfferBody(RULES_VERSION, keys, NONCE, offered, 8, bytes(32), bytes(32), NONCE)
    return sign(ALICE, Entry(2, game_id, 0, 0, bytes(32), EntryKind.OFFER, body))


def altered(setup: GameSetup, seat: Player, index: int, **changes: object) -> GameSetup:
    warbands = list(setup.warbands)
    minis = list(warbands[seat].minis)
    minis[index] = dataclasses.replace(minis[index], **changes)  # type: ignore[arg-type]
    warbands[seat] = Warband(warbands[seat].name, tuple(minis))
    return GameSetup(setup.map, (warbands[0], warbands[1]), options=setup.options)


@pytest.mark.parametrize(
    ("seat", "changes", "message"),
    [
        (Player.A, {"power": 60}, "its power is 60, but the catalog's card says"),
        (Player.B, {"spawn_cost": 0}, "its spawn cost is 0, but the catalog's card says"),
        (Player.B, {"life": 9}, "its life is 9, but the catalog's card says"),
        (Player.A, {"abilities": ()}, "its number of abilities is 0, but the catalog's card says"),
        (Player.A, {"official": True}, "its official is True, but the catalog's card says False"),
    ],
)
def test_a_catalog_miniature_with_another_card_is_refused_before_play(
    setup: GameSetup, seat: Player, changes: dict[str, object], message: str
) -> None:
    """Rule 600 and the catalog: a peer sends a catalog miniature with altered stats
    (power 60, cost 0, ...). It is signed correctly, and both the other peer and the
    verifier refuse it at the OFFER, naming the warband, the miniature and the field."""
    bad = altered(setup, seat, 2, **changes)
    mini = setup.warbands[seat].minis[2]
    with pytest.raises(InvalidEntryError) as caught:
        GameLog.start(forged_offer(bad))
    assert caught.value.seq == 0
    assert caught.value.reason.startswith(
        f"the setup is not this dbnet's catalog: {seat.name}'s warband "
        f"({setup.warbands[seat].name!r}), miniature 3: {mini.name!r}: "
    )
    assert message in caught.value.reason


def test_a_miniature_the_catalog_does_not_have_is_refused(setup: GameSetup) -> None:
    bad = altered(setup, Player.B, 0, slug="homebrew-titan", name="Homebrew Titan")
    with pytest.raises(InvalidEntryError) as caught:
        GameLog.start(forged_offer(bad))
    assert caught.value.reason.endswith(
        "'Homebrew Titan' (slug 'homebrew-titan') is not in this dbnet's catalog; only "
        "catalog miniatures can be played"
    )


def test_a_map_with_other_values_is_refused(setup: GameSetup) -> None:
    values = list(setup.map.values)
    values[12] = 9  # c3
    bad_map = MapDef(setup.map.name, tuple(values), setup.map.reconstructed)
    bad = GameSetup(bad_map, setup.warbands, options=setup.options)
    with pytest.raises(InvalidEntryError, match="cell c3 is worth 9, but the shipped map says 5"):
        GameLog.start(forged_offer(bad))
    renamed = GameSetup(MapDef("Elsewhere", setup.map.values), setup.warbands)
    with pytest.raises(InvalidEntryError, match="'Elsewhere' is not a map of this dbnet"):
        GameLog.start(forged_offer(renamed))


def test_the_shipped_warbands_and_map_pass() -> None:
    """The check refuses only what differs: the shipped setup passes up to the state
    hash (this hand-made OFFER carries a zero one)."""
    catalog = load_catalog()
    with pytest.raises(InvalidEntryError, match="A's state hash differs from the initial"):
        GameLog.start(forged_offer(GameSetup(load_map(), default_warbands(catalog))))


def test_a_bot_game_between_catalog_warbands_still_plays(setup: GameSetup) -> None:
    from .helpers import Pair

    pair = Pair.start(setup, 5)
    choose = bot_chooser(("random", "random"), 5)
    for _ in range(40):
        pair.step(choose)
    assert pair.a.log.game.state_hash() == pair.b.log.game.state_hash()


def test_a_refused_setup_is_refused_every_time(setup: GameSetup) -> None:
    """Setups that passed the catalog check are kept so that it runs once per setup;
    a refused one is never kept: the same OFFER (which decodes to the same setup
    object) is refused again."""
    bad = altered(setup, Player.A, 2, power=60)
    offer = forged_offer(bad)
    for _ in range(2):
        with pytest.raises(InvalidEntryError, match="its power is 60"):
            GameLog.start(offer)


def test_a_setup_that_passed_is_not_checked_again(
    setup: GameSetup, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both peers of a local game, and every game of a run, check one setup object once;
    an equal but distinct setup is checked on its own."""
    from dbnet.protocol import genesis

    checked: list[GameSetup] = []

    def counting(checked_setup: GameSetup) -> None:
        checked.append(checked_setup)

    monkeypatch.setattr(genesis, "check_setup", counting)
    fresh = dataclasses.replace(setup)
    assert fresh is not setup
    for _ in range(3):
        genesis.check_offered_setup(fresh)
    assert checked == [fresh]
    other = dataclasses.replace(setup)
    genesis.check_offered_setup(other)
    assert [s is other for s in checked] == [False, True]
