"""Hole punching (issue 31, items 1 and 2; docs/network.md section 14): a game that starts
on the relay moves to a QUIC path the two sides punch, mid-game, with nothing lost,
repeated or reordered; a stranger's QUIC, a peer that names a third party and a peer
that does not punch all leave the game on the relay. The sessions run in-process here,
their punching sockets on loopback (no NAT to cross: the NAT lab proves that part,
tests/lab/test_paths.py); the relay is a pair of memory streams, as the relay's waiter
hands them to each side."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio

from dbnet.net.handshake import SUPPORTED_VERSIONS
from dbnet.net.holepunch import PunchDoor
from dbnet.net.messages import MessageError, MessageType, Punch, decode_message, encode_message
from dbnet.net.punch import (
    MAX_PUNCH_CANDIDATES,
    PROBE,
    PROBES,
    PUNCHED_PATH,
    PunchCandidate,
    PunchCandidateError,
    is_probe,
    own_ipv6_candidates,
)
from dbnet.net.quic import QuicStream, open_quic_endpoint
from dbnet.net.session_values import Outcome
from dbnet.net.stream import SecureStream
from dbnet.replay.verify import VerdictStatus

from .helpers import ALICE, BOB
from .sessions import Network, Side, run_side
from .test_reverse import play_relayed, spectated_sides
from .test_session_invite import relayed
from .test_spectators import CAROL

LIMIT = 60


def candidate(text: str, port: int) -> PunchCandidate:
    return PunchCandidate(ipaddress.ip_address(text), port)


# --- the message and the rules ---------------------------------------------------------------


def test_punch_round_trips_and_is_bounded() -> None:
    message = Punch((candidate("203.0.113.7", 40000), candidate("2001:db8:1::2", 40001)))
    assert decode_message(encode_message(message)) == message
    assert decode_message(encode_message(Punch(()))) == Punch(())
    flood = Punch(
        tuple(candidate("203.0.113.7", 1000 + i) for i in range(MAX_PUNCH_CANDIDATES + 1))
    )
    with pytest.raises(MessageError, match="length <= 4"):
        decode_message(encode_message(flood))


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("224.0.0.1", "multicast"),
        ("255.255.255.255", "broadcast"),
        ("0.0.0.0", "unspecified"),
        ("fe80::1", "link-local"),
        ("::ffff:203.0.113.7", "IPv4-mapped"),
    ],
)
def test_a_punch_naming_no_single_machine_is_refused_in_one_line(address: str, why: str) -> None:
    with pytest.raises(PunchCandidateError, match=why):
        candidate(address, 40000)
    hostile = msgpack.packb([MessageType.PUNCH.value, [["203.0.113.7", 40000], [address, 40000]]])
    with pytest.raises(MessageError, match=rf"punch\[1\]: not a hole-punching candidate: .*{why}"):
        decode_message(hostile)


def test_a_punch_address_must_be_canonical() -> None:
    hostile = msgpack.packb([MessageType.PUNCH.value, [["2001:DB8::1", 40000]]])
    with pytest.raises(MessageError, match="not in its canonical form 2001:db8::1"):
        decode_message(hostile)


def test_a_punch_listing_one_candidate_twice_is_refused() -> None:
    twice = Punch((candidate("203.0.113.7", 40000), candidate("203.0.113.7", 40000)))
    with pytest.raises(MessageError, match="listed twice"):
        decode_message(encode_message(twice))


def test_probes_are_neither_stun_nor_quic() -> None:
    assert is_probe(PROBE)
    assert PROBE[0] > 3  # STUN's first byte is 0 to 3
    assert PROBE[0] < 64  # QUIC's is 64 to 255 (RFC 9443)
    assert not is_probe(PROBE + b"x")


def test_ipv6_candidates_are_only_addresses_a_peer_can_reach() -> None:
    found = own_ipv6_candidates(["192.0.2.5", "fe80::1", "2001:db8:1::2", "2001:db8:1::3"], 4000)
    assert found == (candidate("2001:db8:1::2", 4000), candidate("2001:db8:1::3", 4000))
    many = own_ipv6_candidates([f"2001:db8:1::{i}" for i in range(1, 9)], 4000)
    assert len(many) == MAX_PUNCH_CANDIDATES - 1


# --- the probes on a real socket ---------------------------------------------------------------


async def test_a_door_hears_probes_and_the_quic_endpoint_never_sees_them() -> None:
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            door = loopback_door(nursery, host=True, report=lines.append)
            [own] = await door.candidates(ipv6=False)
            assert own.address == ipaddress.ip_address("127.0.0.1")
            sender = trio.socket.socket(type=trio.socket.SOCK_DGRAM)
            await sender.bind(("127.0.0.1", 0))
            peer = candidate("127.0.0.1", sender.getsockname()[1])
            assert not door.heard(peer)
            await sender.sendto(PROBE, own.endpoint)
            with trio.fail_after(5):
                await door.hear(peer)
            await sender.sendto(b"\x0fnot a probe", own.endpoint)  # junk: one line, once
            await trio.sleep(0.2)
            sender.close()
            nursery.cancel_scope.cancel()
    assert [line for line in lines if "ignored" in line] == [
        f"hole punching: ignored a 12-byte datagram from {peer}: not a QUIC packet (further "
        "ones are counted, not reported)"
    ]


async def test_probes_are_bounded_in_count() -> None:
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            door = loopback_door(nursery, host=False, report=lambda _: None)
            await door.candidates(ipv6=False)
            catcher = trio.socket.socket(type=trio.socket.SOCK_DGRAM)
            await catcher.bind(("127.0.0.1", 0))
            target = candidate("127.0.0.1", catcher.getsockname()[1])
            await door.probe([target, target])
            got = 0
            with trio.move_on_after(0.5):
                while True:
                    assert await catcher.recv(100) == PROBE
                    got += 1
            catcher.close()
            nursery.cancel_scope.cancel()
    assert got == 2 * PROBES


async def test_quic_and_probes_share_one_socket() -> None:
    """The endpoint's ``other`` takes the probes; QUIC still connects on that socket."""
    taken: list[bytes] = []
    with trio.fail_after(LIMIT):
        server = trio.socket.socket(type=trio.socket.SOCK_DGRAM)
        await server.bind(("127.0.0.1", 0))
        client = trio.socket.socket(type=trio.socket.SOCK_DGRAM)
        await client.bind(("127.0.0.1", 0))

        def other(data: bytes, peer: tuple[str, int]) -> bool:
            if is_probe(data):
                taken.append(data)
                return True
            return False

        async with (
            open_quic_endpoint(server, accept=True, other=other) as accepting,
            open_quic_endpoint(client) as connecting,
        ):
            await client.sendto(PROBE, server.getsockname())
            stream = await connecting.connect(server.getsockname())
            accepted = await accepting.accept()
            await stream.send_all(b"hello")
            assert await accepted.receive_some() == b"hello"
        server.close()
        client.close()
    assert taken == [PROBE]


