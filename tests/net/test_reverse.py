"""The reversed connection (``dbnet.net.reverse``): a joiner listens where its router maps
a port (here loopback, as if it were that port), tells its host over the relay, the host
connects to it, and the game moves there; the roles come from the handshake, not from
who connected; only the host the joiner is joining gets in."""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
import trio
import trio.testing

from dbnet.engine import Player
from dbnet.match.keys import derive
from dbnet.net.errors import NetError
from dbnet.net.handshake import HOST, JOINER, SUPPORTED_VERSIONS
from dbnet.net.invite import Candidate, PathKind
from dbnet.net.messages import (
    Bye,
    Candidates,
    Chat,
    Entry,
    Hello,
    Ping,
    Pong,
    Watch,
    decode_message,
    encode_message,
)
from dbnet.net.race import NoRouteError
from dbnet.net.reverse import (
    HOST_PATH,
    JOINER_PATH,
    MAX_DIALS,
    SPECTATOR_PATH,
    ReverseDoor,
    dial_back,
    mapped_candidates,
)
from dbnet.net.session_values import Outcome
from dbnet.net.spectators import Spectating
from dbnet.net.stream import RELAY, SecureStream, open_channel
from dbnet.net.watch import WatchError, Watching
from dbnet.protocol.chat import ChatLine, sign_line
from dbnet.protocol.identity import Identity
from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus

from .helpers import ALICE, BOB, MALLORY
from .sessions import Network, Side, make_side, run_side
from .test_session_invite import SECRET, relayed, with_secret
from .test_spectators import CAROL

LIMIT = 60.0  # seconds: a hang guard, far above what these take on loopback


def loopback(port: int) -> Candidate:
    return Candidate(PathKind.MAPPING, ipaddress.ip_address("127.0.0.1"), port)


async def door_on_loopback(
    nursery: trio.Nursery, identity: Identity = BOB, host: Identity = ALICE
) -> tuple[ReverseDoor, int, list[str]]:
    """A joiner's door on a loopback port (as if its router forwarded there), admitting
    ``host``; and the lines it said."""
    said: list[str] = []
    door = ReverseDoor(identity, host.fingerprint, said.append, handshake_timeout=5.0)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")

    async def serve() -> None:
        try:
            await door.serve(listeners)
        finally:
            for listener in listeners:
                await trio.aclose_forcefully(listener)

    nursery.start_soon(serve)
    return door, listeners[0].socket.getsockname()[1], said


async def test_the_host_connects_to_its_joiner_and_the_roles_come_out_right() -> None:
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            door, port, said = await door_on_loopback(nursery)
            hosts = await dial_back([loopback(port)], ALICE, BOB.public_key)
            joiners = await door.arrivals.receive()
            assert isinstance(joiners, SecureStream)
            assert (hosts.role, joiners.role) == (HOST, JOINER)
            assert (hosts.path, joiners.path) == (HOST_PATH, JOINER_PATH)
            assert hosts.peer_key == BOB.public_key
            assert joiners.peer_key == ALICE.public_key
            assert hosts.transcript == joiners.transcript
            await hosts.send(b"from the host")
            assert await joiners.receive() == b"from the host"
            assert said == []
            await hosts.aclose()
            await joiners.aclose()
            nursery.cancel_scope.cancel()


async def stranger(stream: trio.abc.Stream, role: str) -> None:
    """MALLORY, claiming ``role``, tries to get a word in at the joiner's port."""
    secure = await open_channel(stream, MALLORY, initiator=True, role=role)
    try:
        await secure.send(b"let me play")
        await secure.receive()
    finally:
        await secure.aclose()


@pytest.mark.parametrize("role", [HOST, JOINER])
async def test_a_stranger_at_the_joiners_port_gets_one_line_and_never_the_game(
    role: str,
) -> None:
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            door, port, said = await door_on_loopback(nursery)
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            with pytest.raises(NetError):  # refused: closed, or failed authentication
                await stranger(stream, role)
            with trio.fail_after(5):
                while not said:
                    await trio.sleep(0.01)
            await trio.sleep(0.1)
            assert len(said) == 1, said
            if role == HOST:  # it finished the handshake: its key is not the host's
                assert said[0] == (
                    f"your port: refused a connection from {MALLORY.fingerprint}, which is "
                    f"not the host {ALICE.fingerprint} you are joining"
                )
            else:  # it claimed the joiner's role: the handshake fails
                assert said[0].startswith("your port: connection failed: ")
            with pytest.raises(trio.WouldBlock):
                door.arrivals.receive_nowait()
            nursery.cancel_scope.cancel()


