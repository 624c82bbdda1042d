"""trio in guest mode on the screen's asyncio loop: trio's tasks and prompt-toolkit's
screen take turns on one thread, so nothing the screen reads (a log, a view, a state) is
ever changed under it. Used by the network game's and the spectator's sessions."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import trio


def start_guest(
    main: Callable[[], Awaitable[object]], woken: Callable[[], None]
) -> tuple[asyncio.AbstractEventLoop, asyncio.Future[object]]:
    """Start ``main`` as trio's guest on the running asyncio loop; the loop and a future
    that gets trio's outcome when the run ends (``woken`` is called then too)."""
    loop = asyncio.get_running_loop()
    finished: asyncio.Future[object] = loop.create_future()

    def done(outcome: object) -> None:
        if not finished.done():
            finished.set_result(outcome)
        woken()

    trio.lowlevel.start_guest_run(
        main,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=done,
        host_uses_signal_set_wakeup_fd=True,
    )
    return loop, finished
