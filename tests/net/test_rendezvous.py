"""The host's door at the relay and the joiner's routes (dbnet.net.rendezvous), with the
real transit relay on loopback."""

from __future__ import annotations

import ipaddress

import trio

from dbnet.net.invite import Candidate, Invite, PathKind
from dbnet.net.relay import open_relayed, relay_side, relay_token
from dbnet.net.rendezvous import host_candidates, invite_routes, relay_door
from dbnet.net.stream import RELAY

SECRET = bytes(range(16))
FINGERPRINT = "KQ3X-7ZBD-M2LA-QX4P"


async def test_the_door_waits_anew_and_admits_each_joiner_that_pairs(
    real_relay: tuple[str, int],
) -> None:
    """Nobody comes for a while (the waiting connection is made anew, silently); then two
    joiners in turn each reach the host through the relay."""
    said: list[str] = []
    admitted: list[tuple[trio.abc.Stream, str, str]] = []

    def admit(stream: trio.abc.Stream, where: str, path: str) -> None:
        admitted.append((stream, where, path))

    token = relay_token(SECRET)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            door = relay_door(real_relay, SECRET, said.append, refresh=0.2)
            nursery.start_soon(door, admit)
            await trio.sleep(1.0)  # several refreshes, nobody came
            assert admitted == []
            for count in (1, 2):
                joiner = await open_relayed(
                    real_relay, token, relay_side(token, "joiner"), timeout=5, wait=5
                )
                await joiner.send_all(b"hello")
                while len(admitted) < count:
                    await trio.sleep(0.01)
                stream, where, path = admitted[-1]
                assert await stream.receive_some(5) == b"hello"
                assert (where, path) == (f"relay 127.0.0.1:{real_relay[1]}", RELAY)
                await joiner.aclose()
                await stream.aclose()
            nursery.cancel_scope.cancel()
    assert said == []


async def test_a_relay_that_cannot_be_reached_costs_one_line() -> None:
    said: list[str] = []
    door = relay_door(("127.0.0.1", 9), SECRET, said.append, reconnect=(0.05,))
    with trio.move_on_after(1.0):
        await door(lambda stream, where, path: None)
    assert len(said) == 1, said
    assert said[0].startswith("the relay cannot be used for now: relay 127.0.0.1:9: cannot connect")


def test_the_invites_routes_are_its_direct_paths_then_its_relay() -> None:
    direct = host_candidates(["192.0.2.7", "2001:db8::7"], 7117, ("203.0.113.9", 40000))
    assert [(c.kind, str(c.address), c.port) for c in direct] == [
        (PathKind.MAPPING, "203.0.113.9", 40000),
        (PathKind.LAN, "192.0.2.7", 7117),
        (PathKind.IPV6, "2001:db8::7", 7117),
    ]
    invite = Invite(FINGERPRINT, SECRET, direct, ("relay.example", 4001))
    routes = invite_routes(invite)
    assert [(r.path, r.where, r.relayed) for r in routes] == [
        ("direct (port mapping)", "203.0.113.9:40000", False),
        ("direct (LAN)", "192.0.2.7:7117", False),
        ("direct (IPv6)", "[2001:db8::7]:7117", False),
        ("relay", "relay.example:4001", True),
    ]
    assert [r.path for r in invite_routes(invite, relay=False)][-1] == "direct (IPv6)"


def test_an_address_already_listed_is_not_listed_twice() -> None:
    """A host whose own address is its mapping's (no NAT in between) lists it once."""
    direct = host_candidates(["203.0.113.9"], 7117, ("203.0.113.9", 7117))
    assert direct == (Candidate(PathKind.MAPPING, ipaddress.ip_address("203.0.113.9"), 7117),)