async def test_the_host_refuses_a_candidate_with_another_key() -> None:
    lines: list[str] = []
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            door, port, _ = await door_on_loopback(nursery, identity=MALLORY)
            with pytest.raises(NoRouteError):
                await dial_back([loopback(port)], ALICE, BOB.public_key, report=lines.append)
            await (await door.arrivals.receive()).aclose()  # its host came, then left
            nursery.cancel_scope.cancel()
    assert len(lines) == 1
    assert f"the peer there has the key {MALLORY.fingerprint}, not the joiner's" in lines[0]


async def test_the_host_tries_a_bounded_number_of_candidates() -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    await listeners[0].aclose()  # nothing listens there now: each try is refused
    lines: list[str] = []
    candidates = [loopback(port)] * (MAX_DIALS + 4)
    with trio.fail_after(LIMIT), pytest.raises(NoRouteError):
        await dial_back(candidates, ALICE, BOB.public_key, report=lines.append)
    assert len(lines) == MAX_DIALS


def test_a_joiner_without_a_mapping_has_no_candidates() -> None:
    assert mapped_candidates(None) == ()
    assert mapped_candidates(("203.0.113.9", 40123)) == (
        Candidate(PathKind.MAPPING, ipaddress.ip_address("203.0.113.9"), 40123),
    )


# --- a whole game: it starts on the relay and moves to the reversed connection --------------


