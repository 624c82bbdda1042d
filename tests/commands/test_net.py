"""``dbnet host`` and ``dbnet resume`` on a port another program holds: one line that names
the port and says what to do, exit code 2, no traceback; in lines (``--plain``) and on a
terminal (where the full-screen client would otherwise start with no network behind it).
Real processes, a real socket listening on loopback. And bad identity files: one line,
exit 2."""

from __future__ import annotations

import os
import pty
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .terminal import isolated_env

TIMEOUT = 60.0


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port on which another program listens (on loopback)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def env(tmp_path: Path) -> dict[str, str]:
    return {**isolated_env(tmp_path), "DBNET_RELAY": "off", "DBNET_PORT_MAPPING": "off"}


def assert_one_line(err: str, port: int) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("dbnet host: ")
    assert f"port {port} is in use" in line
    assert "--port" in line
    assert "--port 0" in line


def test_host_on_a_port_in_use_says_so_in_one_line(tmp_path: Path, busy_port: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dbnet", "host", "--port", str(busy_port), "--plain"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=TIMEOUT,
        env=env(tmp_path),
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2, done.stderr
    assert_one_line(done.stderr, busy_port)
    assert "Traceback" not in done.stdout


def test_host_on_a_port_in_use_at_a_terminal_exits_before_the_screen(
    tmp_path: Path, busy_port: int
) -> None:
    """On a terminal ``dbnet host`` would open the full-screen client: it must not, with
    no listener behind it."""
    leader, follower = pty.openpty()
    screen = b""
    try:
        with subprocess.Popen(
            [sys.executable, "-m", "dbnet", "host", "--port", str(busy_port)],
            stdin=follower,
            stdout=follower,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env={**env(tmp_path), "TERM": "xterm"},
        ) as proc:
            os.close(follower)
            deadline = time.monotonic() + TIMEOUT
            while proc.poll() is None and time.monotonic() < deadline:
                ready, _, _ = select.select([leader], [], [], 0.2)
                if ready:
                    try:
                        screen += os.read(leader, 65536)
                    except OSError:  # the terminal's other end closed
                        break
            try:
                _, err_bytes = proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                pytest.fail(f"dbnet host kept running on a port in use: {screen[-300:]!r}")
    finally:
        os.close(leader)
    err = err_bytes.decode()
    assert proc.returncode == 2, err
    assert_one_line(err, busy_port)
    assert b"\x1b[?1049h" not in screen  # the full-screen client never started


ENV = {"DBNET_RELAY": "off", "DBNET_PORT_MAPPING": "off", "NO_COLOR": "1"}
EXIT_INPUT = 2


def dbnet(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real command, with ``home`` as its DBNET_HOME and no traffic off this machine."""
    return subprocess.run(
        [sys.executable, "-m", "dbnet", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **ENV, "DBNET_HOME": str(home)},
        timeout=60,
    )


COMMANDS = {
    "host": ("host", "--port", "0", "--plain", "--bot", "random"),
    "join": ("join", "127.0.0.1:9", "--plain", "--bot", "random"),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_folder_at_identity_key_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    home = tmp_path / "home"
    (home / "identity.key").mkdir(parents=True)
    result = dbnet(home, *COMMANDS[command])
    assert result.returncode == EXIT_INPUT, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"dbnet {command}: {home}/identity.key: the identity key is a folder, so dbnet cannot "
        "read your key from it; move it away (dbnet then creates a new identity, and your "
        "peers see a new fingerprint) or put your identity.key file there"
    ]
    assert result.stdout == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_a_dangling_symlink_at_identity_key_is_one_line_and_exit_2(
    tmp_path: Path, command: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "identity.key").symlink_to(tmp_path / "moved.key")
    result = dbnet(home, *COMMANDS[command])
    assert result.returncode == EXIT_INPUT, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(
        f"dbnet {command}: {home}/identity.key: the identity key is a symbolic link to "
        f"{tmp_path}/moved.key, which does not exist; restore that file, point the link"
    )
    assert not (tmp_path / "moved.key").exists()
