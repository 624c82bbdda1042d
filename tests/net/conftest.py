"""Fixtures for the network tests: the real magic-wormhole transit relay on loopback."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

LOOPBACK = "127.0.0.1"
RELAY_STARTED = re.compile(rb"ServerFactory starting on (\d+)")
RELAY_START_LIMIT = 30.0  # seconds


def start_relay(directory: Path, interface: str = LOOPBACK) -> tuple[subprocess.Popen[bytes], int]:
    """The unchanged transit relay (``twist transitrelay``) on a free port of
    ``interface``, logging to ``directory``/relay.log; its process and port."""
    log = directory / "relay.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "twisted",
                "transitrelay",
                f"--port=tcp:0:interface={interface}",
            ],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + RELAY_START_LIMIT
    while not (found := RELAY_STARTED.search(log.read_bytes())):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait(timeout=10)
            pytest.fail(f"the transit relay did not start: {log.read_bytes()[-2000:]!r}")
        time.sleep(0.05)
    return process, int(found.group(1))


@pytest.fixture(scope="module")
def real_relay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The real transit relay on 127.0.0.1 for the module's tests; killed at its end."""
    process, port = start_relay(tmp_path_factory.mktemp("relay"))
    try:
        yield LOOPBACK, port
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two players' homes (DBNET_HOME) with fixed identity keys."""
    root = tmp_path_factory.mktemp("homes")
    for who, seed in (("alice", 1), ("bob", 2)):
        home = root / who
        home.mkdir()
        key = Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        path = home / "identity.key"
        path.write_bytes(pem)
        os.chmod(path, 0o600)
    return root


STUN_START_LIMIT = 30.0  # seconds


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def free_udp_port(host: str = LOOPBACK) -> int:
    """A UDP port of ``host`` that nothing listens on (free when asked)."""
    with socket.socket(_family(host), socket.SOCK_DGRAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def stun_answers(host: str, port: int) -> bool:
    """Whether a STUN server answers a binding request on ``host``:``port``."""
    request = b"\x00\x01\x00\x00\x21\x12\xa4\x42" + bytes(12)
    with socket.socket(_family(host), socket.SOCK_DGRAM) as probe:
        probe.settimeout(0.2)
        probe.sendto(request, (host, port))
        try:
            return len(probe.recv(2048)) >= 20
        except OSError:
            return False


def start_stun_server(directory: Path, host: str) -> tuple[subprocess.Popen[bytes], int]:
    """coturn's ``turnserver`` (the lab's STUN server, a Debian package) answering STUN
    only, on a free UDP port of ``host``; its process and port."""
    turnserver = shutil.which("turnserver") or "/usr/bin/turnserver"
    port = free_udp_port(host)
    log = directory / "turnserver.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                turnserver,
                "-n",  # no configuration file
                *("--listening-ip", host, "--listening-port", str(port)),
                *("--stun-only", "--no-cli", "--no-tls", "--no-dtls"),
                *("--log-file", "stdout", "--simple-log"),
                f"--pidfile={directory / 'turnserver.pid'}",
            ],
            cwd=directory,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + STUN_START_LIMIT
    while not stun_answers(host, port):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait(timeout=10)
            pytest.fail(f"turnserver did not start: {log.read_bytes()[-2000:]!r}")
    return process, port


@pytest.fixture(scope="module")
def stun_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A STUN server (coturn) on 127.0.0.1 for the module's tests; killed at its end."""
    process, port = start_stun_server(tmp_path_factory.mktemp("stun"), LOOPBACK)
    try:
        yield LOOPBACK, port
    finally:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def stun_server6(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A STUN server (coturn) on ::1 for the module's tests; killed at its end."""
    process, port = start_stun_server(tmp_path_factory.mktemp("stun6"), "::1")
    try:
        yield "::1", port
    finally:
        process.kill()
        process.wait(timeout=10)
