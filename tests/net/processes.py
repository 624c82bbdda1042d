"""Real ``dbnet`` processes on loopback, and a TCP proxy between them that cuts connections
where a test says (both run in the test's own trio run).

The proxy sees only the framing, never the encrypted contents: it follows each
direction's length prefixes with ``FrameSplitter`` and counts the frames that carry
entries, so a cut can fall exactly before entry k's frame, or some bytes into it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import trio

from dbnet.protocol.log import GameLog
from dbnet.replay.file import load_replay

from .helpers import FrameSplitter, Meter

PORT_LINE = re.compile(r"listening on port (\d+)")


class Dbnet:
    """One ``python -m dbnet ...`` process: its output lines as they come, its exit code."""

    def __init__(self, process: trio.Process, name: str) -> None:
        self.process = process
        self.name = name
        self.lines: list[str] = []
        self.port: int | None = None
        self.listening = trio.Event()
        self.finished = trio.Event()
        self.code: int | None = None

    @classmethod
    async def start(
        cls,
        nursery: trio.Nursery,
        name: str,
        home: Path,
        args: Sequence[str],
        *,
        stdin: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> Dbnet:
        """``stdin``: a pipe to type lines into (``type_line``), else nothing; ``env``:
        variables set over this process's environment."""
        env = {**os.environ, **(env or {}), "DBNET_HOME": str(home), "NO_COLOR": "1"}
        process = await trio.lowlevel.open_process(
            [sys.executable, "-m", "dbnet", *args],
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
        )
        child = cls(process, name)
        nursery.start_soon(child._read)
        return child

    async def _read(self) -> None:
        """Collect the output until the process ends; if the test gives up first (its
        time limit), kill the process so that nothing is left running."""
        assert self.process.stdout is not None
        pending = b""
        try:
            async with self.process.stdout:
                while chunk := await self.process.stdout.receive_some(65536):
                    pending += chunk
                    *lines, pending = pending.split(b"\n")
                    for line in lines:
                        self._line(line.decode("utf-8", "replace"))
            if pending:
                self._line(pending.decode("utf-8", "replace"))
            self.code = await self.process.wait()
            self.finished.set()
        finally:
            if self.process.returncode is None:
                self.process.kill()

    def _line(self, text: str) -> None:
        self.lines.append(text)
        match = PORT_LINE.search(text)
        if match and self.port is None:
            self.port = int(match.group(1))
            self.listening.set()

    async def wait(self) -> int:
        await self.finished.wait()
        assert self.code is not None
        return self.code

    async def type_line(self, line: str) -> None:
        """Send ``line`` to the process's stdin (started with ``stdin=True``)."""
        assert self.process.stdin is not None
        await self.process.stdin.send_all(line.encode() + b"\n")

    async def until_saw(self, text: str) -> None:
        """Wait until a line holds ``text``; AssertionError if the process ends first."""
        while not self.saw(text):
            if self.finished.is_set():
                raise AssertionError(f"{self.name} ended before {text!r}:\n{self.output()}")
            await trio.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, as in a crash or a power cut."""
        self.process.send_signal(signal.SIGKILL)

    def output(self) -> str:
        return "\n".join(self.lines)

    def saw(self, text: str) -> bool:
        return any(text in line for line in self.lines)


class Proxy:
    """A TCP relay on loopback to ``127.0.0.1:target``. Connection n follows ``plans[n]``
    (a ``Meter``: where to cut it), the ones after the plans are relayed whole. On a cut,
    both sockets are closed at once; the end of a stream is passed on as a half-close.
    ``watch`` is called with the number of entry frames relayed so far on a connection
    whenever it grows."""

    def __init__(
        self, target: int, plans: Sequence[Meter] = (), watch: Callable[[int], None] | None = None
    ) -> None:
        self.target = target
        self.plans = list(plans)
        self.watch = watch
        self.port = 0
        self.meters: list[Meter] = []

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._relay, listeners)

    async def _relay(self, client: trio.SocketStream) -> None:
        n = len(self.meters)
        meter = self.plans[n] if n < len(self.plans) else Meter()
        self.meters.append(meter)
        try:
            server = await trio.open_tcp_stream("127.0.0.1", self.target)
        except OSError:
            await client.aclose()  # the host is not there (killed): the joiner will retry
            return
        async with client, server, trio.open_nursery() as nursery:
            nursery.start_soon(self._pump, client, server, meter, FrameSplitter(3), nursery)
            nursery.start_soon(self._pump, server, client, meter, FrameSplitter(2), nursery)

    async def _pump(
        self,
        source: trio.SocketStream,
        sink: trio.SocketStream,
        meter: Meter,
        splitter: FrameSplitter,
        nursery: trio.Nursery,
    ) -> None:
        try:
            while data := await source.receive_some(65536):
                seen = meter.entries
                room = meter.room(splitter, bytes(data))
                if room:
                    await sink.send_all(data[:room])
                if meter.entries > seen and self.watch is not None:
                    self.watch(meter.entries)
                if room < len(data):
                    meter.cut = True
                    nursery.cancel_scope.cancel()  # both directions; the sockets close
                    return
            await sink.send_eof()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            nursery.cancel_scope.cancel()


def replay_records(path: Path) -> list[bytes]:
    return list(load_replay(path).records)


def final_state(path: Path) -> bytes:
    """The state hash at the end of the replay at ``path``, re-simulated."""
    records = replay_records(path)
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    return log.game.state_hash()


def verify_command(path: Path) -> subprocess.CompletedProcess[str]:
    """``dbnet verify FILE``, as a person would run it."""
    return subprocess.run(
        [sys.executable, "-m", "dbnet", "verify", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
