"""A whole bot game between two ``dbnet`` processes over loopback, through a proxy that
delays every byte by a fixed one-way delay (25 ms by default), as a long link would.

The protocol needs a message from one side before the other can go on only when the
writer of the log changes; nothing else should cost a trip. So the game's wall time
(from the joiner's connection to the last entry delivered) is compared with the
sequential message hops it needs times the one-way delay:

- 4 hops before the first game entry can follow an answer: the joiner's preamble
  and handshake message 1; the host's message 2; the joiner's message 3 with its
  HELLO; the host's HELLO with the OFFER;
- then one hop each time the author of the next entry differs from the last one's
  (the ACCEPT is the first).

The target is a ratio of at most 1.2: no waiting beyond the messages the protocol
needs. The proxy also counts frames by their cleartext lengths (an entry's frame is
larger than any other message's), to show that every entry crosses once and that no
roll costs a message of its own. Prints the figures; asserts nothing.

Then, as root with the NAT lab's programs (README, Development), the same game twice in
the lab (tests/lab): once direct, the joiner reaching the host through its router's
port mapping, and once through the real transit relay, every link delayed by the same
one-way delay in user space (a forwarder in the lab's internet: these kernels have no
sch_netem). The direct path has one such link, the relayed path two (joiner to relay,
relay to host), so the relayed game may take up to twice as long and no more: it prints
relay wall time / direct wall time against that goal, and the time from ``dbnet join
INVITE`` to the first prompt (the host's OFFER shown) on each path against 2 s plus the
path's round trips (TCP, the handshake, HELLO and OFFER: 4).

Then the lab's path matrix (``benchmarks/lab_matrix.py``): every pair of router kinds,
the path each game starts and ends on, and the time to the first prompt and to the
direct path.

Then spectators (``dbnet host --spectators N``, ``dbnet watch``): the same loopback game
with 0, 2 and 8 ``dbnet watch`` processes following it (connected to the host directly,
started before the joiner, so they watch the whole game; they stand for spectators on
other machines, so they run at the lowest CPU priority, ``nice 19``, and do not take the
players' CPU on this one), each setting played
``--rounds`` times, the best kept. The host only sends spectators bytes it holds, so
with 8 of them its CPU time for the game (user + system, from ``getrusage``) must stay
within 1.1 times that with none, and with 2 the game's wall time within 5% (1.05 times)
of none. Prints both ratios.

    python benchmarks/network.py [--delay MS] [--turns N] [--seed S] [--no-lab]
                                 [--rounds R] [--no-spectators] [--no-matrix]
"""

from __future__ import annotations

import argparse
import ipaddress
import itertools
import os
import re
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import trio
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from lab_matrix import print_matrix, print_speed  # benchmarks/lab_matrix.py, beside this

from dbnet.net.framing import MAX_FRAME, FrameReader
from dbnet.protocol.log import GameLog
from dbnet.replay.file import load_replay
from dbnet.wire.bodies import PlayBody

TARGET_RATIO = 1.2
SETUP_HOPS = 4  # preamble + message 1; message 2; message 3 + HELLO; HELLO + OFFER
ENTRY_FRAME_MIN = 140  # bytes: every entry's frame is larger, PING, PONG, BYE, REMATCH smaller
TIMEOUT = 600.0


@dataclass
class Direction:
    """One direction through the proxy: its frames, as the framing shows them."""

    handshake_frames: int
    reader: FrameReader = field(default_factory=lambda: FrameReader(MAX_FRAME))
    frames: int = 0
    entry_frames: int = 0
    other_frames: int = 0

    def count(self, data: bytes) -> int:
        """Count the frames ``data`` completes; how many of them carry entries."""
        entries = 0
        for payload in self.reader.feed(data):
            self.frames += 1
            if self.frames <= self.handshake_frames + 1:
                continue  # the handshake and HELLO
            if len(payload) > ENTRY_FRAME_MIN:
                entries += 1
            else:
                self.other_frames += 1
        self.entry_frames += entries
        return entries


