"""Happy eyeballs: try every way to the host at once; the first authenticated one wins.

An invite lists several routes to the host (its LAN addresses, its global IPv6
addresses, its router's port mapping, a relay). ``race`` starts every direct
route at once and the relayed ones after a short stagger (sooner if every direct
route has failed; later while a direct route is in its handshake, so that a slow
but working direct path is not beaten by the relay). A route wins when its
stream has completed the authenticated handshake (``authenticate``), not when
TCP connects: a LAN address that belongs to some other machine, or a relay that
misbehaves, only ends its own route. The losers are closed. Each route costs at
most ``timeout``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

import trio

from dbnet.net.errors import NetError
from dbnet.net.stream import RELAY
from dbnet.text import os_error_words, printable

__all__ = ["RELAY_STAGGER", "ROUTE_TIMEOUT", "NoRouteError", "Route", "race"]

RELAY_STAGGER: Final = 0.5
"""Seconds the direct routes have to themselves before the relay is tried."""
ROUTE_TIMEOUT: Final = 10.0
"""The most one route may take to connect and finish the handshake."""

Won = TypeVar("Won", bound=trio.abc.AsyncResource)
"""What an authenticated route gives: a ``SecureStream`` (anything closable in tests)."""


@dataclass(frozen=True, slots=True)
class Route:
    """One way to the host: ``path`` is what the player is told (``direct (LAN)``,
    ``relay``), ``where`` the address tried, ``open`` makes the stream."""

    path: str
    where: str
    open: Callable[[], Awaitable[trio.abc.Stream]] = field(repr=False, compare=False)

    @property
    def relayed(self) -> bool:
        """Whether the route goes through a relay (it waits for the direct ones)."""
        return self.path == RELAY


class NoRouteError(NetError):
    """Every route to the host failed; the message lists each one's reason."""

    def __init__(self, failures: Sequence[str]) -> None:
        self.failures = tuple(failures)
        if len(failures) == 1:
            super().__init__(failures[0])
        else:
            super().__init__(f"no path to the host worked ({len(failures)} tried: see --verbose)")


async def race(
    routes: Sequence[Route],
    authenticate: Callable[[trio.abc.Stream, Route], Awaitable[Won]],
    *,
    stagger: float = RELAY_STAGGER,
    timeout: float = ROUTE_TIMEOUT,
    report: Callable[[str], None] | None = None,
) -> Won:
    """The first route's stream to complete ``authenticate``; ``report`` hears one line
    for each route that failed.

    Raises:
        NoRouteError: no route is given, or each failed (or ran out of ``timeout``).
    """
    if not routes:
        raise NoRouteError(["no route to the host is known"])
    return await _Race(routes, authenticate, stagger, timeout, report).run()


class _Race(Generic[Won]):
    def __init__(
        self,
        routes: Sequence[Route],
        authenticate: Callable[[trio.abc.Stream, Route], Awaitable[Won]],
        stagger: float,
        timeout: float,
        report: Callable[[str], None] | None,
    ) -> None:
        self.routes = routes
        self.authenticate = authenticate
        self.stagger = stagger
        self.timeout = timeout
        self.report = report
        self.failures: list[str] = []
        self.winner: Won | None = None
        self.direct_left = sum(1 for route in routes if not route.relayed)
        self.handshaking = 0  # direct routes connected and in their handshake
        self.changed = trio.Event()

    async def run(self) -> Won:
        async with trio.open_nursery() as nursery:
            self.scope = nursery.cancel_scope
            relayed = [route for route in self.routes if route.relayed]
            for route in self.routes:
                if not route.relayed:
                    nursery.start_soon(self.attempt, route)
            if relayed:
                nursery.start_soon(self.after_stagger, relayed, nursery)
        if self.winner is None:
            raise NoRouteError(self.failures)
        return self.winner

    def notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def after_stagger(self, relayed: list[Route], nursery: trio.Nursery) -> None:
        """Start the relayed routes once the direct ones had their head start."""
        with trio.move_on_after(self.stagger):
            while self.direct_left:
                await self.changed.wait()
        while self.handshaking:
            await self.changed.wait()
        for route in relayed:
            nursery.start_soon(self.attempt, route)

    async def attempt(self, route: Route) -> None:
        connected = False
        try:
            with trio.fail_after(self.timeout):
                stream = await route.open()
                try:
                    if not route.relayed:
                        connected = True
                        self.handshaking += 1
                        self.notify()
                    secure = await self.authenticate(stream, route)
                except BaseException:
                    await trio.aclose_forcefully(stream)
                    raise
        except trio.TooSlowError:
            self.failed(route, f"no answer within {self.timeout:g} s")
        except OSError as exc:
            self.failed(route, os_error_words(exc))
        except NetError as exc:
            self.failed(route, printable(str(exc)))
        else:
            if self.winner is None:
                self.winner = secure
                self.scope.cancel()
            else:  # a tie: another route won first
                await trio.aclose_forcefully(secure)
        finally:
            if not route.relayed:
                self.direct_left -= 1
                self.handshaking -= connected
                self.notify()

    def failed(self, route: Route, why: str) -> None:
        line = f"{route.path} to {route.where}: {why}"
        self.failures.append(line)
        if self.report is not None:
            self.report(line)
