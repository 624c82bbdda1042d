"""Spectators of a hosted game (docs/network.md, section 11), on trio's mock clock: a
watcher sees the whole game verified, from the start even when it comes late; the
players never wait for spectators: one that stalls, sends junk or comes one too many is
dropped or refused with a reason, and the game ends as the reference game does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path

import pytest
import trio
import trio.testing

from dbnet.engine import Player
from dbnet.errors import DbnetError
from dbnet.match.render import describe_result
from dbnet.net.errors import NetError
from dbnet.net.gate import PER_ADDRESS
from dbnet.net.link import Timing
from dbnet.net.messages import Bye, Entry, Hello, Message, Ping, Pong, Watch
from dbnet.net.proof import proof, watch_proof, watch_secret
from dbnet.net.session_values import Outcome
from dbnet.net.spectators import Spectating, Spectators
from dbnet.net.stream import SecureStream, open_channel
from dbnet.net.watch import WatchError, Watching, WatchRefusedError
from dbnet.protocol.identity import Identity
from dbnet.replay.verify import VerdictStatus, verify_replay

from .helpers import ALICE, BOB, MALLORY, Meter
from .sessions import (
    GAME_LIMIT,
    JOINER_NONCE,
    Network,
    Side,
    make_side,
    reference,
    resume_side,
    run_side,
)
from .test_session_hostile import B_WARBAND, receive, send

Clock = trio.testing.MockClock
CREATED = "2026-05-01T12:00:00Z"
EVE = Identity.from_private_bytes(bytes(range(96, 128)))
CAROL = Identity.from_private_bytes(bytes(range(128, 160)))


def host_side(tmp_path: Path, rules: Spectating) -> Side:
    host = make_side(tmp_path, "alice", identity=ALICE, host=True)
    host.session.spectating = rules
    return host


def watcher(
    tmp_path: Path, identity: Identity = EVE, **kwargs: object
) -> tuple[Watching, list[str]]:
    said: list[str] = []
    name = "eve" if identity is EVE else "carol"
    watching = Watching(
        identity,
        name,
        say=said.append,
        expect=ALICE.fingerprint,
        replay_path=tmp_path / f"{name}.dbnr",
        **kwargs,  # type: ignore[arg-type]
    )
    return watching, said


async def watch(watching: Watching, network: Network) -> object:
    """The verdict of a watch, or the error that ended it."""
    try:
        return await watching.run(network.connect)
    except WatchError as exc:
        return exc
    finally:
        watching.close()


async def game_with(
    tmp_path: Path,
    host: Side,
    network: Network,
    spectators: Callable[[], Awaitable[None]],
    *,
    joiner_after: float = 0.0,
) -> Side:
    """The host serving ``network``, ``spectators()`` running beside it, and bob joining
    after ``joiner_after`` seconds (with the host's invite, if it made one); returns bob's
    side once everything has ended."""
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    joiner.session.invite_secret = host.session.invite_secret
    with trio.fail_after(GAME_LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_side, host, lambda: host.session.serve(network.arrivals))
            nursery.start_soon(spectators)
            await trio.sleep(joiner_after)
            await run_side(joiner, lambda: joiner.session.join(network.connect))
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    return joiner


async def the_game_is_unaffected(tmp_path: Path, host: Side, joiner: Side) -> None:
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.records == joiner.records == await reference(tmp_path / "reference")


async def spectator_connection(network: Network, identity: Identity = MALLORY) -> SecureStream:
    ours, theirs = trio.testing.memory_stream_pair()
    await network.arrive(theirs)
    return await open_channel(ours, identity, initiator=True)


async def until_bye(secure: SecureStream) -> Bye | None:
    """Answer PINGs until the host's BYE (returned) or the end of the connection."""
    with suppress(NetError):
        while True:
            message = await receive(secure)
            if isinstance(message, Bye):
                return message
            if isinstance(message, Ping):
                await send(secure, Pong(message.token))
    return None


# --- watching ---------------------------------------------------------------------------


async def test_a_spectator_sees_the_whole_game_verified(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = host_side(tmp_path, Spectating(2))
    network = Network()
    watching, said = watcher(tmp_path)
    results: list[object] = []

    async def spectate() -> None:
        results.append(await watch(watching, network))

    joiner = await game_with(tmp_path, host, network, spectate, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    [verdict] = results
    assert not isinstance(verdict, Exception), verdict
    assert verdict.status is VerdictStatus.COMPLETE  # type: ignore[attr-defined]
    # the watcher's replay is the host's, byte for byte, and verifies on its own
    saved = tmp_path / "eve.dbnr"
    assert saved.read_bytes() == host.path.read_bytes()
    assert verify_replay(saved.read_bytes(), where=str(saved)).status is VerdictStatus.COMPLETE
    assert any("watching the game" in line for line in said), said
    # the players by the names they signed in the OFFER and the ACCEPT
    assert watching.names == ("alice", "bob")
    assert watching.labels == ("alice (A)", "bob (B)")
    assert any(
        line.startswith(f"the players: alice (A), key {ALICE.fingerprint}, against bob (B)")
        for line in said
    ), said
    assert host.saw("spectator eve")
    assert host.session.spectators is not None
    assert host.session.spectators.admitted == 1
    assert host.session.spectators.dropped == 0


def test_players_without_signed_names_are_a_and_b(tmp_path: Path) -> None:
    """A game of a protocol version before 3 has no names: the watcher says A and B."""
    watching, _ = watcher(tmp_path)
    assert watching.labels == ("A", "B")
    watching.names = ("alice", None)
    assert watching.labels == ("alice (A)", "B")


async def test_a_spectator_in_the_middle_of_the_game_catches_up_from_the_start(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = host_side(tmp_path, Spectating(1))
    network = Network()
    watching, _ = watcher(tmp_path)
    results: list[object] = []

    async def spectate_late() -> None:
        while len(host.records) < 20:  # the game is well under way
            await trio.sleep(0)
        results.append(await watch(watching, network))

    joiner = await game_with(tmp_path, host, network, spectate_late)
    await the_game_is_unaffected(tmp_path, host, joiner)
    [verdict] = results
    assert not isinstance(verdict, Exception), verdict
    assert (tmp_path / "eve.dbnr").read_bytes() == host.path.read_bytes()


async def test_the_spectator_delay_holds_entries_back_until_the_end(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    delay = 6
    host = host_side(tmp_path, Spectating(1, delay=delay))
    network = Network()
    seen: list[tuple[int, int]] = []  # (entries the watcher holds, entries the host holds)
    watching, _ = watcher(tmp_path)
    watching.on_events = lambda events: seen.append(
        (len(watching.log.entries) if watching.log else 0, len(host.records))
    )
    results: list[object] = []

    async def spectate() -> None:
        results.append(await watch(watching, network))

    joiner = await game_with(tmp_path, host, network, spectate, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    [verdict] = results
    assert not isinstance(verdict, Exception), verdict
    before_the_end = [pair for pair in seen if pair[1] < len(host.records)]
    assert before_the_end
    assert all(held <= total - delay for held, total in before_the_end)
    assert (tmp_path / "eve.dbnr").read_bytes() == host.path.read_bytes()


# --- spectators cannot hurt the game ------------------------------------------------------


async def test_a_spectator_that_stalls_is_dropped_and_the_game_goes_on(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = host_side(tmp_path, Spectating(1, queue=8))
    network = Network()

    async def stall() -> None:
        ours, theirs = trio.testing.lockstep_stream_pair()  # no buffer: sends wait for reads
        await network.arrive(theirs)
        secure = await open_channel(ours, MALLORY, initiator=True)
        await send(secure, Watch("mallory"))
        await trio.sleep(GAME_LIMIT / 2)  # reads nothing, ever

    async with trio.open_nursery() as nursery:
        nursery.start_soon(stall)
        joiner = await game_with(tmp_path, host, network, trio.lowlevel.checkpoint)
        nursery.cancel_scope.cancel()
    await the_game_is_unaffected(tmp_path, host, joiner)
    spectators = host.session.spectators
    assert spectators is not None
    assert spectators.dropped == 1
    assert host.saw("dropped the spectator mallory"), host.said
    assert host.saw("fell behind"), host.said


@pytest.mark.parametrize(
    "junk",
    [
        Entry(b"\x92\xc4\x00\xc4\x00"),
        Hello("mallory", None, 0, B_WARBAND, nonce=JOINER_NONCE),
        Watch("mallory"),
        b"\xc1not msgpack",
    ],
    ids=["entry", "hello", "watch-twice", "garbage"],
)
async def test_a_spectator_that_sends_junk_is_dropped(
    autojump_clock: Clock, tmp_path: Path, junk: Message | bytes
) -> None:
    host = host_side(tmp_path, Spectating(1))
    network = Network()
    byes: list[Bye | None] = []

    async def junk_spectator() -> None:
        secure = await spectator_connection(network)
        await send(secure, Watch("mallory"))
        await trio.sleep(1)
        if isinstance(junk, bytes):
            await secure.send(junk)
        else:
            await send(secure, junk)
        byes.append(await until_bye(secure))

    joiner = await game_with(tmp_path, host, network, junk_spectator, joiner_after=2.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    [bye] = byes
    assert bye is not None
    assert not bye.done
    assert "a spectator may send only PING, PONG and BYE" in bye.reason
    assert host.saw("dropped the spectator mallory"), host.said


async def test_one_spectator_too_many_is_refused_with_a_reason(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = host_side(tmp_path, Spectating(1))
    network = Network()
    first, _ = watcher(tmp_path)
    second, _ = watcher(tmp_path, CAROL)
    results: list[object] = []

    async def spectators() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: _append(results, watch(first, network)))
            await trio.sleep(0.5)
            results.append(await watch(second, network))

    joiner = await game_with(tmp_path, host, network, spectators, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    refused = [r for r in results if isinstance(r, Exception)]
    watched = [r for r in results if not isinstance(r, Exception)]
    assert len(refused) == 1, results
    assert len(watched) == 1, results
    assert isinstance(refused[0], WatchRefusedError)
    assert "the game is full: this host admits 1 spectator and its place is taken" in str(
        refused[0]
    )
    assert host.session.spectators is not None
    assert host.session.spectators.refused == 1


async def _append(results: list[object], result: Awaitable[object]) -> None:
    results.append(await result)


async def test_a_watcher_refuses_a_host_with_another_key(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = host_side(tmp_path, Spectating(1))
    network = Network()
    watching, _ = watcher(tmp_path)
    watching.expect = BOB.fingerprint
    results: list[object] = []

    async def spectate() -> None:
        results.append(await watch(watching, network))

    joiner = await game_with(tmp_path, host, network, spectate, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    [error] = results
    assert isinstance(error, WatchError)
    assert "wrong key" in str(error)


async def test_the_spectator_secret_proves_a_watcher_but_never_takes_a_seat(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    again = host_side(tmp_path / "again", Spectating(1)).session.own_watch_secret()
    host = host_side(tmp_path, Spectating(1))
    secret = host.session.own_watch_secret()
    assert secret == again  # derived from the identity and the game's nonce
    assert secret != host.session.own_invite_secret()
    host.session.invite_secret = host.session.own_invite_secret()
    host.session.spectating = Spectating(1, secret=secret)
    network = Network()
    watching, _ = watcher(tmp_path, secret=secret)
    results: list[object] = []
    byes: list[Bye | None] = []

    async def both() -> None:
        # a joiner with the spectator secret's proof is refused the seat...
        secure = await spectator_connection(network)
        seat_proof = proof(secret, secure.transcript, joiner=True)
        await send(
            secure, Hello("mallory", None, 0, B_WARBAND, nonce=JOINER_NONCE, proof=seat_proof)
        )
        byes.append(await until_bye(secure))
        # ...and a wrong spectator proof is refused too; the right one watches
        wrong = await spectator_connection(network, CAROL)
        await send(wrong, Watch("carol", watch_proof(bytes(16), wrong.transcript)))
        byes.append(await until_bye(wrong))
        results.append(await watch(watching, network))

    joiner = await game_with(tmp_path, host, network, both, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    seat, wrong = byes
    assert seat is not None
    assert "proof of the invite's secret is wrong" in seat.reason
    assert wrong is not None
    assert "proof of the spectator invite's secret is wrong" in wrong.reason
    [verdict] = results
    assert not isinstance(verdict, Exception), verdict
    assert watch_secret(ALICE, bytes(32)) != secret


async def test_a_spectator_of_a_finished_game_is_refused(autojump_clock: Clock) -> None:
    """Once the log is complete the host refuses new spectators: the game is over."""
    said: list[str] = []
    spectators = Spectators(Spectating(1), ALICE, "alice", said.append, Timing())
    spectators.update([b"offer", b"accept"], closed=True, game_id=bytes(32), created=CREATED)
    to_host, arrivals = trio.open_memory_channel[trio.abc.Stream](1)
    to_seat, _ = trio.open_memory_channel[SecureStream](1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectators.run, arrivals, to_seat)
        ours, theirs = trio.testing.memory_stream_pair()
        await to_host.send(theirs)
        secure = await open_channel(ours, MALLORY, initiator=True)
        await send(secure, Watch("mallory"))
        bye = await until_bye(secure)
        nursery.cancel_scope.cancel()
    assert bye is not None
    assert "the game is over" in bye.reason
    assert spectators.refused == 1
    assert any("refused a spectator, mallory" in line for line in said), said


async def test_a_long_game_so_far_is_caught_up_beyond_the_queue(autojump_clock: Clock) -> None:
    """A resumed host starts with its whole log so far: a spectator catches up on far more
    entries than its queue holds, then follows the new ones and gets BYE (done). (The
    host only passes bytes on: these records are not checked here.)"""
    records = [b"entry %d" % k for k in range(300)]
    spectators = Spectators(Spectating(1, queue=8), ALICE, "alice", print, Timing())
    to_host, arrivals = trio.open_memory_channel[trio.abc.Stream](1)
    to_seat, _ = trio.open_memory_channel[SecureStream](1)
    received: list[bytes] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(spectators.run, arrivals, to_seat)
        ours, theirs = trio.testing.memory_stream_pair()
        await to_host.send(theirs)
        secure = await open_channel(ours, MALLORY, initiator=True)
        await send(secure, Watch("mallory"))
        await trio.sleep(1)
        spectators.update(records, closed=False, game_id=bytes(32), created=CREATED)
        hello = await receive(secure)
        assert isinstance(hello, Hello)
        assert hello.have == 300
        while len(received) < 300:
            message = await receive(secure)
            if isinstance(message, Entry):
                received.append(message.record)
        for k in range(300, 320):
            records.append(b"entry %d" % k)
            spectators.update(records, closed=k == 319, game_id=bytes(32), created=CREATED)
            await trio.sleep(0.01)
        bye = await until_bye_collecting(secure, received)
        nursery.cancel_scope.cancel()
    assert received == records
    assert bye is not None
    assert bye.done
    assert spectators.dropped == 0


async def until_bye_collecting(secure: SecureStream, received: list[bytes]) -> Bye | None:
    with suppress(NetError):
        while True:
            message = await receive(secure)
            if isinstance(message, Entry):
                received.append(message.record)
            if isinstance(message, Bye):
                return message
    return None


async def test_the_full_screen_watch_session_follows_the_game(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The full-screen client's session of a spectator (``console.watch``): the story in
    its log, the position of the verified game, no seat of its own."""
    from dbnet.console.watch import WatchSession

    host = host_side(tmp_path, Spectating(1))
    network = Network()
    watching, _ = watcher(tmp_path)
    session = WatchSession(watching, network.connect)

    async def spectate() -> None:
        await session._main()
        session.watching.close()

    joiner = await game_with(tmp_path, host, network, spectate, joiner_after=1.0)
    await the_game_is_unaffected(tmp_path, host, joiner)
    assert session.exit_code() == 0
    assert session.is_closed
    assert session.game.is_over
    assert session.local_player() is None
    assert not session.is_local(Player.A)
    assert not session.is_local(Player.B)
    assert session.seat_label(Player.A).startswith("alice ")
    assert session.seat_label(Player.B).startswith("bob ")
    # the players by the names they signed, the winner too
    assert any(line.words.startswith("alice (A):") for line in session.log), session.log
    assert any(line.words.startswith("bob (B):") for line in session.log), session.log
    assert not any(line.words.startswith(("A:", "B:")) for line in session.log)
    assert session.log[-1].words.startswith("The game is complete")
    assert session.log[-1].words.endswith(describe_result(session.game, ("alice (A)", "bob (B)")))
    assert session.game.winner is not None
    assert f"{('alice (A)', 'bob (B)')[session.game.winner]} wins" in session.log[-1].words
    with pytest.raises(DbnetError, match="a spectator does not play"):
        session.submit("done")
    assert (tmp_path / "eve.dbnr").read_bytes() == host.path.read_bytes()


async def test_an_adjourned_game_tells_its_spectators_and_a_resumed_host_serves_them(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The joiner's network goes away for good mid-game: the spectator is told that the
    game is adjourned. Resumed from its replay (``dbnet resume``), the host serves
    spectators again: a new one catches up on the whole log and sees the end."""
    cut = len(await reference(tmp_path / "reference")) // 3
    network = Network()

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        if n != 1:  # the spectator's connection comes first; the joiner's first is cut
            return a, b
        meter = Meter(entry=cut)
        original = meter.sever

        def sever() -> None:
            network.refuse = True
            original()

        meter.sever = sever  # type: ignore[method-assign]
        return meter.pair(a, b)

    network.wrap = wrap  # type: ignore[assignment]
    host = host_side(tmp_path, Spectating(1))
    first, _ = watcher(tmp_path)
    results: list[object] = []

    async def spectate() -> None:
        await trio.sleep(0.5)  # before the joiner's first connection
        results.append(await watch(first, network))

    joiner = await game_with(tmp_path, host, network, spectate, joiner_after=1.0)
    assert host.outcome is Outcome.ADJOURNED, host.said
    assert joiner.outcome is Outcome.ADJOURNED, joiner.said
    [stopped] = results
    assert isinstance(stopped, WatchRefusedError), stopped
    assert "the game is adjourned" in str(stopped)
    # later: both resume; the host admits spectators again
    host2 = resume_side(host, seed="later A")
    host2.session.spectating = Spectating(1)
    joiner2 = resume_side(joiner, seed="later B")
    network2 = Network()
    second, _ = watcher(tmp_path / "later")
    (tmp_path / "later").mkdir()
    results.clear()

    async def spectate_again() -> None:
        results.append(await watch(second, network2))

    with trio.fail_after(GAME_LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_side, host2, lambda: host2.session.serve(network2.arrivals))
            nursery.start_soon(spectate_again)
            await trio.sleep(1.0)
            await run_side(joiner2, lambda: joiner2.session.join(network2.connect))
    for side in (host2, joiner2):
        if side.session.writer is not None:
            side.session.writer.close()
    assert host2.outcome is joiner2.outcome is Outcome.COMPLETE
    [verdict] = results
    assert not isinstance(verdict, Exception), verdict
    assert (tmp_path / "later" / "eve.dbnr").read_bytes() == host2.path.read_bytes()


async def test_spectators_from_one_address_are_not_held_to_its_handshake_cap(
    tmp_path: Path,
) -> None:
    """Through the host's real door on loopback (``GameSession.host``: the gate allows
    ``PER_ADDRESS`` handshakes at a time from one address): once authenticated,
    spectators no longer count there, so more of them than that from 127.0.0.1 watch at
    once, and the opponent from the same address still gets in and plays. (Real time:
    a couple of seconds.)"""
    count = PER_ADDRESS + 2
    host = host_side(tmp_path, Spectating(count))
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    results: list[object] = []
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:

        async def connect() -> trio.abc.Stream:
            return await trio.open_tcp_stream("127.0.0.1", port)

        nursery.start_soon(run_side, host, lambda: host.session.host(listeners))
        with trio.fail_after(30):
            for k in range(count):  # one after another: each handshake is done when it is in
                identity = Identity.from_private_bytes(bytes([200 + k]) * 32)
                watching = Watching(identity, f"w{k}", say=print, expect=ALICE.fingerprint)
                nursery.start_soon(_append, results, watching.run(connect))
                while host.session.spectators is None or host.session.spectators.watching <= k:
                    await trio.sleep(0.01)
            await run_side(joiner, lambda: joiner.session.join(connect))
    for listener in listeners:
        await listener.aclose()
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    await the_game_is_unaffected(tmp_path, host, joiner)
    assert len(results) == count
    assert all(getattr(r, "status", None) is VerdictStatus.COMPLETE for r in results), results