@dataclass
class DelayProxy:
    """Relays one connection to ``127.0.0.1:target``, each byte ``delay`` seconds late."""

    target: int
    delay: float
    port: int = 0
    started: float | None = None
    last_entry: float | None = None
    directions: list[Direction] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    """The delay each chunk had (the event loop wakes a little after the due time)."""

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]
        task_status.started(self.port)
        await trio.serve_listeners(self._relay, listeners)

    async def _relay(self, client: trio.SocketStream) -> None:
        if self.started is not None:
            await client.aclose()  # one game, one connection
            return
        self.started = trio.current_time()
        server = await trio.open_tcp_stream("127.0.0.1", self.target)
        # trio sets TCP_NODELAY on both streams: no Nagle delay on small frames
        joiner, host = Direction(handshake_frames=3), Direction(handshake_frames=2)
        self.directions = [joiner, host]
        async with client, server, trio.open_nursery() as nursery:
            nursery.start_soon(self._pump, client, server, joiner)
            nursery.start_soon(self._pump, server, client, host)

    async def _pump(
        self, source: trio.SocketStream, sink: trio.SocketStream, direction: Direction
    ) -> None:
        send, receive = trio.open_memory_channel[tuple[float, bytes]](float("inf"))

        async def deliver() -> None:
            async for due, data in receive:
                await trio.sleep_until(due)
                try:
                    await sink.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return
                now = trio.current_time()
                self.delays.append(now - due + self.delay)  # the delay this chunk had
                if direction.count(data):
                    self.last_entry = now
            try:
                await sink.send_eof()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return

        async with trio.open_nursery() as nursery:
            nursery.start_soon(deliver)
            async with send:
                try:
                    while data := await source.receive_some(65536):
                        send.send_nowait((trio.current_time() + self.delay, bytes(data)))
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    pass


async def run_dbnet(
    nursery: trio.Nursery,
    home: Path,
    args: list[str],
    port: trio.MemorySendChannel[int] | None = None,
) -> trio.Process:
    """Start ``python -m dbnet ARGS`` with ``home`` as DBNET_HOME; the port it listens
    on (if it says) goes to ``port``; its output is kept in ``home/output.txt``."""
    env = {**os.environ, "DBNET_HOME": str(home)}
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "dbnet", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )

    async def read() -> None:
        assert process.stdout is not None
        text = ""
        told = port is None
        async with process.stdout:
            while chunk := await process.stdout.receive_some(65536):
                text += chunk.decode("utf-8", "replace")
                match = re.search(r"listening on port (\d+)", text)
                if match and not told and port is not None:
                    port.send_nowait(int(match.group(1)))
                    told = True
        (home / "output.txt").write_text(text, encoding="utf-8")

    nursery.start_soon(read)
    return process


def make_home(root: Path, name: str, seed: int) -> Path:
    home = root / name
    home.mkdir()
    key = Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (home / "identity.key").write_bytes(pem)
    os.chmod(home / "identity.key", 0o600)
    return home


@dataclass(frozen=True, slots=True)
class Figures:
    entries: int
    rolls: int
    link_only: int
    author_changes: int
    wall: float
    delay: float  # the mean delay the proxy gave, a little more than asked
    host_code: int
    join_code: int
    identical: bool
    directions: tuple[Direction, Direction]


