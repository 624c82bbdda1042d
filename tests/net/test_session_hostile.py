"""Hostile and mistaken peers against an honest ``GameSession``, on trio's mock clock.

Each case ends with one clear line on the honest side, no crash and no hang, and its
replay (if the game started) still verifies, as unfinished or complete. A host
refuses a connection it cannot play with and waits on for its real opponent (who
then plays the game to the end); a joiner that reaches the wrong host stops.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path

import pytest
import trio
import trio.testing

from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.engine import GameSetup, Options
from dbnet.identity import Identity, KnownPeers, fingerprint
from dbnet.net.errors import NetError, VersionMismatchError
from dbnet.net.framing import frame
from dbnet.net.handshake import encode_preamble
from dbnet.net.hosting import listener_port, listening
from dbnet.net.messages import Bye, Entry, Hello, Message, Ping, decode_message, encode_message
from dbnet.net.session import GameSessionError, Outcome, PeerLeftError, Timing
from dbnet.net.stream import SecureStream, open_channel
from dbnet.protocol.peer import Peer
from dbnet.protocol.remote import RemoteGame, chain_secret
from dbnet.replay.verify import VerdictStatus

from .helpers import ALICE, BOB, MALLORY, PassThroughStream
from .sessions import GAME_LIMIT, Network, Side, make_side, play, reference, run_side

Clock = trio.testing.MockClock
B_WARBAND = default_warbands(load_catalog())[1]


async def until(condition: Callable[[], bool]) -> None:
    """Wait (in trio time) until ``condition()`` holds."""
    with trio.fail_after(GAME_LIMIT):
        while not condition():
            await trio.sleep(0.5)


async def with_host(host: Side, network: Network, body: Callable[[], Awaitable[None]]) -> None:
    """Run ``body`` while ``host`` serves ``network``; stop the host after it, unless it
    finished by itself."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run_side, host, lambda: host.session.serve(network.arrivals))
        await body()
        if host.outcome is None:
            nursery.cancel_scope.cancel()


async def then_bob_plays(tmp_path: Path, host: Side, network: Network) -> None:
    """The real opponent joins after the hostile peer: the game is played to the end."""
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    await run_side(joiner, lambda: joiner.session.join(network.connect))
    await until(lambda: host.outcome is not None)
    expected = await reference(tmp_path / "reference")
    assert host.outcome is Outcome.COMPLETE, host.said
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.records == joiner.records == expected
    assert host.verdict().status is VerdictStatus.COMPLETE


async def raw_connection(network: Network) -> trio.abc.Stream:
    """A connection to the host whose other end the test writes by hand."""
    ours, theirs = trio.testing.memory_stream_pair()
    await network.arrive(theirs)
    return ours


async def secure_connection(
    network: Network, identity: object = BOB, versions: tuple[int, ...] = (1,)
) -> SecureStream:
    raw = await raw_connection(network)
    return await open_channel(raw, identity, initiator=True, versions=versions)  # type: ignore[arg-type]


async def send(stream: SecureStream, message: Message) -> None:
    await stream.send(encode_message(message))


async def receive(stream: SecureStream) -> Message:
    return decode_message(await stream.receive())


async def receive_until_bye(stream: SecureStream) -> Bye:
    while True:
        message = await receive(stream)
        if isinstance(message, Bye):
            return message


def new_host(tmp_path: Path, **kwargs: object) -> Side:
    return make_side(tmp_path, "alice", identity=ALICE, host=True, **kwargs)  # type: ignore[arg-type]


# --- before the handshake ------------------------------------------------------------------


