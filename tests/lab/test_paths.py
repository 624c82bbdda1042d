"""Any two players can connect (docs/network.md, section 1), proven in the NAT lab: every
host kind x joiner kind over {cone, symmetric, upnp, cgnat}, both players behind one
router, and an IPv6 pair; each pair plays a whole bot game through ``dbnet host`` and
``dbnet join INVITE``, both replays verify, and the joiner reports the path expected:
direct through the mapping where the host's router maps, the relay where nothing
direct can work. The label is the path that won the race. A game that starts on the
relay then moves to a direct path where one can open: the host's connection to the
joiner's mapped port (``dbnet.net.reverse``) where only the joiner's router maps, and
a hole punched through both NATs (``dbnet.net.punch``) wherever neither is symmetric;
its ``path:`` line says so. Issue 31 expects 11 of the 16 pairs direct in the end:
all but a symmetric NAT facing anything but a mapping router."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from .lab import Lab, Relay, Router, RouterKind
from .players import Game, assert_complete, path_of, play

pytestmark = pytest.mark.lab

KINDS: tuple[RouterKind, ...] = ("cone", "symmetric", "upnp", "cgnat")
EXPECTED = {
    "cone": "relay",  # nothing maps, the joiner cannot reach in: only the relay
    "symmetric": "relay",
    "upnp": "direct (port mapping)",  # the host's router maps its port
    "cgnat": "relay",  # its router maps, but behind a carrier's NAT nobody can use it
}
REVERSED = {
    "host": "path: direct (the joiner's port mapping)",
    "joiner": "path: direct (your port mapping)",
}
"""What each side says when the game moves to the host's connection to the joiner."""


PUNCHED = "path: direct (hole punched)"


def moves_to_the_joiner(host_kind: RouterKind, joiner_kind: RouterKind) -> bool:
    """Whether the game can move from the relay to the host's connection to the joiner:
    where only the joiner's router maps (any host can connect out to it)."""
    return EXPECTED[host_kind] == "relay" and joiner_kind == "upnp"


def punchable(host_kind: RouterKind, joiner_kind: RouterKind) -> bool:
    """Whether a hole can be punched: neither NAT is symmetric (a symmetric NAT gives the
    peer a new port, which no STUN answer foretells)."""
    return "symmetric" not in (host_kind, joiner_kind)


def ends_direct(host_kind: RouterKind, joiner_kind: RouterKind) -> bool:
    return (
        EXPECTED[host_kind] != "relay"
        or moves_to_the_joiner(host_kind, joiner_kind)
        or punchable(host_kind, joiner_kind)
    )


def test_the_matrix_expects_11_of_16_pairs_direct() -> None:
    pairs = list(itertools.product(KINDS, KINDS))
    relayed = {pair for pair in pairs if not ends_direct(*pair)}
    assert relayed == {
        ("cone", "symmetric"),
        ("symmetric", "cone"),
        ("symmetric", "symmetric"),
        ("cgnat", "symmetric"),
        ("symmetric", "cgnat"),
    }
    assert len(pairs) - len(relayed) == 11


