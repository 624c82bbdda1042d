"""Hostile and mistaken peers against an honest ``GameSession``, on trio's mock clock.

Each case ends with one clear line on the honest side, no crash and no hang, and its
replay (if the game started) still verifies, as unfinished or complete. A host
refuses a connection it cannot play with and waits on for its real opponent (who
then plays the game to the end); a joiner that reaches the wrong host stops.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path

import pytest
import trio
import trio.testing

from dbnet.bots import make_bot
from dbnet.catalog import default_warbands, load_catalog, load_map
from dbnet.commands.verify import verify_file
from dbnet.engine import ChanceRequest, Decision, GameSetup, Options, Player, format_choice
from dbnet.net.errors import NetError, VersionMismatchError
from dbnet.net.framing import frame
from dbnet.net.handshake import SUPPORTED_VERSIONS, encode_preamble
from dbnet.net.hosting import listener_port, listening
from dbnet.net.messages import (
    Bye,
    Entry,
    Hello,
    Message,
    Ping,
    Pong,
    RematchMessage,
    decode_message,
    encode_message,
)
from dbnet.net.session import Timing
from dbnet.net.session_values import GameSessionError, Outcome, PeerLeftError, withheld_result
from dbnet.net.stream import SecureStream, open_channel
from dbnet.protocol.identity import Identity, KnownPeers, fingerprint
from dbnet.protocol.peer import Peer
from dbnet.protocol.remote import RemoteGame, chain_secret
from dbnet.replay.evidence import read_evidence
from dbnet.replay.file import load_replay
from dbnet.replay.verify import VerdictStatus

from .helpers import ALICE, BOB, MALLORY, PassThroughStream
from .sessions import GAME_LIMIT, JOINER_NONCE, Network, Side, make_side, play, reference, run_side

Clock = trio.testing.MockClock
A_WARBAND, B_WARBAND = default_warbands(load_catalog())
GAME_LIMIT_ENTRIES = 500


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
    network: Network, identity: object = BOB, versions: tuple[int, ...] = SUPPORTED_VERSIONS
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


async def accept_offer(secure: SecureStream) -> RemoteGame:
    """Bob takes the host's OFFER and sends his ACCEPT: the game has started."""
    message = await receive(secure)
    while not isinstance(message, Entry):
        message = await receive(secure)
    game = RemoteGame.accept(BOB, message.record, lambda record: None, name="bob")
    await send(secure, Entry(game.records[1]))
    return game


async def play_b_until(
    secure: SecureStream, game: RemoteGame, done: Callable[[], bool], *, seed: int
) -> None:
    """Play B's side of ``game`` (a seeded random bot) until ``done()``."""
    bot = make_bot("random", random.Random(seed))
    for _ in range(GAME_LIMIT_ENTRIES):
        if done():
            return
        if game.my_turn:
            view = game.decision_view()
            decision = None if view is None else format_choice(view, bot.choose(view))
            await send(secure, Entry(game.write(decision)))
            continue
        message = await receive(secure)
        if isinstance(message, Entry):
            game.receive(message.record)
    raise AssertionError(f"not reached in {GAME_LIMIT_ENTRIES} entries")


