"""dbnet's channel over QUIC (``net/quic.py``) against the same channel over TCP, on
loopback: the round trip of a small message and the throughput of large ones.

Each transport carries the real channel (``net/stream.py``: dbnet's handshake, then
encrypted frames) between two identities in one process. The round trip is one
entry-sized message sent and echoed, ``--round-trips`` times: the median and the 90th
percentile, and the CPU time of one. The throughput is ``--megabytes`` MB sent in the
largest frames the channel allows and acknowledged by one message at the end, the best
of ``--repeats`` runs, with the CPU time a megabyte took (both ends run in this one
process, so on loopback the CPU is the bound). Prints both transports and the ratio
QUIC/TCP. Wall time on a shared machine: read the CPU figures and the ratios, and run
it more than once.

    python benchmarks/quic.py [--round-trips N] [--megabytes N] [--repeats N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import trio

from dbnet.net.framing import MAX_PLAINTEXT
from dbnet.net.quic import open_quic_endpoint
from dbnet.net.stream import SecureStream, open_channel
from dbnet.protocol.identity import Identity

ALICE = Identity.from_private_bytes(bytes(range(32)))
BOB = Identity.from_private_bytes(bytes(range(32, 64)))
ENTRY = bytes(300)  # about one signed entry
Pair = Callable[[], AbstractAsyncContextManager[tuple[SecureStream, SecureStream]]]


async def _channels(
    a_stream: trio.abc.Stream, b_stream: trio.abc.Stream
) -> tuple[SecureStream, SecureStream]:
    async with trio.open_nursery() as nursery:
        answered: list[SecureStream] = []

        async def answer() -> None:
            answered.append(await open_channel(b_stream, BOB, initiator=False))

        nursery.start_soon(answer)
        opened = await open_channel(a_stream, ALICE, initiator=True)
    return opened, answered[0]


@asynccontextmanager
async def tcp_pair() -> AsyncIterator[tuple[SecureStream, SecureStream]]:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    async with listeners[0]:
        client = await trio.open_tcp_stream("127.0.0.1", port)
        server = await listeners[0].accept()
    a, b = await _channels(client, server)
    async with a, b:
        yield a, b


@asynccontextmanager
async def quic_pair() -> AsyncIterator[tuple[SecureStream, SecureStream]]:
    socks = [trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM) for _ in "ab"]
    for sock in socks:
        await sock.bind(("127.0.0.1", 0))
    with socks[0], socks[1]:
        async with (
            open_quic_endpoint(socks[0], accept=True) as server,
            open_quic_endpoint(socks[1]) as client,
        ):
            async with trio.open_nursery() as nursery:
                accepted: list[trio.abc.Stream] = []

                async def accept() -> None:
                    accepted.append(await server.accept())

                nursery.start_soon(accept)
                near = await client.connect(server.address)
            a, b = await _channels(near, accepted[0])
            async with a, b:
                yield a, b


async def round_trips(pair: Pair, count: int) -> tuple[list[float], float]:
    """Each round trip's wall time, and the CPU microseconds one took on average."""
    times: list[float] = []
    async with pair() as (a, b), trio.open_nursery() as nursery:

        async def echo() -> None:
            while True:
                await b.send(await b.receive())

        nursery.start_soon(echo)
        cpu = time.process_time()
        for _ in range(count):
            start = time.perf_counter()
            await a.send(ENTRY)
            await a.receive()
            times.append(time.perf_counter() - start)
        cpu = time.process_time() - cpu
        nursery.cancel_scope.cancel()
    return times, cpu * 1_000_000 / count


async def throughput(pair: Pair, megabytes: int) -> tuple[float, float]:
    """Megabytes a second, sender's first byte to the receiver's acknowledgement, and
    this process's CPU milliseconds a megabyte (both sides run in it)."""
    payload = bytes(MAX_PLAINTEXT)
    count = megabytes * 1_000_000 // len(payload)
    async with pair() as (a, b), trio.open_nursery() as nursery:

        async def receive() -> None:
            for _ in range(count):
                await b.receive()
            await b.send(b"done")

        nursery.start_soon(receive)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            await a.send(payload)
        await a.receive()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    sent = count * len(payload) / 1_000_000
    return sent / elapsed, cpu * 1000 / sent


async def measure(args: argparse.Namespace) -> None:
    results: dict[str, tuple[float, float, float, float]] = {}
    for name, pair in (("TCP", tcp_pair), ("QUIC", quic_pair)):
        times, rt_cpu = await round_trips(pair, args.round_trips)
        median = statistics.median(times) * 1000
        p90 = statistics.quantiles(times, n=10)[-1] * 1000
        best, cpu = max([await throughput(pair, args.megabytes) for _ in range(args.repeats)])
        results[name] = (median, p90, best, cpu)
        print(
            f"{name:4}  round trip median {median:.3f} ms, 90th percentile {p90:.3f} ms "
            f"({rt_cpu:.0f} us of CPU); "
            f"throughput {best:.1f} MB/s ({cpu:.0f} ms of CPU a MB)"
        )
    tcp, quic = results["TCP"], results["QUIC"]
    print(f"QUIC/TCP  round trip {quic[0] / tcp[0]:.2f}x, throughput {quic[2] / tcp[2]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=500)
    parser.add_argument("--megabytes", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    trio.run(measure, parser.parse_args())


if __name__ == "__main__":
    main()