async def play(root: Path, delay: float, turns: int, seed: int) -> Figures:
    alice, bob = make_home(root, "alice", 1), make_home(root, "bob", 2)
    host_replay, join_replay = root / "alice.dbnr", root / "bob.dbnr"
    common = ["--bot", "greedy", "--seed", str(seed), "--adjourn-after", "60"]
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            ports, port = trio.open_memory_channel[int](1)
            host = await run_dbnet(
                nursery,
                alice,
                [
                    *("host", "--port", "0", "--open", "--turns-to-win", str(turns)),
                    *("--name", "alice"),
                    *("--replay", str(host_replay), *common),
                ],
                ports,
            )
            proxy = DelayProxy(await port.receive(), delay)
            await nursery.start(proxy.run)
            joiner = await run_dbnet(
                nursery,
                bob,
                [
                    *("join", f"127.0.0.1:{proxy.port}", "--name", "bob"),
                    *("--replay", str(join_replay), *common),
                ],
            )
            host_code, join_code = await host.wait(), await joiner.wait()
            nursery.cancel_scope.cancel()
    if proxy.started is None or proxy.last_entry is None or host_code or join_code:
        outputs = [home / "output.txt" for home in (alice, bob)]
        told = "\n".join(p.read_text(encoding="utf-8") for p in outputs if p.exists())
        codes = f"exit codes {host_code}, {join_code}"
        raise SystemExit(f"the game did not complete ({codes}):\n{told}")
    records = list(load_replay(host_replay).records)
    log = GameLog.start(records[0])
    for record in records[1:]:
        log.append(record)
    authors = [entry.author for entry in log.decoded]
    link_only = sum(
        1
        for entry in log.decoded
        if isinstance(entry.body, PlayBody) and entry.body.decision is None
    )
    changes = sum(1 for before, after in itertools.pairwise(authors) if before != after)
    return Figures(
        entries=len(records),
        rolls=len(log.rolls),
        link_only=link_only,
        author_changes=changes,
        wall=proxy.last_entry - proxy.started,
        delay=sum(proxy.delays) / len(proxy.delays),
        host_code=host_code,
        join_code=join_code,
        identical=host_replay.read_bytes() == join_replay.read_bytes(),
        directions=(proxy.directions[0], proxy.directions[1]),
    )


FIRST_PROMPT = re.compile(r"^the host offers: ")
CONNECTED = re.compile(r"^connected to ")  # the game's wall time counts from here
PROMPT_ROUND_TRIPS = 4  # TCP; handshake messages 1-2; 3 with HELLO, HELLO with the OFFER
PROMPT_BASE = 2.0  # seconds: the goal is this plus the round trips
LINK_PORTS = (7301, 7302, 7303)  # the delaying forwarders' ports in the lab


@dataclass(frozen=True, slots=True)
class PathRun:
    path: str
    wall: float
    first_prompt: float
    records: list[bytes]