# --- a whole game: it starts on the relay and moves to the punched path ---------------------


def loopback_door(nursery: trio.Nursery, *, host: bool, report: Callable[[str], None]) -> PunchDoor:
    """Punching sockets on 127.0.0.1 that tell their own address (no NAT, no STUN)."""
    return PunchDoor(
        nursery, host=host, stun=None, report=report, bind4="127.0.0.1", tell_bound=True
    )


async def play_punched(
    tmp_path: Path,
    *,
    host_punches: bool = True,
    joiner_punches: bool = True,
    host_versions: tuple[int, ...] = SUPPORTED_VERSIONS,
    cut_first_punched: bool = False,
    slow_offer: bool = False,
) -> tuple[Side, Side]:
    """A whole game that starts on the relay, both sides with punching sockets on
    loopback (but where a side ``..._punches`` is False); their ``--verbose`` lines are
    added to what they said, marked ``(verbose)``."""
    reported: dict[str, list[str]] = {"host": [], "joiner": []}

    async def prepare(host: Side, joiner: Side, nursery: trio.Nursery) -> None:
        for side, punches, role in (
            (host, host_punches, "host"),
            (joiner, joiner_punches, "joiner"),
        ):
            if punches:
                side.session.punch_door = loopback_door(
                    nursery, host=role == "host", report=reported[role].append
                )
        if slow_offer:  # the host's PUNCH overtakes its OFFER
            ensure = host.session._ensure_game

            async def slowly(*args: Any) -> Any:
                await trio.sleep(0.3)
                return await ensure(*args)

            host.session._ensure_game = slowly  # type: ignore[method-assign,assignment]
        if cut_first_punched:
            switch = joiner.session.switch_to
            cut: list[SecureStream] = []

            def switch_and_cut(stream: SecureStream) -> None:
                """The first punched path dies at once (the QUIC connection is cut: the
                host reads its end), as a NAT that forgets a mapping would."""
                if stream.path == PUNCHED_PATH and not cut:
                    cut.append(stream)
                    quic = stream._stream
                    assert isinstance(quic, QuicStream)
                    quic._cut("the test cuts the punched path")
                switch(stream)

            joiner.session.switch_to = switch_and_cut  # type: ignore[method-assign]

    host, joiner, _ = await play_relayed(tmp_path, prepare, host_versions)
    host.said.extend(f"(verbose) {line}" for line in reported["host"])
    joiner.said.extend(f"(verbose) {line}" for line in reported["joiner"])
    return host, joiner


