"""A one-way delay on a link, without sch_netem: ``python delay.py IF_A IF_B SECONDS``.

These kernels have no netem, so the lab delays a link in user space: the link is cut
by a small namespace whose two interfaces ``IF_A`` and ``IF_B`` this program joins,
like a bridge, holding every frame SECONDS before it passes it on, in arrival order,
both ways (``Lab.delay_wan``). It reads and writes whole Ethernet frames on raw
``AF_PACKET`` sockets, so TCP, UDP and QUIC are delayed alike, which a forwarder at
the end of a punched UDP path could not do (the punch would go around it). The lab's
links carry no segmentation offload (``gso_max_segs 1``), so every frame fits the MTU.
Prints ``ready`` once both sockets are bound.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import sys

import trio

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4  # a frame this socket's interface sent: not one to pass on
QUEUED = 10_000
TCP, UDP = 6, 17


def _sum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def checksummed(frame: bytes) -> bytes:
    """``frame`` with its TCP or UDP checksum computed: a veth leaves it to the device
    (checksum offload), and a frame read off the link and written again would carry
    the blank one."""
    ethertype = frame[12:14]
    if ethertype == b"\x08\x00" and len(frame) >= 34:
        header = (frame[14] & 0x0F) * 4
        proto, start = frame[23], 14 + header
        total = struct.unpack("!H", frame[16:18])[0]
        end = 14 + total
        pseudo = frame[26:34] + struct.pack("!BBH", 0, proto, end - start)
    elif ethertype == b"\x86\xdd" and len(frame) >= 54:
        proto, start = frame[20], 54
        end = start + struct.unpack("!H", frame[18:20])[0]
        pseudo = frame[22:54] + struct.pack("!IxxxB", end - start, proto)
    else:
        return frame
    offset = {TCP: 16, UDP: 6}.get(proto)
    if offset is None or end > len(frame) or end - start < offset + 2:
        return frame
    segment = bytearray(frame[start:end])
    segment[offset : offset + 2] = b"\0\0"
    value = 0xFFFF - _sum(pseudo + bytes(segment))
    if proto == UDP and value == 0:
        value = 0xFFFF
    segment[offset : offset + 2] = struct.pack("!H", value)
    return frame[:start] + bytes(segment) + frame[end:]


async def _pass(
    source: trio.socket.SocketType, sink: trio.socket.SocketType, seconds: float
) -> None:
    send, receive = trio.open_memory_channel[tuple[float, bytes]](QUEUED)

    async def writer() -> None:
        async for due, frame in receive:
            await trio.sleep_until(due)
            with contextlib.suppress(OSError):  # a frame the link cannot take: lost
                await sink.send(frame)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(writer)
        while True:
            frame, address = await source.recvfrom(65536)
            if address[2] == PACKET_OUTGOING:
                continue
            with contextlib.suppress(trio.WouldBlock):  # a full queue drops, as a router's
                send.send_nowait((trio.current_time() + seconds, checksummed(frame)))


async def run(a: str, b: str, seconds: float) -> None:
    sockets = []
    for name in (a, b):
        sock = trio.socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        await sock.bind((name, 0))
        sockets.append(sock)
    print("ready", flush=True)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_pass, sockets[0], sockets[1], seconds)
        nursery.start_soon(_pass, sockets[1], sockets[0], seconds)


if __name__ == "__main__":
    trio.run(run, sys.argv[1], sys.argv[2], float(sys.argv[3]))