def lab_paths(delay: float, turns: int, seed: int) -> tuple[PathRun, PathRun, PathRun] | str:
    """The direct and the relayed game in the lab (see the module's docstring), and the
    relayed one again with hole punching (STUN on: it moves off the relay, and only its
    time to the first prompt is comparable: the punched path has no delaying
    forwarder); or why they cannot be run here."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from lab.lab import Lab  # tests/lab: the NAT lab
    from lab.players import invite_of, path_of, start_host, start_joiner
    from system import LAB, missing  # tests/system.py: what the lab needs

    from dbnet.net.invite import Candidate, Invite, PathKind

    why = missing(LAB, "the lab's games")
    if why is not None:
        return why
    game = ("--seed", str(seed), "--turns-to-win", str(turns))
    runs: list[PathRun] = []
    with Lab.open() as lab, tempfile.TemporaryDirectory() as tmp:
        relay = lab.relay()
        links = lab.public_host("links")
        host_at, joiner_at = lab.router("upnp").host(), lab.router("cone").host()

        def link(port: int, target: tuple[str, int]) -> tuple[str, int]:
            """A link with the one-way delay from ``links``:``port`` to ``target``."""
            to = f"{target[0]}:{target[1]}"
            links.agent("forward", str(port), to, "--delay", f"{delay:.6f}")
            return (links.address, port)

        relay_links = (link(LINK_PORTS[1], relay.address), link(LINK_PORTS[2], relay.address))
        for relayed, punching in ((False, False), (True, False), (True, True)):
            directory = Path(tmp) / ("punch" if punching else "relay" if relayed else "direct")
            directory.mkdir()
            stun = () if punching else ("--stun", "off")
            make_home(directory, "alice", 1)
            make_home(directory, "bob", 2)
            host_relay = relay_links[0] if relayed else None
            extra = ("--no-port-mapping", *game) if relayed else game
            host = start_host(host_at, directory, host_relay, *extra, *stun)
            invite = Invite.parse(invite_of(host))
            if relayed:
                joiner_relay = relay_links[1]
                paths: tuple[Candidate, ...] = ()
            else:
                [mapping] = [c for c in invite.direct if c.kind is PathKind.MAPPING]
                forward = link(LINK_PORTS[0], (str(mapping.address), mapping.port))
                paths = (Candidate(PathKind.MAPPING, ipaddress.ip_address(forward[0]), forward[1]),)
                joiner_relay = None
            linked = Invite(invite.fingerprint, invite.secret, paths, joiner_relay).text()
            joiner = start_joiner(
                joiner_at, directory, linked, joiner_relay, "--seed", str(seed), *stun
            )
            first = joiner.seconds_to(FIRST_PROMPT)
            code = joiner.wait(TIMEOUT)
            wall = joiner.times[-1] - joiner.started - joiner.seconds_to(CONNECTED)
            if host.wait(TIMEOUT) or code:
                raise SystemExit(f"the game did not complete:\n{host.output()}\n{joiner.output()}")
            records = list(load_replay(joiner.replay).records)
            moves = [line for line in joiner.lines if line.startswith("path: ")]
            path = moves[-1].removeprefix("path: ") if moves else path_of(joiner)
            runs.append(PathRun(path, wall, first, records))
    return runs[0], runs[1], runs[2]


def print_lab(delay: float, turns: int, seed: int) -> None:
    found = lab_paths(delay, turns, seed)
    if isinstance(found, str):
        print(f"the lab's paths: not measured here ({found})")
        return
    direct, relayed, punched = found
    print(
        f"random vs random, the same game ({len(direct.records)} entries, seed {seed}, {turns} "
        f"turns to win) in the NAT lab, {delay * 1000:g} ms one-way on each link"
    )
    same = "the same entries" if direct.records == relayed.records else "DIFFERENT entries"
    for run, links in ((direct, 1), (relayed, 2)):
        goal = PROMPT_BASE + PROMPT_ROUND_TRIPS * 2 * delay * links
        verdict = "meets" if run.first_prompt <= goal else "MISSES"
        print(
            f"  via {run.path}: {links} link(s); the game {run.wall:.2f} s from the connection "
            f"to the end; from dbnet join to the first "
            f"prompt {run.first_prompt:.2f} s ({verdict} the goal of {goal:.2f} s: "
            f"{PROMPT_BASE:g} s + {PROMPT_ROUND_TRIPS} round trips)"
        )
    ratio = relayed.wall / direct.wall
    verdict = "meets" if ratio <= 2.0 else "MISSES"
    print(
        f"  relay wall time / direct wall time: {ratio:.2f} ({verdict} the goal of at most "
        f"2.00, the relayed path's two links over the direct path's one); {same}"
    )
    print(
        f"  the relayed game again with hole punching (--stun on), which moved to "
        f"{punched.path}: from dbnet join to the first prompt {punched.first_prompt:.2f} s, "
        f"{punched.first_prompt / relayed.first_prompt:.2f} times the relayed game's"
    )


SPECTATOR_COUNTS = (0, 2, 8)
CPU_TARGET = 1.1  # the host's CPU time with 8 spectators / with none
WALL_TARGET = 1.05  # the game's wall time with 2 spectators / with none


@dataclass
class Output:
    """A process's output lines as they come."""

    lines: list[str] = field(default_factory=list)

    async def read(self, process: trio.Process, path: Path) -> None:
        assert process.stdout is not None
        pending = b""
        async with process.stdout:
            while chunk := await process.stdout.receive_some(65536):
                pending += chunk
                *done, pending = pending.split(b"\n")
                self.lines += [line.decode("utf-8", "replace") for line in done]
        path.write_text("\n".join(self.lines), encoding="utf-8")

    def count(self, pattern: str) -> int:
        return sum(1 for line in self.lines if re.search(pattern, line))


