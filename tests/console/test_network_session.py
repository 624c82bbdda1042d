"""The full-screen client's network session: how each way a game session ends is told."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Awaitable, Callable

import pytest
import trio

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.console.network import NetworkSession
from dbnet.engine import Game, GameSetup, Player
from dbnet.net.session import GameSession
from dbnet.net.session_values import LocalPlayer, NewGame, Outcome
from dbnet.protocol.clock import ClockView
from dbnet.protocol.identity import Identity
from dbnet.protocol.peer import Peer
from dbnet.protocol.remote import RemoteGame


async def never(view: Game) -> str:
    raise AssertionError("no decision is asked in these tests")


def network_session(run: Callable[[GameSession], Awaitable[Outcome]]) -> NetworkSession:
    """A network session (not started) whose game session is played by ``run``."""
    player = LocalPlayer(
        identity=Identity.from_private_bytes(bytes(range(32))),
        name="alice",
        choose=never,
        say=lambda text: None,
    )
    warband = default_warbands(load_catalog())[1]
    return NetworkSession(
        lambda player: GameSession(player, new_game=NewGame(warband)), run, player
    )


def session_ending(outcome: Outcome) -> NetworkSession:
    """A network session whose game session ends at once with ``outcome``."""

    async def run(session: GameSession) -> Outcome:
        await trio.lowlevel.checkpoint()
        return outcome

    network = network_session(run)
    trio.run(network._main)
    return network


@pytest.mark.parametrize(
    ("outcome", "said"),
    [
        (Outcome.COMPLETE, "The game is complete; both players signed the result."),
        (Outcome.ADJOURNED, "The opponent was away too long: the game is adjourned."),
        (Outcome.UNREACHED, "The host could not be reached; no game was started."),
    ],
)
def test_each_ending_is_told_as_it_is(outcome: Outcome, said: str) -> None:
    network = session_ending(outcome)
    assert network.log[-1].words == said
    assert network.is_closed


def test_the_farewell_of_a_game_never_started() -> None:
    network = session_ending(Outcome.UNREACHED)
    assert network.farewell() == ["The host could not be reached; no game was started."]


def test_the_game_runs_as_a_guest_on_the_screens_loop() -> None:
    """Trio runs in guest mode on the screen's asyncio loop (one thread, no race with the
    screen): ``advance`` starts it, the game's notes arrive on this very thread, and
    ``aclose`` waits for its end."""
    seen: list[int] = []

    async def run(session: GameSession) -> Outcome:
        seen.append(threading.get_ident())
        await trio.sleep(0.01)
        return Outcome.UNREACHED

    network = network_session(run)

    async def screen() -> None:
        await asyncio.wait_for(network.advance(lambda: seen.append(threading.get_ident())), 10)
        await network.aclose()

    asyncio.run(screen())
    assert network.is_closed
    assert network.log[-1].words == "The host could not be reached; no game was started."
    assert set(seen) == {threading.get_ident()}  # the game's task and the redraws: one thread


@pytest.mark.parametrize(
    ("outcome", "code", "state"),
    [
        (Outcome.COMPLETE, 0, "game over"),
        (Outcome.ADJOURNED, 1, "adjourned"),  # no game was started: nothing to resume
        (Outcome.UNREACHED, 1, "not connected"),
    ],
)
def test_the_exit_code_and_the_top_line_follow_the_ending(
    outcome: Outcome, code: int, state: str
) -> None:
    """Issue 19: the full screen exits as the docs say (it used to exit 0 whatever
    happened) and its top line no longer says "reconnecting..." once the game ended."""
    network = session_ending(outcome)
    assert network.exit_code() == code
    assert network.connection == state
    assert not network.resumable  # no game was started in these sessions


def test_the_top_line_shows_both_clocks_in_a_game_with_a_clock() -> None:
    """The clocks as the game's run sees them: the running one marked, and standing still
    once the run is over."""
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    alice = Identity.from_private_bytes(bytes(range(32)))
    bob = Identity.from_private_bytes(bytes(range(1, 33)))
    a, offer = Peer.offer(alice, bob.public_key, setup, clock=(60_000, 0))
    _, accept = Peer.accept(bob, offer)
    a.receive(accept)

    async def run(session: GameSession) -> Outcome:
        session.clocks.view = view = ClockView(a.log, Player.A, int(trio.current_time() * 1000))
        view.follow(a.log, int(trio.current_time() * 1000))
        network._publish()
        await trio.sleep(1.5)  # the ticker notes the clocks again
        return Outcome.ADJOURNED

    network = network_session(run)
    trio.run(network._main)
    assert re.fullmatch(r"adjourned \| A 0:5[89]\* B 1:00", network.connection), network.connection


def test_the_farewell_tells_a_disputed_clock_claim_never_a_win() -> None:
    """Issue 29 item 4: a game closed by the opponent's clock claim, which this side
    disputed, is said to be a disputed claim in the farewell, never a win on time."""
    setup = GameSetup(load_map(), default_warbands(load_catalog()))
    alice = Identity.from_private_bytes(bytes(range(32)))
    bob = Identity.from_private_bytes(bytes(range(1, 33)))
    a, offer = Peer.offer(alice, bob.public_key, setup, clock=(60_000, 0))
    b, accept = Peer.accept(bob, offer)
    a.receive(accept)
    b.reading = lambda: (0, 60_000)
    claim = b.claim_on_time((0, 60_000))  # A owes its initiative link: "A's flag fell"
    a.receive(claim)
    a.reading = lambda: (55_000, 60_000)
    dispute = a.dispute((55_000, 60_000))
    game = RemoteGame(a, [offer, accept, claim, dispute], lambda record: None)

    async def run(session: GameSession) -> Outcome:
        session.game = game
        await trio.lowlevel.checkpoint()
        return Outcome.COMPLETE

    network = network_session(run)
    trio.run(network._main)
    said = " ".join(network.farewell())
    assert "The opponent (B) claimed the game on time: by its clock yours ran out; you " in said
    assert "disputed it: by your clock, 0:55 was left. A disputed clock claim is no result" in said
    assert "won" not in said


def test_the_top_line_names_the_path_and_follows_a_move() -> None:
    """Issue 31, item 2: the top bar shows the path (``connected to bob via relay``), and
    the new one when the game moves (``path: direct (hole punched)``)."""
    seen: list[str] = []

    async def run(session: GameSession) -> Outcome:
        network._say("connected to bob (ABCD-EFGH-IJKL-MNOP) via relay")
        seen.append(network.connection)
        network._say("path: direct (hole punched)")
        seen.append(network.connection)
        network._say("connection lost (the peer left); waiting to reconnect")
        seen.append(network.connection)
        await trio.lowlevel.checkpoint()
        return Outcome.ADJOURNED

    network = network_session(run)
    trio.run(network._main)
    assert seen == [
        "connected to bob via relay",
        "connected to bob via direct (hole punched)",
        "reconnecting...",
    ]