async def test_a_relayed_game_moves_to_the_punched_path(tmp_path: Path) -> None:
    host, joiner = await play_punched(tmp_path)
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    for side, peer in (
        (host, f"bob ({BOB.fingerprint})"),
        (joiner, f"alice ({ALICE.fingerprint})"),
    ):
        assert side.saw(f"connected to {peer} via relay"), side.said
        assert side.saw(f"path: {PUNCHED_PATH}"), side.said
        assert side.saw(f"connected to {peer} via {PUNCHED_PATH}"), side.said
        assert not side.saw("connection lost"), side.said  # the move is not a loss
        assert side.verdict().status is VerdictStatus.COMPLETE
    assert host.path.read_bytes() == joiner.path.read_bytes()


async def test_a_punch_that_comes_before_the_offer_is_kept(tmp_path: Path) -> None:
    """The host's PUNCH may overtake its OFFER (the punch starts beside the game's start):
    the joiner, waiting for the OFFER, hands it to its attempt instead of dropping it."""
    host, joiner = await play_punched(tmp_path, slow_offer=True)
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.saw(f"path: {PUNCHED_PATH}"), joiner.said
    assert host.path.read_bytes() == joiner.path.read_bytes()


async def test_when_the_punched_path_dies_the_game_falls_back_to_the_relay(
    tmp_path: Path,
) -> None:
    """Issue 31, item 2: the relay stays the fallback. The first punched path dies as the
    game moves to it; the joiner reconnects, the race finds the relay again, the next
    relayed connection punches again, and the game ends complete on the new path:
    nothing lost, repeated or reordered (the replays are the same and verify)."""
    host, joiner = await play_punched(tmp_path, cut_first_punched=True)
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    relayed = [line for line in joiner.said if line.startswith("connected") and "via relay" in line]
    assert len(relayed) >= 2, joiner.said  # back on the relay after the punched path died
    assert joiner.saw("the test cuts the punched path"), joiner.said  # told, once
    assert sum(line == f"path: {PUNCHED_PATH}" for line in joiner.said) >= 2, joiner.said
    for side in (host, joiner):
        assert side.verdict().status is VerdictStatus.COMPLETE
    assert host.path.read_bytes() == joiner.path.read_bytes()