async def stay_alive_silently(secure: SecureStream) -> list[Bye]:
    """Answer every PING and write nothing else, until the host's BYE (returned) or the
    connection's end; 600 virtual seconds at most (a hang guard)."""
    with suppress(NetError), trio.fail_after(600):
        while True:
            message = await receive(secure)
            if isinstance(message, Ping):
                await send(secure, Pong(message.token))
            if isinstance(message, Bye):
                return [message]
    return []


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
        for byte in frame(encode_preamble(SUPPORTED_VERSIONS)):
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
        with pytest.raises(VersionMismatchError, match=r"the peer speaks versions \[5, 4, 3\]"):
            await secure_connection(network, versions=(7, 6))
        await until(lambda: host.saw("no channel version in common"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw(
        "refused a connection: handshake: no channel version in common: this side speaks "
        "versions [5, 4, 3], the peer speaks versions [7, 6]; one side must upgrade"
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
            await open_channel(stream, MALLORY, initiator=False, versions=(6,))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(fake_host)
        await run_side(joiner, lambda: joiner.session.join(network.connect))
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome) == (
        "cannot play with this host: handshake: no channel version in common: this side "
        "speaks versions [5, 4, 3], the peer speaks versions [6]; one side must upgrade"
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
    3 s. The frame has 10 s, and so has the OFFER's answer; the host drops the
    connection and waits for the opponent to come back (it does, and the game is
    played)."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        raw = await raw_connection(network)
        secure = await open_channel(raw, BOB, initiator=True)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
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
    assert host.saw(
        "a frame from the peer (4 bytes of it received) did not complete within 10 s"
    ) or host.saw("the joiner did not answer the OFFER in time")


async def test_a_silent_peer_is_dropped_and_the_host_waits_on(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """A peer that says HELLO and then nothing at all, not even PONG or an answer to the
    OFFER: after 10 s the host drops it and waits on (a silent stranger holds the seat
    that long); the opponent comes and plays."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        start = trio.current_time()
        await until(lambda: host.saw("connection lost"))
        assert 10.0 <= trio.current_time() - start < 20.0
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert host.saw("connection lost (the joiner did not answer the OFFER in time)")


async def test_a_silent_peer_in_the_game_is_dropped_after_20_s(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """In a started game (the ACCEPT came), a peer silent for 20 s, not even answering
    PINGs, is taken for gone: the host waits for it to come back."""
    host, network = new_host(tmp_path, think=1000.0), Network()

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        await accept_offer(secure)
        start = trio.current_time()
        await until(lambda: host.saw("connection lost"))
        assert trio.current_time() - start >= 20.0

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
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        await accept_offer(secure)
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
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        await accept_offer(secure)
        await secure.send(b"\x93\x0f\x01\x02")  # [15, 1, 2]: no such message type
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    assert "the peer broke the protocol: bad message from the peer" in str(host.outcome)
    assert "unknown message type 15" in str(host.outcome)
    assert host.verdict().status is VerdictStatus.UNFINISHED


async def test_an_invalid_entry_ends_the_game_and_the_peer_is_told(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        await accept_offer(secure)
        await until(lambda: len(host.records) >= 2)
        await send(secure, Entry(b"\x92\xc4\x03abc\xc4\x03xyz"))
        told.append(await receive_until_bye(secure))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    held = len(host.records)
    assert str(host.outcome).startswith(f"the peer sent an invalid entry: entry {held}: malformed")
    assert told[0].reason.startswith(f"your entry was refused: entry {held}: malformed")
    verdict = host.verdict()
    assert verdict.status is VerdictStatus.UNFINISHED
    assert verdict.entries == held  # nothing of the malformed entry


async def test_misbehaviour_before_the_accept_leaves_the_host_waiting(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Before its ACCEPT the joiner is no opponent yet: an invalid entry (or any other
    misbehaviour) ends that connection only; the host removes the refused OFFER's replay
    (issue 30.6), keeps waiting, makes a new OFFER to the next joiner, and that game is
    played to the end."""
    host, network = new_host(tmp_path), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network, MALLORY)
        await send(secure, Hello("mallory", None, 0, B_WARBAND, nonce=bytes(32)))
        await send(secure, Entry(b"\x92\xc4\x03abc\xc4\x03xyz"))
        told.append(await receive_until_bye(secure))
        await until(lambda: host.saw("still waiting"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert told[0].reason.startswith("your entry was refused: entry 1: malformed")
    assert host.saw("no game with this joiner: the peer sent an invalid entry: entry 1")
    assert host.saw(f"the refused OFFER's replay {host.path} is removed")
    assert not host.saw("the OFFER made before was not accepted")  # none was left


async def test_an_accept_signing_another_name_than_hello_is_refused(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Protocol version 3: B signs its name in the ACCEPT. A joiner who says 'bob' in HELLO
    and signs 'carol' is refused before the game starts (the replay keeps the name the
    player is known by here); the host waits on and plays the real Bob."""
    host, network = new_host(tmp_path), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        message = await receive(secure)
        while not isinstance(message, Entry):
            message = await receive(secure)
        game = RemoteGame.accept(BOB, message.record, lambda record: None, name="carol")
        await send(secure, Entry(game.records[1]))
        told.append(await receive_until_bye(secure))
        await until(lambda: host.saw("still waiting"))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert told[0].reason == "the name you sign is not the name you said in HELLO"
    assert host.saw("the peer said its name is 'bob' but signs 'carol' in its ACCEPT")


async def test_equivocation_is_caught_with_both_entries(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """The opponent signs two different ACCEPTs (two chain secrets): proof of cheating."""
    host, network = new_host(tmp_path), Network()
    sent: list[bytes] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        message = await receive(secure)
        while not isinstance(message, Entry):
            message = await receive(secure)
        offer = message.record
        game_id = Peer.accept(BOB, offer, secret=bytes(32))[0].log.game_id
        _, honest = Peer.accept(BOB, offer, secret=chain_secret(BOB, game_id), name="bob")
        _, other = Peer.accept(BOB, offer, secret=bytes(range(32)), name="bob")
        assert honest != other
        sent.extend((honest, other))
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
    # the proof is saved beside the replay, written whole, and verifies on its own
    evidence = tmp_path / "alice.equivocation-1.dbnr"
    assert f"the evidence is saved in {evidence}" in str(host.outcome)
    replay = load_replay(host.path)
    held = replay.records
    assert read_evidence(evidence.read_bytes(), where=str(evidence)) == (
        replay.header,
        held[0],  # the OFFER: the game id and both keys
        held[1],  # the ACCEPT the host took
        sent[1],  # the other one
    )
    assert sent[0] == held[1]
    checked = verify_file(str(evidence))
    assert checked.status is VerdictStatus.EQUIVOCATION, checked
    assert checked.seq == 1
    assert "B signed two different entries with sequence number 1" in (checked.reason or "")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


async def host_with_a_bad_date(
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
    RemoteGame.offer(
        identity,
        secure.peer_key,
        setup,
        holder.append,
        nonce=bytes(32),
        joiner_nonce=joiner_hello.nonce or bytes(32),
    )
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
        await host_with_a_bad_date(await network.arrivals.receive(), "2026-13-45T99:99:99Z", told)

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
                    await host_with_a_bad_date(stream, "2026-02-30T25:00:00Z", told)

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
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
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
    await play(mallory, joiner, Network(), stop_host_after_joiner=True)
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome).startswith(
        f"the peer's key fingerprint is {fingerprint(MALLORY.public_key)}, not the expected "
        f"{fingerprint(ALICE.public_key)}: refusing to play (check the fingerprint with your "
        "opponent)"
    )
    assert not joiner.path.exists()
    # the host had offered a game, which the joiner refused: the host waits on (a joiner
    # with a wrong --expect does not stop it for good)
    assert mallory.outcome is None
    assert mallory.saw(
        "no game with this joiner: the peer left: your key is not the one this player "
        "expects; still waiting for an opponent"
    )


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
        await send(secure, Hello("mallory", None, 0, B_WARBAND, nonce=JOINER_NONCE))
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
    """A peer in the game (its ACCEPT came) that keeps sending PINGs (so it is never
    silent) but never reads again: on a connection with no buffer the host's next send
    cannot finish; after 20 s the host drops the connection instead of waiting for ever,
    and waits for the peer to come back."""
    host, network = new_host(tmp_path), Network()

    async def body() -> None:
        ours, theirs = trio.testing.lockstep_stream_pair()
        await network.arrive(theirs)
        secure = await open_channel(ours, BOB, initiator=True)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(send, secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
            await receive(secure)  # the host's HELLO
        await accept_offer(secure)  # from now on, nothing is read
        with suppress(NetError):
            while not host.saw("connection lost"):
                await send(secure, Ping(1))
                await trio.sleep(4.0)

    await with_host(host, network, body)
    assert host.saw(
        "connection lost (sending a message (the peer stopped reading) did not complete "
        "within 20 s: the peer is too slow); waiting to reconnect"
    )
    assert host.outcome is None  # still waiting for its opponent


async def test_idle_connections_from_one_address_keep_only_a_few_handshakes(
    tmp_path: Path,
) -> None:
    """Real sockets: fourteen connections from one address that say nothing. Each gets
    its handshake at once (the host's preamble), but one address keeps at most four
    going: the older ten are dropped as newer ones come, instead of piling up."""
    host = new_host(tmp_path, timing=Timing(handshake_timeout=30.0))
    async with listening(0) as listeners, trio.open_nursery() as nursery:
        port = listener_port(listeners[0])
        nursery.start_soon(run_side, host, lambda: host.session.host(listeners))
        streams = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(14)]
        ended = [False] * len(streams)

        async def read(i: int) -> None:
            while await streams[i].receive_some(100):
                pass
            ended[i] = True  # the host closed it

        with trio.move_on_after(3.0):  # a bound on the wait, not a measurement
            async with trio.open_nursery() as readers:
                for i in range(len(streams)):
                    readers.start_soon(read, i)
        for stream in streams:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    assert ended == [True] * 10 + [False] * 4  # the newest four are still in handshake


async def test_the_joiner_gets_in_past_idle_connections(tmp_path: Path) -> None:
    """Issue 19: nine idle TCP connections held open used to lock a joiner out (each
    had the handshake's 30 s in turn, and more were closed at once). Now they are
    authenticated side by side: the real joiner, arriving last, plays at once."""
    host = new_host(tmp_path, timing=Timing(handshake_timeout=30.0))
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    async with listening(0) as listeners, trio.open_nursery() as nursery:
        port = listener_port(listeners[0])
        nursery.start_soon(run_side, host, lambda: host.session.host(listeners))
        idle = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(9)]

        async def connect() -> trio.abc.Stream:
            return await trio.open_tcp_stream("127.0.0.1", port)

        with trio.fail_after(25):  # less than one idle handshake's 30 s: a hang guard
            await run_side(joiner, lambda: joiner.session.join(connect))
            await until(lambda: host.outcome is not None)
        for stream in idle:
            await stream.aclose()
        nursery.cancel_scope.cancel()
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.outcome is Outcome.COMPLETE, host.said


# --- issue 19: the protocol's holes --------------------------------------------------------


async def hostile_host(
    network: Network, identity: object, offer: Callable[[Hello], bytes]
) -> Bye | None:
    """A host that answers the joiner's HELLO with the OFFER ``offer(hello)`` makes (a
    record), then reads until the joiner's BYE."""
    stream = await network.arrivals.receive()
    secure = await open_channel(stream, identity, initiator=False)  # type: ignore[arg-type]
    hello = await receive(secure)
    assert isinstance(hello, Hello)
    await send(secure, Hello("alice", None, 0, created="2026-01-01T12:00:00Z"))
    await send(secure, Entry(offer(hello)))
    with suppress(NetError):
        return await receive_until_bye(secure)
    return None


async def joiner_against(
    tmp_path: Path, identity: object, offer: Callable[[Hello], bytes]
) -> tuple[Side, list[Bye | None]]:
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False)
    network, told = Network(), []

    async def host() -> None:
        told.append(await hostile_host(network, identity, offer))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        await run_side(joiner, lambda: joiner.session.join(network.connect))
    return joiner, told


async def test_an_offer_signing_another_name_than_hello_is_refused(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Protocol version 3: A signs its name in the OFFER. A host that says 'alice' in
    HELLO and signs 'eve' is refused, and the joiner writes nothing."""

    def renamed_offer(hello: Hello) -> bytes:
        assert hello.warband is not None
        setup = GameSetup(load_map(), (A_WARBAND, hello.warband))
        _, record = Peer.offer(ALICE, BOB.public_key, setup, joiner_nonce=hello.nonce, name="eve")
        return record

    joiner, told = await joiner_against(tmp_path, ALICE, renamed_offer)
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome).startswith(
        "the peer said its name is 'alice' but signs 'eve' in its OFFER: refusing it"
    )
    assert told[0] is not None
    assert told[0].reason == "the name you sign is not the name you said in HELLO"
    assert not joiner.path.exists()


async def test_an_offer_relayed_by_a_man_in_the_middle_is_refused(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Hole 5: Mallory authenticates the channel with her own key (the one the joiner
    checks with --expect and known_peers) and relays Alice's genuine OFFER: the joiner
    refuses it, since its author is not the key on the channel, and writes nothing."""

    def alices_offer(hello: Hello) -> bytes:
        assert hello.warband is not None
        setup = GameSetup(load_map(), (A_WARBAND, hello.warband))
        _, record = Peer.offer(ALICE, BOB.public_key, setup, joiner_nonce=hello.nonce)
        return record

    joiner, told = await joiner_against(tmp_path, MALLORY, alices_offer)
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome).startswith(
        f"the OFFER names {fingerprint(ALICE.public_key)} as A, but the host on this "
        f"connection is {fingerprint(MALLORY.public_key)}: refusing a game relayed"
    )
    assert told[0] is not None
    assert told[0].reason == "your OFFER is written by another key than yours"
    assert not joiner.path.exists()


async def test_an_offer_without_the_joiners_nonce_is_refused(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Hole 1: a host that reuses an earlier game's nonces (so the game id, and with it
    the joiner's chain, would repeat) leaves out the nonce this joiner sent: refused."""
    earlier_joiner_nonce = bytes(32)

    def replayed_offer(hello: Hello) -> bytes:
        assert hello.warband is not None
        assert hello.nonce != earlier_joiner_nonce
        setup = GameSetup(load_map(), (A_WARBAND, hello.warband))
        _, record = Peer.offer(
            ALICE, BOB.public_key, setup, nonce=bytes(32), joiner_nonce=earlier_joiner_nonce
        )
        return record

    joiner, told = await joiner_against(tmp_path, ALICE, replayed_offer)
    assert isinstance(joiner.outcome, GameSessionError)
    assert str(joiner.outcome).startswith(
        "the host's OFFER does not carry the nonce this side sent: refusing it"
    )
    assert told[0] is not None
    assert told[0].reason == "your OFFER does not carry my nonce"
    assert not joiner.path.exists()


async def test_a_joiner_without_a_nonce_is_refused_and_the_host_waits_on(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    host, network = new_host(tmp_path), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND))
        told.append(await receive_until_bye(secure))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    assert told[0].reason == "the peer sent no nonce for the new game: it speaks an older protocol"


async def test_a_false_timeout_claim_is_refused_by_the_live_player(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Hole 3: the joiner writes its ACCEPT and at once a signed CLAIM that the host
    timed out, while the host is connected and about to answer. The host refuses the
    claim (it is live), does not save it, and does not count the game as over: it exits
    with the reason, and its replay verifies as unfinished with A to write, not as a
    claim."""
    host, network = new_host(tmp_path, think=30.0), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        offer = await receive(secure)
        while not isinstance(offer, Entry):
            offer = await receive(secure)
        holder: list[bytes] = []
        game = RemoteGame.accept(BOB, offer.record, holder.append, name="bob")
        await send(secure, Entry(game.records[1]))

        def a_decides() -> bool:
            pending = game.log.game.pending
            return isinstance(pending, Decision) and pending.player is Player.A

        await play_b_until(secure, game, a_decides, seed=1)
        await send(secure, Entry(game.claim_timeout()))
        told.append(await receive_until_bye(secure))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    assert "a false timeout claim, refused and not saved" in str(host.outcome)
    assert "a false timeout claim" in told[0].reason
    verdict = host.verdict()
    assert verdict.status is VerdictStatus.UNFINISHED, verdict
    assert verdict.owed is not None
    assert verdict.owed.player == "A"


async def test_a_bye_reason_is_shown_escaped(autojump_clock: Clock, tmp_path: Path) -> None:
    """A BYE's reason is the peer's text: shown with visible escapes, it cannot forge a
    status line (a newline), rewrite the screen (an escape sequence) or reverse text."""
    host, network = new_host(tmp_path), Network()
    reason = "bye\ndbnet: the game is complete\r\x1b[2J\u202eX"

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Bye(False, reason))
        await until(lambda: any("hung up" in line for line in host.said))
        await then_bob_plays(tmp_path, host, network)

    await with_host(host, network, body)
    said = next(line for line in host.said if "hung up" in line)
    assert said.isprintable()
    assert "the peer hung up: bye\\ndbnet: the game is complete\\r\\x1b[2J\\u202eX" in said


async def test_a_connected_peer_that_withholds_its_link_adjourns_the_game(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Issue 19: a second revealer that saw the dice and stalls, connected and answering
    every PING, no longer holds the host for ever: after ``adjourn_after`` without the
    link it owes, the host adjourns (and says so to the peer)."""
    host = new_host(tmp_path, timing=Timing(adjourn_after=60.0))
    network = Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        game = await accept_offer(secure)

        def b_owes_a_link() -> bool:
            log = game.log
            return log.expected_author() is Player.B and isinstance(log.game.pending, ChanceRequest)

        await play_b_until(secure, game, b_owes_a_link, seed=2)
        stalled_at = trio.current_time()
        told.extend(await stay_alive_silently(secure))  # the link never comes
        assert trio.current_time() - stalled_at >= 60.0
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert host.outcome is Outcome.ADJOURNED
    assert host.saw("the opponent is connected but has not written its entry for 60 s")
    assert told
    assert told[0].reason.startswith("adjourned: ")
    assert host.verdict().status is VerdictStatus.UNFINISHED


async def test_two_players_sharing_one_key_are_told_what_to_do(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Issue 19: two players on one machine without DBNET_HOME share one identity; the
    joiner is told at once (not at the OFFER) that each needs a DBNET_HOME of its own."""
    host, network = new_host(tmp_path), Network()
    twin = make_side(tmp_path, "twin", identity=ALICE, host=False)

    async def body() -> None:
        await run_side(twin, lambda: twin.session.join(network.connect))

    await with_host(host, network, body)
    assert isinstance(twin.outcome, GameSessionError)
    assert str(twin.outcome).startswith("the peer has this player's own key (")
    assert "need one DBNET_HOME each" in str(twin.outcome)
    assert host.saw("two players on one machine need one DBNET_HOME each")
    assert not twin.path.exists()


async def test_a_loser_that_withholds_its_signature_gains_nothing(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """Issue 19, hole 4, live: the joiner plays to the end, then writes neither its FINAL
    nor its COSIGN, connected and answering PINGs. The host adjourns after
    ``adjourn_after``, its game is decided by the game's own state, and its replay
    verifies as ``decided``."""
    host = new_host(tmp_path, turns=1, timing=Timing(adjourn_after=60.0))
    network = Network()

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        game = await accept_offer(secure)

        def over_and_b_owes() -> bool:
            return game.log.game.is_over and game.log.expected_author() is Player.B

        await play_b_until(secure, game, over_and_b_owes, seed=3)
        await stay_alive_silently(secure)  # B's FINAL or COSIGN never comes
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert host.outcome is Outcome.ADJOURNED
    said = withheld_result(host.session.game)
    assert said is not None
    assert said.startswith("the game is over: ")
    verdict = host.verdict()
    assert verdict.status is VerdictStatus.DECIDED, verdict.summary()
    assert verdict.ok
    assert verdict.owed is not None
    assert verdict.owed.player == "B"
    assert verdict.winner == "A"  # B, who withholds, lost: withholding gained it nothing


async def test_a_rematch_in_the_middle_of_a_game_breaks_the_protocol(
    autojump_clock: Clock, tmp_path: Path
) -> None:
    """REMATCH comes once, after the sender's BYE (done): in a started game it is refused
    with one line, the peer is told why, and the game cannot go on."""
    host, network = new_host(tmp_path, think=1000.0), Network()
    told: list[Bye] = []

    async def body() -> None:
        secure = await secure_connection(network)
        await send(secure, Hello("bob", None, 0, B_WARBAND, nonce=JOINER_NONCE))
        await accept_offer(secure)
        await send(secure, RematchMessage(True, ""))
        told.append(await receive_until_bye(secure))
        await until(lambda: host.outcome is not None)

    await with_host(host, network, body)
    assert isinstance(host.outcome, GameSessionError)
    assert str(host.outcome) == (
        "the peer broke the protocol: the peer sent REMATCH before its BYE (done)"
    )
    assert told == [
        Bye(False, "you broke the protocol: the peer sent REMATCH before its BYE (done)")
    ]