async def start(
    nursery: trio.Nursery, home: Path, args: list[str], *, nice: bool = False
) -> tuple[trio.Process, Output]:
    """``python -m dbnet ARGS`` in ``home``; with ``nice``, at the lowest CPU priority."""
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "dbnet", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "DBNET_HOME": str(home)},
        preexec_fn=(lambda: os.nice(19)) if nice else None,
    )
    output = Output()
    nursery.start_soon(output.read, process, home / "output.txt")
    return process, output


async def until(output: Output, pattern: str, count: int = 1) -> None:
    while output.count(pattern) < count:
        await trio.sleep(0.02)


@dataclass(frozen=True, slots=True)
class Watched:
    spectators: int
    wall: float  # the game, from the joiner's connection to the last entry delivered
    host_cpu: float  # the host process's user + system seconds, start to exit


async def watched_game(root: Path, delay: float, turns: int, seed: int, watchers: int) -> Watched:
    """One game through the delaying proxy with ``watchers`` spectators (see the module's
    docstring); the host's CPU time is its ``getrusage`` as a reaped child: nothing else is
    reaped while it is measured."""
    alice, bob = make_home(root, "alice", 1), make_home(root, "bob", 2)
    common = ["--bot", "greedy", "--seed", str(seed), "--adjourn-after", "60", "--plain"]
    with trio.fail_after(TIMEOUT):
        async with trio.open_nursery() as nursery:
            host, said = await start(
                nursery,
                alice,
                [
                    *("host", "--port", "0", "--open", "--address", "127.0.0.1", "--name", "alice"),
                    *("--turns-to-win", str(turns), "--spectators", str(max(watchers, 1))),
                    *("--replay", str(root / "alice.dbnr"), *common),
                ],
            )
            await until(said, r"listening on port \d+")
            port = int(next(m.group(1) for m in map(PORT_LINE.search, said.lines) if m))
            found = next(m for m in map(FINGERPRINT.search, said.lines) if m)
            spectators = []
            for k in range(watchers):
                home = root / f"watcher{k}"
                home.mkdir()
                spectators.append(
                    await start(
                        nursery,
                        home,
                        ["watch", f"127.0.0.1:{port}", "--expect", found.group(1), "--plain"],
                        nice=True,
                    )
                )
            await until(said, r"^spectator .* is watching", watchers)
            proxy = DelayProxy(port, delay)
            await nursery.start(proxy.run)
            joiner, _ = await start(
                nursery,
                bob,
                [
                    *("join", f"127.0.0.1:{proxy.port}", "--name", "bob"),
                    *("--replay", str(root / "bob.dbnr"), *common),
                ],
            )
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            host_code = await host.wait()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            codes = [host_code, await joiner.wait()]
            codes += [await process.wait() for process, _ in spectators]
            nursery.cancel_scope.cancel()
    if any(codes) or proxy.started is None or proxy.last_entry is None:
        raise SystemExit(f"the watched game did not complete (exit codes {codes}); see {root}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Watched(watchers, proxy.last_entry - proxy.started, cpu)


PORT_LINE = re.compile(r"listening on port (\d+)")
FINGERPRINT = re.compile(r"your key fingerprint is ([A-Z2-7-]+)")


def print_spectators(delay: float, turns: int, seed: int, rounds: int) -> None:
    best: dict[int, Watched] = {}
    for _ in range(rounds):
        for watchers in SPECTATOR_COUNTS:
            with tempfile.TemporaryDirectory() as tmp:
                run = trio.run(watched_game, Path(tmp), delay, turns, seed, watchers)
            kept = best.get(watchers)
            best[watchers] = Watched(
                watchers,
                min(run.wall, kept.wall) if kept else run.wall,
                min(run.host_cpu, kept.host_cpu) if kept else run.host_cpu,
            )
    print(
        f"spectators: the same game with {', '.join(map(str, SPECTATOR_COUNTS))} dbnet watch "
        f"processes on loopback (the joiner through the {delay * 1000:g} ms proxy), best of "
        f"{rounds}"
    )
    for run in best.values():
        print(
            f"  {run.spectators} spectators: wall time {run.wall:.2f} s, host CPU time "
            f"{run.host_cpu:.2f} s"
        )
    none = best[0]
    cpu = best[8].host_cpu / none.host_cpu
    wall = best[2].wall / none.wall
    print(
        f"  host CPU time with 8 spectators / with none: {cpu:.3f} "
        f"({'meets' if cpu <= CPU_TARGET else 'MISSES'} the target of at most {CPU_TARGET})"
    )
    print(
        f"  wall time with 2 spectators / with none: {wall:.3f} "
        f"({'meets' if wall <= WALL_TARGET else 'MISSES'} the target of at most {WALL_TARGET})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=25.0, help="one-way delay in ms (25)")
    parser.add_argument("--turns", type=int, default=6, help="turns to win (6: a whole game)")
    parser.add_argument("--seed", type=int, default=1, help="the bots' and the game's seed (1)")
    parser.add_argument(
        "--no-lab", action="store_true", help="only the loopback game, not the lab's paths"
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="plays of each spectator setting, best kept (2)"
    )
    parser.add_argument(
        "--no-spectators", action="store_true", help="leave out the spectators' part"
    )
    parser.add_argument(
        "--no-matrix", action="store_true", help="leave out the lab's path matrix and speed"
    )
    args = parser.parse_args()
    os.environ.setdefault("DBNET_RELAY", "off")  # outside the lab, nothing leaves loopback
    os.environ.setdefault("DBNET_PORT_MAPPING", "off")
    os.environ.setdefault("DBNET_STUN", "off")
    with tempfile.TemporaryDirectory() as tmp:
        figures = trio.run(play, Path(tmp), args.delay / 1000, args.turns, args.seed)
    hops = SETUP_HOPS + figures.author_changes
    ideal = hops * figures.delay
    ratio = figures.wall / ideal
    joiner, host = figures.directions
    entry_frames = joiner.entry_frames + host.entry_frames
    others = joiner.other_frames + host.other_frames
    verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
    print(
        f"greedy vs greedy over loopback, {args.delay:g} ms each way (delaying proxy), "
        f"seed {args.seed}, {args.turns} turns to win"
    )
    print(
        f"  exit codes: host {figures.host_code}, join {figures.join_code}; replays "
        f"{'identical' if figures.identical else 'DIFFERENT'}"
    )
    print(
        f"  {figures.entries} entries, {figures.rolls} dice rolls, {figures.link_only} entries "
        f"with only links (no decision)"
    )
    print(
        f"  frames after the handshake and HELLO: {entry_frames} carrying entries "
        f"({entry_frames / figures.entries:.2f} per entry), {others} others (the two BYEs, "
        "the two REMATCHes, PINGs, PONGs)"
    )
    print(
        f"  dice: no message of their own; {figures.link_only} entries carry only links, "
        f"{figures.link_only / max(figures.rolls, 1):.2f} per roll (the other player's link "
        "in its next entry: the one message a fair roll needs)"
    )
    print(
        f"  sequential message hops: {hops} ({SETUP_HOPS} to the OFFER, "
        f"{figures.author_changes} changes of writer)"
    )
    print(
        f"  one-way delay {figures.delay * 1000:.2f} ms on average (asked: {args.delay:g} ms; "
        "the proxy wakes a little late)"
    )
    print(
        f"  wall time {figures.wall:.2f} s; hops x one-way delay {ideal:.2f} s; "
        f"ratio {ratio:.3f} ({verdict} the target of at most {TARGET_RATIO})"
    )
    if not args.no_spectators:
        print_spectators(args.delay / 1000, args.turns, args.seed, args.rounds)
    if not args.no_lab:
        print_lab(args.delay / 1000, args.turns, args.seed)
        if not args.no_matrix:
            print_matrix(1, args.seed, args.delay / 1000)
            print_speed(args.turns, args.seed, args.delay / 1000, 2)


if __name__ == "__main__":
    main()