async def test_no_quic_goes_to_a_candidate_that_sends_no_probe() -> None:
    """A peer that names a third party's address gets at most ``PROBES`` small probes
    sent there, and never a QUIC packet: the joiner connects only to a candidate a probe
    came from (docs/network.md section 14)."""
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            door = loopback_door(nursery, host=False, report=lines.append)
            await door.candidates(ipv6=False)
            third = trio.socket.socket(type=trio.socket.SOCK_DGRAM)
            await third.bind(("127.0.0.1", 0))
            victim = candidate("127.0.0.1", third.getsockname()[1])
            got: list[bytes] = []

            async def record() -> None:
                while True:
                    got.append(await third.recv(2048))

            nursery.start_soon(record)
            with trio.move_on_after(1.0):  # the probes go on; QUIC waits for an answer
                nursery.start_soon(door.probe, [victim])
                await door.connect(victim, 5.0)
            await trio.sleep(0.1)
            nursery.cancel_scope.cancel()
        third.close()
    assert got, "the probes were sent"
    assert set(got) == {PROBE}  # probes only, no QUIC Initial (1200 bytes and more)
    assert len(got) <= PROBES


async def test_a_side_that_does_not_punch_keeps_the_game_on_the_relay(tmp_path: Path) -> None:
    """The joiner has no punching sockets: it answers the host's PUNCH with none, and the
    host says why (verbose) at once, not after its timeout."""
    host, joiner = await play_punched(tmp_path, joiner_punches=False)
    assert host.outcome is Outcome.COMPLETE
    assert joiner.outcome is Outcome.COMPLETE
    assert not host.saw("path: ")
    assert not joiner.saw("path: ")
    assert host.saw(
        "(verbose) hole punching failed: the joiner told no candidate; the game stays on the relay"
    ), host.said
    assert host.verdict().status is VerdictStatus.COMPLETE


async def test_a_host_of_channel_version_4_keeps_the_game_on_the_relay(tmp_path: Path) -> None:
    host, joiner = await play_punched(tmp_path, host_versions=(4, 3))
    assert host.outcome is Outcome.COMPLETE
    assert joiner.outcome is Outcome.COMPLETE
    assert not host.saw("path: ")
    assert not joiner.saw("path: ")
    assert joiner.verdict().status is VerdictStatus.COMPLETE


# --- a spectator on the relay moves to a path punched to it -----------------------------------


@pytest.mark.parametrize("carol_punches", [True, False])
async def test_a_spectator_on_the_relay_moves_to_a_punched_path(
    tmp_path: Path, carol_punches: bool
) -> None:
    """Spectators ride the same paths as the players: one that came through the relay is
    punched to as the joiner is, and watches on over the punched path, every entry
    verified, its replay the host's byte for byte. A spectator that does not punch
    answers the host's PUNCH with none, and watches on over the relay."""
    host, joiner, watching, said = spectated_sides(tmp_path)
    network = Network()
    verdicts: list[object] = []
    reported: list[str] = []

    @asynccontextmanager
    async def carol_punching() -> AsyncIterator[PunchDoor]:
        async with trio.open_nursery() as nursery:
            yield loopback_door(nursery, host=False, report=reported.append)
            nursery.cancel_scope.cancel()

    if carol_punches:
        watching.punching = carol_punching

    async def spectate() -> None:
        try:
            verdicts.append(await watching.run(relayed(network, CAROL)))
        finally:
            watching.close()

    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            host.session.punch_door = loopback_door(nursery, host=True, report=reported.append)
            nursery.start_soon(run_side, host, lambda: host.session.serve(network.arrivals))
            nursery.start_soon(spectate)
            with trio.fail_after(10):
                while carol_punches and f"path: {PUNCHED_PATH}" not in said:
                    await trio.sleep(0.01)
            await run_side(joiner, lambda: joiner.session.join(relayed(network)))
            with trio.fail_after(10):
                while not verdicts or host.outcome is None:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    assert host.outcome is Outcome.COMPLETE, host.said
    assert verdicts[0].status is VerdictStatus.COMPLETE, said  # type: ignore[attr-defined]
    carol = f"carol ({CAROL.fingerprint})"
    assert host.saw(f"spectator {carol} is watching via relay"), host.said
    assert host.saw(f"path: {PUNCHED_PATH} for the spectator {carol}") == carol_punches
    assert host.saw(f"spectator {carol} is watching via {PUNCHED_PATH}") == carol_punches
    if not carol_punches:
        told = "hole punching failed: the spectator told no candidate; the game stays on the relay"
        assert told in reported, reported
    assert (tmp_path / "carol.dbnr").read_bytes() == host.path.read_bytes()