async def test_garbage_bytes_are_refused_and_the_host_waits_on(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        raw = await raw_connection(network)
        await raw.send_all(b"GET / HTTP/1.1\r\nHost: example\r\n\r\n")
        await until(lambda: host.saw("does not speak dbnet"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    line = next(line for line in host.said if "does not speak dbnet" in line)
    assert line.startswith(
        "connection failed: handshake: the peer's first bytes b'GET / HTTP/1.1\\r\\n' are "
        "not a dbnet preamble frame"
    )


async def test_an_oversized_handshake_frame_is_refused_before_its_body(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        raw = await raw_connection(network)
        await raw.send_all((2**31).to_bytes(4, "big"))  # and never a byte of the body
        await until(lambda: host.saw("connection failed"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw("announces 2147483648 bytes, more than the limit of 1024 bytes")


async def test_a_slow_handshake_is_cut_off(autojump_clock: Clock, tmp_path: Path) -> None:
    """Slowloris: the preamble one byte every 2 s; the handshake has 10 s."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        raw = await raw_connection(network)
        start = trio.current_time()
        for byte in frame(encode_preamble((1,))):
            try:
                await raw.send_all(bytes([byte]))
            except trio.BrokenResourceError:
                break
            await trio.sleep(2.0)
        await until(lambda: host.saw("connection failed"))
        assert trio.current_time() - start >= 10.0
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw("did not complete within 10 s: the peer is too slow")


async def test_an_unknown_version_is_refused_on_both_sides(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        with pytest.raises(VersionMismatchError, match=r"the peer speaks versions \[1\]"):
            await secure_connection(network, versions=(7, 2))
        await until(lambda: host.saw("no channel version in common"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw(
        "refused a connection: handshake: no channel version in common: this side speaks "
        "versions [1], the peer speaks versions [7, 2]; one side must upgrade"
    )


async def test_a_joiner_stops_at_a_host_of_another_version(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The joiner does not retry a host it can never talk to: one clear message."""
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    network = Network()

    async def fake_host() -> None:
        stream = await network.arrivals.receive()
        with suppress(NetError):
            await open_channel(stream, MALLORY, initiator=False, versions=(3,))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(fake_host)
        await run_side(joiner, lambda: joiner.session.join(network.connect))
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome) == (
        "cannot play with this host: handshake: no channel version in common: this side "
        "speaks versions [1], the peer speaks versions [3]; one side must upgrade"
    )
    assert network.count == 1
    assert not joiner.path.exists()


async def test_a_replayed_handshake_fails_authentication(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Bytes recorded from a real joiner's connection, played again to the same host:
    its new ephemeral key makes the recorded message 3 fail."""
    recorded = bytearray()

    class Recorder(PassThroughStream):
        async def send_all(self, data: bytes | bytearray | memoryview) -> None:
            recorded.extend(data)
            await self.inner.send_all(data)

    first_host, first_joiner = (
        new_host(tmp_path / "first"),
        make_side(tmp_path / "first", "bob", identity=BOB, host=False),
    )
    await play(first_host, first_joiner, Network(lambda n, a, b: (Recorder(a), b)))
    assert first_host.outcome is Outcome.COMPLETE
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        raw = await raw_connection(network)
        await raw.send_all(bytes(recorded[:1000]))
        await until(lambda: host.saw("connection failed"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw("failed authentication: it was altered or replayed from another handshake")


# --- after the handshake -------------------------------------------------------------------


async def test_an_oversized_frame_is_refused_before_its_body(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        raw = await raw_connection(network)
        await open_channel(raw, MALLORY, initiator=True)
        await raw.send_all((10**9).to_bytes(4, "big"))
        await until(lambda: host.saw("connection failed"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw(
        "the length prefix announces 1000000000 bytes, more than the limit of 66576 bytes; "
        "refused before reading the body"
    )


async def test_a_frame_trickled_byte_by_byte_is_cut_off(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Slowloris after the handshake: the opponent's HELLO, then a frame one byte every
    3 s. The frame has 10 s; the host drops the connection and waits for the opponent
    to come back (it does, and the game is played)."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        raw = await raw_connection(network)
        secure = await open_channel(raw, BOB, initiator=True)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        await receive(secure)  # the host's HELLO
        for byte in frame(b"x" * 200):
            try:
                await raw.send_all(bytes([byte]))
            except trio.BrokenResourceError:
                break
            await trio.sleep(3.0)
        await until(lambda: host.saw("connection lost"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw("a frame from the peer (4 bytes of it received) did not complete within 10 s")


async def test_a_silent_peer_is_dropped_and_the_host_waits_on(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """A peer that says HELLO and then nothing at all, not even PONG: after 20 s of
    silence the host drops it and waits on; the opponent comes back and plays."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        start = trio.current_time()
        await until(lambda: host.saw("connection lost"))
        assert trio.current_time() - start >= 20.0
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw("connection lost (the peer was silent for 20 s); waiting to reconnect")


async def test_a_flood_ends_the_game_with_a_clear_message(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The opponent floods PINGs (a thousand at once, never reading the answers): the
    host stops with one line; its replay verifies as unfinished."""
    host, network = new_host(tmp_path), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        with suppress(NetError):  # the host hangs up in the middle
            for token in range(1000):
                await send(secure, Ping(token))
        with suppress(NetError):
            told.append(await receive_until_bye(secure))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    assert str(host.outcome) == (
        "the peer broke the protocol: the peer flooded the connection: more than 100 "
        "messages that do not advance the game, faster than 20 a second"
    )
    assert told
    assert told[0].reason.startswith("you broke the protocol: the peer flooded")
    assert host.verdict().status is VerdictStatus.UNFINISHED


async def test_a_malformed_message_ends_the_game_with_a_clear_message(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        await secure.send(b"\x93\x09\x01\x02")  # [9, 1, 2]: no such message type
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    assert "the peer broke the protocol: bad message from the peer" in str(host.outcome)
    assert "unknown message type 9" in str(host.outcome)
    assert host.verdict().status is VerdictStatus.UNFINISHED


async def test_an_invalid_entry_ends_the_game_and_the_peer_is_told(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        await send(secure, Entry(b"\x92\xc4\x03abc\xc4\x03xyz"))
        told.append(await receive_until_bye(secure))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    assert str(host.outcome).startswith("the peer sent an invalid entry: entry 1: malformed")
    assert told[0].reason.startswith("your entry was refused: entry 1: malformed")
    verdict = host.verdict()
    assert verdict.status is VerdictStatus.UNFINISHED
    assert verdict.entries == 1  # the OFFER, nothing of the peer's


async def test_equivocation_is_caught_with_both_entries(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The opponent signs two different ACCEPTs (two chain secrets): proof of cheating."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        message = await receive(secure)
        while not isinstance(message, Entry):
            message = await receive(secure)
        offer = message.record
        game_id = Peer.accept(BOB, offer, secret=bytes(32))[0].log.game_id
        _, honest = Peer.accept(BOB, offer, secret=chain_secret(BOB, game_id))
        _, other = Peer.accept(BOB, offer, secret=bytes(range(32)))
        assert honest != other
        await send(secure, Entry(honest))
        await send(secure, Entry(other))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    assert "entry 1: the peer signed two different entries with this sequence number" in str(
        host.outcome
    )
    verdict = host.verdict()
    assert verdict.status is VerdictStatus.UNFINISHED
    assert verdict.entries >= 2  # OFFER, the first ACCEPT, and what the host wrote since


async def hostile_host(
    stream: trio.abc.Stream, created: str, told: list[Bye], *, identity: Identity = ALICE
) -> None:
    """A host whose HELLO carries ``created`` (a bad date), followed by a valid OFFER made
    to the joiner: before the fix the joiner took the HELLO and crashed on the date."""
    secure = await open_channel(stream, identity, initiator=False)
    joiner_hello = await receive(secure)
    assert isinstance(joiner_hello, Hello)
    assert joiner_hello.warband is not None
    await send(secure, Hello("alice", None, 0, None, created))
    setup = GameSetup(
        load_map(),
        (default_warbands(load_catalog())[0], joiner_hello.warband),
        Options(turns_to_win=2),
    )
    holder: list[bytes] = []
    RemoteGame.offer(identity, secure.peer_key, setup, holder.append, nonce=bytes(32))
    with suppress(NetError):
        await send(secure, Entry(holder[0]))
        told.append(await receive_until_bye(secure))


async def test_a_host_hello_with_a_bad_date_stops_the_joiner_with_one_line(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    network = Network()
    told: list[Bye] = []

    async def fake_host() -> None:
        await hostile_host(await network.arrivals.receive(), "2026-13-45T99:99:99Z", told)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(fake_host)
        await run_side(joiner, lambda: joiner.session.join(network.connect))
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome) == (
        "the peer broke the protocol: bad message from the peer: hello.created: expected nil "
        "or a UTC time like 2026-05-01T12:00:00Z, got '2026-13-45T99:99:99Z', which is no "
        "such date or time"
    )
    assert told[0].reason.startswith("you broke the protocol: bad message from the peer: ")
    assert network.count == 1  # not retried: the host breaks the protocol
    assert not joiner.path.exists()


async def test_dbnet_join_prints_one_line_and_exits_1_on_a_bad_hello_date(tmp_path: Path) -> None:
    """The real command against the hostile host on loopback (no mock clock)."""
    told: list[Bye] = []
    env = {
        **os.environ, "DBNET_HOME": str(tmp_path / "home"), "DBNET_RELAY": "off",
        "DBNET_PORT_MAPPING": "off", "NO_COLOR": "1",
    }  # fmt: skip
    with trio.fail_after(60):
        [listener] = await trio.open_tcp_listeners(0, host="127.0.0.1")
        port = listener_port(listener)
        async with listener, trio.open_nursery() as nursery:

            async def serve_one() -> None:
                async with await listener.accept() as stream:
                    await hostile_host(stream, "2026-02-30T25:00:00Z", told)

            nursery.start_soon(serve_one)
            command = [sys.executable, "-m", "dbnet", "join", f"127.0.0.1:{port}"]
            result = await trio.run_process(
                [*command, "--plain", "--bot", "random", "--replay", str(tmp_path / "b.dbnr")],
                stdin=b"", capture_stdout=True, capture_stderr=True, check=False, env=env,
            )  # fmt: skip
    stderr = result.stderr.decode()
    assert result.returncode == 1, stderr
    assert "Traceback" not in stderr
    assert stderr.splitlines() == [
        "dbnet: the game cannot go on: the peer broke the protocol: bad message from the peer: "
        "hello.created: expected nil or a UTC time like 2026-05-01T12:00:00Z, got "
        "'2026-02-30T25:00:00Z', which is no such date or time"
    ]
    assert told[0].reason.startswith("you broke the protocol: ")
    assert not (tmp_path / "b.dbnr").exists()


# --- keys ----------------------------------------------------------------------------------


async def test_a_stranger_is_refused_when_another_key_is_expected(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host = new_host(tmp_path, expect=fingerprint(BOB.public_key))
    network = Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network, MALLORY)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        told.append(await receive_until_bye(secure))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw(
        f"refused a connection: the peer's key fingerprint is {fingerprint(MALLORY.public_key)}"
        f", not the expected {fingerprint(BOB.public_key)}: refusing to play"
    )
    assert told[0].reason == "your key is not the one this player expects"


async def test_a_joiner_stops_when_the_host_is_not_the_expected_key(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    mallory = make_side(tmp_path, "mallory", identity=MALLORY, host=True, name="alice")
    joiner = make_side(
        tmp_path, "bob", identity=BOB, host=False, expect=fingerprint(ALICE.public_key)
    )
    await play(mallory, joiner, Network())
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome).startswith(
        f"the peer's key fingerprint is {fingerprint(MALLORY.public_key)}, not the expected "
        f"{fingerprint(ALICE.public_key)}: refusing to play (check the fingerprint with your "
        "opponent)"
    )
    assert not joiner.path.exists()
    # the host had taken the joiner on and offered a game: it ends with the reason
    assert isinstance(mallory.outcome, PeerLeftError)
    assert str(mallory.outcome) == ("the peer left: your key is not the one this player expects")
    assert mallory.verdict().status is VerdictStatus.UNFINISHED


async def test_a_changed_key_is_refused_with_how_to_proceed(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The host knows bob's key from an earlier game; someone else calls himself bob."""
    host = new_host(tmp_path, known_peers=True)
    KnownPeers.in_dir(tmp_path / "alice-home").remember("bob", BOB.public_key)
    impostor = make_side(tmp_path, "impostor", identity=MALLORY, host=False)
    network = Network()

    async def body() -> None:
        await run_side(impostor, lambda: impostor.session.join(network.connect))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    refusal = next(line for line in host.said if line.startswith("refused a connection"))
    assert "the key of peer 'bob' has CHANGED" in refusal
    assert f"offered fingerprint:    {fingerprint(MALLORY.public_key)}" in refusal
    assert "remove line" in refusal
    assert "and connect again" in refusal
    assert isinstance(impostor.outcome, PeerLeftError)
    assert str(impostor.outcome) == (
        "the host hung up: your key is not the one remembered for 'bob'"
    )


async def test_a_joiner_refuses_a_host_whose_key_changed(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    mallory = make_side(tmp_path, "mallory", identity=MALLORY, host=True, name="alice")
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, known_peers=True)
    KnownPeers.in_dir(tmp_path / "bob-home").remember("alice", ALICE.public_key)
    await play(mallory, joiner, Network(), stop_host_after_joiner=True)
    assert isinstance(joiner.outcome, GameSessionError)
    message = str(joiner.outcome)
    assert message.startswith("the key of peer 'alice' has CHANGED")
    assert "compare fingerprints with them by another channel" in message
    assert not joiner.path.exists()


async def test_a_stranger_cannot_break_into_a_game_in_progress(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Mid-game, the connection drops and a stranger connects first: refused; the
    opponent reconnects and the game ends as it would have."""
    expected = await reference(tmp_path / "reference")
    host, network = new_host(tmp_path), Network()
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    from .helpers import Meter

    def wrap(n: int, a: trio.abc.Stream, b: trio.abc.Stream) -> tuple[trio.abc.Stream, ...]:
        meter = Meter(entry=len(expected) // 3 if n == 0 else None)
        return meter.pair(a, b)

    network.wrap = wrap  # type: ignore[assignment]
    stranger_done = trio.Event()

    async def stranger() -> None:
        await until(lambda: host.saw("connection lost"))
        secure = await secure_connection(network, MALLORY)
        await send(secure, Hello("mallory", None, 0, B_WARBAND))
        await receive_until_bye(secure)
        stranger_done.set()

    real_connect = network.connect

    async def connect_after_the_stranger() -> trio.abc.Stream:
        if network.count >= 1:
            await stranger_done.wait()
        return await real_connect()

    network.connect = connect_after_the_stranger  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stranger)
        await play(host, joiner, network)
    assert host.saw(
        f"refused a connection: the peer (mallory, {fingerprint(MALLORY.public_key)}) is not "
        "the other player of this game"
    )
    assert host.records == joiner.records == expected


async def test_a_peer_that_stops_reading_is_dropped(autojump_clock: Clock, tmp_path: Path) -> None:
    """A peer that keeps sending PINGs (so it is never silent) but never reads again: on a
    connection with no buffer the host's next send cannot finish; after 20 s the host
    drops the connection instead of waiting for ever, and its opponent then plays."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        ours, theirs = trio.testing.lockstep_stream_pair()
        await network.arrive(theirs)
        secure = await open_channel(ours, BOB, initiator=True)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(send, secure, Hello("bob", None, 0, B_WARBAND))
            await receive(secure)  # the host's HELLO; from now on, nothing is read
        with suppress(NetError):
            while not host.saw("connection lost"):
                await send(secure, Ping(1))
                await trio.sleep(4.0)
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw(
        "connection lost (sending a message (the peer stopped reading) did not complete "
        "within 20 s: the peer is too slow); waiting to reconnect"
    )


async def test_a_host_keeps_only_a_few_connections_waiting(tmp_path: Path) -> None:
    """Real sockets: fourteen connections that say nothing. The host works on one and
    keeps eight waiting; it closes the others at once instead of piling them up."""
    host = new_host(tmp_path, timing=Timing(handshake_timeout=30.0))
    async with listening(0) as listeners, trio.open_nursery() as nursery:
        port = listener_port(listeners[0])
        nursery.start_soon(run_side, host, lambda: host.session.host(listeners))
        streams = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(14)]
        first: list[bytes] = [b"-"] * len(streams)

        async def read(i: int) -> None:
            first[i] = bytes(await streams[i].receive_some(100))

        with trio.move_on_after(3.0):  # a bound on the wait, not a measurement
            async with trio.open_nursery() as readers:
                for i in range(len(streams)):
                    readers.start_soon(read, i)
        for stream in streams:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    closed = first.count(b"")
    served = sum(1 for data in first if data.startswith((9).to_bytes(4, "big") + b"DBNET"))
    assert served == 1  # the one connection the host works on got its preamble
    assert closed in (5, 6)  # 14 - 1 - 8 (or 14 - 8 if none was taken off the queue yet)
    assert first.count(b"-") == 14 - served - closed  # the waiting ones got nothing yet
