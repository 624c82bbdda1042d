"""Happy eyeballs (dbnet.net.race): direct routes first, the relay after a stagger, the
first authenticated route wins and the others are closed. Streams here are trio's
memory streams and time is trio's mock clock (a unit test of one layer); the race over
real sockets runs in test_session_invite.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import trio
import trio.testing

from dbnet.net.errors import HandshakeError
from dbnet.net.race import RELAY_STAGGER, NoRouteError, Route, race


class Stream(trio.abc.Stream):
    """A stream that only knows whether it was closed."""

    def __init__(self) -> None:
        self.closed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        raise NotImplementedError

    async def wait_send_all_might_not_block(self) -> None:
        raise NotImplementedError

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        raise NotImplementedError

    async def aclose(self) -> None:
        self.closed = True


class Log:
    """When each route was opened, and which streams were closed."""

    def __init__(self) -> None:
        self.opened: dict[str, float] = {}
        self.streams: dict[str, Stream] = {}

    def route(
        self,
        path: str,
        *,
        connect: float = 0.0,
        fail: BaseException | None = None,
    ) -> Route:
        async def open_stream() -> trio.abc.Stream:
            self.opened[path] = trio.current_time()
            await trio.sleep(connect)
            if fail is not None:
                raise fail
            stream = self.streams[path] = Stream()
            return stream

        return Route(path, f"{path}.example:7117", open_stream)

    def closed(self, path: str) -> bool:
        return self.streams[path].closed


def handshakes(
    seconds: dict[str, float], refuse: frozenset[str] = frozenset()
) -> Callable[[trio.abc.Stream, Route], Awaitable[trio.abc.Stream]]:
    """An ``authenticate`` that takes ``seconds[path]`` and fails for ``refuse``."""

    async def authenticate(stream: trio.abc.Stream, route: Route) -> trio.abc.Stream:
        await trio.sleep(seconds.get(route.path, 0.0))
        if route.path in refuse:
            raise HandshakeError("handshake: the peer's first frame is not a dbnet preamble")
        return stream

    return authenticate


async def test_the_first_route_to_authenticate_wins_and_the_others_are_closed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log = Log()
    routes = [log.route("direct (LAN)"), log.route("direct (port mapping)")]
    won = await race(routes, handshakes({"direct (LAN)": 2.0, "direct (port mapping)": 0.2}))
    assert won is log.streams["direct (port mapping)"]
    assert log.closed("direct (LAN)")
    assert not log.closed("direct (port mapping)")


async def test_the_relay_waits_for_the_stagger(autojump_clock: trio.testing.MockClock) -> None:
    log = Log()
    routes = [log.route("direct (LAN)", connect=30.0), log.route("relay")]
    won = await race(routes, handshakes({}), timeout=60.0)
    assert won is log.streams["relay"]
    assert log.opened["relay"] - log.opened["direct (LAN)"] == pytest.approx(RELAY_STAGGER)


async def test_the_relay_goes_at_once_when_every_direct_route_failed(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log = Log()
    refused = ConnectionRefusedError(111, "Connection refused")
    routes = [log.route("direct (LAN)", fail=refused), log.route("relay")]
    start = trio.current_time()
    won = await race(routes, handshakes({}))
    assert won is log.streams["relay"]
    assert log.opened["relay"] == start


async def test_a_direct_route_in_its_handshake_holds_the_relay_back(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A slow but working direct path is not beaten by the relay: the label the player
    sees is the path that works directly, whatever the delay."""
    log = Log()
    routes = [log.route("direct (IPv6)", connect=0.1), log.route("relay")]
    won = await race(routes, handshakes({"direct (IPv6)": 3.0}))
    assert won is log.streams["direct (IPv6)"]
    assert "relay" not in log.opened


async def test_a_failed_handshake_ends_only_its_route(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log = Log()
    reports: list[str] = []
    routes = [log.route("direct (LAN)"), log.route("relay")]
    won = await race(
        routes, handshakes({}, refuse=frozenset({"direct (LAN)"})), report=reports.append
    )
    assert won is log.streams["relay"]
    assert log.closed("direct (LAN)")
    assert reports == [
        "direct (LAN) to direct (LAN).example:7117: handshake: the peer's first frame is not "
        "a dbnet preamble"
    ]


async def test_every_route_failing_lists_each_reason(
    autojump_clock: trio.testing.MockClock,
) -> None:
    log = Log()
    reports: list[str] = []
    routes = [
        log.route("direct (LAN)", fail=ConnectionRefusedError(111, "Connection refused")),
        log.route("direct (port mapping)", connect=100.0),
        log.route("relay", fail=OSError(101, "Network is unreachable")),
    ]
    start = trio.current_time()
    with pytest.raises(NoRouteError) as info:
        await race(routes, handshakes({}), timeout=5.0, report=reports.append)
    assert trio.current_time() - start == pytest.approx(5.0)  # each route costs its timeout
    assert str(info.value) == "no path to the host worked (3 tried: see --verbose)"
    assert sorted(info.value.failures) == sorted(reports)
    assert reports[0] == (
        "direct (LAN) to direct (LAN).example:7117: the connection was refused: nothing "
        "listens at that address and port"
    )
    assert "direct (port mapping) to direct (port mapping).example:7117: no answer within 5 s" in (
        reports
    )
    assert any(line.startswith("relay to relay.example:7117: ") for line in reports)


async def test_no_route_at_all_is_one_clear_error() -> None:
    with pytest.raises(NoRouteError, match="no route to the host is known"):
        await race([], handshakes({}))
