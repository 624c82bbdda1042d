"""The relay is not trusted (docs/network.md, sections 1 and 10), tried in the NAT lab:
a relay that records every byte sees no plaintext; whoever holds the relay token but not
the invite's secret cannot take the seat, and the real joiner still plays; the relay cut
mid-game (it crashes and comes back) costs nothing: the game goes on through it."""

from __future__ import annotations

import re
import secrets
import sys
import time
from pathlib import Path

import pytest

from dbnet.catalog import default_warbands, load_catalog
from dbnet.net.invite import Invite
from dbnet.net.relay import relay_token

from .lab import Lab
from .players import (
    Game,
    assert_complete,
    invite_of,
    path_of,
    play,
    start_host,
    start_joiner,
)

pytestmark = pytest.mark.lab

INTRUDER = Path(__file__).with_name("intruder.py")


def miniature_names() -> set[bytes]:
    """Every name and slug of both shipped warbands' miniatures, and the warbands' names."""
    names: set[bytes] = set()
    for warband in default_warbands(load_catalog()):
        names.add(warband.name.encode())
        for mini in warband.minis:
            names.update((mini.name.encode(), mini.slug.encode()))
    return names


def test_a_relay_that_records_everything_sees_no_plaintext(lab: Lab, tmp_path: Path) -> None:
    relay = lab.relay(record=True)
    game = play(lab.router("cone").host(), lab.router("symmetric").host(), tmp_path, relay.address)
    assert_complete(game)
    assert path_of(game.joiner) == "relay"
    capture = relay.capture()
    assert capture.count(b"please relay ") >= 2  # the recorder saw the whole conversation
    assert len(capture) > 20_000  # ... a whole game of it
    seen = sorted(name.decode() for name in miniature_names() if name in capture)
    assert seen == [], f"the relay saw plaintext: {seen}"
    assert b"alice" not in capture  # the players' names travel encrypted too


def test_the_relay_token_without_the_secret_does_not_take_the_seat(
    lab: Lab, tmp_path: Path
) -> None:
    relay = lab.relay()
    host_at, joiner_at = lab.router("cone").host(), lab.router("cone").host()
    mallory = lab.public_host("mallory")
    host = start_host(host_at, tmp_path, relay.address)
    invite = invite_of(host)
    token = relay_token(Invite.parse(invite).secret)  # leaked; the secret is not
    answers = []
    for forged in (None, secrets.token_hex(32)):
        argv = [sys.executable, str(INTRUDER), *map(str, relay.address), token]
        done = mallory.run([*argv, *([forged] if forged else [])], timeout=60, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        answers.append(done.stdout.strip())
    assert answers == [
        "bye: the relay path needs the invite: use dbnet join INVITE",
        "bye: your proof of the invite's secret is wrong: ask for a fresh invite",
    ]
    joiner = start_joiner(joiner_at, tmp_path, invite, relay.address)
    joiner.wait()
    host.wait()
    game = Game(host, joiner)
    assert_complete(game)
    assert path_of(joiner) == "relay"
    assert host.output().count("refused a connection: ") == 2
    assert "mallory" not in Path(game.host.replay).read_text(errors="replace")


def test_the_relay_cut_mid_game_and_back_the_game_goes_on(lab: Lab, tmp_path: Path) -> None:
    """Neither side asks a STUN server (``--stun off``), so no hole punch moves the game
    off the relay: the relay's cut is what this proves."""
    relay = lab.relay()
    host_at, joiner_at = lab.router("cone").host(), lab.router("cgnat").host()
    host = start_host(host_at, tmp_path, relay.address, "--stun", "off")
    joiner = start_joiner(joiner_at, tmp_path, invite_of(host), relay.address, "--stun", "off")
    joiner.wait_for(re.compile(r"^connected to alice .* via relay$"))
    deadline = time.monotonic() + 30
    while len(joiner.lines) < 15 and time.monotonic() < deadline:  # some of the game's story
        time.sleep(0.05)
    relay.stop()
    joiner.wait_for(re.compile(r"connection lost|connection failed"))
    relay.restart()
    joiner.wait()
    host.wait()
    game = Game(host, joiner)
    assert_complete(game)
    connected = joiner.connected()
    assert len(connected) >= 2, joiner.output()
    assert all(line.endswith(" via relay") for line in connected)
