"""The lab itself: each router kind behaves as the NAT it models, the relay relays."""

from __future__ import annotations

import time

import pytest

from .lab import GAME_PORTS, Host, Lab

pytestmark = pytest.mark.lab


def _observed(host: Host, *targets: Host, local_port: int = 40000) -> list[tuple[str, int]]:
    """The (address, port) each ``whoami`` target saw one UDP socket of ``host`` come from."""
    for target in targets:
        target.agent("whoami", "3478")
    done = host.run_agent("probe", str(local_port), *(f"{t.address}:3478" for t in targets))
    assert done.returncode == 0, done.stderr
    seen = [line.split() for line in done.stdout.splitlines()]
    return [(address, int(port)) for address, port in seen]


def _connects(client: Host, address: str, port: int, seconds: float = 1) -> bool:
    done = client.run_agent("connect", address, str(port), str(seconds))
    return done.returncode == 0 and done.stdout.strip() == "hello"


def test_a_cone_router_keeps_the_source_port_for_every_destination(lab: Lab) -> None:
    router = lab.router("cone")
    seen = _observed(router.host(), lab.public_host(), lab.public_host())
    assert seen == [(router.wan_address, 40000), (router.wan_address, 40000)]


def test_a_symmetric_router_maps_each_destination_to_its_own_port(lab: Lab) -> None:
    router = lab.router("symmetric")
    seen = _observed(router.host(), lab.public_host(), lab.public_host())
    assert [address for address, _ in seen] == [router.wan_address] * 2
    assert seen[0][1] != seen[1][1]


@pytest.mark.parametrize("kind", ["cone", "symmetric"])
def test_new_inbound_connections_to_a_lan_host_fail(lab: Lab, kind: str) -> None:
    router = lab.router(kind)  # type: ignore[arg-type]
    host = router.host()
    host.agent("listen", "7117")
    outsider = lab.public_host()
    assert _connects(router.host(), host.address, 7117)  # on the LAN, it listens
    assert not _connects(outsider, router.wan_address, 7117)
    assert not _connects(outsider, host.address, 7117)  # no route into a LAN


def test_two_players_behind_one_router_reach_each_other_on_the_lan(lab: Lab) -> None:
    router = lab.router("cone")
    first, second = router.host(), router.host()
    first.agent("listen", "7117")
    assert _connects(second, first.address, 7117)


def test_upnp_router_maps_by_nat_pmp_and_by_upnp_igd(lab: Lab) -> None:
    router = lab.router("upnp")
    host = router.host()
    outsider = lab.public_host()
    host.agent("listen", "7117")
    host.agent("listen", "7118")
    assert not _connects(outsider, router.wan_address, 7117)

    natpmp = host.run_agent("natpmp", router.lan_address, "7117")
    assert natpmp.returncode == 0, natpmp.stderr
    assert natpmp.stdout.split() == ["7117", "3600", router.wan_address]
    assert _connects(outsider, router.wan_address, 7117)

    upnp = host.run_agent("upnp", "7118")
    assert upnp.returncode == 0, upnp.stderr
    assert upnp.stdout.split() == [router.wan_address, "7118"]
    assert _connects(outsider, router.wan_address, 7118)


def test_a_mapping_behind_carrier_grade_nat_is_not_reachable(lab: Lab) -> None:
    """miniupnpd's STUN test sees the carrier's filtering NAT and refuses to map: NAT-PMP
    answers with an error, and no address of the LAN host is reachable from outside."""
    router = lab.router("cgnat")
    assert router.carrier is not None
    host = router.host()
    host.agent("listen", "7117")
    natpmp = host.run_agent("natpmp", router.lan_address, "7117")
    assert natpmp.returncode != 0
    assert "AssertionError" in natpmp.stderr
    outsider = lab.public_host()
    for address in (router.public_address, router.wan_address, host.address):
        assert not _connects(outsider, address, 7117)


def test_ipv6_hosts_reach_each_other_directly_through_the_pinhole(lab: Lab) -> None:
    first, second = lab.router("ipv6").host(), lab.router("ipv6").host()
    assert first.address6
    assert second.address6
    low, high = GAME_PORTS
    first.agent("listen", str(low))
    first.agent("listen", str(high + 1))
    assert _connects(second, first.address6, low)
    assert not _connects(second, first.address6, high + 1)  # the firewall drops the rest
    assert not _connects(second, first.address, low)  # IPv4 stays behind its NAT


def test_the_transit_relay_pairs_two_clients_and_the_capture_holds_their_bytes(
    lab: Lab,
) -> None:
    relay = lab.relay(record=True)
    target = f"{relay.address[0]}:{relay.address[1]}"
    token = "ab" * 32
    first, second = lab.router("cone").host(), lab.router("symmetric").host()
    a = first.popen(_relay_client(target, token, "01" * 8, "from-first"))
    b = second.popen(_relay_client(target, token, "02" * 8, "from-second"))
    out_a, err_a = a.communicate(timeout=15)
    out_b, err_b = b.communicate(timeout=15)
    assert out_a.split() == ["ok", "from-second"], err_a
    assert out_b.split() == ["ok", "from-first"], err_b
    capture = relay.capture()
    assert b"from-first" in capture
    assert b"from-second" in capture
    assert f"please relay {token}".encode() in capture


def test_a_blocked_relay_stalls_and_a_stopped_one_refuses(lab: Lab) -> None:
    relay = lab.relay()
    client = lab.router("cone").host()
    address, port = relay.address
    relay.block()
    started = time.monotonic()
    assert client.run_agent("connect", address, str(port), "1").returncode != 0
    assert time.monotonic() - started >= 1  # dropped, not refused
    relay.unblock()
    relay.stop()
    assert client.run_agent("connect", address, str(port), "1").returncode != 0


def test_the_delaying_forwarder_holds_each_direction(lab: Lab) -> None:
    server, client = lab.public_host(), lab.public_host()
    server.agent("listen", "7117")
    client.agent("forward", "7000", f"{server.address}:7117", "--delay", "0.2")
    started = time.monotonic()
    assert _connects(client, "127.0.0.1", 7000)
    assert time.monotonic() - started >= 0.2


def _relay_client(target: str, token: str, side: str, text: str) -> list[str]:
    import sys

    from .lab import AGENT

    return [sys.executable, str(AGENT), "relay", target, token, side, text]