def relayed_to(
    network: Network, versions: tuple[int, ...]
) -> Callable[[], Awaitable[SecureStream]]:
    """``relayed``, the host's end speaking only ``versions`` (an older dbnet)."""

    async def connect() -> SecureStream:
        ours, theirs = trio.testing.memory_stream_pair()
        secure: list[SecureStream] = []

        async def host_end() -> None:
            secure.append(
                await open_channel(theirs, ALICE, initiator=False, path=RELAY, versions=versions)
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(host_end)
            mine = await open_channel(ours, BOB, initiator=True, path=RELAY)
        await network.arrive(secure[0])  # type: ignore[arg-type]
        return mine

    return connect


Prepare = Callable[[Side, Side, trio.Nursery], Awaitable[None]]
"""What a test sets up on both sides before they play (doors, candidates...)."""


async def play_relayed(
    tmp_path: Path, prepare: Prepare, host_versions: tuple[int, ...] = SUPPORTED_VERSIONS
) -> tuple[Side, Side, Network]:
    """A whole game whose connections reach the host as through the relay, the host's end
    speaking ``host_versions``, after ``prepare``; both replays closed after."""
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    joiner = with_secret(make_side(tmp_path, "bob", identity=BOB, host=False), SECRET)
    network = Network()
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            await prepare(host, joiner, nursery)
            nursery.start_soon(run_side, host, lambda: host.session.serve(network.arrivals))
            connect = (
                relayed(network)
                if host_versions == SUPPORTED_VERSIONS
                else relayed_to(network, host_versions)
            )
            await run_side(joiner, lambda: joiner.session.join(connect))
            with trio.move_on_after(10):
                while host.outcome is None:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    return host, joiner, network


async def play_reversed(
    tmp_path: Path, *, candidates: bool = True, host_versions: tuple[int, ...] = SUPPORTED_VERSIONS
) -> tuple[Side, Side, Network]:
    async def prepare(host: Side, joiner: Side, nursery: trio.Nursery) -> None:
        door, port, _ = await door_on_loopback(nursery)

        async def mapped() -> tuple[Candidate, ...]:
            return (loopback(port),) if candidates else ()

        async def follow_door() -> None:
            async for stream in door.arrivals:
                assert isinstance(stream, SecureStream)
                joiner.session.switch_to(stream)

        joiner.session.own_candidates = mapped
        nursery.start_soon(follow_door)

    return await play_relayed(tmp_path, prepare, host_versions)


async def test_a_game_that_starts_on_the_relay_moves_to_the_joiners_mapped_port(
    tmp_path: Path,
) -> None:
    host, joiner, _ = await play_reversed(tmp_path)
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.saw(f"path: {HOST_PATH}")
    assert joiner.saw(f"path: {JOINER_PATH}")
    assert host.saw(f"connected to bob ({BOB.fingerprint}) via {HOST_PATH}")
    assert joiner.saw(f"connected to alice ({ALICE.fingerprint}) via {JOINER_PATH}")
    assert host.verdict().status is VerdictStatus.COMPLETE
    assert joiner.verdict().status is VerdictStatus.COMPLETE
    assert host.path.read_bytes() == joiner.path.read_bytes()


async def test_without_candidates_the_game_stays_on_the_relay(tmp_path: Path) -> None:
    host, joiner, _ = await play_reversed(tmp_path, candidates=False)
    assert host.outcome is Outcome.COMPLETE
    assert joiner.outcome is Outcome.COMPLETE
    assert not host.saw("path: ")
    assert not joiner.saw("path: ")
    assert host.saw("via relay")
    assert host.verdict().status is VerdictStatus.COMPLETE


async def test_a_host_of_channel_version_3_keeps_the_game_on_the_relay_with_one_line(
    tmp_path: Path,
) -> None:
    host, joiner, _ = await play_reversed(tmp_path, host_versions=(3,))
    assert host.outcome is Outcome.COMPLETE
    assert joiner.outcome is Outcome.COMPLETE
    lines = [line for line in joiner.said if "channel version 3" in line]
    assert sorted(lines) == [  # the chat's line, and the reversed connection's
        "chat: off for this game, the opponent's dbnet is older (channel version 3, chat "
        "needs 4): the game goes on without chat",
        "the host's dbnet speaks channel version 3: it cannot connect to your port "
        "mapping, so the game stays on the relay",
    ]
    assert not host.saw("path: ")
    assert not joiner.saw("path: ")
    assert host.verdict().status is VerdictStatus.COMPLETE


# --- a spectator: it watches through the relay, then over the host's connection to it ----

WATCH_SECRET = bytes(range(2, 18))


def spectated_sides(tmp_path: Path) -> tuple[Side, Side, Watching, list[str]]:
    """The host (one spectator place, behind the spectator invite's secret), the joiner,
    and carol's watch, with the lines it says."""
    host = with_secret(make_side(tmp_path, "alice", identity=ALICE, host=True), SECRET)
    host.session.spectating = Spectating(1, secret=WATCH_SECRET)
    joiner = with_secret(make_side(tmp_path, "bob", identity=BOB, host=False), SECRET)
    said: list[str] = []
    watching = Watching(
        CAROL,
        "carol",
        say=said.append,
        expect=ALICE.fingerprint,
        secret=WATCH_SECRET,
        replay_path=tmp_path / "carol.dbnr",
    )
    return host, joiner, watching, said


async def test_a_spectator_on_the_relay_moves_to_its_mapped_port(tmp_path: Path) -> None:
    host, joiner, watching, said = spectated_sides(tmp_path)
    network = Network()
    verdicts: list[object] = []

    async def door(
        switch: Callable[[SecureStream], None],
        *,
        task_status: trio.TaskStatus[Callable[[], Awaitable[tuple[Candidate, ...]]]],
    ) -> None:
        async with trio.open_nursery() as nursery:
            reverse, port, _ = await door_on_loopback(nursery, identity=CAROL)

            async def mapped() -> tuple[Candidate, ...]:
                return (loopback(port),)

            task_status.started(mapped)
            async for stream in reverse.arrivals:
                assert isinstance(stream, SecureStream)
                switch(stream)

    async def spectate() -> None:
        try:
            verdicts.append(await watching.run(relayed(network, CAROL)))
        finally:
            watching.close()

    watching.doors.append(door)
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(run_side, host, lambda: host.session.serve(network.arrivals))
            nursery.start_soon(spectate)
            with trio.fail_after(10):
                while "path: direct (your port mapping)" not in said:
                    await trio.sleep(0.01)
            await run_side(joiner, lambda: joiner.session.join(relayed(network)))
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    assert host.outcome is Outcome.COMPLETE, host.said
    assert len(verdicts) == 1, said
    assert verdicts[0].status is VerdictStatus.COMPLETE  # type: ignore[attr-defined]
    assert host.saw(f"path: {SPECTATOR_PATH} for the spectator carol ({CAROL.fingerprint})")
    assert host.saw(f"spectator carol ({CAROL.fingerprint}) is watching via relay")
    assert host.saw(f"spectator carol ({CAROL.fingerprint}) is watching via {SPECTATOR_PATH}")
    assert (tmp_path / "carol.dbnr").read_bytes() == host.path.read_bytes()


# --- a spectator that moves keeps the players' chat lines once, checked ----------------------

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
GAME = REPLAYS / "04-one-turn-to-win.dbnr"  # a genuine game between two keys of its own
PLAYER_A = Identity.from_private_bytes(derive(b"dbnet-replays:04-one-turn-to-win", "identity A"))


async def show_and_move(*, again: Callable[[ChatLine], ChatLine]) -> tuple[list[str], list[object]]:
    """A scripted host with the real channel (A's key of a genuine replay) shows a spectator
    on the relay a few entries and a chat line, connects to the spectator's door when it
    sends its candidates, and shows everything again there (the first chat line as
    ``again`` makes it), then a second line and the end. What the spectator said, and its
    verdict (or its error)."""
    records = list(load_replay(GAME).records)
    header = load_replay(GAME).header
    first = sign_line(PLAYER_A, header.game_id, Player.A, 1, 2, "good luck")
    second = sign_line(PLAYER_A, header.game_id, Player.A, 2, 3, "well played")
    said: list[str] = []
    watching = Watching(
        CAROL, "carol", say=said.append, expect=PLAYER_A.fingerprint, replay_path=None
    )
    relay_ours, relay_theirs = trio.testing.memory_stream_pair()

    async def show(secure: SecureStream, chat: list[ChatLine], count: int) -> None:
        assert isinstance(decode_message(await secure.receive()), Watch)
        hello = Hello("alice", header.game_id, len(records), created=header.created)
        await secure.send(encode_message(hello))
        for record in records[:count]:
            await secure.send(encode_message(Entry(record)))
        for line in chat:
            await secure.send(encode_message(Chat(line)))

    async def host() -> None:
        secure = await open_channel(relay_theirs, PLAYER_A, initiator=False, path=RELAY)
        await show(secure, [first], 3)
        candidates = decode_message(await secure.receive())
        while isinstance(candidates, Ping):  # the spectator's heartbeat
            await secure.send(encode_message(Pong(candidates.token)))
            candidates = decode_message(await secure.receive())
        assert isinstance(candidates, Candidates), candidates
        moved = await dial_back(candidates.candidates, PLAYER_A, CAROL.public_key)
        try:  # until the spectator has the end, or leaves
            await show(moved, [again(first), second], len(records))
            await moved.send(encode_message(Bye(True, "the game's log is complete")))
            with trio.move_on_after(5):
                while True:
                    await moved.receive()
        except NetError:
            pass
        await trio.aclose_forcefully(moved)
        await trio.aclose_forcefully(secure)

    async def door(
        switch: Callable[[SecureStream], None],
        *,
        task_status: trio.TaskStatus[Callable[[], Awaitable[tuple[Candidate, ...]]]],
    ) -> None:
        async with trio.open_nursery() as nursery:
            reverse, port, _ = await door_on_loopback(nursery, identity=CAROL, host=PLAYER_A)

            async def mapped() -> tuple[Candidate, ...]:
                with trio.fail_after(10):  # after the first line came on the relay
                    while not [line for line in said if line.endswith(" says: good luck")]:
                        await trio.sleep(0.01)
                return (loopback(port),)

            task_status.started(mapped)
            async for stream in reverse.arrivals:
                assert isinstance(stream, SecureStream)
                switch(stream)

    async def connect() -> SecureStream:
        return await open_channel(relay_ours, CAROL, initiator=True, path=RELAY)

    outcome: list[object] = []
    watching.doors.append(door)
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            try:
                outcome.append(await watching.run(connect))
            except WatchError as exc:
                outcome.append(exc)
            finally:
                watching.close()
            nursery.cancel_scope.cancel()
    return said, outcome


async def test_a_spectator_that_moves_shows_each_chat_line_once() -> None:
    said, outcome = await show_and_move(again=lambda line: line)
    assert "path: direct (your port mapping)" in said
    assert not [line for line in said if line.startswith("chat:")], said
    assert [line for line in said if " says: " in line] == [
        "random-04A (A) says: good luck",
        "random-04A (A) says: well played",
    ]
    assert outcome[0].status is VerdictStatus.COMPLETE  # type: ignore[attr-defined]


async def test_a_spectator_that_moves_refuses_another_chat_line_sent_again() -> None:
    game_id = load_replay(GAME).header.game_id

    def altered(line: ChatLine) -> ChatLine:
        return sign_line(PLAYER_A, game_id, line.seat, line.seq, line.at, "altered")

    said, outcome = await show_and_move(again=altered)
    assert isinstance(outcome[0], WatchError), said
    assert str(outcome[0]) == "the host sent another chat line 0 than before"
