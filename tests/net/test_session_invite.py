"""The invite's secret in the session (docs/network.md, "The secret"): a host that
printed an invite seats only a joiner that proves it knows the secret, inside the
authenticated channel, on every path, so neither whoever learned the relay token nor
whoever reaches the port takes the seat; a joiner with an invite refuses a host that
cannot prove it made it. Without the proof, a host seats only the key it named
(``--expect``), or anyone on a direct path when it is open (``--open``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import trio
import trio.testing

from dbnet.net.messages import Bye, Entry, Hello
from dbnet.net.proof import PROOF_SIZE, invite_secret, proof, proof_matches
from dbnet.net.session_values import (
    RESUME_NEEDS_INVITE,
    SEAT_NEEDS_INVITE,
    GameSessionError,
    Outcome,
)
from dbnet.net.stream import RELAY, SecureStream, open_channel
from dbnet.protocol.identity import Identity
from dbnet.protocol.log import GameLog
from dbnet.replay.file import ReplayWriter, load_replay
from dbnet.replay.verify import VerdictStatus
from dbnet.wire.replay_header import ReplayHeader

from .helpers import ALICE, BOB, MALLORY
from .sessions import (
    JOINER_NONCE,
    Network,
    Side,
    make_side,
    reference,
    resume_side,
    run_side,
)
from .test_session_hostile import B_WARBAND, receive, send, until, with_host

Clock = trio.testing.MockClock
SECRET = bytes(range(16))
OTHER_SECRET = bytes(range(1, 17))


def relayed(network: Network, identity: Identity = BOB) -> Callable[[], Awaitable[SecureStream]]:
    """A ``connect`` for the joiner whose connections reach the host as if through the
    relay: both ends authenticated with the path ``relay``, as the relay's waiter hands
    them to the host."""

    async def connect() -> SecureStream:
        ours, theirs = trio.testing.memory_stream_pair()
        secure: list[SecureStream] = []

        async def host_end() -> None:
            secure.append(await open_channel(theirs, ALICE, initiator=False, path=RELAY))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_end)
            mine = await open_channel(ours, identity, initiator=True, path=RELAY)
        await network.arrive(secure[0])  # type: ignore[arg-type]  # as the host's gate passes it
        return mine

    return connect


def with_secret(side: Side, secret: bytes | None) -> Side:
    side.session.invite_secret = secret
    return side


async def expect_the_reference_game(tmp_path: Path, host: Side, joiner: Side) -> None:
    expected = await reference(tmp_path / "reference")
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.records == joiner.records == expected
    assert host.verdict().status is VerdictStatus.COMPLETE


def test_the_proof_is_bound_to_the_secret_the_connection_and_the_role() -> None:
    transcript = bytes(32)
    joiner = proof(SECRET, transcript, joiner=True)
    assert len(joiner) == PROOF_SIZE
    assert proof_matches(SECRET, transcript, joiner, joiner=True)
    assert not proof_matches(SECRET, transcript, joiner, joiner=False)  # not reflected back
    assert not proof_matches(SECRET, bytes([1]) + bytes(31), joiner, joiner=True)  # nor replayed
    assert not proof_matches(OTHER_SECRET, transcript, joiner, joiner=True)
    assert not proof_matches(SECRET, transcript, None, joiner=True)


def test_a_hosts_invite_secret_is_its_own_and_the_games() -> None:
    """Only the key's holder can work it out, again and again (a resumed host prints the
    same); another game (nonce) or another host has another."""
    nonce = bytes(range(32))
    secret = invite_secret(ALICE, nonce)
    assert len(secret) == 16
    assert invite_secret(ALICE, nonce) == secret
    assert invite_secret(ALICE, bytes(32)) != secret
    assert invite_secret(BOB, nonce) != secret


async def test_a_joiner_with_the_invite_plays_through_the_relay(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    joiner = with_secret(make_side(tmp_path, "bob", identity=BOB, host=False), SECRET)
    network = Network()

    async def body() -> None:
        await run_side(joiner, lambda: joiner.session.join(relayed(network)))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    await expect_the_reference_game(tmp_path, host, joiner)
    assert joiner.saw("connected to alice (")
    assert any(line.startswith("connected") and line.endswith("via relay") for line in joiner.said)


async def test_whoever_holds_the_relay_token_without_the_secret_cannot_take_the_seat(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Mallory reaches the host through the relay (she learned the token) with no proof,
    then with a proof of another invite's secret: refused both times, nothing of a game
    is offered to her, and Bob, with the invite, still plays."""
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    network = Network()
    byes: list[Bye] = []

    async def mallory(secret: bytes | None) -> None:
        secure = await relayed(network, MALLORY)()
        hello = Hello(
            "mallory",
            None,
            0,
            B_WARBAND,
            nonce=JOINER_NONCE,
            proof=None if secret is None else proof(secret, secure.transcript, joiner=True),
        )
        await send(secure, hello)
        while True:
            message = await receive(secure)
            assert not isinstance(message, Entry), "the host offered Mallory a game"
            if isinstance(message, Bye):
                byes.append(message)
                return

    async def body() -> None:
        await mallory(None)
        await mallory(OTHER_SECRET)
        joiner = with_secret(make_side(tmp_path, "bob", identity=BOB, host=False), SECRET)
        await run_side(joiner, lambda: joiner.session.join(relayed(network)))
        await until(lambda: host.outcome is not None)
        await expect_the_reference_game(tmp_path, host, joiner)

    await with_host(host, network, body)
    assert [bye.reason for bye in byes] == [
        "the relay path needs the invite: use dbnet join INVITE",
        "your proof of the invite's secret is wrong: ask for a fresh invite",
    ]
    assert host.saw(
        "refused a connection: a peer came through the relay without proof of the invite's "
        "secret; still waiting for the opponent"
    )
    assert host.saw("the joiner's proof of the invite's secret is wrong")


