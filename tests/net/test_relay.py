"""The transit relay client: token, side ids, request and answer (sans-IO); the relay
setting; pairing through the real ``magic-wormhole-transit-relay`` server and through
fake relays that misbehave, all on loopback."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import pytest
import trio

from dbnet.net.errors import LocalNetError, NetError
from dbnet.net.relay import (
    ANSWER_LIMIT,
    DEFAULT_RELAY,
    AnswerReader,
    NoPeerError,
    RelayError,
    RelaySettingError,
    RelayTimeoutError,
    open_relayed,
    parse_relay,
    receive_ok,
    relay_request,
    relay_setting,
    relay_side,
    relay_token,
)

LOOPBACK = "127.0.0.1"
TOKEN = relay_token(b"an invite secret")
HOST_SIDE = relay_side(TOKEN, "host")
JOINER_SIDE = relay_side(TOKEN, "joiner")

# --- sans-IO: token, sides, request ----------------------------------------------------


def test_the_token_is_64_lowercase_hex_digits_and_differs_per_secret() -> None:
    tokens = {relay_token(bytes([n]) * 32) for n in range(50)}
    assert len(tokens) == 50
    assert all(re.fullmatch(r"[0-9a-f]{64}", token) for token in tokens)
    assert relay_token(b"x") == relay_token(b"x")


def test_the_token_is_a_domain_separated_hash_not_the_secret() -> None:
    secret = bytes(range(32))
    token = relay_token(secret)
    assert token != secret.hex()
    assert token != hashlib.sha256(secret).hexdigest()  # not a plain hash: a dbnet label first
    assert secret.hex() not in token


def test_sides_are_fixed_by_role_and_distinct() -> None:
    assert re.fullmatch(r"[0-9a-f]{16}", HOST_SIDE)
    assert re.fullmatch(r"[0-9a-f]{16}", JOINER_SIDE)
    assert HOST_SIDE != JOINER_SIDE
    assert relay_side(TOKEN, "host") == HOST_SIDE  # the same again after a reconnection
    assert relay_side(relay_token(b"other"), "host") != HOST_SIDE


def test_the_request_is_the_relays_line_with_side() -> None:
    assert (
        relay_request(TOKEN, HOST_SIDE) == f"please relay {TOKEN} for side {HOST_SIDE}\n".encode()
    )


@pytest.mark.parametrize(
    ("token", "side"),
    [
        ("ab" * 31, "0" * 16),  # 62 digits
        ("AB" * 32, "0" * 16),  # upper case
        ("g" * 64, "0" * 16),
        (TOKEN + "\n", "0" * 16),
        (TOKEN, "0" * 15),
        (TOKEN, "0" * 16 + "\nplease"),
        (TOKEN, "x" * 16),
    ],
)
def test_a_malformed_token_or_side_is_a_local_error(token: str, side: str) -> None:
    with pytest.raises(LocalNetError, match=r"relay (token|side id)"):
        relay_request(token, side)


def test_a_side_of_an_unknown_role_is_a_local_error() -> None:
    with pytest.raises(LocalNetError, match="role 'guest'"):
        relay_side(TOKEN, "guest")  # type: ignore[arg-type]


# --- sans-IO: the answer ---------------------------------------------------------------


def _read(chunks: list[bytes]) -> bool:
    """Feed ``chunks`` as a stream reader would: never more than the reader wants."""
    reader = AnswerReader("relay.example:4001")
    done = False
    for chunk in chunks:
        while chunk and not done:
            piece, chunk = chunk[: reader.wanted()], chunk[reader.wanted() :]
            done = reader.feed(piece)
    return done


def test_ok_whole_or_byte_by_byte() -> None:
    assert _read([b"ok\n"])
    assert _read([b"o", b"k", b"\n"])
    assert not _read([b"ok"])


def test_the_reader_never_asks_for_more_than_is_left_of_ok() -> None:
    reader = AnswerReader("r:1")
    assert reader.wanted() == 3
    reader.feed(b"o")
    assert reader.wanted() == 2
    reader.feed(b"k")
    assert reader.wanted() == 1
    with pytest.raises(LocalNetError, match="fed 2 bytes, wanted 1"):
        reader.feed(b"\nX")  # a byte of the peer's would be lost: the reader refuses it
    assert reader.feed(b"\n")
    with pytest.raises(LocalNetError, match="fed after ok"):
        reader.feed(b"x")


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        ([b"garbage\n"], r"^relay relay\.example:4001: answered b'garbage' instead of ok$"),
        ([b"OK\n"], r"answered b'OK' instead of ok"),
        ([b"ok\r\n"], r"answered b'ok\\r' instead of ok"),
        ([b"o", b"x\n"], r"answered b'ox' instead of ok"),
        ([b"\n"], r"answered b'' instead of ok"),
        ([b"disconnect\n"], r"answered b'disconnect' instead of ok"),
        ([b"bad handshake\n"], r"answered b'bad handshake': it did not accept the request line"),
        ([b"impatient\n"], r"answered b'impatient': this side sent data before the peer"),
        ([b"no\nmore"], r"answered b'no' instead of ok"),
        ([b"\x00\xff\n"], r"answered b'\\x00\\xff' instead of ok"),
    ],
)
def test_any_answer_but_ok_is_a_relay_error(chunks: list[bytes], message: str) -> None:
    with pytest.raises(RelayError, match=message):
        _read(chunks)


def test_an_overlong_answer_is_cut_at_the_limit() -> None:
    reader = AnswerReader("r:1")
    reader.feed(b"x")
    assert reader.wanted() == ANSWER_LIMIT - 1
    with pytest.raises(RelayError, match=r"more than 63 bytes without a newline \(b'xxxx"):
        reader.feed(b"x" * (ANSWER_LIMIT - 1))


def test_a_closed_stream_is_a_relay_error_and_a_failed_reader_stays_failed() -> None:
    reader = AnswerReader("r:1")
    with pytest.raises(RelayError, match="closed the connection without answering"):
        reader.end()
    with pytest.raises(RelayError, match="without answering"):
        reader.feed(b"ok\n")
    reader = AnswerReader("r:1")
    reader.feed(b"ok")
    with pytest.raises(RelayError, match=r"in the middle of its answer b'ok'"):
        reader.end()


def test_relay_errors_are_net_errors() -> None:
    assert issubclass(RelayTimeoutError, RelayError)
    assert issubclass(RelayError, NetError)
    assert issubclass(RelaySettingError, NetError)
    assert issubclass(RelaySettingError, ValueError)


# --- the setting -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("relay.example:4001", ("relay.example", 4001)),
        ("  relay.example:4001\n", ("relay.example", 4001)),
        ("tcp:transit.magic-wormhole.io:4001", ("transit.magic-wormhole.io", 4001)),
        ("127.0.0.1:1", ("127.0.0.1", 1)),
        ("localhost:65535", ("localhost", 65535)),
        ("[::1]:4001", ("::1", 4001)),
        ("[2001:db8::7]:4001", ("2001:db8::7", 4001)),
        ("off", None),
        ("OFF", None),
    ],
)
def test_parse_relay(text: str, address: tuple[str, int] | None) -> None:
    assert parse_relay(text) == address


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "no port"),
        ("relay.example", "no port"),
        ("relay.example:", r"the port '' is not a number"),
        ("relay.example:0", r"the port '0' is not a number from 1 to 65535"),
        ("relay.example:65536", "from 1 to 65535"),
        ("relay.example:-1", "the port '-1'"),
        ("relay.example:\uff14\uff10\uff10\uff11", "the port"),  # full-width digits
        ("2001:db8::7:4001", "needs brackets"),
        ("[2001:db8::7]", "must be followed by :PORT"),
        ("[2001:db8::7:4001", "must be followed by :PORT"),
        ("[nothing]:4001", "'nothing' is not an IPv6 address"),
        (":4001", "'' is not a host name"),
        ("bad host:4001", "'bad host' is not a host name"),
        ("-bad.example:4001", "is not a host name"),
        ("a..b:4001", "is not a host name"),
        ("of:1x", "the port '1x'"),
    ],
)
def test_parse_relay_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(RelaySettingError, match=problem) as caught:
        parse_relay(text)
    assert f"{text!r} is not a relay address" in str(caught.value)
    assert "expected HOST:PORT, [IPv6]:PORT or off" in str(caught.value)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty DBNET_HOME and no DBNET_RELAY."""
    directory = tmp_path / "home"
    monkeypatch.setenv("DBNET_HOME", str(directory))
    monkeypatch.delenv("DBNET_RELAY", raising=False)
    return directory


