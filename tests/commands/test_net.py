"""``dbnet host``, ``join`` and ``resume`` as real processes: bad input gives one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