async def test_a_joiner_with_an_invite_refuses_a_host_that_cannot_prove_it_made_it(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """A host with another invite (or none) answers on an address the invite lists (the
    key check aside): the joiner stops with one clear line, before any game."""
    for secret in (None, OTHER_SECRET):
        where = tmp_path / ("none" if secret is None else "other")
        host = with_secret(make_side(where, "alice", identity=ALICE, host=True), secret)
        joiner = with_secret(make_side(where, "bob", identity=BOB, host=False), SECRET)
        network = Network()

        async def body(joiner: Side = joiner, network: Network = network) -> None:
            await run_side(joiner, lambda: joiner.session.join(network.connect))

        await with_host(host, network, body)
        assert isinstance(joiner.outcome, GameSessionError)
        assert joiner.records == []
        if secret is None:
            assert str(joiner.outcome) == (
                "the host did not prove that it made the invite (it has no proof of the "
                "invite's secret): refusing to play"
            )
        else:
            assert str(joiner.outcome) == (
                "the host's proof of the invite's secret is wrong (another invite, or an old one)"
            )


async def test_a_joiner_without_the_invite_takes_no_seat_on_a_direct_path(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """``dbnet join HOST:PORT`` (no proof) against a host that printed an invite: refused
    before any OFFER, on the direct path as on the relay; the host waits on (issue 29.3)."""
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    network = Network()

    async def body() -> None:
        await run_side(joiner, lambda: joiner.session.join(network.connect))

    await with_host(host, network, body)
    assert isinstance(joiner.outcome, GameSessionError), joiner.said
    assert str(joiner.outcome) == f"the host hung up: {SEAT_NEEDS_INVITE}"
    assert joiner.records == []
    assert host.records == []
    assert not host.path.exists()
    assert host.saw(
        "refused a connection: a joiner came without proof of the invite's secret (this host "
        "seats only the holder of its invite, a key named with --expect, or anyone with "
        "--open); still waiting for the opponent"
    )


async def test_an_open_host_seats_a_joiner_without_the_invite(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """``dbnet host --open``: the first joiner who reaches a direct path plays."""
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    host.session.open_seat = True
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    network = Network()

    async def body() -> None:
        await run_side(joiner, lambda: joiner.session.join(network.connect))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    await expect_the_reference_game(tmp_path, host, joiner)
    assert any(line.endswith("via direct") for line in joiner.said if line.startswith("connected"))


async def test_an_open_host_still_needs_the_proof_through_the_relay(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The relay token alone never takes a seat, ``--open`` or not."""
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    host.session.open_seat = True
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    network = Network()

    async def body() -> None:
        await run_side(joiner, lambda: joiner.session.join(relayed(network)))

    await with_host(host, network, body)
    assert isinstance(joiner.outcome, GameSessionError), joiner.said
    assert "the relay path needs the invite" in str(joiner.outcome)
    assert host.records == []


async def test_a_host_that_names_the_joiners_key_seats_it_without_the_invite(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """``dbnet host --expect FP``: the key named takes the seat without the secret;
    another key without it does not."""
    host = with_secret(
        make_side(tmp_path, "alice", identity=ALICE, host=True, expect=BOB.fingerprint), SECRET
    )
    network = Network()
    byes: list[Bye] = []

    async def body() -> None:
        secure = await direct(network, MALLORY)
        await send(secure, Hello("mallory", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        while True:
            message = await receive(secure)
            assert not isinstance(message, Entry), "the host offered Mallory a game"
            if isinstance(message, Bye):
                byes.append(message)
                break
        joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
        await run_side(joiner, lambda: joiner.session.join(network.connect))
        await until(lambda: host.outcome is not None)
        await expect_the_reference_game(tmp_path, host, joiner)

    await with_host(host, network, body)
    assert [bye.reason for bye in byes] == ["your key is not the one this player expects"]


async def direct(network: Network, identity: Identity) -> SecureStream:
    """A direct connection of ``identity`` to the host, authenticated."""
    stream = await network.connect()
    return await open_channel(stream, identity, initiator=True)


async def test_a_reconnection_proves_the_secret_until_the_accept_is_logged(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Bob proves the invite, takes the OFFER and drops before his ACCEPT (the host holds
    the OFFER alone, and keeps it: the connection was lost, not refused). His key back
    on a direct path without the proof, asking for the same OFFER, is refused (the OFFER
    binds nobody yet); back with the proof, he plays the game."""
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    network = Network()
    byes: list[Bye] = []

    async def bob(with_proof: bool) -> None:
        secure = await direct(network, BOB)
        said = proof(SECRET, secure.transcript, joiner=True) if with_proof else None
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE, proof=said))
        while True:
            message = await receive(secure)
            if isinstance(message, Entry):
                assert with_proof, "the host offered a game without the proof"
                await secure.aclose()  # gone before the ACCEPT
                return
            if isinstance(message, Bye):
                byes.append(message)
                return

    async def body() -> None:
        await bob(with_proof=True)
        await until(lambda: host.saw("connection"))
        assert len(host.records) == 1
        await bob(with_proof=False)
        assert len(host.records) == 1  # the OFFER held is still the one Bob took
        assert host.path.exists()
        joiner = with_secret(make_side(tmp_path, "bob", identity=BOB, host=False), SECRET)
        await run_side(joiner, lambda: joiner.session.join(network.connect))
        await until(lambda: host.outcome is not None)
        await expect_the_reference_game(tmp_path, host, joiner)

    await with_host(host, network, body)
    assert [bye.reason for bye in byes] == [SEAT_NEEDS_INVITE]


async def test_a_resumed_offer_is_taken_only_with_the_invite(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Both replays hold the OFFER alone (no ACCEPT is logged), both sides resume: the
    host (which prints an invite again, with the game's secret) refuses the joiner that
    comes back without it, in one line that says how to come back, and keeps its
    replay; the OFFER binds nobody until the ACCEPT. A stranger with the invite who asks
    for a new game is refused too: a resumed game has no other OFFER to make (this
    crashed the host, after deleting its replay, with an AssertionError)."""
    offer = (await reference(tmp_path / "reference"))[:1]
    sides = []
    for name, identity, hosting in (("alice", ALICE, True), ("bob", BOB, False)):
        side = make_side(tmp_path, name, identity=identity, host=hosting)
        log = GameLog.start(offer[0])
        header = ReplayHeader(
            rules=log.rules, game_id=log.game_id, keys=log.keys, created="2026-01-01T00:00:00Z"
        )
        with ReplayWriter.create(side.path, header) as writer:
            writer.append(offer[0])
        sides.append(resume_side(side, seed=name))
    host, joiner = sides
    host.session.invite_secret = SECRET
    network = Network()
    byes: list[Bye] = []

    async def body() -> None:
        await run_side(joiner, lambda: joiner.session.join(network.connect))
        # a stranger with the invite asks for a new game: the resumed OFFER is not hers
        secure = await direct(network, MALLORY)
        said = proof(SECRET, secure.transcript, joiner=True)
        await send(secure, Hello("mallory", None, 0, B_WARBAND, nonce=bytes(32), proof=said))
        while True:
            message = await receive(secure)
            assert not isinstance(message, Entry), "the host offered Mallory a game"
            if isinstance(message, Bye):
                byes.append(message)
                break
        assert host.outcome is None, host.said  # still waiting for Bob

    await with_host(host, network, body)
    assert isinstance(joiner.outcome, GameSessionError), joiner.said
    assert str(joiner.outcome) == f"the peer left: {RESUME_NEEDS_INVITE}"
    assert [bye.reason for bye in byes] == ["you are not the other player of this game"]
    assert host.records == offer
    assert load_replay(host.path).records == tuple(offer)
    for side in sides:
        side.session.writer.close()  # type: ignore[union-attr]
