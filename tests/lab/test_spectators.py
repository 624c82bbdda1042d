"""Spectators ride on the connection paths (docs/network.md, section 11), proven in the
NAT lab: a host behind a cone router (nothing maps, nobody can reach in) prints a
spectator invite that lists the lab's relay; a watcher behind another router pastes it
and can reach the host only through the relay: it watches the whole bot game, every
entry verified, its replay the host's, and names the winner by the name it signed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .lab import Host, Lab
from .players import (
    Game,
    Player,
    assert_complete,
    environment,
    invite_of,
    path_of,
    start_host,
    start_joiner,
)

pytestmark = pytest.mark.lab

WATCH_INVITE = re.compile(r"^  dbnet watch (DB\w+)$")
ADMITTED = re.compile(r"^spectator eve \(.*\) is watching via relay")
WINNER = re.compile(r"^(alice \(A\)|bob \(B\)) wins")


def start_watcher(
    where: Host, directory: Path, invite: str, relay: tuple[str, int] | None, *extra: str
) -> Player:
    """``dbnet watch INVITE --verbose --plain`` in ``where``."""
    replay = directory / "watcher.dbnr"
    argv = [
        sys.executable, "-m", "dbnet", "watch", invite, "--name", "eve", "--replay",
        str(replay), "--verbose", "--plain", *extra,
    ]  # fmt: skip
    env = environment(directory / "eve", relay)
    process = where.popen(argv, env=env, stderr=subprocess.STDOUT)
    return Player("watcher", process, replay)


def test_a_spectator_behind_a_nat_watches_through_the_relay(lab: Lab, tmp_path: Path) -> None:
    relay = lab.relay()
    host = start_host(lab.router("cone").host(), tmp_path, relay.address, "--spectators", "1")
    watch_invite = host.wait_for(WATCH_INVITE).group(1)
    watcher = start_watcher(lab.router("cone").host(), tmp_path, watch_invite, relay.address)
    host.wait_for(ADMITTED)  # before the game starts: it sees all of it
    joiner = start_joiner(lab.router("cone").host(), tmp_path, invite_of(host), relay.address)
    joiner.wait()
    host.wait()
    assert watcher.wait() == 0, watcher.output()
    assert_complete(Game(host, joiner))
    assert path_of(joiner) == "relay"
    # the watcher's direct paths cannot work from behind its NAT: it came by the relay
    # (then moved to a punched path, maybe before the game's HELLO named it)
    watching = watcher.wait_for(re.compile(r"^watching the game \w+ of alice \(.*\) via (.*);"))
    assert watching.group(1) in ("relay", "direct (hole punched)"), watcher.output()
    [paths] = [line for line in watcher.lines if line.startswith("the invite lists ")]
    assert "direct (LAN)" in paths, paths  # the host's own address, behind its router
    assert paths.endswith(f"relay {relay.address[0]}:{relay.address[1]}"), paths
    assert any(line.startswith("the players: alice (A), key ") for line in watcher.lines)
    # then both NATs are punched (issue 31): the watch goes on over the punched path
    assert "path: direct (hole punched)" in watcher.lines, watcher.output()
    assert any(
        line.startswith("path: direct (hole punched) for the spectator eve") for line in host.lines
    ), host.output()
    assert "every entry verified: signatures, hash chain, dice, re-simulation" in watcher.lines
    assert WINNER.match(watcher.lines[-1]), watcher.output()
    assert watcher.replay.read_bytes() == host.replay.read_bytes()


def test_a_spectator_whose_router_maps_moves_off_the_relay(lab: Lab, tmp_path: Path) -> None:
    """The host behind a cone NAT, the spectator behind a mapping router: it comes by the
    relay, tells the host its mapped port there, and the host connects to it
    (dbnet.net.reverse); the watch goes on over that connection, every entry verified.
    (The spectator asks no STUN server, so that no hole punch races the reversed
    connection.)"""
    relay = lab.relay()
    host = start_host(lab.router("cone").host(), tmp_path, relay.address, "--spectators", "1")
    watch_invite = host.wait_for(WATCH_INVITE).group(1)
    watcher = start_watcher(
        lab.router("upnp").host(), tmp_path, watch_invite, relay.address, "--stun", "off"
    )
    watcher.wait_for(re.compile(r"^path: direct \(your port mapping\)$"))
    joiner = start_joiner(lab.router("cone").host(), tmp_path, invite_of(host), relay.address)
    joiner.wait()
    host.wait()
    assert watcher.wait() == 0, watcher.output()
    assert_complete(Game(host, joiner))
    assert any(
        line.startswith("path: direct (the spectator's port mapping) for the spectator eve")
        for line in host.lines
    ), host.output()
    assert "every entry verified: signatures, hash chain, dice, re-simulation" in watcher.lines
    assert WINNER.match(watcher.lines[-1]), watcher.output()
    assert watcher.replay.read_bytes() == host.replay.read_bytes()
