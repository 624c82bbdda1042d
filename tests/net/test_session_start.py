"""A network game's start over real loopback sockets: host and joiner in one trio run,
counting how often the game's setup is encoded to bytes (issue 34: once per game start)."""

from __future__ import annotations

from pathlib import Path

import trio

from dbnet.net.hosting import listener_port
from dbnet.net.session_values import Outcome

from .helpers import ALICE, BOB
from .sessions import make_side, run_side

START_LIMIT = 60.0  # seconds: a short game on loopback takes far less (a hang guard)


async def test_a_network_game_encodes_its_setup_once(
    tmp_path: Path, setup_encodings: list[object]
) -> None:
    """The host builds the setup and encodes it once: its game id, its chain secret, the
    OFFER it signs and the checks of that OFFER all take those bytes; the joiner reads
    the OFFER's own bytes and encodes nothing."""
    host = make_side(tmp_path, "alice", identity=ALICE, host=True, turns=1)
    joiner = make_side(tmp_path, "bob", identity=BOB, host=False, turns=1)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")  # loopback only
    async with trio.open_nursery() as nursery:
        port = listener_port(listeners[0])
        nursery.start_soon(run_side, host, lambda: host.session.host(listeners))

        async def connect() -> trio.abc.Stream:
            return await trio.open_tcp_stream("127.0.0.1", port)

        with trio.fail_after(START_LIMIT):
            await run_side(joiner, lambda: joiner.session.join(connect))
            while host.outcome is None:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    for listener in listeners:
        await listener.aclose()
    for side in (host, joiner):
        if side.session.writer is not None:
            side.session.writer.close()
    assert joiner.outcome is Outcome.COMPLETE, joiner.said
    assert host.outcome is Outcome.COMPLETE, host.said
    assert len(setup_encodings) == 1
