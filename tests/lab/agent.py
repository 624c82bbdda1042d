"""Small programs the lab runs inside its namespaces: ``python agent.py PROGRAM ARGS``.

Servers print ``ready`` once they listen, then serve until killed; clients print what
they saw and exit 0 on success.

- ``whoami PORT``: answer every UDP datagram and every TCP connection on PORT with the
  address the request came from (``IP PORT``).
- ``probe LOCAL_PORT HOST:PORT...``: from one UDP socket bound to LOCAL_PORT, ask each
  ``whoami`` in turn; print the address each saw, one line each.
- ``listen PORT [TEXT]``: answer every TCP connection with TEXT (default ``hello``).
- ``connect HOST PORT [SECONDS]``: connect over TCP, print what the other side sends.
- ``forward PORT HOST:PORT [--record FILE] [--delay SECONDS]``: a TCP forwarder; with
  ``--record`` every byte it carries is appended to FILE, with ``--delay`` each byte is
  held that long in each direction (a one-way delay, without sch_netem).
- ``relay HOST:PORT TOKEN SIDE TEXT``: the transit relay's client handshake
  (``please relay TOKEN for side SIDE``), then send TEXT and print the relay's ``ok``
  and what comes back from the other side.
- ``natpmp GATEWAY PORT [LIFETIME]``: a NAT-PMP TCP mapping request for PORT; prints
  ``EXTERNAL_PORT LIFETIME`` and the gateway's public address.
- ``portmap PORT [--upnp-only]``: listen on PORT (as ``listen``) inside
  ``dbnet.net.portmap.port_mapping``; print ``mapping METHOD ADDRESS PORT LIFETIME`` (or
  ``mapping none``) and every line it says (``say: ...``), then wait for SIGINT.
- ``upnp PORT``: a UPnP IGD TCP mapping for PORT through miniupnpc; prints the external
  address and port.
- ``gateway ADDRESS EXTERNAL [--natpmp]``: a PCP gateway on ADDRESS:5351 (with
  ``--natpmp``, a NAT-PMP-only one: PCP gets "unsupported version") that grants every
  mapping asked, under the external address EXTERNAL whatever it is (a hostile router).
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys

import trio


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


async def whoami(port: int) -> None:
    udp = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await udp.bind(("0.0.0.0", port))

    async def answer_udp() -> None:
        while True:
            _, peer = await udp.recvfrom(2048)
            await udp.sendto(f"{peer[0]} {peer[1]}".encode(), peer)

    async def answer_tcp(stream: trio.SocketStream) -> None:
        peer = stream.socket.getpeername()
        async with stream:
            await stream.send_all(f"{peer[0]} {peer[1]}\n".encode())

    listeners = await trio.open_tcp_listeners(port)
    print("ready", flush=True)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(answer_udp)
        nursery.start_soon(trio.serve_listeners, answer_tcp, listeners)


async def probe(local_port: int, targets: list[str]) -> None:
    udp = trio.socket.socket(trio.socket.AF_INET, trio.socket.SOCK_DGRAM)
    await udp.bind(("0.0.0.0", local_port))
    for target in targets:
        with trio.fail_after(5):
            while True:
                await udp.sendto(b"?", _split(target))
                with trio.move_on_after(0.5):
                    data, _ = await udp.recvfrom(2048)
                    break
        print(data.decode(), flush=True)


async def listen(port: int, text: str) -> None:
    async def answer(stream: trio.SocketStream) -> None:
        async with stream:
            await stream.send_all(text.encode() + b"\n")

    listeners = await trio.open_tcp_listeners(port)
    print("ready", flush=True)
    await trio.serve_listeners(answer, listeners)


async def connect(host: str, port: int, seconds: float) -> None:
    with trio.fail_after(seconds):
        stream = await trio.open_tcp_stream(host, port)
        async with stream:
            data = await stream.receive_some(4096)
    print(data.decode().strip(), flush=True)


async def forward(port: int, target: str, record: str | None, delay: float) -> None:
    log = open(record, "ab", buffering=0) if record else None  # noqa: SIM115

    async def pipe(source: trio.SocketStream, sink: trio.SocketStream) -> None:
        send, receive = trio.open_memory_channel[tuple[float, bytes]](1000)

        async def writer() -> None:
            async for due, data in receive:
                await trio.sleep_until(due)
                await sink.send_all(data)
            await sink.send_eof()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(writer)
            async with send:
                while data := await source.receive_some(65536):
                    if log is not None:
                        log.write(data)
                    await send.send((trio.current_time() + delay, data))

    async def handle(client: trio.SocketStream) -> None:
        host, target_port = _split(target)
        try:
            server = await trio.open_tcp_stream(host, target_port)
        except OSError:
            await client.aclose()
            return
        async with client, server:
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(pipe, client, server)
                    nursery.start_soon(pipe, server, client)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass

    listeners = await trio.open_tcp_listeners(port)
    print("ready", flush=True)
    await trio.serve_listeners(handle, listeners)


async def relay(target: str, token: str, side: str, text: str) -> None:
    with trio.fail_after(10):
        stream = await trio.open_tcp_stream(*_split(target))
        async with stream:
            await stream.send_all(f"please relay {token} for side {side}\n".encode())
            answer = b""
            while not answer.endswith(b"\n"):
                answer += await stream.receive_some(1)
            print(answer.decode().strip(), flush=True)
            await stream.send_all(text.encode())
            received = b""
            while len(received) < len(text):
                chunk = await stream.receive_some(4096)
                if not chunk:
                    break
                received += chunk
            print(received.decode(), flush=True)


def natpmp(gateway: str, port: int, lifetime: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.settimeout(1)
        udp.connect((gateway, 5351))
        udp.send(struct.pack("!BBH", 0, 0, 0))  # the public address
        reply = udp.recv(64)
        version, opcode, result, _, address = struct.unpack("!BBHI4s", reply[:12])
        assert (version, opcode, result) == (0, 128, 0), reply
        udp.send(struct.pack("!BBHHHI", 0, 2, 0, port, port, lifetime))  # TCP
        reply = udp.recv(64)
        version, opcode, result, _, internal, external, granted = struct.unpack(
            "!BBHIHHI", reply[:16]
        )
        assert (version, opcode, result, internal) == (0, 130, 0, port), reply
    print(external, granted, ipaddress.IPv4Address(address), flush=True)


def upnp(port: int) -> None:
    import miniupnpc

    client = miniupnpc.UPnP()
    client.discoverdelay = 1000
    assert client.discover() > 0, "no UPnP device"
    client.selectigd()
    assert client.addportmapping(port, "TCP", client.lanaddr, port, "dbnet lab", "")
    print(client.externalipaddress(), port, flush=True)


async def portmap(port: int, upnp_only: bool) -> None:
    from dbnet.net.portmap import port_mapping

    async def answer(stream: trio.SocketStream) -> None:
        async with stream:
            await stream.send_all(b"hello\n")

    def say(line: str) -> None:
        print(f"say: {line}", flush=True)

    listeners = await trio.open_tcp_listeners(port)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, answer, listeners)
        async with port_mapping(port, say=say, pmp=not upnp_only) as mapping:
            if mapping is None:
                print("mapping none", flush=True)
            else:
                m = mapping
                print(f"mapping {m.method} {m} {m.lifetime}", flush=True)
            await trio.sleep_forever()


def _gateway_replies(data: bytes, external: str, natpmp_only: bool) -> list[bytes]:
    address = ipaddress.ip_address(external)
    if data[0] == 2 and not natpmp_only and len(data) >= 60 and data[1] == 1:  # PCP MAP
        lifetime = struct.unpack_from("!I", data, 4)[0]
        nonce, protocol = data[24:36], data[36]
        internal, suggested = struct.unpack_from("!HH", data, 40)
        mapped = address if address.version == 6 else ipaddress.IPv6Address(f"::ffff:{address}")
        header = struct.pack("!BBBBII12x", 2, 0x81, 0, 0, lifetime, 1)
        body = struct.pack(
            "!12sB3xHH16s", nonce, protocol, internal, suggested or 9000, mapped.packed
        )
        return [header + body]
    if data[0] != 0:  # another version: NAT-PMP's "unsupported version"
        return [struct.pack("!BBHI", 0, 128 + data[1], 1, 1)]
    if data[1] == 0 and address.version == 4:  # the public address
        return [struct.pack("!BBHI4s", 0, 128, 0, 1, address.packed)]
    if data[1] in (1, 2) and len(data) == 12:
        internal, suggested, lifetime = struct.unpack_from("!HHI", data, 4)
        reply = (0, 128 + data[1], 0, 1, internal, suggested or 9000, lifetime)
        return [struct.pack("!BBHIHHI", *reply)]
    return []


def gateway(address: str, external: str, natpmp_only: bool) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.bind((address, 5351))
        print("ready", flush=True)
        while True:
            data, peer = udp.recvfrom(2048)
            for reply in _gateway_replies(data, external, natpmp_only):
                udp.sendto(reply, peer)


def main(argv: list[str]) -> None:
    program, *args = argv
    if program == "whoami":
        trio.run(whoami, int(args[0]))
    elif program == "probe":
        trio.run(probe, int(args[0]), args[1:])
    elif program == "listen":
        trio.run(listen, int(args[0]), args[1] if len(args) > 1 else "hello")
    elif program == "connect":
        trio.run(connect, args[0], int(args[1]), float(args[2]) if len(args) > 2 else 5.0)
    elif program == "forward":
        record = args[args.index("--record") + 1] if "--record" in args else None
        delay = float(args[args.index("--delay") + 1]) if "--delay" in args else 0.0
        trio.run(forward, int(args[0]), args[1], record, delay)
    elif program == "relay":
        trio.run(relay, args[0], args[1], args[2], args[3])
    elif program == "natpmp":
        natpmp(args[0], int(args[1]), int(args[2]) if len(args) > 2 else 3600)
    elif program == "portmap":
        try:
            trio.run(portmap, int(args[0]), "--upnp-only" in args)
        except* KeyboardInterrupt:
            print("interrupted", flush=True)
    elif program == "upnp":
        upnp(int(args[0]))
    elif program == "gateway":
        gateway(args[0], args[1], "--natpmp" in args)
    else:
        raise SystemExit(f"unknown program {program!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