class Matrix:
    """One lab for the whole matrix: a router of each kind for hosts and another of each
    kind for joiners, one host behind each, and the relay on the internet."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self.relay: Relay = lab.relay()
        self.hosts = {kind: lab.router(kind).host() for kind in KINDS}
        self.joiners = {kind: lab.router(kind).host() for kind in KINDS}


@pytest.fixture(scope="module")
def matrix(needs_lab: None) -> Iterator[Matrix]:
    with Lab.open() as lab:
        yield Matrix(lab)


@pytest.mark.parametrize(("host_kind", "joiner_kind"), list(itertools.product(KINDS, KINDS)))
def test_every_pair_of_routers_plays_over_the_path_expected(
    matrix: Matrix, tmp_path: Path, host_kind: RouterKind, joiner_kind: RouterKind
) -> None:
    game = play(
        matrix.hosts[host_kind],
        matrix.joiners[joiner_kind],
        tmp_path,
        matrix.relay.address,
        "--verbose",  # the host's reasons, should a punch fail
        "--turns-to-win",  # a game of a few seconds: the move comes well before its end
        "3",
    )
    assert_complete(game)
    assert path_of(game.joiner) == EXPECTED[host_kind], game.joiner.output()
    assert path_of(game.host) == ("relay" if EXPECTED[host_kind] == "relay" else "direct")
    if host_kind == "upnp":
        assert any(line.startswith("your router forwards ") for line in game.host.lines)
        return  # direct from the start: nothing to move
    reversed_ = REVERSED["joiner"] in game.joiner.lines
    punched = PUNCHED in game.joiner.lines
    assert (REVERSED["host"] in game.host.lines) == reversed_, game.host.output()
    assert (PUNCHED in game.host.lines) == punched, game.host.output()
    assert reversed_ <= moves_to_the_joiner(host_kind, joiner_kind), game.joiner.output()
    assert punched <= punchable(host_kind, joiner_kind), game.joiner.output()
    both = f"host:\n{game.host.output()}\n\njoiner:\n{game.joiner.output()}"
    assert (reversed_ or punched) == ends_direct(host_kind, joiner_kind), both


@pytest.mark.parametrize("host_kind", ["cone", "cgnat"])
def test_a_host_behind_any_nat_reaches_a_joiner_whose_router_maps(
    lab: Lab, tmp_path: Path, host_kind: RouterKind
) -> None:
    """Only the joiner's router maps a port: the game starts on the relay, the joiner
    tells the host its mapped address there, the host connects to it, and the game goes
    on directly, with the same handshake and proofs as any path."""
    relay = lab.relay()
    game = play(lab.router(host_kind).host(), lab.router("upnp").host(), tmp_path, relay.address)
    assert_complete(game)
    assert path_of(game.joiner) == "relay"
    assert REVERSED["joiner"] in game.joiner.lines, game.joiner.output()
    assert REVERSED["host"] in game.host.lines, game.host.output()
    assert game.joiner.connected()[-1].endswith(" via direct (your port mapping)")
    assert game.host.connected()[-1].endswith(" via direct (the joiner's port mapping)")
    assert any(line.startswith("your router forwards ") for line in game.joiner.lines)


def test_two_players_behind_one_router_play_over_the_lan(lab: Lab, tmp_path: Path) -> None:
    router: Router = lab.router("cone")
    game = play(router.host(), router.host(), tmp_path, lab.relay().address)
    assert_complete(game)
    assert path_of(game.joiner) == "direct (LAN)"


def test_an_ipv6_pair_behind_default_deny_firewalls_punches_a_direct_path(
    lab: Lab, tmp_path: Path
) -> None:
    """Issue 31, item 4: both behind routers whose IPv6 firewall admits nothing inbound
    (and whose IPv4 NAT is symmetric): the game starts on the relay, and moves to an
    IPv6 path punched through both firewalls."""
    host = lab.router("ipv6closed").host()
    joiner = lab.router("ipv6closed").host()
    game = play(host, joiner, tmp_path, lab.relay().address)
    assert_complete(game)
    assert path_of(game.joiner) == "relay", game.joiner.output()
    for player in (game.host, game.joiner):
        assert "path: direct (hole punched, IPv6)" in player.lines, player.output()
    assert host.address6 is not None
    assert joiner.address6 is not None
    assert game.joiner.connected()[-1].endswith(" via direct (hole punched, IPv6)")


def test_an_ipv6_pair_plays_directly_over_ipv6(lab: Lab, tmp_path: Path) -> None:
    """Both behind IPv6 routers with a stateful firewall (the game port opened, as a
    player opens a pinhole): no mapping, no shared LAN, yet a direct path."""
    host = lab.router("ipv6").host()
    game = play(host, lab.router("ipv6").host(), tmp_path, lab.relay().address)
    assert_complete(game)
    assert path_of(game.joiner) == "direct (IPv6)"
    assert host.address6 is not None
    assert any(f"[{host.address6}]" in line for line in game.joiner.lines)


def test_a_game_through_the_relay_is_the_same_game(lab: Lab, tmp_path: Path) -> None:
    """What crosses the relay is the channel, end to end: the replays of a relayed game
    are byte for byte those the players wrote, and verify (checked in ``play``)."""
    relay = lab.relay()
    game: Game = play(lab.router("cone").host(), lab.router("cone").host(), tmp_path, relay.address)
    assert_complete(game)
    assert path_of(game.joiner) == "relay"
