"""Spectators through the relay (docs/network.md, section 11), on trio's mock clock: a
spectator that comes through the relay must prove the spectator invite's secret (as a
relayed joiner must prove the player's), else it is refused in one line and the host
keeps serving; with the proof it watches the whole game. The seat's relay door and the
spectators' are different tokens. With real processes and the real relay:
``test_spectator_relay_processes.py``."""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
import trio
import trio.testing

from dbnet.match.keys import login_name
from dbnet.net.messages import Bye, Watch
from dbnet.net.proof import invite_secret, watch_proof, watch_secret
from dbnet.net.relay import relay_side, relay_token
from dbnet.net.spectators import PLACE_NEEDS_INVITE, RELAY_NEEDS_INVITE, Spectating
from dbnet.net.stream import RELAY, SecureStream
from dbnet.net.watch import Watching, WatchRefusedError
from dbnet.protocol.identity import Identity
from dbnet.replay.verify import VerdictStatus

from .helpers import ALICE, MALLORY
from .sessions import Network
from .test_session_hostile import send
from .test_session_invite import relayed
from .test_spectators import (
    EVE,
    game_with,
    host_side,
    the_game_is_unaffected,
    until_bye,
    watch,
)

Clock = trio.testing.MockClock
NONCE = bytes(range(32))
SECRET = watch_secret(ALICE, NONCE)
OTHER_SECRET = watch_secret(ALICE, bytes(32))


def test_the_seats_relay_door_and_the_spectators_are_different_tokens() -> None:
    """The host's two doors at the relay wait with the tokens of two secrets of the same
    game, so a spectator's token never opens the seat's door (and the seat's sides never
    pair with the spectators')."""
    seat, spectators = invite_secret(ALICE, NONCE), watch_secret(ALICE, NONCE)
    assert seat != spectators
    seat_token, watch_token = relay_token(seat), relay_token(spectators)
    assert seat_token != watch_token
    for role in ("host", "joiner"):
        assert relay_side(seat_token, role) != relay_side(watch_token, role)


async def relayed_watch(network: Network, identity: Identity, secret: bytes | None) -> Bye | None:
    """A spectator that came through the relay and sends WATCH with a proof of
    ``secret`` (none if None): the host's BYE, if any."""
    secure: SecureStream = await relayed(network, identity)()
    assert secure.path == RELAY
    proof = None if secret is None else watch_proof(secret, secure.transcript)
    await send(secure, Watch("mallory", proof))
    try:
        return await until_bye(secure)
    finally:
        await secure.aclose()


async def test_a_relayed_spectator_must_prove_the_spectator_invites_secret(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Mallory, who learned the spectators' relay token, comes through the relay without
    a proof, then with a proof of another secret: refused each time with one line and a
    BYE that says why; Eve, with the invite, then watches the whole game through the
    relay, and the game is the reference game."""
    host = host_side(tmp_path, Spectating(1, secret=SECRET))
    network = Network()
    byes: list[Bye | None] = []
    results: list[object] = []
    said: list[str] = []
    eve = Watching(
        EVE,
        "eve",
        say=said.append,
        expect=ALICE.fingerprint,
        secret=SECRET,
        replay_path=tmp_path / "eve.dbnr",
    )

    async def spectators() -> None:
        byes.append(await relayed_watch(network, MALLORY, None))
        byes.append(await relayed_watch(network, MALLORY, OTHER_SECRET))
        try:
            results.append(await eve.run(relayed(network, EVE)))
        finally:
            eve.close()

    joiner = await game_with(tmp_path, host, network, spectators, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    assert [bye.reason if bye else None for bye in byes] == [
        RELAY_NEEDS_INVITE,
        "your proof of the spectator invite's secret is wrong: ask for a fresh invite",
    ]
    assert all(bye is not None and not bye.done for bye in byes)
    refusals = [line for line in host.said if line.startswith("refused a spectator, mallory")]
    assert len(refusals) == 2, host.said
    assert refusals[0].endswith(RELAY_NEEDS_INVITE)
    [verdict] = results
    assert not isinstance(verdict, Exception), verdict
    assert verdict.status is VerdictStatus.COMPLETE  # type: ignore[attr-defined]
    assert (tmp_path / "eve.dbnr").read_bytes() == host.path.read_bytes()
    assert any(line.startswith("watching the game") and " via relay;" in line for line in said)
    assert host.saw("spectator eve (")
    assert any("is watching via relay" in line for line in host.said), host.said
    spectating = host.session.spectators
    assert spectating is not None
    assert (spectating.admitted, spectating.refused) == (1, 2)


@pytest.mark.parametrize("open_host", [False, True], ids=["invite-only", "open"])
async def test_a_direct_spectator_without_a_proof_watches_only_an_open_host(
    autojump_clock: Clock, tmp_path: Path, open_host: bool
) -> None:
    """``dbnet watch HOST:PORT --expect`` (no invite, no proof) against a host that printed
    a spectator invite takes no place, on a direct path as on the relay, so whoever
    reaches the port cannot fill the places and keep the invited spectators out (issue
    29.3); a host that is open (``--open``) admits it directly."""
    host = host_side(tmp_path, Spectating(1, secret=SECRET, open=open_host))
    network = Network()
    said: list[str] = []
    eve = Watching(EVE, "eve", say=said.append, expect=ALICE.fingerprint)
    results: list[object] = []

    async def spectate() -> None:
        try:
            results.append(await watch(eve, network))
        except WatchRefusedError as exc:
            results.append(exc)

    joiner = await game_with(tmp_path, host, network, spectate, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    [verdict] = results
    if open_host:
        assert not isinstance(verdict, Exception), verdict
        assert any(line.startswith("watching the game") and " via direct;" in line for line in said)
    else:
        assert isinstance(verdict, WatchRefusedError)
        assert str(verdict) == f"the host refused this spectator: {PLACE_NEEDS_INVITE}"
        assert host.session.spectators is not None
        assert host.session.spectators.admitted == 0


def test_a_spectators_default_name_is_its_login_kept_to_a_players_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``dbnet watch`` without ``--name``: the login as a player's name would be
    (``match.keys.login_name``), ``spectator`` when nothing of it is usable."""
    monkeypatch.setattr(getpass, "getuser", lambda: "ève.d'arc-2")
    assert login_name("spectator") == "ve.darc-2"
    monkeypatch.setattr(getpass, "getuser", lambda: "'''")
    assert login_name("spectator") == "spectator"
    assert login_name() == "player"

    def unknown() -> str:
        raise KeyError("uid 1234")

    monkeypatch.setattr(getpass, "getuser", unknown)
    assert login_name("spectator") == "spectator"


def test_dbnet_watch_takes_relay_and_verbose_as_dbnet_join_does() -> None:
    from dbnet.cli import build_parser

    args = build_parser().parse_args(["watch", "127.0.0.1:7117", "--relay", "off", "--verbose"])
    assert (args.relay, args.verbose) == ("off", True)
    args = build_parser().parse_args(["watch", "127.0.0.1:7117"])
    assert (args.relay, args.verbose) == (None, False)