def _config(home: Path, text: str) -> Path:
    home.mkdir(exist_ok=True)
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_default_is_the_magic_wormhole_relay(home: Path) -> None:
    assert DEFAULT_RELAY == ("transit.magic-wormhole.io", 4001)
    assert relay_setting(None) == DEFAULT_RELAY
    _config(home, 'name = "something else"\n[relay_table]\nrelay = "x:1"\n')
    assert relay_setting(None) == DEFAULT_RELAY  # only a top-level relay key counts


def test_flag_over_env_over_config_over_default(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _config(home, '# my settings\nrelay = "config.example:3"\n')
    assert relay_setting(None) == ("config.example", 3)
    monkeypatch.setenv("DBNET_RELAY", "env.example:2")
    assert relay_setting(None) == ("env.example", 2)
    assert relay_setting("flag.example:1") == ("flag.example", 1)
    monkeypatch.setenv("DBNET_RELAY", "")  # empty: not set
    assert relay_setting(None) == ("config.example", 3)


def test_off_at_every_level(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _config(home, 'relay = "off"\n')
    assert relay_setting(None) is None
    _config(home, 'relay = "config.example:3"\n')
    monkeypatch.setenv("DBNET_RELAY", "off")
    assert relay_setting(None) is None
    monkeypatch.setenv("DBNET_RELAY", "env.example:2")
    assert relay_setting("off") is None


def test_a_bad_value_names_where_it_came_from(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(
        RelaySettingError, match=r"^--relay: 'nope' is not a relay address: no port"
    ):
        relay_setting("nope")
    monkeypatch.setenv("DBNET_RELAY", "[::1]")
    with pytest.raises(RelaySettingError, match=r"^DBNET_RELAY: '\[::1\]' is not a relay address"):
        relay_setting(None)
    monkeypatch.delenv("DBNET_RELAY")
    path = _config(home, '# settings\n\n  relay = "host:99999"\n')
    with pytest.raises(RelaySettingError, match=rf"^{re.escape(str(path))} line 3: 'host:99999'"):
        relay_setting(None)


def test_a_bad_config_file_names_the_file_and_line(home: Path) -> None:
    path = _config(home, 'x = 1\nrelay = "a:1\n')
    with pytest.raises(
        RelaySettingError, match=rf"^{re.escape(str(path))}: not valid TOML: .*line 2"
    ):
        relay_setting(None)
    _config(home, "x = 1\nrelay = 4001\n")
    with pytest.raises(RelaySettingError, match=r"config\.toml line 2: relay must be a string"):
        relay_setting(None)
    path.write_bytes(b'x = 1\n\nrelay = "\xff"\n')
    with pytest.raises(RelaySettingError, match=r"config\.toml line 3: not UTF-8 text"):
        relay_setting(None)
    path.unlink()
    path.mkdir()
    with pytest.raises(RelaySettingError, match=r"config\.toml: cannot be read"):
        relay_setting(None)


# --- the real relay on loopback --------------------------------------------------------


async def _pair(
    relay: tuple[str, int], token: str = TOKEN, *, wait: float = 10
) -> tuple[trio.abc.Stream, trio.abc.Stream]:
    """The host's and the joiner's relayed streams, opened side by side."""
    streams: dict[str, trio.abc.Stream] = {}

    async def open_side(role: str, side: str) -> None:
        streams[role] = await open_relayed(relay, token, side, timeout=5, wait=wait)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(open_side, "host", relay_side(token, "host"))
        nursery.start_soon(open_side, "joiner", relay_side(token, "joiner"))
    return streams["host"], streams["joiner"]


async def _receive_exactly(stream: trio.abc.ReceiveStream, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = await stream.receive_some(size - len(data))
        assert chunk, f"the stream closed after {len(data)} of {size} bytes"
        data += chunk
    return bytes(data)


async def test_two_sides_pair_and_talk_both_ways(real_relay: tuple[str, int]) -> None:
    with trio.fail_after(20):
        host, joiner = await _pair(real_relay)
        await host.send_all(b"hello from the host")
        assert await _receive_exactly(joiner, 19) == b"hello from the host"
        await joiner.send_all(b"and from the joiner")
        assert await _receive_exactly(host, 19) == b"and from the joiner"
        await host.aclose()
        await joiner.aclose()


async def test_a_large_payload_both_ways_at_once(real_relay: tuple[str, int]) -> None:
    token = relay_token(b"large")
    size = 3_000_000
    one, two = bytes(range(256)) * (size // 256), bytes(reversed(range(256))) * (size // 256)
    got: dict[str, bytes] = {}

    async def exchange(name: str, stream: trio.abc.Stream, out: bytes) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(stream.send_all, out)
            got[name] = await _receive_exactly(stream, len(out))

    with trio.fail_after(60):
        host, joiner = await _pair(real_relay, token)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(exchange, "host", host, one)
            nursery.start_soon(exchange, "joiner", joiner, two)
        assert got == {"host": two, "joiner": one}
        await host.aclose()
        await joiner.aclose()


async def test_bytes_sent_right_after_ok_are_not_lost(real_relay: tuple[str, int]) -> None:
    """The host reads its ok only after the joiner's first bytes are there, so that they
    arrive with ok, in the same read if the reader took more than ok."""
    token = relay_token(b"eager joiner")
    with trio.fail_after(20):
        host = await trio.open_tcp_stream(*real_relay)
        await host.send_all(relay_request(token, relay_side(token, "host")))
        await trio.sleep(0.2)  # the relay has the host's request before the joiner's
        joiner = await open_relayed(real_relay, token, relay_side(token, "joiner"), timeout=5)
        await joiner.send_all(b"first!")
        await trio.sleep(0.3)
        await receive_ok(host, "test")
        assert await _receive_exactly(host, 6) == b"first!"
        await host.aclose()
        await joiner.aclose()


async def test_sides_pair_again_after_a_drop(real_relay: tuple[str, int]) -> None:
    token = relay_token(b"again")
    with trio.fail_after(20):
        for round_ in range(3):
            host, joiner = await _pair(real_relay, token)
            await joiner.send_all(b"round %d" % round_)
            assert await _receive_exactly(host, 7) == b"round %d" % round_
            await host.aclose()
            await joiner.aclose()


async def test_a_different_token_does_not_pair(real_relay: tuple[str, int]) -> None:
    one, two = relay_token(b"one"), relay_token(b"two")
    failures: list[BaseException] = []

    async def wait_alone(token: str, role: str) -> None:
        try:
            await open_relayed(real_relay, token, relay_side(token, role), timeout=5, wait=0.7)  # type: ignore[arg-type]
        except RelayTimeoutError as exc:
            failures.append(exc)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait_alone, one, "host")
            nursery.start_soon(wait_alone, two, "joiner")
    assert len(failures) == 2
    assert all("no peer came with the same token within 0.7 s" in str(e) for e in failures)


async def test_two_connections_of_the_same_side_do_not_pair(real_relay: tuple[str, int]) -> None:
    token = relay_token(b"same side")
    side = relay_side(token, "host")
    failures: list[BaseException] = []

    async def wait_alone() -> None:
        try:
            await open_relayed(real_relay, token, side, timeout=5, wait=0.7)
        except RelayTimeoutError as exc:
            failures.append(exc)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(wait_alone)
            nursery.start_soon(wait_alone)
    assert len(failures) == 2


async def test_the_real_relays_refusals(real_relay: tuple[str, int]) -> None:
    """What the unchanged server answers to a line it cannot read, and to a side that
    sends before its peer came."""
    with trio.fail_after(10):
        stream = await trio.open_tcp_stream(*real_relay)
        await stream.send_all(b"please relay " + b"ab" * 31 + b"\n")
        with pytest.raises(RelayError, match=r"answered b'bad handshake': it did not accept"):
            await receive_ok(stream, "test")
        await stream.aclose()
        token = relay_token(b"impatient")
        stream = await trio.open_tcp_stream(*real_relay)
        await stream.send_all(relay_request(token, relay_side(token, "host")) + b"early")
        with pytest.raises(RelayError, match=r"answered b'impatient': this side sent data"):
            await receive_ok(stream, "test")
        await stream.aclose()
        stream = await trio.open_tcp_stream(*real_relay)
        await stream.send_all(b"x" * 2000)  # no newline within the server's 1024 bytes
        with pytest.raises(RelayError, match="closed the connection without answering"):
            await receive_ok(stream, "test")
        await stream.aclose()


async def test_nobody_listening_is_a_relay_error() -> None:
    with trio.socket.socket() as probe:  # a port nobody listens on: bound, never listening
        await probe.bind((LOOPBACK, 0))
        port = probe.getsockname()[1]
        with (
            trio.fail_after(10),
            pytest.raises(RelayError, match=rf"^relay 127\.0\.0\.1:{port}: cannot connect"),
        ):
            await open_relayed((LOOPBACK, port), TOKEN, HOST_SIDE, timeout=5)


# --- fake relays that misbehave --------------------------------------------------------

Handler = Callable[[trio.SocketStream], Awaitable[None]]


async def _with_fake_relay(handler: Handler, wait: float = 5) -> trio.abc.Stream:
    """``open_relayed`` against a loopback server that reads the request line and then
    does what ``handler`` says."""
    requests: list[bytes] = []

    async def serve(stream: trio.SocketStream) -> None:
        line = b""
        while not line.endswith(b"\n"):
            line += await stream.receive_some(1)
        requests.append(line)
        await handler(stream)

    failed: RelayError | None = None
    async with trio.open_nursery() as nursery:
        [listener] = await nursery.start(partial(trio.serve_tcp, serve, 0, host=LOOPBACK))
        port = listener.socket.getsockname()[1]
        try:
            with trio.fail_after(10):
                stream = await open_relayed(
                    (LOOPBACK, port), TOKEN, HOST_SIDE, timeout=5, wait=wait
                )
        except RelayError as exc:
            failed = exc
        nursery.cancel_scope.cancel()
    assert requests == [relay_request(TOKEN, HOST_SIDE)]
    if failed is not None:
        raise failed
    return stream


def _answer(data: bytes, *, then_wait: bool = False) -> Handler:
    async def handler(stream: trio.SocketStream) -> None:
        await stream.send_all(data)
        if then_wait:
            await trio.sleep_forever()
        await stream.aclose()

    return handler


async def test_ok_and_the_peers_bytes_in_one_packet() -> None:
    stream = await _with_fake_relay(_answer(b"ok\nHELLO", then_wait=True))
    with trio.fail_after(5):
        assert await _receive_exactly(stream, 5) == b"HELLO"
    await stream.aclose()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"garbage\n", r"^relay 127\.0\.0\.1:\d+: answered b'garbage' instead of ok$"),
        (b"", r": closed the connection without answering"),
        (b"o", r": closed the connection in the middle of its answer b'o'$"),
        (b"y" * 5000, r": answered more than 63 bytes without a newline"),
        (b"disconnect\n", r": answered b'disconnect' instead of ok$"),
    ],
)
async def test_a_fake_relay_that_misbehaves(data: bytes, message: str) -> None:
    with pytest.raises(RelayError, match=message):
        await _with_fake_relay(_answer(data))


async def test_a_silent_relay_is_a_timeout_not_a_hang() -> None:
    with pytest.raises(NoPeerError, match=r": no peer came with the same token within 0.5 s$"):
        await _with_fake_relay(_answer(b"", then_wait=True), wait=0.5)


async def test_bad_timeouts_are_local_errors() -> None:
    with pytest.raises(LocalNetError, match="must be > 0"):
        await open_relayed((LOOPBACK, 1), TOKEN, HOST_SIDE, timeout=0)
    with pytest.raises(LocalNetError, match="must be > 0"):
        await open_relayed((LOOPBACK, 1), TOKEN, HOST_SIDE, timeout=1, wait=float("nan"))
