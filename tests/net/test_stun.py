"""The STUN codec against RFC 5769's published answers, hand-built and hostile answers,
the query against a real STUN server (coturn) on loopback, and the ``--stun`` setting."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
import trio

from dbnet.net.stun import (
    DEFAULT_STUN,
    MAGIC_COOKIE,
    Endpoint,
    StunError,
    StunSettingError,
    StunTimeoutError,
    binding_request,
    parse_binding_response,
    query,
    stun_setting,
)

from .processes import Dbnet, Proxy
from .test_processes import forget_played_games, until_listening
from .test_watch_end_processes import WATCH_LINE, invite

NO_STUN_ENV = {"DBNET_STUN": ""}  # empty: not set, so the config file counts

# RFC 5769 section 2: the transaction id of the sample messages.
TXID = bytes.fromhex("b7e7a701bc34d686fa87dfae")

# RFC 5769 section 2.2, "Sample IPv4 Response": 192.0.2.1 port 32853, with SOFTWARE,
# MESSAGE-INTEGRITY and FINGERPRINT.
RFC5769_IPV4 = bytes.fromhex(
    "0101003c2112a442b7e7a701bc34d686fa87dfae"
    "8022000b7465737420766563746f7220"
    "002000080001a147e112a643"
    "000800142b91f599fd9e90c38c7489f92af9ba53f06be7d7"
    "80280004c07d4c96"
)
# RFC 5769 section 2.3, "Sample IPv6 Response": 2001:db8:1234:5678:11:2233:4455:6677
# port 32853.
RFC5769_IPV6 = bytes.fromhex(
    "010100482112a442b7e7a701bc34d686fa87dfae"
    "8022000b7465737420766563746f7220"
    "002000140002a1470113a9faa5d3f179bc25f4b5bed2b9d9"
    "00080014a382954e4be67bf11784c97c8292c275bfe3ed41"
    "80280004c8fb0b4c"
)


def attribute(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + bytes(-len(value) % 4)


def message(kind: int, attributes: bytes, txid: bytes = TXID, cookie: int = MAGIC_COOKIE) -> bytes:
    return struct.pack("!HHI", kind, len(attributes), cookie) + txid + attributes


def with_fingerprint(data: bytes) -> bytes:
    """``data`` with a FINGERPRINT attribute appended (and its length fixed)."""
    longer = data[:2] + struct.pack("!H", len(data) - 20 + 8) + data[4:]
    crc = (zlib.crc32(longer) ^ 0x5354554E) & 0xFFFFFFFF
    return longer + attribute(0x8028, crc.to_bytes(4, "big"))


def test_the_request_is_a_bare_binding_request() -> None:
    assert binding_request(TXID) == bytes.fromhex("000100002112a442") + TXID


def test_rfc5769_ipv4_response() -> None:
    assert parse_binding_response(RFC5769_IPV4, TXID) == Endpoint("192.0.2.1", 32853)


def test_rfc5769_ipv6_response() -> None:
    found = parse_binding_response(RFC5769_IPV6, TXID)
    assert found == Endpoint("2001:db8:1234:5678:11:2233:4455:6677", 32853)
    assert str(found) == "[2001:db8:1234:5678:11:2233:4455:6677]:32853"


def test_mapped_address_is_the_fallback() -> None:
    plain = attribute(0x0001, bytes([0, 1]) + (40000).to_bytes(2, "big") + bytes([198, 51, 100, 7]))
    assert parse_binding_response(message(0x0101, plain), TXID) == Endpoint("198.51.100.7", 40000)


def test_xor_mapped_address_wins_over_mapped_address() -> None:
    plain = attribute(0x0001, bytes([0, 1, 0, 9, 10, 0, 0, 1]))
    xored = RFC5769_IPV4[36:48]  # the vector's XOR-MAPPED-ADDRESS attribute
    unknown_optional = attribute(0x8022, b"software")
    data = message(0x0101, plain + unknown_optional + xored)
    assert parse_binding_response(with_fingerprint(data), TXID) == Endpoint("192.0.2.1", 32853)


HOSTILE = [
    (RFC5769_IPV4[:19], r"a 19-byte answer is shorter than a STUN header \(20 bytes\)"),
    (RFC5769_IPV4[:-4], r"the header announces 60 bytes of attributes, 56 came"),
    (RFC5769_IPV4 + bytes(4), r"the header announces 60 bytes of attributes, 64 came"),
    (message(0x0101, bytes(1300)), r"a 1320-byte answer is longer than the limit of 1280 bytes"),
    (message(0x0101, b"", cookie=0x2112A443), r"the magic cookie is 0x2112a443, not 0x2112a442"),
    (message(0x0101, b"", txid=bytes(12)), r"the transaction id is not the one of our request"),
    (b"\x80" + RFC5769_IPV4[1:], r"not a STUN message \(its first two bits are not zero\)"),
    (message(0x0101, b""), r"the answer has no XOR-MAPPED-ADDRESS nor MAPPED-ADDRESS"),
    (message(0x0001, b""), r"the answer's type is 0x0001, not a binding success"),
    (
        message(0x0111, attribute(0x0009, bytes([0, 0, 4, 20]) + b"Unknown Attribute")),
        r"it refused the request: error 420 'Unknown Attribute'",
    ),
    (
        message(0x0101, attribute(0x0027, b"1234") + RFC5769_IPV4[36:48]),
        r"unknown comprehension-required attribute 0x0027 at byte 20",
    ),
    (
        message(0x0101, struct.pack("!HH", 0x0020, 200) + bytes(8)),
        r"attribute 0x0020 at byte 20 announces 200 bytes, 8 remain",
    ),
    (
        message(0x0101, attribute(0x0020, bytes([0, 3, 0, 1, 1, 2, 3, 4]))),
        r"XOR-MAPPED-ADDRESS has the address family 0x03",
    ),
    (
        message(0x0101, attribute(0x0020, bytes([0, 1, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8]))),
        r"XOR-MAPPED-ADDRESS holds 8 address bytes, an IPv4 address has 4",
    ),
    (RFC5769_IPV4[:-1] + b"\x97", r"FINGERPRINT does not match the message \(corrupted\)"),
    (
        message(0x0101, attribute(0x0001, bytes([0, 1, 0, 0, 1, 2, 3, 4]))),
        r"MAPPED-ADDRESS says port 0",
    ),
]


@pytest.mark.parametrize(("data", "problem"), HOSTILE, ids=[p[:30] for _, p in HOSTILE])
def test_a_hostile_answer_is_one_precise_error(data: bytes, problem: str) -> None:
    with pytest.raises(StunError, match=rf"^STUN server 192\.0\.2\.9:3478: {problem}") as info:
        parse_binding_response(data, TXID, server="192.0.2.9:3478")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("length", range(len(RFC5769_IPV6)))
def test_every_cut_of_an_answer_is_a_stun_error(length: int) -> None:
    with pytest.raises(StunError):
        parse_binding_response(RFC5769_IPV6[:length], TXID)


async def test_query_a_real_stun_server_on_loopback(stun_server: tuple[str, int]) -> None:
    sock = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with sock:
        await sock.bind(("127.0.0.1", 0))
        found = await query(stun_server, sock=sock)
        assert found == Endpoint("127.0.0.1", sock.getsockname()[1])


async def test_query_a_real_stun_server_over_ipv6(stun_server6: tuple[str, int]) -> None:
    sock = trio.socket.socket(trio.socket.AF_INET6, trio.socket.SOCK_DGRAM)
    with sock:
        await sock.bind(("::1", 0))
        found = await query(stun_server6, sock=sock)
        assert found == Endpoint("::1", sock.getsockname()[1])
        assert str(found) == f"[::1]:{found.port}"


async def test_query_with_a_socket_of_its_own(stun_server: tuple[str, int]) -> None:
    found = await query(stun_server)
    assert found.host == "127.0.0.1"
    assert found.port not in (0, stun_server[1])


async def test_a_silent_server_times_out_after_bounded_retransmits() -> None:
    silent = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with silent:
        await silent.bind(("127.0.0.1", 0))
        start = trio.current_time()
        with pytest.raises(
            StunTimeoutError, match=r"no answer within 0\.6 s \(3 requests at most\)"
        ):
            await query(silent.getsockname(), first_wait=0.1, attempts=3, timeout=0.6)
        assert 0.55 <= trio.current_time() - start < 2.0
        received = 0
        with trio.move_on_after(0.05):
            while True:
                await silent.recvfrom(100)
                received += 1
        assert received == 3  # three requests, the last waited for until the timeout


async def test_a_hostile_answer_is_one_error_and_strangers_are_ignored() -> None:
    server = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    stranger = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with server, stranger:
        await server.bind(("127.0.0.1", 0))
        await stranger.bind(("127.0.0.1", 0))

        async def answer() -> None:
            data, source = await server.recvfrom(100)
            txid = data[8:20]
            await stranger.sendto(message(0x0101, b"", txid=txid), source)  # another address
            await server.sendto(message(0x0101, b"", txid=bytes(12)), source)  # a stale answer
            await server.sendto(message(0x0101, bytes(8), txid=txid), source)  # hostile

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer)
            with pytest.raises(StunError, match=r"unknown comprehension-required attribute 0x0000"):
                await query(server.getsockname(), timeout=5.0)


async def test_answers_to_another_transaction_are_ignored_until_the_timeout() -> None:
    server = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with server:
        await server.bind(("127.0.0.1", 0))

        async def answer_wrongly() -> None:
            while True:
                _, source = await server.recvfrom(100)
                await server.sendto(RFC5769_IPV4, source)  # RFC 5769's, not ours

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer_wrongly)
            expected = r"no answer within 0\.5 s \(2 requests at most; 2 answers to another"
            with pytest.raises(StunTimeoutError, match=expected):
                await query(server.getsockname(), first_wait=0.1, attempts=2, timeout=0.5)
            nursery.cancel_scope.cancel()


def _no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("DBNET_HOME", str(tmp_path))
    monkeypatch.delenv("DBNET_STUN", raising=False)
    return tmp_path / "config.toml"


def test_stun_setting_flag_env_config_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = _no_config(monkeypatch, tmp_path)
    assert DEFAULT_STUN == ("stun.l.google.com", 19302)
    assert stun_setting(None) == DEFAULT_STUN
    config.write_text('relay = "off"\nstun = "stun.example:3478"\n')
    assert stun_setting(None) == ("stun.example", 3478)
    monkeypatch.setenv("DBNET_STUN", "[::1]:3479")
    assert stun_setting(None) == ("::1", 3479)
    monkeypatch.setenv("DBNET_STUN", "off")
    assert stun_setting(None) is None
    assert stun_setting("127.0.0.1:5") == ("127.0.0.1", 5)
    assert stun_setting("OFF") is None


def test_a_bad_stun_setting_names_where(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = _no_config(monkeypatch, tmp_path)
    with pytest.raises(
        StunSettingError, match=r"^--stun: 'nowhere' is not a STUN server address: no port"
    ):
        stun_setting("nowhere")
    config.write_text("\nstun = 3478\n")
    with pytest.raises(StunSettingError, match=rf"^{config} line 2: stun must be a string"):
        stun_setting(None)
    monkeypatch.setenv("DBNET_STUN", "host:99999")
    with pytest.raises(StunSettingError, match=r"^DBNET_STUN: 'host:99999' is not a STUN server"):
        stun_setting(None)


# --- the option on real dbnet processes ------------------------------------------------

PROCESS_TIMEOUT = 60.0  # seconds: a hang guard only


def _host(replay: Path, *extra: str) -> list[str]:
    return [
        "host", "--port", "0", "--open", "--bot", "greedy", "--seed", "5", "--turns-to-win",
        "1", "--name", "alice", "--replay", str(replay), "--adjourn-after", "30", *extra,
    ]  # fmt: skip


async def test_dbnet_host_prints_its_public_endpoint(
    stun_server: tuple[str, int], homes: Path, tmp_path: Path
) -> None:
    server = f"127.0.0.1:{stun_server[1]}"
    with trio.fail_after(PROCESS_TIMEOUT):
        async with trio.open_nursery() as nursery:
            args = _host(tmp_path / "a.dbnr", "--stun", server, "--verbose")
            host = await Dbnet.start(nursery, "host", homes / "alice", args)
            await host.until_saw(f"public endpoint (STUN {server}): 127.0.0.1:")
            host.kill()
    line = next(line for line in host.lines if "public endpoint" in line)
    port = int(line.rsplit(":", 1)[1])
    assert 1 <= port <= 65535
    assert port != stun_server[1]


async def test_host_and_joiner_learn_their_endpoints_in_a_whole_game(
    stun_server: tuple[str, int], homes: Path, tmp_path: Path
) -> None:
    """The host by its flag, the joiner by ``stun`` in its config.toml (DBNET_STUN=off is
    lifted for it): both print their endpoint, and the game is played to its end."""
    server = f"127.0.0.1:{stun_server[1]}"
    forget_played_games(homes)
    (homes / "bob" / "config.toml").write_text(f'stun = "{server}"\n')
    try:
        with trio.fail_after(PROCESS_TIMEOUT):
            async with trio.open_nursery() as nursery:
                args = _host(tmp_path / "a.dbnr", "--stun", server, "--verbose")
                host = await Dbnet.start(nursery, "host", homes / "alice", args)
                port = await until_listening(host)
                join = ["join", f"127.0.0.1:{port}", "--bot", "greedy", "--seed", "5"]
                join += ["--name", "bob", "--replay", str(tmp_path / "b.dbnr"), "--verbose"]
                joiner = await Dbnet.start(nursery, "join", homes / "bob", join, env=NO_STUN_ENV)
                assert await host.wait() == 0, host.output()
                assert await joiner.wait() == 0, joiner.output()
    finally:
        (homes / "bob" / "config.toml").unlink()
    for player in (host, joiner):
        assert player.saw(f"public endpoint (STUN {server}): 127.0.0.1:"), player.output()


async def test_a_spectator_prints_its_public_endpoint(
    stun_server: tuple[str, int], homes: Path, tmp_path: Path
) -> None:
    server = f"127.0.0.1:{stun_server[1]}"
    eve = tmp_path / "eve"
    eve.mkdir()
    with trio.fail_after(PROCESS_TIMEOUT):
        async with trio.open_nursery() as nursery:
            args = _host(tmp_path / "a.dbnr", "--spectators", "1", "--address", "127.0.0.1")
            host = await Dbnet.start(nursery, "host", homes / "alice", args)
            await until_listening(host)
            watch = ["watch", await invite(host, WATCH_LINE), "--plain", "--verbose"]
            watcher = await Dbnet.start(nursery, "watch", eve, [*watch, "--stun", server])
            await watcher.until_saw(f"public endpoint (STUN {server}): 127.0.0.1:")
            await host.until_saw("is watching via")  # it got in, after asking
            host.kill()
            watcher.kill()


async def test_a_resumed_game_prints_its_public_endpoint(
    stun_server: tuple[str, int], homes: Path, tmp_path: Path
) -> None:
    """The joiner is killed mid-game; ``dbnet resume`` with ``--stun`` and ``--verbose``
    prints its endpoint and finishes the game."""
    server = f"127.0.0.1:{stun_server[1]}"
    forget_played_games(homes)
    replay = tmp_path / "b.dbnr"
    with trio.fail_after(PROCESS_TIMEOUT):
        async with trio.open_nursery() as nursery:
            args = _host(tmp_path / "a.dbnr")
            host = await Dbnet.start(nursery, "host", homes / "alice", args)
            killed = trio.Event()

            def kill_early(entries: int) -> None:
                if entries >= 4 and not killed.is_set():
                    joiner.kill()
                    killed.set()

            proxy = Proxy(await until_listening(host), watch=kill_early)
            await nursery.start(proxy.run)
            join = ["join", f"127.0.0.1:{proxy.port}", "--bot", "greedy", "--seed", "5"]
            join += ["--replay", str(replay), "--adjourn-after", "30"]
            joiner = await Dbnet.start(nursery, "join", homes / "bob", join)
            await killed.wait()
            assert await joiner.wait() == -9
            resume = ["resume", str(replay), f"127.0.0.1:{proxy.port}", "--bot", "greedy"]
            again = await Dbnet.start(
                nursery, "again", homes / "bob", [*resume, "--stun", server, "--verbose"]
            )
            assert await again.wait() == 0, again.output()
            assert await host.wait() == 0, host.output()
            nursery.cancel_scope.cancel()
    assert again.saw(f"public endpoint (STUN {server}): 127.0.0.1:"), again.output()


async def test_without_verbose_no_stun_server_is_asked(homes: Path, tmp_path: Path) -> None:
    silent = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    with silent:
        await silent.bind(("127.0.0.1", 0))
        server = f"127.0.0.1:{silent.getsockname()[1]}"
        with trio.fail_after(PROCESS_TIMEOUT):
            async with trio.open_nursery() as nursery:
                args = _host(tmp_path / "a.dbnr", "--stun", server)
                host = await Dbnet.start(nursery, "host", homes / "alice", args)
                await until_listening(host)
                await trio.sleep(0.3)
                host.kill()
        with trio.move_on_after(0.05) as nothing:
            await silent.recvfrom(100)
        assert nothing.cancelled_caught
    assert not host.saw("public endpoint")


@pytest.mark.parametrize(
    ("args", "env", "line"),
    [
        (
            ["host", "--stun", "nowhere"],
            {},
            "dbnet host: --stun: 'nowhere' is not a STUN server address: no port",
        ),
        (
            ["join", "127.0.0.1:1"],
            {"DBNET_STUN": "x:0"},
            "dbnet join: DBNET_STUN: 'x:0' is not a STUN server address: the port '0'",
        ),
        (
            ["watch", "127.0.0.1:1", "--stun", "[::1]"],
            {},
            "dbnet watch: --stun: '[::1]' is not a STUN server address: an IPv6 address",
        ),
        (
            ["resume", "nofile.dbnr", "--stun", "a:b:c"],
            {},
            "dbnet resume: --stun: 'a:b:c' is not a STUN server address: an IPv6 address needs",
        ),
    ],
)
async def test_a_bad_stun_setting_is_one_line_before_anything(
    args: list[str], env: dict[str, str], line: str, homes: Path
) -> None:
    with trio.fail_after(PROCESS_TIMEOUT):
        async with trio.open_nursery() as nursery:
            process = await Dbnet.start(nursery, "bad", homes / "alice", args, env=env)
            assert await process.wait() == 2
    assert len(process.lines) == 1, process.output()
    assert process.lines[0].startswith(line)
